"""No function of a product package is longer than 60 lines (the project's rule).

Every module of core, infra, harness, readers, sources, channels, rules,
report and cli is parsed with `ast`; a function's length runs from its `def`
line (decorators not counted) to its last line, docstring and comments included.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "infra", "harness", "readers", "sources", "channels", "metrics", "rules", "report", "corpus", "engine",
            "cli", "api")
LIMIT = 60


def too_long(source: str, name: str) -> list[str]:
    """`file:line: function (N lines)` for each function of `source` over LIMIT lines."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            if length > LIMIT:
                found.append(f"{name}:{node.lineno}: {node.name} ({length} lines)")
    return found


def test_no_product_function_is_longer_than_60_lines():
    modules = [p for package in PACKAGES for p in sorted((REPO / package).rglob("*.py"))]
    assert len(modules) > 100  # the scan found the packages
    wrong = [w for path in modules for w in too_long(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))]
    assert not wrong, "\n".join(wrong)


def test_the_check_counts_a_function_from_def_to_its_last_line():
    body = "".join(f"    x{i} = {i}\n" for i in range(LIMIT - 1))
    assert too_long("def fits():\n" + body, "m.py") == []
    assert too_long("class C:\n    def over(self):\n" + body.replace("    ", "        ") + "        return 1\n",
                    "m.py") == [f"m.py:2: over ({LIMIT + 1} lines)"]
