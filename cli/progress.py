"""A progress bar on stderr for long work; silent unless stderr is a terminal."""

from __future__ import annotations

import contextlib
import sys
from typing import Callable, Iterator, Optional


def wanted(quiet: bool, stream=None) -> bool:
    stream = stream or sys.stderr
    return not quiet and hasattr(stream, "isatty") and stream.isatty()


@contextlib.contextmanager
def progress_bar(total: int, label: str, quiet: bool = False) -> Iterator[Optional[Callable[[int], None]]]:
    """Yields `advance(n)` (or None when no bar is wanted); the bar is removed on exit."""
    if not wanted(quiet) or total <= 0:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=Console(file=sys.stderr), transient=True,
    ) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)
