"""The range of every number an option (or the library's argument) takes, checked before any work.

Each range is stated in the option's error (one line, exit 2) and in
docs/robustness.md. argparse only turns the text into a number; a number
out of range is a UserError here, so the message is one line without the
usage block, and a huge value (`--jobs 99999999999999999999`) never reaches
the code that would use it.
"""

from __future__ import annotations

import math
import os

import attrs

from citeledger.core.errors import UserError

WINDOW_ENV = "CG_WINDOW_TOKENS"  # the harness's override of the window (parse-run.mjs)

JOBS_PER_CORE = 4  # workers beyond a few per core only add memory and start-up time
MAX_SEED = 2**64 - 1  # numpy's PCG64 takes any non-negative integer; 64 bits is plenty of seeds
# Bootstrap resamples: each costs a median of each side; past a million the
# interval's digits no longer move while the run takes minutes per group.
MAX_RESAMPLES = 1_000_000
MAX_TOP = 10_000  # files listed per group


def max_jobs() -> int:
    from citeledger.core import default_jobs

    return JOBS_PER_CORE * default_jobs()


@attrs.frozen
class Range:
    option: str
    dest: str
    low: float
    high: float
    # Whether the ends are allowed (--confidence excludes both).
    closed: bool = True
    note: str = ""

    def check(self, value) -> None:
        if value is None:
            return
        inside = (self.low <= value <= self.high) if self.closed else (self.low < value < self.high)
        if isinstance(value, float) and math.isnan(value):
            inside = False
        if not inside:
            raise UserError(f"{self.option} {_shown(value)}: out of range ({self.describe()})")

    def describe(self) -> str:
        if self.closed:
            text = f"an integer from {self.low:,} to {self.high:,}"
        else:
            text = f"a number between {self.low:g} and {self.high:g}, both excluded"
        return text + (f"; {self.note}" if self.note else "")


def _shown(value) -> str:
    """The value as the user wrote it, cut short: a 4,000-digit number is not echoed whole."""
    if isinstance(value, int) and value.bit_length() > 64:
        return "(a number of more than 19 digits)"
    return str(value)


def option_ranges() -> tuple[Range, ...]:
    return (*_plain_ranges(), window_range())


def window_range(option: str = "--window-tokens") -> Range:
    """--window-tokens, and the Python API's `window_tokens=` (api/_score.py)."""
    from citeledger.core import DEFAULT_WINDOW_TOKENS, WINDOW_TOKENS_RANGE  # here: --help loads no metric

    return Range(option, "window_tokens", *WINDOW_TOKENS_RANGE,
                 note=f"the context window occupancy is a share of; default {DEFAULT_WINDOW_TOKENS:,} or {WINDOW_ENV}")


def jobs_range() -> Range:
    """--jobs, and the Python API's `jobs=` (api/_sweep.py)."""
    return Range("--jobs", "jobs", 0, max_jobs(), note=f"0: all cores; at most {JOBS_PER_CORE} per core")


def _plain_ranges() -> tuple[Range, ...]:
    return (
        jobs_range(),
        Range("--seed", "seed", 0, MAX_SEED),
        Range("--resamples", "resamples", 1, MAX_RESAMPLES),
        Range("--top", "top", 0, MAX_TOP),
        Range("--confidence", "confidence", 0.0, 1.0, closed=False),
        Range("--dask-timeout", "dask_timeout", 1, 600, note="seconds to reach a Dask scheduler; default 10"),
    )


def window_tokens(args) -> int:
    """The context window of --window-tokens, else `default_window_tokens()`."""
    if getattr(args, "window_tokens", None) is not None:
        return args.window_tokens
    return default_window_tokens()


def default_window_tokens() -> int:
    """CG_WINDOW_TOKENS (as the harness reads it) if set, else 200,000; out of range: a UserError."""
    from citeledger.core import DEFAULT_WINDOW_TOKENS, WINDOW_TOKENS_RANGE

    text = os.environ.get(WINDOW_ENV, "")
    if not text:  # unset or empty: the default, as the harness's `|| 200_000`
        return DEFAULT_WINDOW_TOKENS
    low, high = WINDOW_TOKENS_RANGE
    try:
        value = int_text(text)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise UserError(f"{WINDOW_ENV}={text[:40]!r}: not an integer from {low:,} to {high:,}")
    return value


def check_options(args) -> None:
    """Refuse, before anything is read, a number given to an option out of its range,
    and a URL given where a command writes."""
    # The window's range is the metrics' (core.metric): looked up only when the option is given.
    given = getattr(args, "window_tokens", None) is not None
    for rng in option_ranges() if given else _plain_ranges():
        rng.check(getattr(args, rng.dest, None))
    local_outputs(args)


# The options naming where a command writes. Their files are written atomically and an --out
# directory swapped in whole under a lock (cli/output.py): local paths only (docs/decisions.md).
OUTPUT_OPTIONS = ("out", "html", "plot", "diagnostics_out")


def local_outputs(args) -> None:
    """A UserError if an output option names a URL (`--out s3://...`): one line, before any work."""
    from citeledger.core import fs

    for dest in OUTPUT_OPTIONS:
        value = getattr(args, dest, None)
        if isinstance(value, str) and fs.is_url(value):
            raise UserError(f"--{dest.replace('_', '-')} {value}: outputs are written to a local path only "
                            "(write them here, then copy them to the bucket)")


def workers(jobs: int, sessions: int) -> int:
    """Worker processes for `sessions` sessions at --jobs `jobs` (0: all cores): never more than sessions."""
    from citeledger.core import default_jobs

    return max(1, min(jobs if jobs > 0 else default_jobs(), sessions))


def int_text(text: str) -> int:
    """argparse type for an integer option: digits only, and a bounded number of them,
    so the text never meets Python's limit on converting long digit strings."""
    stripped = text.strip()
    digits = stripped[1:] if stripped[:1] in "+-" else stripped
    if not digits.isdigit() or not digits.isascii():
        raise ValueError(text)
    if len(digits) > 30:
        # Out of every range; a sentinel past every bound keeps the message about the range.
        return -(10**31) if stripped.startswith("-") else 10**31
    return int(stripped)


int_text.__name__ = "int"  # argparse's message: "invalid int value: 'x'"


def float_text(text: str) -> float:
    """argparse type for a number option (`float` accepts `nan`, refused by the range check)."""
    if len(text) > 100:
        raise ValueError(text)
    return float(text)


float_text.__name__ = "float"


def as_typed(text: str) -> str:
    """`text` quoted as the user typed it in a shell ('ab-(\\w+', not repr's doubled backslash);
    repr where it holds a quote or a character that does not print."""
    from citeledger.rules.loader import EXCERPT

    shown = f"'{text}'" if text.isprintable() and "'" not in text else repr(text)
    return shown if len(shown) <= EXCERPT else shown[: EXCERPT - 1] + "…"  # never echo a huge pattern whole
