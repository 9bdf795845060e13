"""The plugin contract: built-ins come from this distribution's entry points, as a third
party's do; readers are asked in priority order; a channel renders its own evidence;
broken plugins are refused in one line."""

from __future__ import annotations

import contextlib

import attrs
import pytest

from citeledger.core import Finding, Verdict, plugins


def test_builtin_channels_and_readers_are_registered():
    assert {"path", "symbol", "line_range", "quote"} <= set(plugins.channels())
    assert {"claude-stream", "claude-interactive", "codex"} <= set(plugins.readers())


def test_channel_with_unhashable_options_is_refused():
    class Mutable:
        name = "mutable"

        @attrs.define
        class Options:
            limit: int = 1

        def judge(self, answer, envelope):
            return {}

    with pytest.raises(plugins.PluginError, match="'mutable': Options must be a frozen attrs class"):
        plugins.check_channel(Mutable)


def test_channel_without_judge_is_refused():
    class Silent:
        name = "silent"

        @attrs.frozen
        class Options:
            pass

    with pytest.raises(plugins.PluginError, match="'silent': has no judge"):
        plugins.check_channel(Silent)


@pytest.mark.parametrize("attribute, value, message", [
    ("moved", {"splitter.header": 3}, "moved must map old dotted ruleset keys to option names"),
    ("moved", ["reader.x"], "moved must map old dotted ruleset keys to option names"),
    ("default_explore_tool", "", "default_explore_tool must be a tool name"),
])
def test_a_source_declares_its_moved_keys_and_default_tool_well(attribute, value, message):
    class Odd:
        name = "odd"

        @attrs.frozen
        class Options:
            pass

        def tools(self):
            return None

        def cuts(self, given, ruleset, memo):
            return [], ()

    plugins.check_source(Odd)  # neither declared: fine
    setattr(Odd, attribute, value)
    with pytest.raises(plugins.PluginError, match=f"'odd': {message}"):
        plugins.check_source(Odd)


def test_two_plugins_may_not_share_a_name():
    class A:
        name = "same"

    class B:
        name = "same"

    def hook(register):
        register(A)
        register(B)

    with pytest.raises(plugins.PluginError, match="two plugins register the name 'same'"):
        plugins._collect(hook)


def test_reader_defaults_are_the_default_rulesets():
    # Readers called without options (library use) read as default.yaml says: the
    # explore tool is the installed explore source's default.
    from citeledger.core.reader import ReadOptions
    from citeledger.rules.loader import load_ruleset

    assert ReadOptions() == load_ruleset("default").read_options()


def test_the_explore_tool_is_the_explore_sources_option():
    # Core names no tool: it asks the ruleset's sources (the explore source's `tool`).
    import attrs

    from citeledger.core import sources
    from citeledger.core.reader import ReadOptions
    from citeledger.rules.loader import load_ruleset

    explore = sources()["codegraph_explore"]
    assert attrs.fields(explore.Options).tool.default == explore.default_explore_tool == ReadOptions().explore_tool
    base = load_ruleset("default")
    (rule,) = base.sources
    renamed = attrs.evolve(base, sources=(attrs.evolve(rule, options=attrs.evolve(rule.options, tool="other_explore")),))
    assert renamed.read_options().explore_tool == renamed.explore_tool == "other_explore"
    read_only = attrs.evolve(base, sources=tuple(r for r in load_ruleset("retrieval").sources if r.name == "read"))
    assert read_only.read_options().explore_tool is None  # no explore source: no explore responses
    assert read_only.read_options().keep("Read")


class _Broken:
    """A channel plugin module whose channel forgets one returned file, or answers in the wrong shape."""

    def __init__(self, mode):
        self.mode = mode

        @attrs.frozen
        class Options:
            pass

        outer = self

        class Forgetful:
            name = "forgetful"

            def __init__(self, options):
                self.options = options

            def judge(self, answer, envelope):
                from citeledger.core import Finding

                if outer.mode == "malformed":
                    return {p: ("yes", p) for p in envelope.paths}
                return {p: Finding(self.name, False, None, "no") for p in envelope.paths[1:]}

        Forgetful.Options = Options
        self.cls = Forgetful

    @plugins.hookspecs.hookimpl
    def citeledger_register_channels(self, register):
        register(self.cls)


