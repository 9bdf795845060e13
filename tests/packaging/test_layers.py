"""The package layers (docs/architecture.md): cli -> report -> core -> harness -> infra;
readers, sources, channels, metrics and rules -> core through core's public names; core
imports no higher layer, infra nothing of citeledger."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
PACKAGES = ("infra", "harness", "core", "corpus", "readers", "channels", "sources", "metrics", "rules", "rulesets", "report",
            "engine", "cli", "api")
# What each package may import of citeledger (beyond itself).
ALLOWED = {
    "infra": set(),
    "harness": {"core", "infra"},
    "core": {"infra", "harness"},  # the lower layers whose names core re-exports
    "corpus": {"core", "infra", "harness"},  # discovery (the pass layout's skips) and the pool
    "readers": {"core"},
    "channels": {"core"},
    "sources": {"core"},
    "metrics": {"core"},
    "rules": {"core"},
    "rulesets": set(),
    "report": {"core"},
    "cli": {"core", "corpus", "report", "rules", "harness", "engine"},
    # The library under both faces (engine/): one reading and one assembly of a session.
    "engine": {"core", "corpus", "report", "rules", "harness"},
    # The Python API (api/ is the package `citeledger`): the engine the command line runs too,
    # never the command line itself.
    "api": {"core", "corpus", "report", "rules", "engine"},
}
PENDING: set = set()  # (file, module) pairs allowed while a move is under way: none


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in a file, relative ones resolved."""
    package = ".".join(("citeledger",) + path.relative_to(REPO).parent.parts)
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append((node.lineno, module))
    return found


def sources(package: str):
    return sorted((REPO / package).rglob("*.py"))


