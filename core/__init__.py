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

__version__ = "0.1.0"

# Every name loads its module on first use (PEP 562): a command imports only the
# modules it reads names of (`citeledger --help` none; a one-run `score` not the
# corpus, sufficiency or pattern modules unless it uses them).
_LAZY = {
    "Channel": "citeledger.core.channel", "Envelope": "citeledger.core.channel",
    "Finding": "citeledger.core.channel", "find_evidence": "citeledger.core.channel",
    "EXIT_INTERNAL": "citeledger.core.errors", "EXIT_OK": "citeledger.core.errors",
    "EXIT_USAGE": "citeledger.core.errors", "EXIT_WARNINGS": "citeledger.core.errors",
    "InputError": "citeledger.core.errors", "UserError": "citeledger.core.errors",
    "glob_pattern": "citeledger.core.globs", "path_matcher": "citeledger.core.globs",
    "hookimpl": "citeledger.core.hookspecs",
    "is_blank": "citeledger.core.jsstr", "js_trim": "citeledger.core.jsstr",
    "percent": "citeledger.core.jsstr", "thousands": "citeledger.core.jsstr",
    "to_fixed": "citeledger.core.jsstr", "utf16_len": "citeledger.core.jsstr",
    "KeptTools": "citeledger.core.readers.base", "ReadOptions": "citeledger.core.readers.base",
    "SessionFiles": "citeledger.core.readers.base",
    "CallScore": "citeledger.core.scores", "FileScore": "citeledger.core.scores",
    "SessionScore": "citeledger.core.scores", "Verdict": "citeledger.core.scores",
    "ratio": "citeledger.core.scores",
    "Call": "citeledger.core.sections", "Header": "citeledger.core.sections",
    "RenderTag": "citeledger.core.sections", "Section": "citeledger.core.sections",
    "Symbol": "citeledger.core.sections",
    "MAX_DIGITS": "citeledger.core.numbers", "bounded_int": "citeledger.core.numbers",
    "INTEGER_RANGE": "citeledger.core.ranges", "bounded": "citeledger.core.ranges",
    "field_range": "citeledger.core.ranges",
    "normal_path": "citeledger.core.shell", "same_file": "citeledger.core.shell",
    "shell_intent": "citeledger.core.shell",
    "SourceLine": "citeledger.core.sections.source_lines",
    "line_cost": "citeledger.core.sections.source_lines",
    "shipped_lines": "citeledger.core.sections.source_lines",
    "shipped_numbers": "citeledger.core.sections.source_lines",
    "MEASURES": "citeledger.core.sections.units", "sized": "citeledger.core.sections.units",
    "UNKNOWN": "citeledger.core.source", "Given": "citeledger.core.source",
    "Pieces": "citeledger.core.source", "Pulled": "citeledger.core.source",
    "by_file": "citeledger.core.source", "make_sources": "citeledger.core.source",
    "read_options": "citeledger.core.source", "unknown_warning": "citeledger.core.source",
    "AssistantText": "citeledger.core.transcript", "InputWarning": "citeledger.core.transcript",
    "Origin": "citeledger.core.transcript", "ResultText": "citeledger.core.transcript",
    "ToolResponse": "citeledger.core.transcript", "ToolResult": "citeledger.core.transcript",
    "ToolUse": "citeledger.core.transcript", "Transcript": "citeledger.core.transcript",
    "explore_queries": "citeledger.core.transcript",
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
    "BadPattern": "citeledger.infra.re2text",
    "compile_linear": "citeledger.infra.re2text",
    "LinearPattern": "citeledger.infra.re2text",
    "NotLinear": "citeledger.infra.re2text",
    "needs_groups": "citeledger.infra.re2text",
}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'citeledger.core' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next use finds it without this call
    return value


__all__ = sorted(_LAZY)
