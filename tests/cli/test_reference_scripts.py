"""Parity with codegraph's own scripts, where a checkout of them is at hand.

tests/oracle holds the team's JavaScript transcription of the reference; the
parity tests elsewhere compare with it. These compare with the real thing:
with CITELEDGER_REFERENCE=DIR naming a folder holding codegraph's
`parse-run.mjs`, `parse-session.mjs`, `compare-arms.mjs` and
`probe-allocation.mjs` (a codegraph checkout's `scripts/agent-eval`), each
script is run with node on the shipped fixtures and citeledger's `--harness`
view of the same input must print the same bytes:

- parse-run.mjs FILES --envelope  ==  score --harness FILES --envelope (every
  shipped run and every hand-built case of harness_cases.py, byte-order-marked
  segments included; the cases also with --brief);
- parse-session.mjs PROJECT  ==  score --harness --session LOG (every shipped
  interactive log and interactive_cases.py's, each placed under a scratch
  HOME's ~/.claude/projects/<escaped project path>/, as Claude Code writes it);
- compare-arms.mjs PASS ARM ...  ==  compare PASS --arms ARM ... --harness;
- probe-allocation.mjs's fixture block  ==  check's (each shipped diagnostic
  report judged by one fixture of every assert key but mustContain, which reads
  a response the probe gets from its own explore run). The probe runs
  codegraph's built dist; here a two-file dist stands in for the build, its
  explore writing the shipped report to the sidecar the probe reads back.

Without the variable, every test here is skipped with that reason. The last
test copies the folder, changes one `toFixed(1)` of a script to `toFixed(2)`
and asserts that the comparison finds the difference: these tests can fail.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from harness_cases import CASES as RUN_CASES, write_case
from interactive_cases import CASES as SESSION_CASES, write_session

from citeledger.cli import main

REFERENCE = os.environ.get("CITELEDGER_REFERENCE")
SCRIPTS = ("parse-run.mjs", "parse-session.mjs", "compare-arms.mjs", "probe-allocation.mjs")
TESTS = Path(__file__).parents[1]
FIXTURES = TESTS / "fixtures"
SEGMENT = re.compile(r"\.t(\d+)\.jsonl$")
PASSES = (
    (FIXTURES / "pass" / "cg22" / "ab-express", "new", "baseline"),
    (FIXTURES / "pass" / "cg23" / "ab-express", "baseline", "new"),
    (FIXTURES / "pass" / "cg22" / "headless-express", "headless-with", "headless-without"),
    (FIXTURES / "pass" / "cg22" / "ab-flask", "new", "baseline"),
)
SIDECARS = sorted((FIXTURES / "real" / "explore").glob("*/*.debug.json")) + sorted(
    (FIXTURES / "pass").glob("*/*/explore-*.jsonl"))

pytestmark = [
    pytest.mark.reference,
    pytest.mark.skipif(not REFERENCE, reason="CITELEDGER_REFERENCE names no folder of codegraph's scripts"),
]


def node(script: Path, *args, env=None, cwd=None) -> str:
    done = subprocess.run(["node", str(script), *map(str, args)], capture_output=True, text=True, env=env, cwd=cwd)
    return done.stdout


def ours(capsys, *argv) -> str:
    main([str(a) for a in argv])
    return capsys.readouterr().out


def with_segments(first: Path) -> list[str]:
    stem = first.name.removesuffix(".jsonl")
    turns = sorted(first.parent.glob(f"{stem}.t*.jsonl"), key=lambda p: int(SEGMENT.search(p.name).group(1)))
    return [str(first)] + [str(p) for p in turns]


def shipped_runs() -> list[list[str]]:
    firsts = (sorted((FIXTURES / "real" / "stream").glob("*.jsonl")) + sorted((FIXTURES / "pass").rglob("run-*.jsonl"))
              + sorted((FIXTURES / "agents" / "claude-stream").glob("*.jsonl")))
    return [with_segments(p) for p in firsts if not SEGMENT.search(p.name)]


def parse_run(ref: Path, work: Path, capsys) -> Iterator[str]:
    """Each run whose `score --harness` differs from parse-run.mjs's report (its name)."""
    asked = [(files, ["--envelope"]) for files in shipped_runs()]
    work.mkdir(parents=True, exist_ok=True)
    for name in sorted(RUN_CASES):
        files = write_case(work, name)
        asked += [(files, []), (files, ["--brief", "--envelope"])]
    for files, flags in asked:
        if node(ref / "parse-run.mjs", *files, *flags) != ours(capsys, "score", "--harness", *files, *flags):
            yield f"parse-run.mjs {' '.join(Path(f).name for f in files)} {' '.join(flags)}"


def _home_of(log: Path, work: Path, i: int) -> tuple[Path, Path, Path]:
    """(HOME, project, the log's copy): the log and its subagent folder where Claude Code keeps them."""
    project = (work / "projects" / f"p{i}").resolve()
    project.mkdir(parents=True)
    home = work / "home"
    folder = home / ".claude" / "projects" / str(project).replace("/", "-")
    folder.mkdir(parents=True)
    shutil.copy(log, folder / log.name)
    beside = log.with_suffix("")
    if beside.is_dir():
        shutil.copytree(beside, folder / beside.name)
    return home, project, folder / log.name


def parse_session(ref: Path, work: Path, capsys) -> Iterator[str]:
    """Each interactive log whose `score --harness --session` differs from parse-session.mjs's report."""
    logs = [Path(p) for p in sorted((FIXTURES / "real" / "interactive").glob("*/*.jsonl"))
            + sorted((FIXTURES / "agents" / "claude-interactive").glob("*/*.jsonl"))]
    built = work / "built"
    logs += [Path(write_session(built, name)) for name in sorted(SESSION_CASES)]
    for i, log in enumerate(logs):
        home, project, copy = _home_of(log, work / f"s{i}", i)
        theirs = node(ref / "parse-session.mjs", project, env={**os.environ, "HOME": str(home)})
        if not theirs or theirs != ours(capsys, "score", "--harness", "--session", copy):
            yield f"parse-session.mjs {log.parent.name}/{log.name}"


