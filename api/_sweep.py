"""`citeledger.sweep`: every session under some paths, the records `citeledger sweep --json` writes."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable, Iterator, Optional, Sequence, Union

from citeledger._score import PathLike, as_paths

if TYPE_CHECKING:
    from citeledger.core import Ruleset

Rulesets = Union[PathLike, "Ruleset", Sequence[Union[PathLike, "Ruleset"]]]


class SessionRecords:
    """score_corpus's `shape`: one outcome to its session records, in the worker (picklable).

    With `long`, each session also gives its call and file rows (report/long_rows.py),
    each call row with its `credited_files` list (a DataFrame holds lists; a CSV does not).
    """

    def __init__(self, rulesets: Sequence["Ruleset"], long: bool = False):
        self.rulesets = tuple(rulesets)
        self.long = long

    def __call__(self, outcome) -> tuple[list[dict], list[dict], list[dict]]:
        from citeledger.report.long_rows import call_rows, credited_paths, file_rows
        from citeledger.report.tables import session_rows

        from citeledger.core import metrics
        from citeledger.corpus.measured import columns_of, split_measured

        outcome, figures = split_measured(outcome)
        rows = session_rows(outcome, self.rulesets)
        for row in rows:  # the run and occupancy columns, as `sweep --json` writes them
            row.update(figures if figures is not None else dict.fromkeys(columns_of(metrics())))
        calls: list[dict] = []
        files: list[dict] = []
        if self.long:
            for ruleset, score in zip(self.rulesets, outcome.scores):
                made = call_rows(outcome.ref.key, ruleset, score)
                credited = credited_paths(score) if score is not None else {}
                for row in made:
                    row["credited_files"] = credited[row["call"]]
                calls += made
                files += file_rows(outcome.ref.key, ruleset, score)
        return rows, calls, files


def load_all(rulesets: Rulesets) -> list["Ruleset"]:
    """Rulesets given as one or several names, paths or Ruleset objects; two sharing a name are refused."""
    from citeledger.core import Ruleset
    from citeledger.rules.compiled import load_many

    one = isinstance(rulesets, (str, os.PathLike, Ruleset))
    return load_many([r if isinstance(r, Ruleset) else os.fspath(r) for r in ([rulesets] if one else rulesets)])


def checked_jobs(jobs) -> int:
    """`jobs` in the command line's `--jobs` range (engine/limits.py), else a UserError; None is 0 (all cores)."""
    from citeledger.engine.limits import jobs_range
    from citeledger.core import UserError

    if jobs is None:
        return 0
    if isinstance(jobs, bool) or not isinstance(jobs, int):
        raise UserError(f"jobs={jobs!r:.40}: not an integer ({jobs_range().describe()})")
    allowed = jobs_range()
    if not allowed.low <= jobs <= allowed.high:
        shown = jobs if jobs.bit_length() <= 64 else "(a number of more than 19 digits)"
        raise UserError(f"jobs={shown}: out of range ({allowed.describe()})")
    return jobs


def scored_sessions(paths, rulesets, jobs: Optional[int], exclude, long: bool,
                    engine: str = "local", dask_timeout=None) -> Iterator[tuple]:
    """(session rows, call rows, file rows) of every session found, in discovery order."""
    from citeledger.core import UserError, fs
    from citeledger.corpus import Workers, checked_engine, discover

    given = as_paths(paths)
    count = checked_jobs(jobs)
    rules = load_all(rulesets)
    engine = checked_engine(engine, dask_timeout)
    from citeledger.core import MetricOptions
    from citeledger.corpus.measured import Measured

    measured = Measured(None, MetricOptions())  # the default window, as `sweep` without --window-tokens
    with Workers(count, rules, measured, SessionRecords(rules, long), engine, dask_timeout) as pool:
        refs, _ = discover(given, list(exclude), pool)
        if not refs and not any(fs.lexists(p) for p in given):
            raise UserError(f"{', '.join(given)}: no such file or directory")
        yield from pool.score(refs, max(1, min(pool.jobs, len(refs))))


def sweep(
    paths: Union[PathLike, Iterable[PathLike]],
    rulesets: Rulesets = ("default",),
    jobs: Optional[int] = None,
    exclude: Iterable[str] = (),
    engine: str = "local",
    dask_timeout: Optional[int] = None,
) -> Iterator[dict]:
    """Every session under `paths`, scored under each ruleset: the `session` records
    `citeledger sweep --json` writes (docs/sweep.md's columns), in the same order
    (discovery order; per session, one record per ruleset in the order given).

    `jobs`: worker processes (None or 0: all cores; 1: in this process); results do not
    depend on it. `exclude`: `--exclude` globs. A session that is not scored is a record
    whose `status` says why (`no-explore`, `no-answer`, `unreadable`) and whose
    `efficiency` is None. Paths that do not exist raise `UserError`; nothing found yields nothing.
    `engine`: "local" (processes here), "dask" (a LocalCluster of `jobs` workers) or
    "dask=SCHEDULER_ADDRESS" (an existing cluster that sees the same paths); the same records.
    `dask_timeout`: seconds to connect to that scheduler and finish its handshake (1 to 600; None: 10).
    """
    for rows, _, _ in scored_sessions(paths, rulesets, jobs, exclude, long=False, engine=engine,
                                     dask_timeout=dask_timeout):
        yield from rows
