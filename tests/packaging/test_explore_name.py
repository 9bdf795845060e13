"""The explore tool's name is written once: the codegraph_explore source's `tool` default.

Only that source's package and the shipped rulesets name it; the reference's
output text names it in one constant of the text format (docs/decisions.md,
"The explore tool is an ordinary source's options"). Everything else asks the
ruleset's explore source (core.source.explore_tool) or is given the tool.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
PRODUCT = ("infra", "harness", "core", "corpus", "engine", "readers", "channels", "sources", "metrics", "rules", "rulesets", "report",
           "cli", "api")
NAME = "codegraph_explore"
# The one output constant: the reference prints the tool's name in its messages.
OUTPUT_TEXT = ("report/text.py", 'TOOL_NAME = "codegraph_explore"')


def allowed(path: Path) -> bool:
    relative = path.relative_to(REPO)
    return relative.parts[:2] == ("sources", "codegraph_explore") or (
        relative.parts[0] == "rulesets" and relative.suffix == ".yaml")


def product_files():
    for package in PRODUCT:
        for path in sorted((REPO / package).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".lark", ".yaml") and "__pycache__" not in path.parts:
                yield path


def test_only_the_explore_source_and_the_rulesets_name_the_explore_tool():
    wrong = []
    for path in product_files():
        if allowed(path):
            continue
        relative = str(path.relative_to(REPO))
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if NAME in line and (relative, line.strip()) != OUTPUT_TEXT:
                wrong.append(f"{relative}:{number}: {line.strip()}")
    assert not wrong, "\n".join(wrong)


def test_the_scan_sees_the_places_allowed_to_name_it():
    # The scan would pass vacuously if it read nothing: the allowed homes do name it.
    homes = [p for p in product_files() if allowed(p) and NAME in p.read_text("utf-8")]
    assert REPO / "sources" / "codegraph_explore" / "__init__.py" in homes
    assert REPO / "rulesets" / "default.yaml" in homes
    assert any(p.parts[-2] == "readers" for p in product_files())  # the readers are scanned
    text = (REPO / OUTPUT_TEXT[0]).read_text("utf-8")
    assert text.count(NAME) == 1 and OUTPUT_TEXT[1] in text
