"""citeledger.core: the accountant.

Readers turn transcript files into a `Transcript`; sources (plugins) cut
each tool result they read into `Section`s (core/source.py);
channels (plugins, found through the registry) judge which returned files the
final answer cited; the accountant charges each section's characters and pools
them per session. Nothing here prints, and nothing here imports readers,
sources, channels, rules, report or cli. infra/ (infrastructure without
domain) and harness/ (codegraph's A/B harness rules) are lower layers whose
names core re-exports.

The names below are core's public API: readers, sources, channels, rules,
reports and the command line import them from `citeledger.core`, not from its
modules (nor from infra/ or harness/).
"""

__version__ = "0.1.0"

# Every name loads its module on first use (PEP 562): a command imports only the
# modules it reads names of (`citeledger --help` none; a one-run `score` not the
# sufficiency or pattern modules unless it uses them).
_LAZY = {
    "Channel": "citeledger.core.channel", "Envelope": "citeledger.core.channel",
    "Finding": "citeledger.core.channel", "find_evidence": "citeledger.core.channel",
    "EXIT_INTERNAL": "citeledger.core.errors", "EXIT_OK": "citeledger.core.errors",
    "EXIT_USAGE": "citeledger.core.errors", "EXIT_WARNINGS": "citeledger.core.errors",
    "InputError": "citeledger.core.errors", "UserError": "citeledger.core.errors",
    "hookimpl": "citeledger.core.hookspecs",
    "KeptTools": "citeledger.core.reader", "ReadOptions": "citeledger.core.reader",
    "Reader": "citeledger.core.reader", "SessionFiles": "citeledger.core.reader",
    "ends_with_result": "citeledger.core.reader",
    "reading": "citeledger.core.reader", "is_explore": "citeledger.core.reader",
    "ChannelRule": "citeledger.core.ruleset", "ReaderRules": "citeledger.core.ruleset",
    "AnswerRules": "citeledger.core.ruleset",
    "Ruleset": "citeledger.core.ruleset", "SourceRule": "citeledger.core.ruleset",
    "UNITS": "citeledger.core.ruleset",
    "CallScore": "citeledger.core.scores", "FileScore": "citeledger.core.scores",
    "SessionScore": "citeledger.core.scores", "Verdict": "citeledger.core.scores",
    "ratio": "citeledger.core.scores",
    "Call": "citeledger.core.sections", "Header": "citeledger.core.sections",
    "RenderTag": "citeledger.core.sections", "Section": "citeledger.core.sections",
    "Symbol": "citeledger.core.sections",
    "MAX_DIGITS": "citeledger.core.numbers", "bounded_int": "citeledger.core.numbers",
    "MAX_EXACT": "citeledger.infra.outside", "as_double": "citeledger.infra.outside",
    "in_range": "citeledger.infra.outside", "out_of_range": "citeledger.infra.outside",
    "json_safe": "citeledger.infra.outside",
    "INTEGER_RANGE": "citeledger.core.ranges", "bounded": "citeledger.core.ranges",
    "field_range": "citeledger.core.ranges",
    "SourceLine": "citeledger.core.sections.source_lines",
    "line_cost": "citeledger.core.sections.source_lines",
    "shipped_lines": "citeledger.core.sections.source_lines",
    "shipped_numbers": "citeledger.core.sections.source_lines",
    "MEASURES": "citeledger.core.sections.units", "sized": "citeledger.core.sections.units",
    "UNKNOWN": "citeledger.core.source", "Given": "citeledger.core.source",
    "Pieces": "citeledger.core.source", "Pulled": "citeledger.core.source", "result_key": "citeledger.core.source",
    "by_file": "citeledger.core.source", "make_sources": "citeledger.core.source",
    "read_options": "citeledger.core.source", "unknown_warning": "citeledger.core.source",
    "within": "citeledger.core.source", "joint": "citeledger.core.source", "joint_members": "citeledger.core.source", "ResultSource": "citeledger.core.source", "explore_tool": "citeledger.core.source",
    "installed_explore_tool": "citeledger.core.source", "SHELL_TOOLS": "citeledger.core.source",
    "ExploreAnswer": "citeledger.core.transcript",
    "AssistantText": "citeledger.core.transcript",
    "Origin": "citeledger.core.transcript", "ResultText": "citeledger.core.transcript",
    "ToolResult": "citeledger.core.transcript",
    "COMMENTARY": "citeledger.core.transcript", "API_ERROR": "citeledger.core.transcript",
    "NOT_ANSWERS": "citeledger.core.transcript",
    "DROPPED": "citeledger.harness.context", "shell_output": "citeledger.harness.context", "only_errors": "citeledger.harness.context",
    "split_output": "citeledger.harness.shell_split", "simple_commands": "citeledger.harness.shell_split",
    "tool_notice": "citeledger.harness.context",
    "Turn": "citeledger.core.answers", "turns_of": "citeledger.core.answers",
    "session_answer": "citeledger.core.answers",
    "ToolUse": "citeledger.core.transcript", "Transcript": "citeledger.core.transcript",
    "Whereabouts": "citeledger.core.transcript", "read_session": "citeledger.core.reader",
    "whereabouts_of": "citeledger.core.reader", "agent_homes": "citeledger.core.reader",
    "explore_queries": "citeledger.core.transcript",
    "score": "citeledger.core.accountant",
    "score_many": "citeledger.core.accountant",
    "calls_of": "citeledger.core.accountant", "readable_responses": "citeledger.core.accountant",
    "channels": "citeledger.core.plugins",
    "readers": "citeledger.core.plugins",
    "sources": "citeledger.core.plugins",
    "metrics": "citeledger.core.plugins",
    "Metric": "citeledger.core.metric", "MetricOptions": "citeledger.core.metric",
    "DEFAULT_WINDOW_TOKENS": "citeledger.core.metric", "WINDOW_TOKENS_RANGE": "citeledger.core.metric",
    "measure_all": "citeledger.core.metric",
    "Appended": "citeledger.core.run_log", "Compaction": "citeledger.core.run_log",
    "Request": "citeledger.core.run_log", "ResultEvent": "citeledger.core.run_log",
    "RunLog": "citeledger.core.run_log", "ToolOutput": "citeledger.core.run_log",
    "Usage": "citeledger.core.run_log", "LoggedTokens": "citeledger.core.run_log",
    "formats": "citeledger.core.plugins", "fingerprint": "citeledger.core.plugins",
    "load_all": "citeledger.core.plugins",
    "PluginError": "citeledger.core.plugins",
    "BoundedMemo": "citeledger.infra.memo",
    "BadPattern": "citeledger.infra.re2text",
    "compile_linear": "citeledger.infra.re2text",
    "LinearPattern": "citeledger.infra.re2text",
    "NotLinear": "citeledger.infra.re2text",
    "needs_groups": "citeledger.infra.re2text",
    # Lower layers core re-exports: infrastructure without domain (infra/) ...
    "InputWarning": "citeledger.infra.records",
    "glob_pattern": "citeledger.infra.globs", "path_matcher": "citeledger.infra.globs",
    "is_blank": "citeledger.infra.jsstr", "js_trim": "citeledger.infra.jsstr",
    "percent": "citeledger.infra.jsstr", "thousands": "citeledger.infra.jsstr",
    "to_fixed": "citeledger.infra.jsstr", "utf16_len": "citeledger.infra.jsstr", "points": "citeledger.infra.jsstr",
    "js_round": "citeledger.infra.jsstr", "js_slice": "citeledger.infra.jsstr",
    "BOM": "citeledger.infra.jsonl", "Keys": "citeledger.infra.jsonl", "Line": "citeledger.infra.jsonl",
    "decode_line": "citeledger.infra.jsonl", "first_line": "citeledger.infra.jsonl", "js_string": "citeledger.infra.jsonl",
    "js_stringify": "citeledger.infra.jsonl", "read_jsonl": "citeledger.infra.jsonl",
    "js_key_order": "citeledger.infra.jsonl",
    "is_file": "citeledger.infra.files", "open_regular": "citeledger.infra.files",
    "read_head": "citeledger.infra.files",
    "printable": "citeledger.infra.printable", "inert_cell": "citeledger.infra.printable",
    "TEMPORARY": "citeledger.infra.atomic", "discard": "citeledger.infra.atomic",
    "replacing": "citeledger.infra.atomic",
    "default_jobs": "citeledger.infra.pool",
    "LOCKED_ERRNOS": "citeledger.infra.locks", "REMOVES_OPEN_FILES": "citeledger.infra.locks",
    "lock_nowait": "citeledger.infra.locks",
    "ENDING_SIGNALS": "citeledger.infra.signals", "HELD_SIGNALS": "citeledger.infra.signals",
    # ... and the rules of codegraph's A/B harness (harness/).
    "arm_and_run": "citeledger.harness.layout", "segment": "citeledger.harness.layout",
    "normal_path": "citeledger.harness.shell", "same_file": "citeledger.harness.shell",
    "shell_intent": "citeledger.harness.shell", "ShellIntent": "citeledger.harness.shell",
    "NEXT_BUCKETS": "citeledger.harness.next_acts", "NEXT_LABELS": "citeledger.harness.next_acts",
    "NEITHER": "citeledger.harness.shell", "READ_KIND": "citeledger.harness.shell",
    "FAMILIES": "citeledger.harness.tools", "FILE_ACCESS": "citeledger.harness.tools",
    "is_codegraph_tool": "citeledger.harness.tools", "runs_codegraph_cli": "citeledger.harness.tools",
    "tool_family": "citeledger.harness.tools",
    "ExploreReport": "citeledger.harness.diagnostics", "FLAGS": "citeledger.harness.diagnostics",
    "BUCKETS": "citeledger.harness.sufficiency", "MAIN": "citeledger.harness.sufficiency",
    "NONE": "citeledger.harness.sufficiency", "Sufficiency": "citeledger.harness.sufficiency",
    "pooled": "citeledger.harness.sufficiency", "sufficiency": "citeledger.harness.sufficiency",
    "spent": "citeledger.harness.spend", "starved_paths": "citeledger.harness.spend",
    "RunBehaviour": "citeledger.harness.arm_runs", "behaviour_of": "citeledger.harness.arm_runs",
}
# Modules core re-exports whole (`from citeledger.core import cache`).
# fs: paths on disk or behind a URL (fsspec), asked as os asks: `fs.isdir(path)`, `fs.listdir(folder)`.
# Whole lower-layer modules core hands on by name: the user's cache, file systems, and the one
# hardened loading of untrusted YAML and JSON (rulesets and check specs).
_MODULES = {"cache": "citeledger.infra.cache", "fs": "citeledger.infra.fs", "untrusted": "citeledger.infra.untrusted"}


def __getattr__(name):
    import importlib

    if name in _MODULES:
        value = importlib.import_module(_MODULES[name])
    elif name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module 'citeledger.core' has no attribute {name!r}")
    globals()[name] = value  # the next use finds it without this call
    return value


__all__ = sorted([*_LAZY, *_MODULES])