@pytest.mark.parametrize("package", PACKAGES)
def test_a_package_imports_only_the_layers_below_it(package):
    wrong = []
    for path in sources(package):
        for line, module in imports(path):
            parts = module.split(".")
            if len(parts) > 1 and parts[1].startswith("_"):  # citeledger._score: a module of api/
                parts[1] = "api"
            if parts[0] != "citeledger" or len(parts) < 2 or parts[1] == package:
                continue
            if parts[1] not in ALLOWED[package] and (str(path.relative_to(REPO)), module) not in PENDING:
                wrong.append(f"{path.relative_to(REPO)}:{line}: imports {module}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("package", ["readers", "channels", "sources", "metrics", "rules", "harness"])
def test_plugins_and_rules_use_core_through_its_public_names(package):
    wrong = [
        f"{path.relative_to(REPO)}:{line}: imports {module}"
        for path in sources(package)
        for line, module in imports(path)
        if module.startswith("citeledger.core.")
    ]
    assert not wrong, "\n".join(wrong)


HIGHER = ("readers", "sources", "channels", "metrics", "rules", "report", "cli")
_HIGHER = re.compile(rf"\bciteledger\.({'|'.join(HIGHER)})\b(?!\w)")


def higher_names(path: Path) -> list[str]:
    """Where a module names a higher package in a string (docstrings aside)."""
    tree = ast.parse(path.read_text("utf-8"))
    docstrings = _docstrings(tree)
    return [
        f"{path.name}:{node.lineno}: names {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in docstrings and _HIGHER.search(node.value)
    ]


@pytest.mark.parametrize("package", ["infra", "harness", "core"])
def test_lower_layers_name_no_higher_package_in_a_string(package):
    """Not even by a string (importlib's name, an entry point's value): core re-exports
    infra and harness, and names none of the packages built on it."""
    wrong = [w for path in sources(package) for w in higher_names(path)]
    assert not wrong, "\n".join(wrong)


def test_the_string_check_sees_a_violation(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text('"""Docs may say citeledger.readers."""\nA = "citeledger.readers.codex"\nB = "citeledger.rulesets"\n')
    assert higher_names(probe) == ["probe.py:2: names 'citeledger.readers.codex'"]


def test_the_check_sees_a_violation():
    """The scanner resolves relative imports: a core module importing `..report` is caught."""
    probe = REPO / "core" / "sections" / "_probe_for_test.py"
    probe.write_text("from ...report import text\nfrom citeledger.cli import main\n")
    try:
        found = [m for _, m in imports(probe)]
    finally:
        probe.unlink()
    assert found == ["citeledger.report", "citeledger.cli"]


def test_core_public_names_resolve():
    import citeledger.core as core

    missing = [name for name in core.__all__ if not hasattr(core, name)]
    assert not missing


# ---------------------------------------------------------------- the layers at run time
#
# Built-in channels and readers are plugins like a third party's: this
# distribution's entry points name them (pyproject.toml). Core and report may
# reach them only through the registry, never by name.

# Built-in plugin names that are also ordinary data keys ("path" is a JSON key
# and a record field everywhere): only flagged where they decide something.
# The codegraph_explore source is named after the tool whose name core's
# readers match (the reference's tool name, a data word there); `read` is a
# shell intent's kind (harness/shell.py), `grep`/`glob` are words of data too;
# `run` (the run-basics metric) is also one run of an arm in the harness's layout;
# and so are the format names (`plot`: a sensitivity record's key naming its images).
DATA_WORDS = {"path", "codegraph_explore", "read", "grep", "glob", "run", "text", "json", "csv", "html", "plot"}


def builtin_plugins() -> dict[str, str]:
    """name -> module of every plugin this distribution's entry points register."""
    import importlib.metadata

    from citeledger.core.plugins import GROUP

    found = {ep.name: ep.value for ep in importlib.metadata.distribution("citeledger").entry_points if ep.group == GROUP}
    assert {"path", "symbol", "read_after", "claude-stream", "claude-interactive"} <= set(found)
    return found


def plugin_file(module: str) -> Path:
    parts = module.split(".")[1:]  # citeledger.<package>...
    return REPO.joinpath(*parts).with_suffix(".py")


def _docstrings(tree) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


# Calls whose argument is a channel or reader name chosen by the caller.
CHOOSING = {"channels", "readers", "options_for", "evidence_label", "evidence_spans", "occurrences"}


def _deciding(tree) -> set[int]:
    """Constants that decide: compared with (==, in, ...), used as a subscript of a
    call's result (`channels()["path"]`), given to a call that picks a plugin by
    name (`options_for("path")`), or returned."""
    out = set()

    def consts(node):
        if isinstance(node, ast.Constant):
            yield node
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            for e in node.elts:
                yield from consts(e)
        elif isinstance(node, ast.IfExp):  # `x if c else "path"`: a fallback name
            yield from consts(node.body)
            yield from consts(node.orelse)
        elif isinstance(node, ast.BoolOp):  # `x or "path"`
            for v in node.values:
                yield from consts(v)

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                out.update(id(c) for c in consts(side))
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call):
            out.update(id(c) for c in consts(node.slice))
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in CHOOSING:
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                out.update(id(c) for c in consts(arg))
        elif isinstance(node, ast.Return) and node.value is not None:
            out.update(id(c) for c in consts(node.value))
    return out


def named_plugins(path: Path, plugins: dict[str, str]) -> list[str]:
    """Where a module names a built-in plugin: by module (import or string) or by name."""
    tree = ast.parse(path.read_text("utf-8"))
    modules = set(plugins.values())
    wrong = []
    for line, module in imports(path):
        if module in modules or module.split(".")[:2] == ["citeledger", "channels"]:
            wrong.append(f"{path.relative_to(REPO)}:{line}: imports {module}")
    docstrings, deciding = _docstrings(tree), _deciding(tree)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in docstrings:
            continue
        text = node.value
        if any(m in text for m in modules) or "citeledger.channels." in text:
            wrong.append(f"{path.relative_to(REPO)}:{node.lineno}: names the module in {text!r}")
        elif text in plugins and (text not in DATA_WORDS or id(node) in deciding):
            wrong.append(f"{path.relative_to(REPO)}:{node.lineno}: names the plugin {text!r}")
    return wrong


def layer_sources() -> list[Path]:
    """Every module of infra/, harness/, core/ and report/ but the built-in formats (report/formats/:
    plugins, registered by entry point; no other built-in plugin lives there)."""
    formats = REPO / "report" / "formats"
    found = [p for package in ("infra", "harness", "core", "report") for p in sources(package)
             if formats not in p.parents]
    assert not {plugin_file(m) for m in builtin_plugins().values()} & set(found)
    return found


def test_core_and_report_name_no_builtin_plugin():
    plugins = builtin_plugins()
    wrong = [w for path in layer_sources() for w in named_plugins(path, plugins)]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("source, expected", [
    ('if verdict.channel == "path":\n    pass\n', "names the plugin 'path'"),
    ('x = channels()["path"]\n', "names the plugin 'path'"),
    ('o = ruleset.options_for("path")\n', "names the plugin 'path'"),
    ('def f():\n    return "path"\n', "names the plugin 'path'"),
    ('def f(s):\n    return s.channels[0] if s.channels else "path"\n', "names the plugin 'path'"),
    ('ORDER = ("claude-interactive", "claude-stream")\n', "names the plugin 'claude-interactive'"),
    ('LIST = ["citeledger.channels.symbol"]\n', "names the module"),
    ("from citeledger.readers.claude_stream import segment\n", "imports citeledger.readers.claude_stream"),
    ("import citeledger.channels.read_after\n", "imports citeledger.channels.read_after"),
])
def test_the_name_check_sees_a_violation(source, expected):
    probe = REPO / "report" / "_probe_for_test.py"
    probe.write_text(source)
    try:
        found = named_plugins(probe, builtin_plugins())
    finally:
        probe.unlink()
    assert any(expected in w for w in found), found


def test_the_name_check_lets_data_keys_be():
    probe = REPO / "report" / "_probe_for_test.py"
    probe.write_text('"""Shows the path and symbol channels."""\nrow = {"path": f.path}\nname = data["path"]\n')
    try:
        assert named_plugins(probe, builtin_plugins()) == []
    finally:
        probe.unlink()


def test_importing_core_and_report_loads_no_plugin_and_no_higher_layer():
    """Every module of core and report imported: no channel, no cli, no rules module comes with them."""
    import subprocess
    import sys

    modules = [
        ".".join(("citeledger",) + p.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
        for p in layer_sources()
    ]
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "print('\\n'.join(sorted(m for m in sys.modules if m.split('.')[:2] in "
        "(['citeledger', 'channels'], ['citeledger', 'cli'], ['citeledger', 'rules']))))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    assert len(modules) > 30  # the check imported the layers, not nothing
    assert run.stdout.strip() == ""


def test_builtins_come_from_the_entry_points():
    """The registry holds exactly what the entry points name (plus nothing core lists itself)."""
    from citeledger.core import plugins

    names = builtin_plugins()
    assert not hasattr(plugins, "DEFAULT_PLUGINS")
    plugins.load_all()
    registered = {plugins.manager().get_name(p) for p in plugins.manager().get_plugins()}
    assert set(names) <= registered


# What a command still takes from another command: nothing (issue 40: check's corpus keys run
# engine/sweep.py, its maxDrop takes the group rows from engine/compare.py).
COMMAND_PENDING: set = set()


def command_imports() -> list[str]:
    """`file:line: imports module` for every import of one command's module by another's."""
    from citeledger.cli import COMMANDS

    wrong = []
    for name in COMMANDS:
        path = REPO / "cli" / "commands" / f"{name}.py"
        for line, module in imports(path):
            other = module.split(".")[3] if module.startswith("citeledger.cli.commands.") else None
            if other in COMMANDS and other != name and (str(path.relative_to(REPO)), module) not in COMMAND_PENDING:
                wrong.append(f"{path.relative_to(REPO)}:{line}: imports {module}")
    return wrong


def test_no_command_imports_another_but_the_pending_ones():
    assert not command_imports(), "\n".join(command_imports())


def test_the_pending_command_imports_are_still_there():
    # A pending pair that no longer exists is taken off the list (the list only shrinks).
    seen = {(str(p.relative_to(REPO)), m) for p in [REPO / "cli" / "commands" / "check.py"] for _, m in imports(p)}
    assert COMMAND_PENDING <= seen
