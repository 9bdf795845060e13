"""The memo a sweep's worker keeps across sessions (the explore cuts and parsed header lines,
keyed by content, least recently used out: sources/sectioned) changes no output: `sweep --json`
prints the same bytes with it on or off (CITELEDGER_MEMO=off), bounded to almost nothing, and
for one job or two."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from citeledger.cli import main
from citeledger.corpus import MEMO_SWITCH
from citeledger.sources import sectioned

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "stream"


@pytest.fixture(scope="module")
def repeated(tmp_path_factory) -> Path:
    """Real runs, each copied into several run folders: the same responses session after session,
    as an A/B pass asks one question over and over (and every other run once)."""
    root = tmp_path_factory.mktemp("repeated")
    runs = sorted(p for p in REAL.glob("*.jsonl") if ".t" not in p.name)
    for i in range(4):
        folder = root / f"run{i}"
        folder.mkdir()
        for run in runs[: 3 + i * 2]:
            shutil.copy(run, folder / run.name)
    return root


def sweep(capsys, corpus: Path, jobs: int) -> str:
    main(["sweep", str(corpus), "-q", "--json", "-j", str(jobs)])
    return capsys.readouterr().out


def test_the_memo_changes_no_byte_of_a_sweep(repeated, capsys, monkeypatch):
    on = sweep(capsys, repeated, 1)
    assert on.count("\n") > 10 and '"efficiency"' in on  # sessions were scored
    assert sweep(capsys, repeated, 2) == on
    monkeypatch.setattr(sectioned, "CUTS_HELD", 1)  # a memo of one response: evicted at every turn
    monkeypatch.setattr(sectioned, "HEADERS_HELD", 1)
    assert sweep(capsys, repeated, 1) == on
    assert sweep(capsys, repeated, 2) == on
    monkeypatch.setenv(MEMO_SWITCH, "off")
    assert sweep(capsys, repeated, 1) == on
    assert sweep(capsys, repeated, 2) == on


def test_a_worker_cuts_a_repeated_response_once(repeated):
    """With the memo on, a response returned by many sessions is cut once per worker; off, once a session."""
    from citeledger.corpus import discover, score_corpus
    from citeledger.rules.compiled import load

    counts = {}
    for switch in ("on", "off"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv(MEMO_SWITCH, switch)
            made = []
            real = sectioned.splitter._Cut.__init__

            def counting(self, text, *rest):
                made.append(text)
                real(self, text, *rest)

            mp.setattr(sectioned.splitter._Cut, "__init__", counting)
            refs, _ = discover([str(repeated)])
            list(score_corpus(refs, [load("default")], jobs=1))
            counts[switch] = (len(made), len(set(made)))
    assert counts["on"][0] == counts["on"][1]  # each distinct text cut once
    assert counts["off"][0] > counts["on"][0] and counts["off"][1] == counts["on"][1]
