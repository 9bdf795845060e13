"""`citeledger sensitivity` and its computation, on hand-built corpora."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from builders import response, section, session, write_jsonl
from citeledger.cli import main
from citeledger.report.sensitivity import Sensitivity, Verdicts


def corpus_dir(tmp_path):
    """Three sessions whose numbers are worked out by hand below.

    s1: a.js (300, by path) + b.js (100, by symbol `beta`, its only owner) -> 400/400
    s2: x.js (200), y.js (200), z.js (200) all define `shared`; cited `shared` -> 3 owners:
        default credits none (0/600); cutoff off credits all (600/600)
    s3 (two turns): m.js (100, path in turn 1), n.js (300, never cited) -> 100/400 under both
    """
    root = tmp_path / "runs"
    s1 = response(section("lib/a.js", size=300), section("lib/b.js", " — beta(function)", size=100))
    session(root, [s1], "lib/a.js, with `beta`.", name="s1")
    s2 = response(*(section(f"lib/{n}.js", " — shared(function)", size=200) for n in "xyz"))
    session(root, [s2], "`shared` does it.", name="s2")
    s3 = response(section("lib/m.js", size=100), section("lib/n.js", size=300))
    session(root, [s3], "lib/m.js", name="s3")
    write_jsonl(root / "s3.t2.jsonl", [{"type": "result", "result": "nothing more"}])
    return root


def rows_of(capsys, *args):
    status = main(["sensitivity", *map(str, args), "--json", "--jobs", "1", "-q"])
    lines = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    return status, lines[0], {(r["ruleset"], r["slice"]): r for r in lines[1:] if r["record"] == "row"}


def test_vary_ambiguity_limit(tmp_path, capsys):
    status, header, rows = rows_of(capsys, corpus_dir(tmp_path), "--vary", "channels.symbol.ambiguity_limit=0,3")
    assert status == 0
    assert header["rulesets"] == ["default", "channels.symbol.ambiguity_limit=0", "channels.symbol.ambiguity_limit=3"]
    assert (header["sessions"], header["single_question"], header["multi_turn"]) == (3, 2, 1)
    base = rows[("default", "all")]
    # default: used 400 + 0 + 100 of 400 + 600 + 400; per session 1.0, 0.0, 0.25
    assert base["n"] == 3 and base["pooled"] == pytest.approx(500 / 1400)
    assert base["median"] == pytest.approx(0.25)
    assert base["p25"] == pytest.approx(0.125)  # type 7: 0.0 + 0.5 * (0.25 - 0.0)
    off = rows[("channels.symbol.ambiguity_limit=0", "all")]
    # cutoff off: s2 becomes 600/600, per session 1.0, 1.0, 0.25
    assert off["pooled"] == pytest.approx(1100 / 1400)
    assert off["delta_pooled"] == pytest.approx(600 / 1400)
    assert off["delta_median"] == pytest.approx(1.0 - 0.25)
    assert off["delta_p25"] == pytest.approx(0.625 - 0.125)  # 0.25 + 0.5 * (1.0 - 0.25)
    assert (off["changed"], off["compared"]) == (1, 3)
    single = rows[("channels.symbol.ambiguity_limit=0", "single-question")]
    assert (single["n"], single["changed"]) == (2, 1)
    assert rows[("channels.symbol.ambiguity_limit=0", "multi-turn")]["changed"] == 0
    same = rows[("channels.symbol.ambiguity_limit=3", "all")]  # the default's own value
    assert (same["delta_pooled"], same["changed"]) == (0.0, 0)


def test_rulesets_and_csv(tmp_path, capsys):
    root = corpus_dir(tmp_path)
    assert main(["sensitivity", str(root), "--rulesets", "path-only", "--csv", "-j", "1", "-q"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["ruleset"], r["slice"]) for r in table][:4] == [
        ("default", "all"), ("default", "single-question"), ("default", "multi-turn"), ("path-only", "all"),
    ]
    row = next(r for r in table if r["ruleset"] == "path-only" and r["slice"] == "all")
    # path-only loses b.js (100) in s1: 400 of 1400 pooled; s1's verdicts changed
    assert float(row["pooled"]) == pytest.approx(400 / 1400)
    assert row["changed"] == "1" and row["compared"] == "3"


def test_text_and_plot(tmp_path, capsys):
    root = corpus_dir(tmp_path)
    target = tmp_path / "out" / "sens"
    status = main(["sensitivity", str(root), "--vary", "channels.symbol.ambiguity_limit=0",
                   "--plot", str(target), "-j", "1", "-q"])
    out = capsys.readouterr().out
    assert status == 0
    line = next(l for l in out.splitlines() if l.strip().startswith("channels.symbol.ambiguity_limit=0  all"))
    # pooled 78.6% (1100/1400), +42.9 points; median 100.0%, +75.0; p25 62.5%, +50.0; 1 of 3 changed
    # paired over the 3 sessions both score, none dropped
    assert line.split()[2:] == ["3", "78.6%", "+42.9", "100.0%", "+75.0", "62.5%", "+50.0", "3", "0", "1/3"]
    assert "warning:" not in out
    assert (target.parent / "sens.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (target.parent / "sens.svg").read_bytes()


def test_each_session_is_parsed_once_for_all_rulesets(tmp_path, capsys, monkeypatch):
    from citeledger.readers.claude_stream import ClaudeStreamReader

    reads = []
    real = ClaudeStreamReader.read
    monkeypatch.setattr(ClaudeStreamReader, "read", lambda self, paths, *a: reads.append(tuple(paths)) or real(self, paths, *a))
    status, header, _ = rows_of(capsys, corpus_dir(tmp_path), "--rulesets", "path-only", "ambiguity-off",
                                "--vary", "channels.symbol.ambiguity_limit=2,5")
    assert status == 0 and len(header["rulesets"]) == 5
    assert len(reads) == 3 == len(set(reads))


def test_usage_errors(tmp_path, capsys):
    root = corpus_dir(tmp_path)
    assert main(["sensitivity", str(root)]) == 2
    assert "nothing to compare" in capsys.readouterr().err
    assert main(["sensitivity", str(root), "--vary", "channels.symbol.ambiguity_limit=two"]) == 2
    assert capsys.readouterr().err == (
        "citeledger: error: --vary: channels.symbol.ambiguity_limit: must be an integer, not str\n"
    )
    assert main(["sensitivity", str(root), "--vary", "ambiguity_limit"]) == 2
    assert "is not KEY=V1,V2" in capsys.readouterr().err
    assert main(["sensitivity", str(root), "--rulesets", "default"]) == 2
    assert "given twice" in capsys.readouterr().err


def test_status_change_counts_as_changed():
    def S(status, credited, used=0, envelope=100):
        return Verdicts(status=status, efficiency=used / envelope, used=used, envelope=envelope,
                        credited=frozenset(credited))

    s = Sensitivity(["base", "other"])
    s.add(1, [S("no-answer", []), S("scored", ["a"], used=50)])
    s.add(1, [S("scored", ["a"], used=50), S("scored", ["a"], used=50)])
    s.add(1, [None, None])
    rows = {(r["ruleset"], r["slice"]): r for r in s.rows()}
    other = rows[("other", "all")]
    assert (other["n"], other["changed"], other["compared"]) == (2, 1, 2)
    assert rows[("base", "all")]["n"] == 1
    assert s.unreadable == 1
    assert s.deltas() == [[0.0], [0.0]]  # paired only where both scored
    assert (other["paired"], other["dropped"]) == (1, 1)


def test_deltas_are_over_the_sessions_both_rulesets_score():
    """The base scores sessions 1 and 2 (0.2, 0.4); the other ruleset scores 2 (0.4) and 3 (0.9): the
    delta is over session 2 alone, 0.0, not 0.9 - 0.3; one line warns when a side scores fewer."""
    from citeledger.report.sensitivity import fewer_lines

    def S(status, used):
        return Verdicts(status=status, efficiency=used / 100, used=used, envelope=100, credited=frozenset())

    s = Sensitivity(["base", "other"])
    s.add(1, [S("scored", 20), S("no-answer", 0)])
    s.add(1, [S("scored", 40), S("scored", 40)])
    s.add(1, [S("no-explore", 0), S("scored", 90)])
    rows = {(r["ruleset"], r["slice"]): r for r in s.rows()}
    other = rows[("other", "all")]
    assert other["median"] == pytest.approx(0.65) and other["n"] == 2  # its own sessions
    assert (other["delta_median"], other["delta_pooled"], other["delta_p25"]) == (0.0, 0.0, 0.0)
    assert (other["paired"], other["dropped"]) == (1, 2)
    assert fewer_lines("base", s.rows()) == [
        "warning: ruleset other scores 2 session(s), the base base 2: the base base scores fewer; its Δ are over "
        "the 1 both score (2 dropped)"]


def test_sensitivity_on_real_transcripts_is_paired(capsys, monkeypatch):
    """public-a (31 real sessions): `corrected` scores fewer sessions than `retrieval`; its deltas
    equal the differences over the sessions both score (read from `sweep`'s rows of both rulesets),
    and the row and one warning line say how many were paired and dropped."""
    import statistics

    root = Path(__file__).resolve().parents[2] / ".." / "shared" / "transcripts" / "public-a"
    if not root.is_dir():
        pytest.skip("../shared/transcripts is absent")
    monkeypatch.chdir(root)
    main(["sweep", ".", "--ruleset", "retrieval", "--ruleset", "corrected", "--json", "-j", "1", "-q"])
    effs: dict = {}
    for line in capsys.readouterr().out.splitlines():
        row = json.loads(line)
        if row.get("record") == "session" and row.get("status") == "scored":
            effs.setdefault(row["session"], {})[row["ruleset"]] = (row["efficiency"], row["used"], row["envelope"])
    both = [e for e in effs.values() if len(e) == 2]
    _, _, rows = rows_of(capsys, ".", "--base", "retrieval", "--rulesets", "corrected")
    base, other = rows[("retrieval", "all")], rows[("corrected", "all")]
    assert (other["paired"], other["dropped"]) == (len(both), len(effs) - len(both))
    assert other["n"] < base["n"] and both
    for name, pick in (("median", lambda r: statistics.median(e[r][0] for e in both)),
                       ("pooled", lambda r: sum(e[r][1] for e in both) / sum(e[r][2] for e in both))):
        assert other[f"delta_{name}"] == pytest.approx(pick("corrected") - pick("retrieval"))
    main(["sensitivity", ".", "--base", "retrieval", "--rulesets", "corrected", "-j", "1", "-q"])
    text = capsys.readouterr().out
    assert [line for line in text.splitlines() if line.startswith("warning:")] == [
        f"warning: ruleset corrected scores {other['n']} session(s), the base retrieval {base['n']}: corrected "
        f"scores fewer; its Δ are over the {len(both)} both score ({other['dropped']} dropped)"]


def test_verdicts_of_a_score_keep_its_numbers_and_its_credited_files():
    import citeledger

    fixture = Path(__file__).resolve().parents[1] / "fixtures/real/stream/express-debug-3owners.jsonl"
    score = citeledger.score([str(fixture)]).score
    v = Verdicts.of(score)
    assert (v.status, v.efficiency, v.used, v.envelope) == (score.status, score.efficiency, score.used, score.envelope)
    assert v.credited == {f.path for f in score.files if f.verdict.credited} and len(v.credited) == 3
