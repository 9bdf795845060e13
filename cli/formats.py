"""Choosing a report format (`--format NAME`, `--json`, `--csv`) and writing what it renders.

The formats are plugins (core.plugins.formats(): text, json, csv, html, plot
and any installed); a command hands its one result record here and never
branches over formats itself.
"""

from __future__ import annotations

import os

from citeledger.core import UserError
from citeledger.cli.output import write_file, write_images, write_stdout


def add_format_option(group, kind: str, shorts: tuple = ("json",)) -> None:
    """--format NAME on `group` (the command's mutually exclusive output options); `shorts`: the
    formats the command also takes as `--NAME` (--json everywhere; --csv where a table is printed)."""
    short = " and ".join(f"--{s}" for s in shorts)
    named = " and ".join(shorts)
    group.add_argument("--format", metavar="NAME", default=None,
                       help=f"print the {kind} result in the format NAME (default: text; {short} "
                       f"{'is' if len(shorts) == 1 else 'are'} short for {named}; an installed plugin may add others)")


def chosen(args) -> str:
    """The format name stdout gets: --json, --csv, --format NAME, else text."""
    if getattr(args, "json", False):
        return "json"
    if getattr(args, "csv", False):
        return "csv"
    return getattr(args, "format", None) or "text"


def check(name: str, kind: str, streamed: tuple = ()) -> None:
    """A usage error, before any input is read, when no installed format `name` renders `kind`
    (`streamed`: the formats the command writes itself, as sweep streams its JSON lines)."""
    from citeledger.core import formats

    installed = formats()
    if name in streamed:
        return
    if name not in installed or kind not in installed[name].renders:
        able = ", ".join(sorted({*streamed, *(n for n, cls in installed.items() if kind in cls.renders)}))
        raise UserError(f"--format {name}: no installed format renders {kind} results (these do: {able})")


def render(result, name: str, **options):
    from citeledger.core import formats

    return formats()[name]().render(result, **options)


def write(result, name: str, path: str | None = None) -> list[str]:
    """Render `result` in format `name` to stdout (no `path`) or to `path` (several files, as
    plot's, to `path`.SUFFIX each); returns the paths written."""
    from citeledger.core import formats

    data = render(result, name)
    if isinstance(data, dict):
        if path is None:
            raise UserError(f"--format {name}: makes several files; give it a path (e.g. --plot PATH)")
        return write_images(path, data)
    if path is None:
        write_stdout(data, raw=getattr(formats()[name], "raw", False))  # else control characters escaped
        return []
    return [write_file(path, data)]


def write_pages(result, *targets) -> None:
    """The html page to each target given (--html PATH, --out DIR's report.html)."""
    targets = [t for t in targets if t]
    if targets:
        page = render(result, "html")
        for target in targets:
            write_file(target, page)


def out_path(out: str | None, name: str) -> str | None:
    return os.path.join(out, name) if out else None
