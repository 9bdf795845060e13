"""Argument handling shared by the subcommands."""

from __future__ import annotations

import functools
import sys

from citeledger.rules import compiled
from citeledger.rules.compiled import shipped_names

from citeledger.core import fs, printable
from citeledger.core.errors import EXIT_INTERNAL, EXIT_OK, EXIT_WARNINGS, UserError


def add_session_inputs(parser) -> None:
    """FILE ... or --session PATH, and --ruleset: the inputs of score and explain."""
    parser.add_argument("files", nargs="*", metavar="FILE", help="the files of one session, in order (-: standard input, one session)")
    parser.add_argument("--session", metavar="PATH", nargs="?", const=".",
                        help="a Claude Code interactive session log, or a project directory's newest "
                        "(no PATH: the current directory's)")
    add_ruleset_option(parser)


def add_diagnostics_options(parser, automatic: bool) -> None:
    parser.add_argument(
        "--diagnostics", action="append", default=[], metavar="FILE",
        help="codegraph's explore diagnostic sidecar (CODEGRAPH_EXPLORE_DEBUG=FILE), repeatable: join each "
        "explore call to its report" + (" (default: explore-<label>.jsonl beside run-<label>-N.jsonl)" if automatic else ""),
    )
    if automatic:
        parser.add_argument("--no-diagnostics", action="store_true", help="do not pick up explore-<label>.jsonl sidecars")
    parser.add_argument("--diagnostics-out", metavar="DIR",
                        help="write the diagnostic join as DIR/diagnostics.{csv,json,png,svg}")


def add_format_options(parser, json_help: str, kind: str) -> None:
    from citeledger.cli.formats import add_format_option

    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help=json_help)
    fmt.add_argument("--csv", action="store_true", help="print the table as CSV instead of text")
    add_format_option(fmt, kind, ("json", "csv"))
    parser.add_argument("--csv-raw", action="store_true",
                        help="write CSV cells as they are: by default a cell a spreadsheet would run as a "
                        "formula (starting = + - @, tab or CR) is written with a ' before it (docs/robustness.md)")


def session_request(args, kind: str, metrics: bool = False):
    """The engine's request for one session (engine/session.py) from score's or explain's options."""
    from citeledger.engine.session import SessionRequest

    globs = getattr(args, "answer", None) or []
    return SessionRequest(
        ruleset=ruleset_from(args), files=tuple(args.files), session=args.session, kind=kind,
        sufficiency=args.sufficiency, next_acts=bool(args.html),
        answer_globs=tuple(globs) if globs or getattr(args, "envelope", False) else None,
        metrics=metrics, window_tokens=getattr(args, "window_tokens", None),
    )


def add_html_option(parser) -> None:
    parser.add_argument("--html", metavar="PATH",
                        help="also write the report as one self-contained HTML page to PATH")


def add_jobs_options(parser) -> None:
    from citeledger.core import default_jobs

    from citeledger.engine.limits import int_text, max_jobs

    parser.add_argument("--jobs", "-j", type=int_text, default=0, metavar="N",
                        help=f"worker processes, 0 to {max_jobs()} (default: all cores, here {default_jobs()}; "
                        "never more than sessions); results do not depend on N")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar on stderr")


def warn(warning) -> None:
    """One warning line on stderr: FILE:LINE: message (line 0: the whole file)."""
    print(printable(f"citeledger: warning: {warning.file}:{warning.line}: {warning.message}"), file=sys.stderr)


def session_note(session, transcript) -> None:
    """Say which log a --session directory resolved to (a note: the exit status does not change)."""
    if session and fs.isdir(session) and transcript.files:
        print(f"citeledger: note: --session {session}: scoring {transcript.files[0]} (the newest session log)",
              file=sys.stderr)
    if session and len(transcript.files) > 1:
        print(f"citeledger: note: --session {session}: also read its subagent logs: "
              f"{', '.join(transcript.files[1:])}", file=sys.stderr)


WARNINGS_LISTED = 20  # up to this many, one line each; more are summarised by kind
NAMED_PER_KIND = 3
# Python's white space (str.isspace), spelled out for RE2, whose \\s is ASCII.
SPACE = "\\t\\n\\x0b\\x0c\\r\\x1c-\\x20\\x85\\xa0\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}"
# What varies in a warning: a quoted value, a file name, a number. On RE2: a warning quotes
# transcript values, and on re `[^\\s()]+\\.jsonl` is quadratic in a long word.
VARYING = rf"'[^']*'|\"[^\"]*\"|[^{SPACE}()]+\.jsonl(?::\p{{Nd}}+)?|\p{{Nd}}[\p{{Nd}},.]*"


@functools.cache
def _varying():
    from citeledger.core import compile_linear

    return compile_linear(VARYING)