def compare_arms(ref: Path, work: Path, capsys) -> Iterator[str]:
    """Each pass whose `compare --harness` table differs from compare-arms.mjs's."""
    for folder, *arms in PASSES:
        theirs = node(ref / "compare-arms.mjs", folder, *arms)
        if not theirs or theirs != ours(capsys, "compare", folder, "--arms", *arms, "--harness"):
            yield f"compare-arms.mjs {folder.parent.name}/{folder.name} {' '.join(arms)}"


# The build probe-allocation.mjs imports, standing in for codegraph's: explore appends the
# report of PROBE_REPORT (a sidecar's last line) to the sidecar the probe names, as the real
# explore does under CODEGRAPH_EXPLORE_DEBUG, and returns no text.
DIST_INDEX = "export default { openSync() { return { close() {} }; } };\n"
DIST_TOOLS = """import { appendFileSync, readFileSync } from 'node:fs';
export class ToolHandler {
  constructor(cg) { this.cg = cg; }
  async execute(name, args) {
    const line = readFileSync(process.env.PROBE_REPORT, 'utf-8').trim().split('\\n').pop();
    appendFileSync(process.env.CODEGRAPH_EXPLORE_DEBUG, line + '\\n');
    return { content: [{ type: 'text', text: '' }] };
  }
}
"""


def probe_fixture(report: dict) -> dict:
    """One fixture of every assert key but mustContain, on a shipped report (kind self: no index built)."""
    paths = [f["path"] for f in report["files"]]
    first = paths[0] if paths else "none.js"
    want = {"answerShareAtLeast": 0.5, "answerShareOfSourceAtLeast": 0.6, "incidentalShareAtMost": 0.2,
            "topFileGroup": "answer", "mustDeliverBytes": [first, "no/such/file.js"],
            "spendShareAtLeast": {p: 0.9 for p in paths[:2]}}
    return {"id": "probe", "title": "a shipped report", "kind": "self", "path": ".", "query": report["query"],
            "groups": {"answer": [first], "incidental": ["*", "**/index.*"]}, "assert": want}


def _block(text: str) -> list[str]:
    """The fixture block: from its `──` line to its last check, the spend table left out."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("── "))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith(("PASS  ", "FAIL  ")))
    block = lines[start:end]
    if "   spend of each reservation (probe-file-spend.mjs; * = in a starvation pair):" in block:
        cut = block.index("   spend of each reservation (probe-file-spend.mjs; * = in a starvation pair):")
        rest = next(i for i in range(cut, len(block)) if block[i] == "")
        block = block[:cut] + block[rest + 1:]
    return [line for line in block if line != ""]


def probe_allocation(ref: Path, work: Path, capsys) -> Iterator[str]:
    """Each shipped report whose fixture block in `check` differs from probe-allocation.mjs's."""
    repo = work / "repo"
    (repo / "scripts" / "agent-eval").mkdir(parents=True)
    (repo / "dist" / "mcp").mkdir(parents=True)
    (repo / ".codegraph").mkdir()
    shutil.copy(ref / "probe-allocation.mjs", repo / "scripts" / "agent-eval")
    (repo / "package.json").write_text('{"type": "module"}\n')
    (repo / "dist" / "index.js").write_text(DIST_INDEX)
    (repo / "dist" / "mcp" / "tools.js").write_text(DIST_TOOLS)
    for sidecar in SIDECARS:
        report = json.loads(sidecar.read_text().strip().split("\n")[-1])
        spec = {"fixtures": [probe_fixture(report)]}
        (repo / "scripts" / "agent-eval" / "allocation-fixtures.json").write_text(json.dumps(spec))
        (work / "spec.json").write_text(json.dumps(spec))
        theirs = node(repo / "scripts" / "agent-eval" / "probe-allocation.mjs",
                      env={**os.environ, "PROBE_REPORT": str(sidecar)})
        mine = ours(capsys, "check", work / "spec.json", "--diagnostics", sidecar)
        if "── " not in theirs or _block(theirs) != _block(mine):
            yield f"probe-allocation.mjs {sidecar.parent.name}/{sidecar.name}"


PARITY = {"parse-run.mjs": parse_run, "parse-session.mjs": parse_session,
          "compare-arms.mjs": compare_arms, "probe-allocation.mjs": probe_allocation}


def _script(ref: Path, script: str) -> None:
    if not (ref / script).is_file():
        pytest.skip(f"CITELEDGER_REFERENCE={ref} holds no {script}")


@pytest.mark.parametrize("script", SCRIPTS)
def test_citeledger_prints_what_the_reference_script_prints(script, tmp_path, capsys):
    ref = Path(REFERENCE)
    _script(ref, script)
    assert list(PARITY[script](ref, tmp_path, capsys)) == []


@pytest.mark.parametrize("script", SCRIPTS)
def test_one_changed_rounding_in_the_reference_is_found(script, tmp_path, capsys):
    """A copy of the scripts with the first toFixed(1) of `script` made toFixed(2): a mismatch."""
    _script(Path(REFERENCE), script)
    copy = tmp_path / "reference"
    shutil.copytree(REFERENCE, copy)
    source = (copy / script).read_text(encoding="utf-8")
    assert "toFixed(1)" in source
    (copy / script).write_text(source.replace("toFixed(1)", "toFixed(2)", 1), encoding="utf-8")
    assert next(PARITY[script](copy, tmp_path / "work", capsys), None) is not None
