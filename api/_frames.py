"""`citeledger.frames`: a sweep as pandas DataFrames, one row per session, per call, per file."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Optional, Union

from citeledger._score import PathLike
from citeledger._sweep import Rulesets, scored_sessions

if TYPE_CHECKING:
    import pandas

# The session table's columns: the sweep's session record without `record` (always "session")
# and `files` (the files table holds them, one row each).
DROPPED = ("record", "files")


def _pandas():
    try:
        import pandas
    except ImportError:
        from citeledger.core import UserError

        raise UserError("citeledger.frames needs pandas: pip install 'citeledger[pandas]'") from None
    return pandas


def frames(
    paths: Union[PathLike, Iterable[PathLike]],
    rulesets: Rulesets = ("default",),
    jobs: Optional[int] = None,
    exclude: Iterable[str] = (),
    engine: str = "local",
    dask_timeout: Optional[int] = None,
) -> dict[str, "pandas.DataFrame"]:
    """`sweep` as three DataFrames: {"sessions", "calls", "files"}.

    - `sessions`: one row per session and ruleset, the sweep's session record
      (docs/sweep.md) without `files`; `inputs`, `call_efficiencies` and
      `call_queries` hold lists.
    - `calls`: one row per explore call (report/long_rows.py's CALL_COLUMNS:
      its query, source, envelope, used, efficiency, ...) plus `credited_files`,
      the list of files it returned that the answer cited.
    - `files`: one row per returned file per session and ruleset (FILE_COLUMNS:
      pooled chars, share, crediting channel and evidence).

    Every row carries `status`: a session that is not scored (`no-explore`,
    `no-answer`, `unreadable`) has its rows marked and no efficiency (NaN), so
    `df[df.status == "scored"]` is what the sweep's numbers pool. Arguments are `sweep`'s
    (`engine="dask"` too).
    """
    pd = _pandas()
    from citeledger.report.long_rows import CALL_COLUMNS, FILE_COLUMNS
    from citeledger.report.tables import SESSION_COLUMNS

    sessions: list[dict] = []
    calls: list[dict] = []
    files: list[dict] = []
    for rows, call_rows, file_rows in scored_sessions(paths, rulesets, jobs, exclude, long=True, engine=engine,
                                                         dask_timeout=dask_timeout):
        sessions += [{k: v for k, v in r.items() if k not in DROPPED} for r in rows]
        calls += call_rows
        files += file_rows
    from citeledger.core import metrics
    from citeledger.corpus.measured import columns_of

    columns = [c for c in SESSION_COLUMNS if c not in DROPPED] + list(columns_of(metrics()))  # run_*, occupancy_*
    return {
        "sessions": _typed(pd.DataFrame(sessions, columns=columns)),
        "calls": _typed(pd.DataFrame(calls, columns=[*CALL_COLUMNS, "credited_files"])),
        "files": _typed(pd.DataFrame(files, columns=list(FILE_COLUMNS))),
    }


def _typed(frame: "pandas.DataFrame") -> "pandas.DataFrame":
    """Numbers as numbers even when every value of a column is None (an unscored sweep)."""
    for column in ("efficiency", "path_only", "share"):
        if column in frame:
            frame[column] = frame[column].astype("float64")
    return frame
