"""`citeledger` command line: one module per subcommand in citeledger.cli.commands.

Exit statuses (docs/cli.md): 0 success; 1 success, but some input was
skipped or some session could not be scored (see the warnings); 2 usage,
input or ruleset error (one line on stderr naming the file and line);
3 internal error (a bug: one line, --debug for the traceback).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import signal
import sys
import threading

from citeledger.core import ENDING_SIGNALS, HELD_SIGNALS, __version__
from citeledger.core.errors import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, UserError
from citeledger.engine.limits import check_options
from citeledger.cli.commands import SUMMARY

COMMANDS = ("score", "explain", "sweep", "compare", "sensitivity", "check")


class Parser(argparse.ArgumentParser):
    """No abbreviated options, in every subcommand too (its parsers are of this class):
    `--ruleset` must never be read as an abbreviation of `--rulesets`."""

    def __init__(self, *args, **kwargs):
        kwargs["allow_abbrev"] = False
        kwargs.setdefault("epilog", EXIT_HELP)
        super().__init__(*args, **kwargs)


EXIT_HELP = ("Exit status (docs/cli.md): 0 ok; 1 ok with warnings (skipped input, unscored sessions); "
             "2 usage, input or ruleset error, or output not writable (a full disk; a reader that left, `| head`, is no error); 3 internal error; "
             "4 `check`: a check of the spec does not hold; "
             "130 interrupted; 143 SIGTERM, 129 SIGHUP (128 + the signal).")


# What the built-in readers read (readers/; `citeledger --version` lists every installed reader).
READS = ("Reads Claude Code stream-json runs and interactive logs, Codex CLI rollouts, Gemini CLI "
         "sessions (chat files and stream-json logs) and opencode session exports (`opencode export`).")


def build_parser(argv=None) -> argparse.ArgumentParser:
    """The command line's parser. Given the arguments, only the command they
    name is imported and fully built: the others (and `--help`, `--version`)
    need no command module, each listed by its SUMMARY line alone."""
    parser = Parser(
        prog="citeledger",
        description=(
            "Of the bytes a code-retrieval tool returned to an agent, which share went to files "
            "the final answer cited? Per call, pooled per session, over a corpus, and between builds."
        ),
        epilog=READS + " " + EXIT_HELP,
    )
    parser.add_argument("--version", action=_Version, help="show the version, the Python and the libraries that run, and exit")
    parser.add_argument("--debug", action="store_true", help="show a traceback on internal errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    parser.set_defaults(subparsers=sub.choices)
    wanted = COMMANDS if argv is None else _named_command(argv)
    for name in COMMANDS:
        if name not in wanted:
            sub.add_parser(name, help=SUMMARY[name])  # never parsed: the arguments name another command
            continue
        try:
            module = importlib.import_module(f"{__package__}.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__package__}.commands.{name}":
                continue  # a command not built yet
            raise
        module.add_parser(sub)
    return parser


def _intermixed(args, argv):
    """The command's arguments parsed again, positionals anywhere among its options
    (`check SPEC --diagnostics SIDECAR RUN.jsonl`): argparse takes a command's positionals
    in one run otherwise. The top-level options keep their values."""
    sub = args.subparsers[args.command]
    rest = argv[argv.index(args.command) + 1:]
    top = argparse.Namespace(debug=args.debug, command=args.command, subparsers=args.subparsers)
    return sub.parse_intermixed_args(rest, namespace=top)


def _named_command(argv) -> tuple:
    """The command the arguments name: the first that is not an option (the
    top-level options take no value), if it is a command."""
    for arg in argv:
        if not arg.startswith("-"):
            return (arg,) if arg in COMMANDS else ()
        if arg == "--":
            break
    return ()


class _Version(argparse.Action):
    """--version: one unwrapped line (argparse's own action wraps it at the terminal's width)."""

    def __init__(self, option_strings, dest, help=None):
        super().__init__(option_strings, dest, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"citeledger {__version__} ({runtime()})")
        print("\n".join(plugins()))
        parser.exit()


def runtime() -> str:
    """The Python and the installed version of each library citeledger requires, for a bug report.

    The names come from the installed distribution's own requirements
    (pyproject.toml), so the list cannot drift from what is declared.
    """
    import platform
    import re
    from importlib import metadata

    parts = []
    for requirement in metadata.requires("citeledger") or ():
        if "extra ==" in requirement:  # the test extra is not what runs
            continue
        name = re.match(r"[A-Za-z0-9._-]+", requirement).group()
        try:
            parts.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{name} missing")
    return f"{platform.python_implementation()} {platform.python_version()}; " + ", ".join(parts)


def plugins() -> list[str]:
    """The installed plugins (entry points of the `citeledger` group, read without importing one),
    one line per distribution that provides them: built-in (citeledger's own) or which one, and where."""
    from importlib import metadata

    found: dict[tuple, list[str]] = {}
    for point in metadata.entry_points(group="citeledger"):
        dist = getattr(point, "dist", None)
        name = dist.metadata["Name"] if dist is not None else None
        key = (name, dist.version if dist is not None else None,
               None if dist is None or name == "citeledger" else str(dist.locate_file("")))
        found.setdefault(key, []).append(point.name)
    lines = [f"plugins ({sum(map(len, found.values()))}, entry-point group `citeledger`):"]
    for (name, version, where), names in sorted(found.items(), key=lambda kv: (kv[0][0] != "citeledger", str(kv[0]))):
        source = "built-in" if name == "citeledger" else f"from {name or 'an unknown distribution'} {version or ''}".rstrip()
        lines.append(f"  {source}{f' ({where})' if where else ''}: {', '.join(sorted(names))}")
    return lines


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: unwind (ending workers, discarding half-written
    files, releasing an --out lock) and exit with 128 + the signal's number."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _terminate(signum, frame):
    raise Terminated(signum)


def _redeliver(unraisable) -> None:
    """sys.unraisablehook: a Terminated raised where Python swallows exceptions
    (an at-fork callback while a worker starts, a __del__) is delivered again,
    so the run still ends; anything else goes to the usual hook."""
    if isinstance(unraisable.exc_value, Terminated):
        # Later and from another thread: raised now, it would land in this hook.
        timer = threading.Timer(0.1, os.kill, (os.getpid(), unraisable.exc_value.signum))
        timer.daemon = True
        timer.start()
    else:
        sys.__unraisablehook__(unraisable)


@contextlib.contextmanager
def _signals_unwind():
    """SIGTERM and SIGHUP raise Terminated in the main thread for the run's duration."""
    previous = {}
    for signum in ENDING_SIGNALS:
        with contextlib.suppress(ValueError, OSError):  # not the main thread, or no such signal
            previous[signum] = signal.signal(signum, _terminate)
    hook, sys.unraisablehook = sys.unraisablehook, _redeliver
    try:
        yield
    finally:
        sys.unraisablehook = hook
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _keep_freed_memory() -> None:
    """Ask glibc to reuse freed large blocks instead of returning them to the system.

    A sweep makes and drops one large string per explore response; by default
    glibc maps each one afresh and unmaps it when freed, so every response
    faults its pages in again (8x the page faults, ~6% of a one-job sweep).
    Peak memory is unchanged: what is kept is reused by the next session.
    Pool workers are forked and inherit the setting. Not glibc: nothing to do.
    """
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    for option in (-1, -3):  # M_TRIM_THRESHOLD, M_MMAP_THRESHOLD
        mallopt(option, 64 << 20)


# Commands that score many sessions (and may fork workers): only they gain from
# keeping freed memory; a one-session command is spared loading ctypes for it.
MANY_SESSIONS = ("sweep", "compare", "sensitivity")


def main(argv=None) -> int:
    entry = argv is None  # the process's own command line: `citeledger` or `python -m citeledger.cli`
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    args, unknown = parser.parse_known_args(argv)
    if getattr(args, "intermixed", False):
        args = _intermixed(args, argv)
    elif unknown:  # a mistyped flag: the subcommand's own usage, not the top-level one
        args.subparsers[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command in MANY_SESSIONS:
        _keep_freed_memory()
    with _signals_unwind():
        status = _run(args)
    if entry and (status in _SIGNALLED or _pool_stopped()):
        _exit_now(status)
    if entry and args.command not in MANY_SESSIONS:
        _no_collection_at_exit()
    return status


def _no_collection_at_exit() -> None:
    """A one-session command's process is about to exit: what it made is frozen out of the
    cyclic collector (gc.freeze), so the interpreter's exit does not walk its ~20,000 objects
    for cycles (~20 ms of a one-run `score --harness`'s ~160 ms CPU, bench/README.md). The
    exit still runs atexit, flushes the standard streams and clears the modules; only garbage
    in reference cycles is left to the system, as every object is at the process's end. Not
    for the commands of many sessions, whose pools and clusters finish as they always did."""
    gc.freeze()


def _pool_stopped() -> bool:
    """Whether a pool's workers were ended mid-work (an error while they ran: a full /tmp)."""
    pool = sys.modules.get("citeledger.infra.pool")
    return pool is not None and pool.stopped_any()


# Exit statuses of a run ended by a signal (128 + SIGHUP, SIGINT, SIGTERM).
_SIGNALLED = frozenset(128 + s for s in HELD_SIGNALS)


def _exit_now(status: int) -> None:
    """End an interrupted process once its own cleanup is done (files discarded, the
    --out lock released). A pool worker ended halfway through writing its result can
    leave concurrent.futures' result reader waiting forever for the rest, and the
    interpreter's exit joins that reader's thread: it would hang instead of exiting."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


def _run(args) -> int:
    raw = _raw_cells(args)
    try:
        check_options(args)
        _ignored_plugins()
        return args.run(args)
    except Terminated as exc:
        print(f"citeledger: terminated by {signal.Signals(exc.signum).name}", file=sys.stderr)
        return 128 + exc.signum
    except UserError as exc:  # its text may quote the input (a spec key, an --arms label): made inert
        from citeledger.core import printable

        print(printable(f"citeledger: error: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("citeledger: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader left (`| head`) where print wrote: quietly done, as docs/cli.md says
        from citeledger.cli.output import discard_stdout

        discard_stdout()  # no second error when Python flushes stdout at exit
        return EXIT_OK
    except OSError as exc:  # reading or writing a path failed outside cli/output's wrappers
        from citeledger.core import printable

        where = exc.filename if exc.filename is not None else "<input/output>"
        print(printable(f"citeledger: error: {where}: {exc.strerror or exc}"), file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # a plugin's code (or a library's) ending the process: never a silent pass
        if args.debug:
            raise
        print(f"citeledger: internal error: sys.exit({exc.code!r}) was called during the run (a plugin?); "
              "nothing was judged (rerun with --debug)", file=sys.stderr)
        return EXIT_INTERNAL
    except Exception as exc:  # a bug: one line unless asked for more
        if args.debug:
            raise
        from citeledger.core import printable

        print(printable(f"citeledger: internal error: {type(exc).__name__}: {exc} (rerun with --debug)"), file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        if raw is not None:
            raw[0].reset(raw[1])


def _ignored_plugins() -> None:
    """One warning per third-party entry point named like a built-in plugin (it is not loaded)."""
    from citeledger.core import plugins, printable

    for name, value, dist in plugins.index().ignored:
        print(printable(f"citeledger: warning: plugin {name!r} ({value}, distribution {dist}) is named like "
                        "a built-in plugin of citeledger: ignored (rename its entry point)"), file=sys.stderr)


def _raw_cells(args):
    """--csv-raw, for this run's CSV writers: (the variable, its token to reset), or None when not
    given (the variable's default holds, and a plain run does not import the tables for it)."""
    if not getattr(args, "csv_raw", False):
        return None
    from citeledger.report.tables import RAW_CELLS

    return RAW_CELLS, RAW_CELLS.set(True)

