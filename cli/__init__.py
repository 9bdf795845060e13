"""`citeledger` command line: one module per subcommand in citeledger.cli.commands.

Exit statuses (docs/cli.md): 0 success; 1 success, but some input was
skipped or some session could not be scored (see the warnings); 2 usage,
input or ruleset error (one line on stderr naming the file and line);
3 internal error (a bug: one line, --debug for the traceback).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from citeledger.core import __version__, kernel_name
from citeledger.core.errors import EXIT_INTERNAL, EXIT_USAGE, UserError

COMMANDS = ("score", "explain", "sweep", "compare", "sensitivity")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="citeledger",
        description=(
            "Of the bytes a code-retrieval tool returned to an agent, which share went to files "
            "the final answer cited? Per call, pooled per session, over a corpus, and between builds."
        ),
        epilog="Exit status: 0 ok; 1 ok with warnings (skipped input, unscored sessions); "
        "2 usage, input or ruleset error; 3 internal error.",
    )
    parser.add_argument("--version", action="version", version=f"citeledger {__version__} ({kernel_name()})")
    parser.add_argument("--debug", action="store_true", help="show a traceback on internal errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    parser.set_defaults(subparsers=sub.choices)
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"{__package__}.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__package__}.commands.{name}":
                continue  # a command not built yet
            raise
        module.add_parser(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # a mistyped flag: the subcommand's own usage, not the top-level one
        args.subparsers[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        return args.run(args)
    except UserError as exc:
        print(f"citeledger: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("citeledger: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: one line unless asked for more
        if args.debug:
            raise
        print(f"citeledger: internal error: {type(exc).__name__}: {exc} (rerun with --debug)", file=sys.stderr)
        return EXIT_INTERNAL

