"""The package layers (docs/architecture.md): cli -> report -> core; channels and
rules -> core through core's public names; core imports no higher layer."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "channels", "rules", "rulesets", "report", "cli")
# What each package may import of citeledger (beyond itself).
ALLOWED = {
    "core": set(),
    "channels": {"core"},
    "rules": {"core"},
    "rulesets": set(),
    "report": {"core"},
    "cli": {"core", "report", "rules"},
}


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
            if parts[0] != "citeledger" or len(parts) < 2 or parts[1] == package:
                continue
            if parts[1] not in ALLOWED[package]:
                wrong.append(f"{path.relative_to(REPO)}:{line}: imports {module}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("package", ["channels", "rules"])
def test_plugins_and_rules_use_core_through_its_public_names(package):
    wrong = [
        f"{path.relative_to(REPO)}:{line}: imports {module}"
        for path in sources(package)
        for line, module in imports(path)
        if module.startswith("citeledger.core.")
    ]
    assert not wrong, "\n".join(wrong)


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
