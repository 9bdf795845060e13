"""The plugin API: what a citeledger plugin can provide.

A plugin is a module with functions marked `@hookimpl`, named after the hooks
below, registered under the `citeledger` entry-point group (the hooks it
implements say whether it adds channels, readers, sources, metrics or report formats). See docs/write-a-channel.md for a worked example.
"""

import pluggy

hookspec = pluggy.HookspecMarker("citeledger")
hookimpl = pluggy.HookimplMarker("citeledger")


@hookspec
def citeledger_register_channels(register):
    """Add citation channels: call `register(ChannelClass)` once per channel.

    A channel class has a `name`, an attrs `Options` class (its ruleset keys)
    and `judge(answer, envelope) -> {path: Finding}`; see
    citeledger.core.channel.Channel.
    """


@hookspec
def citeledger_register_readers(register):
    """Add transcript readers: call `register(ReaderClass)` once per reader.

    A reader class has a `name`, `claims(path) -> bool` and
    `read(paths, options) -> Transcript` (setting `Transcript.turns`), and may
    say how its files make sessions: `sessions(paths)`, `session_of(path)`,
    `part_of_session(dirpath)`; see citeledger.core.reader.Reader and
    docs/architecture.md, "The reader contract".
    """


@hookspec
def citeledger_register_sources(register):
    """Add envelope sources: call `register(SourceClass)` once per source.

    A source class has a `name`, an attrs `Options` class (its ruleset keys
    under `sources:`), `tools()` (the tools whose results the reader keeps
    for it) and `cuts(given, ruleset, memo)` (the Sections of each tool
    result it charges); see citeledger.core.source and docs/sources.md.
    """


@hookspec
def citeledger_register_metrics(register):
    """Add metrics: call `register(MetricClass)` once per metric.

    A metric class has a `name`, `measure(transcript, options) -> record` (a
    frozen attrs record, None where the transcript's format logs nothing to
    measure; `options` a citeledger.core.metric.MetricOptions) and
    `as_json(record) -> dict`; see citeledger.core.metric.
    """


@hookspec
def citeledger_register_formats(register):
    """Add report formats: call `register(FormatClass)` once per format.

    A format class has a `name` (what `--format NAME` selects), `renders` (the
    `kind`s of the result records it renders: "score", "explain", "sweep",
    "compare", "sensitivity") and `render(result) -> str | bytes` (a format
    that makes several files, as plot does, returns {suffix: bytes}); it
    never prints. See docs/architecture.md, "Where to add".
    """
