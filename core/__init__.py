"""citeledger.core: the accountant.

Readers turn transcript files into a `Transcript`; sources (plugins) cut
each tool result they read into `Section`s (core/source.py);
channels (plugins, found through the registry) judge which returned files the
final answer cited; the accountant charges each section's characters and pools
them per session. Nothing here prints, and nothing here imports channels,
rules, report or cli.

The names below are core's public API: channels, rules, reports and the
command line import them from `citeledger.core`, not from its modules.
"""

from citeledger.core.channel import Channel, Envelope, Finding, find_evidence
from citeledger.core.errors import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, EXIT_WARNINGS, InputError, UserError
from citeledger.core.globs import glob_pattern, path_matcher
from citeledger.core.hookspecs import hookimpl
from citeledger.core.jsstr import is_blank, js_trim, percent, thousands, to_fixed, utf16_len
from citeledger.core.readers.base import KeptTools, ReadOptions, SessionFiles
from citeledger.core.scores import CallScore, FileScore, SessionScore, Verdict, ratio
from citeledger.core.sections import Call, Header, RenderTag, Section, Symbol
from citeledger.core.numbers import MAX_DIGITS, bounded_int
from citeledger.core.ranges import INTEGER_RANGE, bounded, field_range
from citeledger.core.shell import normal_path, same_file, shell_intent
from citeledger.core.sections.source_lines import SourceLine, line_cost, shipped_lines
from citeledger.core.sections.units import MEASURES, sized
from citeledger.core.source import (
    UNKNOWN, Given, Pieces, Pulled, by_file, make_sources, read_options, unknown_warning,
)
from citeledger.core.transcript import (
    AssistantText, InputWarning, Origin, ResultText, ToolResponse, ToolResult, ToolUse, Transcript, explore_queries,
)

__version__ = "0.1.0"

# Heavy names (the accountant pulls in the lark grammar) load on first use, so
# `citeledger --help` and the ruleset loader stay quick.
_LAZY = {
    "score": "citeledger.core.accountant",
    "score_many": "citeledger.core.accountant",
    "calls_of": "citeledger.core.accountant",
    "discover": "citeledger.core.corpus",
    "score_corpus": "citeledger.core.corpus",
    "SessionRef": "citeledger.core.corpus",
    "SessionOutcome": "citeledger.core.corpus",
    "session_for": "citeledger.core.corpus",
    "claim": "citeledger.core.corpus",
    "channels": "citeledger.core.plugins",
    "readers": "citeledger.core.plugins",
    "sources": "citeledger.core.plugins",
    "PluginError": "citeledger.core.plugins",
    "compile_linear": "citeledger.core.patterns",
    "LinearPattern": "citeledger.core.patterns",
    "NotLinear": "citeledger.core.patterns",
    "needs_groups": "citeledger.core.patterns",
}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'citeledger.core' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = sorted(
    [
        "AssistantText", "Call", "calls_of", "CallScore", "Channel", "EXIT_INTERNAL", "EXIT_OK", "EXIT_USAGE",
        "EXIT_WARNINGS", "Envelope", "explore_queries", "FileScore", "Finding", "Header", "InputError", "InputWarning",
        "Origin", "ReadOptions", "RenderTag", "ResultText", "Section", "SessionFiles", "SessionScore",
        "SourceLine", "Symbol", "ToolResponse", "ToolResult", "ToolUse", "KeptTools", "MEASURES", "sized", "UNKNOWN",
        "Given", "Pieces", "Pulled", "unknown_warning", "by_file", "make_sources", "read_options", "Transcript", "UserError", "Verdict", "glob_pattern",
        "find_evidence", "MAX_DIGITS", "bounded_int", "INTEGER_RANGE", "bounded", "field_range", "hookimpl", "is_blank", "normal_path", "same_file", "shell_intent", "js_trim", "path_matcher", "line_cost", "percent", "ratio",
        "shipped_lines", "thousands", "to_fixed", "utf16_len",
        *_LAZY,
    ]
)
