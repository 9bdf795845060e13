"""citeledger's default ruleset against the JavaScript transcription of the spec.

tests/oracle/reference.mjs gets JavaScript's string semantics for free; on
every real stream fixture, the real interactive log and the oracle's own
smoke inputs, the text block must be identical (singular headings included),
the JSON numbers equal, and what `citeledger score --envelope` / `--answer
GLOB` prints identical byte for byte to the oracle's envelope view.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
from pathlib import Path

import pytest

from test_real_fixtures import REAL, segments

from citeledger.cli import main
from citeledger.core.accountant import score
from citeledger.readers.claude_stream import ClaudeStreamReader
from citeledger.report.text import render_text
from citeledger.rules.loader import load_ruleset

ORACLE = Path(__file__).parent.parent / "oracle"
DEFAULT = load_ruleset("default")

SESSIONS = [
    segments(p) for p in sorted((REAL / "stream").glob("*.jsonl")) if not re.search(r"\.t\d+\.jsonl$", p.name)
] + [
    [str(ORACLE / "smoke" / "run.jsonl"), str(ORACLE / "smoke" / "run.t2.jsonl")],
    [str(ORACLE / "smoke" / "interactive.jsonl")],
]


def _request(files, flags) -> dict:
    """The batch form of `reference.mjs FLAGS FILES` (its main() reads flags the same way)."""
    opts = {"files": [str(f) for f in files], "interactive": False, "envelope": False, "sufficiency": False, "answer": []}
    flags = list(flags)
    while flags:
        flag = flags.pop(0)
        if flag == "--answer":
            opts["answer"].append(flags.pop(0))
        else:
            opts[flag.removeprefix("--")] = True
    return opts


def _key(files, flags) -> str:
    return json.dumps([[str(f) for f in files], [f for f in flags if f != "--json"]])


@functools.cache
def _oracle_runs() -> dict:
    """Every oracle run the tests below ask for, from one node start (--batch): {key: {text, json}}."""
    wanted = {}
    for files, base in [(f, []) for f in SESSIONS] + [([log], ["--interactive"]) for log in INTERACTIVE]:
        for view in [[], *VIEWS, ["--sufficiency"]]:
            wanted[_key(files, base + view)] = _request(files, base + view)
    done = subprocess.run(["node", str(ORACLE / "reference.mjs"), "--batch"], input=json.dumps(list(wanted.values())),
                          capture_output=True, text=True, check=True)
    return dict(zip(wanted, json.loads(done.stdout)))


def oracle(files, *flags) -> str:
    """What `node reference.mjs FLAGS FILES` prints: the text, or with --json the JSON object."""
    run = _oracle_runs()[_key(files, flags)]
    return json.dumps(run["json"]) if "--json" in flags else run["text"]


@pytest.mark.parametrize("files", SESSIONS, ids=lambda f: Path(f[0]).name)
def test_text_block_and_numbers_equal_the_oracle(files):
    result = score(ClaudeStreamReader().read(files), DEFAULT)
    assert render_text(result) == oracle(files)
    want = json.loads(oracle(files, "--json"))
    assert (result.envelope, result.used, result.used_by_rank[0]) == (want["envelope"], want["used"], want["used_by_path"])
    assert result.efficiency == want["efficiency"]
    assert result.lower_bound == want["path_efficiency"]
    assert [(f.path, f.chars, f.calls, f.verdict.channel, f.verdict.evidence) for f in result.files] == [
        (f["path"], f["chars"], f["calls"], f["credited"], f["evidence"]) for f in want["files"]
    ]
    assert result.answer == want["answer"]


INTERACTIVE = sorted((REAL / "interactive").glob("*/*.jsonl"))
# Globs that match several files, one (the `?` quirk: lib/request?.js is /^lib\/request?\.js$/), none.
VIEWS = [["--envelope"], ["--answer", "lib/**"], ["--answer", "lib/request?.js", "--answer", "**/*.py"],
         ["--answer", "src/flask/*.py"], ["--answer", "nothing/*"], ["--envelope", "--answer", "*.go"]]


def printed(argv, capsys) -> str:
    main(["score", *map(str, argv)])
    return capsys.readouterr().out


@pytest.mark.parametrize("files", SESSIONS, ids=lambda f: Path(f[0]).name)
def test_printed_block_and_envelope_view_equal_the_oracle(files, capsys):
    assert printed(files, capsys) == oracle(files)
    for view in VIEWS:
        assert printed([*files, *view], capsys) == oracle(files, *view), view


@pytest.mark.parametrize("log", INTERACTIVE, ids=lambda p: p.name)
def test_interactive_log_equals_the_oracle_stitching(log, capsys):
    assert printed(["--session", log], capsys) == oracle([log], "--interactive")
    for view in VIEWS:
        assert printed(["--session", log, *view], capsys) == oracle([log], "--interactive", *view), view


# The sufficiency half (sufficiency.md): the block after the allocation block
# and the JSON's `sufficiency`, on every shipped fixture session.
def sufficiency_of(argv, capsys) -> tuple[str, dict]:
    text = printed([*argv, "--sufficiency"], capsys)
    data = json.loads(printed([*argv, "--sufficiency", "--json"], capsys))
    return text, data["sufficiency"]


@pytest.mark.parametrize("files", SESSIONS, ids=lambda f: Path(f[0]).name)
def test_sufficiency_block_and_json_equal_the_oracle(files, capsys):
    text, data = sufficiency_of(files, capsys)
    assert text == oracle(files, "--sufficiency")
    assert data == json.loads(oracle(files, "--sufficiency", "--json"))["sufficiency"]


@pytest.mark.parametrize("log", INTERACTIVE, ids=lambda p: p.name)
def test_interactive_sufficiency_equals_the_oracle(log, capsys):
    text, data = sufficiency_of(["--session", log], capsys)
    assert text == oracle([log], "--interactive", "--sufficiency")
    assert data == json.loads(oracle([log], "--interactive", "--sufficiency", "--json"))["sufficiency"]


FIXTURES = Path(__file__).parent.parent / "fixtures"
# Every run of the pass and corpus fixtures (first segments; `explore-*.jsonl` are
# codegraph outputs and t-*/ trees test data, no transcripts), and the pass's
# interactive log with its subagent.
SHIPPED = [
    {"files": segments(p), "interactive": False}
    for tree in ("pass", "corpus") for p in sorted((FIXTURES / tree).rglob("*.jsonl"))
    if re.match(r"(run-|r\d)", p.name) and not re.search(r"\.t\d+\.jsonl$", p.name)
    and not any(part.startswith("t-") for part in p.parts)
] + [
    {"files": [str(p)], "interactive": True}
    for p in sorted((FIXTURES / "pass" / "interactive-home").rglob("*.jsonl")) if "subagents" not in p.parts
]


def test_shipped_sessions_sufficiency_equals_the_oracle():
    from citeledger.readers.claude_interactive import ClaudeInteractiveReader
    from citeledger.harness.sufficiency import sufficiency
    from citeledger.report.sufficiency import render_sufficiency, sufficiency_dict

    assert len(SHIPPED) >= 50 and SHIPPED[-1]["interactive"]
    batch = [{**s, "sufficiency": True} for s in SHIPPED]
    done = subprocess.run(["node", str(ORACLE / "reference.mjs"), "--batch"], input=json.dumps(batch),
                          capture_output=True, text=True, check=True)
    for s, want in zip(SHIPPED, json.loads(done.stdout)):
        reader = ClaudeInteractiveReader() if s["interactive"] else ClaudeStreamReader()
        judged = sufficiency(reader.read(s["files"]), "codegraph_explore")
        block = want["text"][want["text"].index("Explore sufficiency"):]
        assert render_sufficiency(judged) == block, s
        assert sufficiency_dict(judged) == want["json"]["sufficiency"], s