@pytest.mark.parametrize("mode, message", [
    ("missing", "channel plugin 'forgetful': no finding for returned file 'src/a.py'"),
    ("malformed", "channel plugin 'forgetful': malformed finding for 'src/a.py'"),
])
def test_a_channel_that_breaks_the_findings_contract_stops_in_one_line(tmp_path, capsys, mode, message):
    from builders import response, section, session

    from citeledger.cli import main

    plugin = _Broken(mode)
    pm = plugins.manager()
    pm.register(plugin, name="broken-for-test")
    plugins.channels.cache_clear()
    try:
        rules = tmp_path / "broken.yaml"
        rules.write_text("extends: default\nname: broken\nchannels:\n  rank: [path, forgetful]\n  forgetful: {}\n")
        run = session(tmp_path, [response(section("src/a.py", size=40), section("src/b.py", size=60))], "see src/b.py")
        status = main(["score", "--ruleset", str(rules), str(run)])
    finally:
        pm.unregister(name="broken-for-test")
        plugins.channels.cache_clear()
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2
    assert len(err) == 1 and err[0].startswith("citeledger: error: ") and message in err[0]


class _Module:
    """A plugin module registering the given channel and reader classes."""

    def __init__(self, channels=(), readers=()):
        self.channel_classes, self.reader_classes = channels, readers

    @plugins.hookspecs.hookimpl
    def citeledger_register_channels(self, register):
        for cls in self.channel_classes:
            register(cls)

    @plugins.hookspecs.hookimpl
    def citeledger_register_readers(self, register):
        for cls in self.reader_classes:
            register(cls)


@contextlib.contextmanager
def installed(**classes):
    pm = plugins.manager()
    pm.register(_Module(**classes), name="test-module")
    plugins.channels.cache_clear()
    plugins.readers.cache_clear()
    try:
        yield
    finally:
        pm.unregister(name="test-module")
        plugins.channels.cache_clear()
        plugins.readers.cache_clear()


def _reader(name, **attributes):
    return type(name, (), {"name": name, "claims": lambda self, path: False, "read": None, **attributes})


def test_readers_are_asked_in_priority_order_then_by_name():
    builtin = list(plugins.readers())
    # claude-stream claims any .jsonl: the catch-all, asked last; the interactive reader before it.
    assert builtin[-2:] == ["claude-interactive", "claude-stream"]
    with installed(readers=(_reader("zz-eager", priority=5), _reader("aa-plain"), _reader("mid", priority=-15))):
        order = list(plugins.readers())
    assert order[0] == "zz-eager"
    assert order.index("aa-plain") < order.index("codex")  # both priority 0: by name
    assert order.index("claude-interactive") < order.index("mid") < order.index("claude-stream")


def test_discovery_follows_the_registry_order(tmp_path):
    from citeledger.corpus import claim

    log = tmp_path / "x.jsonl"
    log.write_text('{"type": "system"}\n')
    assert claim(str(log)) == "claude-stream"
    eager = _reader("eager", priority=1, claims=lambda self, path: path.endswith(".jsonl"))
    with installed(readers=(eager,)):
        assert claim(str(log)) == "eager"


def test_a_reader_priority_must_be_an_int():
    with installed(readers=(_reader("odd", priority="high"),)):
        with pytest.raises(plugins.PluginError, match="'odd': priority must be an int"):
            plugins.readers()


@attrs.frozen
class _NoOptions:
    pass


class _Plain:
    name = "plain"
    Options = _NoOptions

    def judge(self, answer, envelope):
        return {}


class _Own(_Plain):
    name = "own"

    @classmethod
    def evidence_label(cls, verdict):
        return f"<{verdict.evidence}>"

    @classmethod
    def evidence_spans(cls, answer, evidence):
        return [(0, 1)]


def _verdict(channel, evidence):
    return Verdict("lib/a.js", channel, evidence, (Finding(channel, True, evidence, "why"),))


def test_a_channel_renders_its_own_evidence_through_the_registry():
    from citeledger.report.html.citations import occurrences
    from citeledger.report.text import label

    answer = "see `etag` and etag"
    with installed(channels=(_Plain, _Own)):
        assert label(_verdict("own", "etag")) == "<etag>"
        assert occurrences(answer, "own", "etag") == [(0, 1)]
        # Without the methods: "<name> `<evidence>`", and every occurrence.
        assert label(_verdict("plain", "etag")) == "plain `etag`"
        assert occurrences(answer, "plain", "etag") == [(5, 9), (15, 19)]
    # The built-ins: path shows its name alone, symbol marks its code spans.
    assert label(_verdict("path", "lib/a.js")) == "path"
    assert label(_verdict("symbol", "etag")) == "symbol `etag`"
    assert occurrences(answer, "symbol", "etag") == [(5, 9)]
    assert label(Verdict("lib/a.js", None, None, ())) == "—"
