"""A corpus command's diagnostic join holds what does not grow with the corpus.

Workers keep only the sidecars they read last, the parent keeps each
sidecar's name and warnings, and the pooled summary is built as sessions
arrive; every record and every number stays what the whole-corpus join gave.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from citeledger.cli.sidecars import Diagnosed, SidecarJoin
from citeledger.corpus import discover, score_corpus
from citeledger.core.plugins import readers
from citeledger.report.allocation import Pooled, summary
from citeledger.report.diagnostics import MATCHED, FileRow, SessionDiagnostics
from citeledger.report.jsonreport import json_bytes
from citeledger.rules.loader import load_ruleset

AB = Path(__file__).parent.parent / "fixtures" / "pass" / "cg22"
DEFAULT = load_ruleset("default")


def copies(tmp_path, n: int) -> Path:
    """`n` harness folders (ab-express and ab-flask, alternating), each with its two sidecars."""
    root = tmp_path / "pass"
    for i in range(n):
        shutil.copytree(AB / ("ab-express" if i % 2 == 0 else "ab-flask"), root / f"g{i}" / "ab")
    return root


def args(**over):
    return argparse.Namespace(diagnostics=over.get("diagnostics", []), diagnostics_out=None, no_diagnostics=False)


class Recording(SidecarJoin):
    """A SidecarJoin that notes how many sidecars it holds after each session."""

    held: list

    def __call__(self, ref, transcript, score):
        made = super().__call__(ref, transcript, score)
        self.held.append(len(self._reports))
        return made


def test_a_worker_keeps_only_the_sidecars_it_read_last_and_joins_the_same(tmp_path):
    root = copies(tmp_path, 2 * SidecarJoin.KEPT)  # twice as many sidecars as it keeps
    refs, _ = discover([str(root)])
    bounded = Recording((), True, DEFAULT)
    bounded.held = []
    got = [o.extra for o in score_corpus(refs, [DEFAULT], 1, extra=bounded)]
    assert max(bounded.held) == SidecarJoin.KEPT and len(bounded._reports) == SidecarJoin.KEPT
    # Each session joined alone, by a join that read only its sidecars: the same join.
    alone = [SidecarJoin((), True, DEFAULT) for _ in refs]
    want = [o.extra for ref, join in zip(refs, alone) for o in score_corpus([ref], [DEFAULT], 1, extra=join)]
    assert got == want
    joined = [d.diag for d in got if d is not None]
    assert sum(j.status == MATCHED for d in joined for j in d.joins) > 0
    assert all(j.report is None for d in joined for j in d.joins)  # not pickled back with every session


def test_every_given_sidecar_is_kept_however_many(tmp_path):
    sidecars = [str(p) for p in sorted(AB.glob("*/explore-*.jsonl"))]
    extra = [str(tmp_path / f"extra-{i}.jsonl") for i in range(SidecarJoin.KEPT)]
    for path in extra:
        shutil.copy(sidecars[0], path)
    given = sidecars + extra
    assert len(given) > SidecarJoin.KEPT
    refs, _ = discover([str(AB / "ab-express")])
    join = SidecarJoin(given, False, DEFAULT)
    list(score_corpus(refs[:3], [DEFAULT], 1, extra=join))
    assert list(join._reports) == given  # none read twice: every session needs all of them


def outcomes(tmp_path):
    refs, _ = discover([str(copies(tmp_path, 3))])
    join = SidecarJoin((), True, DEFAULT, line=True)  # as a spooling Diagnosed's join() makes it
    return list(score_corpus(refs, [DEFAULT], 1, extra=join))


def test_pooled_as_they_come_the_records_and_text_of_every_join_kept(tmp_path, monkeypatch):
    done = outcomes(tmp_path)
    kept = Diagnosed(args(), DEFAULT, pooled=True, keep=True)
    lean = Diagnosed(args(), DEFAULT, pooled=True, keep=False, spool=True)
    assert lean.join().line and not kept.join().line
    import citeledger.harness.diagnostics as reader

    def no_read(path):
        raise AssertionError(f"the parent read {path}: the worker's join carries its warnings")

    monkeypatch.setattr(reader, "read_diagnostics", no_read)
    for o in done:
        kept.add(o)
        lean.add(o)
    assert len(kept.sessions) == kept.count > 0 and lean.sessions == [] and lean.count == kept.count
    assert set(kept.summaries()) == {"all", "new", "baseline"}
    assert lean.summaries() == kept.summaries()
    assert kept.summaries()["all"] == summary(kept.sessions)
    assert lean.text("T") == kept.text("T") and "response(s) matched over" in lean.text("T")
    assert lean.summary_records() == kept.summary_records()
    assert b"".join(lean.spooled()) == b"".join(json_bytes(r) + b"\n" for r in kept.session_records())
    # the parent read each sidecar for its warnings and names it, holding none of its reports
    assert lean.sidecars.used() and all(r == () for r in lean.sidecars._read.values())
    lean.close()


def row(share, env, cited, render="whole", chars=10, rank=1):
    return FileRow("s", "a", 1, "p", rank, 1.0, share, 0.1, 1, (), render, None, False, None, chars, 0.1,
                   chars, env, cited, None, None)


def test_the_means_are_sum_over_the_shares_in_row_order():
    # Shares whose float sum depends on the order and the summation: the means must be sum()'s.
    shares = [0.1, 1e16, 0.3, -1e16, 0.7, 0.2]
    rows = [row(s, s / 3, i % 3 != 0) for i, s in enumerate(shares)]
    rows.append(row(0.9, 0.9, True, render=None, chars=0, rank=9))  # never rendered, cited
    pool = Pooled()
    pool.add(SessionDiagnostics("s", "a", (), (), tuple(rows[:3])))
    pool.add(SessionDiagnostics("s2", "a", (), (), tuple(rows[3:])))
    rel = pool.dict()["relevance"]
    cited = [r for r in rows[:-1] if r.cited]
    uncited = [r for r in rows[:-1] if not r.cited]
    assert rel["files"] == 6 and rel["cited_files"] == len(cited) and rel["uncited_files"] == len(uncited)
    assert rel["cited_mean_score_share"] == sum([r.score_share for r in cited]) / len(cited)
    assert rel["uncited_mean_envelope_share"] == sum([r.envelope_share for r in uncited]) / len(uncited)
    assert [d["rank"] for d in pool.dict()["never_rendered_cited"]] == [9]
    assert pool.dict()["by_rank"][-1] == {"rank": 9, "ranked": 1, "rendered": 0, "cited": 0,
                                          "not_rendered_cited": 1, "citation_rate": None}
    # the dict is a copy: reading it twice gives the same, and changing it changes nothing kept
    first = pool.dict()
    first["by_render"][0]["files"] = -1
    first["never_rendered_cited"][0]["path"] = "x"
    assert pool.dict()["by_render"][0]["files"] == 6 and pool.dict()["never_rendered_cited"][0]["path"] == "p"


def test_the_join_cuts_no_response_the_scoring_cut(tmp_path, monkeypatch):
    """The join's calls are the score's own (SessionScore.cut): each distinct response text
    is cut once per session, by the scoring, and the join in a sweep gives what a join of a
    score made alone gives."""
    from citeledger.sources.sectioned import splitter

    refs, _ = discover([str(copies(tmp_path, 2))])
    fresh = [o.extra for o in score_corpus(refs, [DEFAULT], 1)]
    assert all(e is None for e in fresh)
    made = []
    real = splitter._Cut.__init__

    def counted(self, text, *rest):
        made.append(text)
        real(self, text, *rest)

    monkeypatch.setattr(splitter._Cut, "__init__", counted)
    shared = [o.extra for o in score_corpus(refs, [DEFAULT], 1, extra=SidecarJoin((), True, DEFAULT))]
    assert len(made) == len(set(made)) > 0  # no text cut twice: the join found the scoring's cuts
    monkeypatch.undo()
    alone = []
    for ref in refs:
        join = SidecarJoin((), True, DEFAULT)
        (outcome,) = score_corpus([ref], [DEFAULT], 1)
        transcript = readers()[ref.reader]().read(list(ref.files), DEFAULT.read_options())
        alone.append(join(ref, transcript, outcome.scores[0]))
    assert shared == alone


def test_a_worker_looks_for_a_folders_sidecar_once_and_forgets_past_its_bound(tmp_path, monkeypatch):
    from citeledger.core import fs

    root = copies(tmp_path, 2)
    refs, _ = discover([str(root)])
    asked: list[str] = []
    real = fs.isfile
    monkeypatch.setattr(fs, "isfile", lambda path: asked.append(path) or real(path))
    join = SidecarJoin((), True, DEFAULT)
    found = [join.sidecars(ref.files) for ref in refs]
    assert sum(1 for f in found if f) == len(refs) > 4  # every run of the pass has its arm's sidecar
    assert len(asked) == len(set(asked)) == 4  # two folders, two arms: each candidate asked once
    monkeypatch.setattr(SidecarJoin, "LOOKED_UP", 1)
    bounded = SidecarJoin((), True, DEFAULT)
    assert [bounded.sidecars(ref.files) for ref in refs] == found
    assert len(bounded._there) == 1
