"""The real agent transcripts in tests/fixtures/agents stay what their README and facts say.

The reader fixes of issue 29 are tested against facts.json, read off these
files by hand; if a file is edited, re-cut or renamed, those facts no longer
describe it. This checks the facts that need no reader: the file is listed,
whole JSON, as long as recorded, and written by the client version recorded.
"""

import json
from pathlib import Path

import pytest

AGENTS = Path(__file__).parent.parent / "fixtures" / "agents"
FACTS = json.loads((AGENTS / "facts.json").read_text(encoding="utf-8"))["files"]
COMMITTED = [f for f in FACTS if f["committed"]]
TRANSCRIPTS = sorted(p for p in AGENTS.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json") and p.name != "facts.json")


def test_every_transcript_has_facts_and_a_readme_row():
    readme = (AGENTS / "README.md").read_text(encoding="utf-8")
    listed = {f["path"] for f in COMMITTED}
    for path in TRANSCRIPTS:
        rel = path.relative_to(AGENTS).as_posix()
        assert rel in listed, rel
        assert "`" + rel + "`" in readme, rel
    assert len(listed) == len(TRANSCRIPTS)


@pytest.mark.parametrize("fact", COMMITTED, ids=[f["path"].split("/")[0] for f in COMMITTED])
def test_the_file_is_the_one_the_facts_were_read_from(fact):
    text = (AGENTS / fact["path"]).read_text(encoding="utf-8")
    assert text.endswith("\n")  # cut files keep whole lines only
    if fact["path"].endswith(".jsonl"):
        events = [json.loads(line) for line in text.splitlines()]
        assert len(events) == fact["lines"]
        versions = {e.get("version") or e.get("payload", {}).get("cli_version") for e in events} - {None}
        if fact["client_version"]:
            assert fact["client_version"] in versions or any(
                e.get("claude_code_version") == fact["client_version"] for e in events
            )
    else:
        session = json.loads(text)
        assert len(session["messages"]) == fact["messages"]