def warning_kind(message: str) -> str:
    """A warning's message with what varies (quoted values, file names, numbers) blanked: its kind."""
    out, at = [], 0
    for start, end in _varying().spans(message):
        out += (message[at:start], "N" if message[start].isdigit() else "…")
        at = end
    out.append(message[at:])
    return "".join(out)


def report_warnings(warnings, where: str = "--json and --out") -> None:
    """Warnings on stderr: each one when few; else a count per kind with the first few named."""
    warnings = list(warnings)
    if len(warnings) <= WARNINGS_LISTED:
        for w in warnings:
            warn(w)
        return
    kinds: dict[str, list] = {}
    for w in warnings:
        kinds.setdefault(warning_kind(w.message), []).append(w)
    kinds_text = f"{len(kinds)} kind" + ("s" if len(kinds) != 1 else "")
    print(f"citeledger: {len(warnings)} input warnings of {kinds_text} (every one is in {where}):", file=sys.stderr)
    for kind, found in kinds.items():
        named = ", ".join(f"{w.file}:{w.line}" for w in found[:NAMED_PER_KIND])
        more = f" …+{len(found) - NAMED_PER_KIND}" if len(found) > NAMED_PER_KIND else ""
        print(printable(f"citeledger: warning: {len(found)} × {kind} — {named}{more}"), file=sys.stderr)


def finish(result, extra_warnings=()) -> int:
    """Warnings on stderr (the reason a session is not scored among them) and the exit status:
    every exit 1 names its reason (docs/cli.md)."""
    from citeledger.core.transcript import InputWarning
    from citeledger.report.tables import REASONS, reason_of

    warnings = [*result.warnings, *extra_warnings]
    if result.status in REASONS:
        where = result.inputs[0] if result.inputs else result.name
        warnings.append(InputWarning(file=where, line=0, message=f"not scored ({result.status}): {reason_of(result.status, result.source_names)}"))
    report_warnings(warnings, "--json")  # on stderr whatever the format; --json also carries them
    return EXIT_WARNINGS if warnings else EXIT_OK


def shipped_list() -> str:
    """For --help: the shipped rulesets' names (a name not among them must be a YAML file)."""
    return "shipped: " + ", ".join(shipped_names()) + "; or a YAML file"


def one_ruleset(names, command: str) -> str:
    """The one ruleset a command uses: a second --ruleset is refused, never silently dropped."""
    if names and len(names) > 1:
        raise UserError(f"--ruleset given {len(names)} times: {command} uses one ruleset "
                        "(sweep and sensitivity score several)")
    return names[0] if names else "default"


def add_ruleset_option(parser) -> None:
    parser.add_argument(
        "--ruleset", action="append", default=None, metavar="NAME|PATH",
        help="a ruleset, once (default: default; " + shipped_list() + ")",
    )


def ruleset_from(args):
    return compiled.load(one_ruleset(args.ruleset, args.command))


def add_corpus_options(p, what: str, once: bool = False) -> None:
    """--ruleset (repeatable, or `once`), --json, --csv, --out, --jobs, --quiet: shared with compare."""
    if once:
        add_ruleset_option(p)
    else:
        p.add_argument(
            "--ruleset", action="append", default=None, metavar="NAME|PATH",
            help=f"a ruleset; repeat to {what} (default: default; {shipped_list()})",
        )
    add_format_options(p, "print JSON lines (stable keys, docs/sweep.md) instead of text", "compare" if once else "sweep")
    p.add_argument("--out", metavar="DIR", help="also write every output format into DIR (created if missing)")
    add_exclude_option(p)
    add_html_option(p)
    add_jobs_options(p)


def add_exclude_option(p) -> None:
    p.add_argument(
        "--exclude", action="append", default=[], metavar="GLOB",
        help="skip files and folders matching GLOB under a given directory (repeatable; with a '/' it "
        "matches the path relative to that directory, else any one name in it; ** any path, * within a name)",
    )


def swept_status(result) -> int:
    """A sweep's exit status (engine/sweep.py's result): 3 after an internal error (said on stderr),
    1 with a session not scored or an input warning, else 0."""
    if result.internal:
        print("citeledger: internal error while scoring some sessions (listed as not scored)", file=sys.stderr)
        return EXIT_INTERNAL
    return EXIT_WARNINGS if result.unscored or result.warnings else EXIT_OK


def no_sessions(paths, warnings) -> None:
    """Nothing to score: one error line. The warnings too unless every path is missing (then
    the error says all they would: no second line for one mistake)."""
    missing = [p for p in paths if not fs.lexists(p)]
    if len(missing) == len(paths):
        raise UserError(f"{', '.join(missing)}: no such file or directory")
    report_warnings(warnings)
    raise UserError(f"{', '.join(paths)}: no sessions found")
