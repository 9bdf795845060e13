"""The plugin contract: built-ins come from this distribution's entry points, as a third
party's do; readers are asked in priority order; a channel renders its own evidence;
broken plugins are refused in one line."""

from __future__ import annotations

import contextlib
import marshal
import sys

import attrs
import pytest

from citeledger.core import Finding, Verdict, __version__, plugins
from citeledger.infra import plugin_index


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

    from types import SimpleNamespace

    impl = SimpleNamespace(plugin_name="twins", function=hook)
    caller = SimpleNamespace(name="citeledger_register_channels", get_hookimpls=lambda: [impl])
    with pytest.raises(plugins.PluginError, match="two plugins register the name 'same'"):
        plugins._collect(caller)


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
            list(plugins.readers())  # the claim order is made when the readers are listed


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


def test_the_kept_plugin_index_is_what_a_full_load_finds(tmp_path, monkeypatch):
    """Kept, read back, it names every built-in with the kinds and names a full load registers;
    it is not trusted once a module it names has other source, nor when it is not an index."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    plugins.index.cache_clear()
    try:
        built = plugins.index()
        path = plugin_index.index_file(__version__)
        assert plugin_index.kept(path) == built
        providers = built.providers("channels")
        assert [e.module for e in providers["path"]] == ["citeledger.channels.path"]
        assert set(built.providers("readers")) == {"codex", "gemini", "gemini-stream", "claude-interactive", "opencode",
                                                   "claude-stream"}
        assert list(providers) == list(plugins.channels())  # the order of a full load
        data = marshal.loads(open(path, "rb").read())
        stale = [(module, origin, "0" * 64 if module == "citeledger.channels.path" else digest)
                 for module, origin, digest in data[1]]
        open(path, "wb").write(marshal.dumps((data[0], stale)))
        assert plugin_index.kept(path) is None
        open(path, "wb").write(b"not an index")
        assert plugin_index.kept(path) is None
    finally:
        plugins.index.cache_clear()


def test_a_lookup_registers_only_the_plugin_that_provides_the_name():
    registry = plugins.Registry("channels", plugins.check_channel)
    assert registry["path"].name == "path"
    assert plugins.manager().has_plugin("path")
    with pytest.raises(KeyError):
        registry["no-such-channel"]
    assert "no-such-channel" not in registry and "symbol" in registry


def test_a_name_two_entry_points_register_is_refused_when_asked_for(monkeypatch):
    """The kept index names every provider of a name: asking for it loads them all, so two
    distributions registering one name stop the command as a full load did."""
    import types

    twin_module = types.ModuleType("citeledger_test_twin")
    twin_module.citeledger_register_channels = plugins.hookspecs.hookimpl(
        lambda register: register(type("Twin", (), {"name": "path"})))
    monkeypatch.setitem(sys.modules, "citeledger_test_twin", twin_module)
    twin = plugins.Entry(name="path-twin", module="citeledger_test_twin",
                         provides=(("channels", (("path", "citeledger_test_twin.Twin"),)),))
    doubled = plugins.Index(entries=(*plugins.index().entries, twin), sources=plugins.index().sources)
    monkeypatch.setattr(plugins, "index", lambda: doubled)
    registry = plugins.Registry("channels", plugins.check_channel)
    pm = plugins.manager()
    try:
        with pytest.raises(plugins.PluginError, match="two plugins register the name 'path'"):
            registry["path"]
    finally:
        if pm.has_plugin("path-twin"):
            pm.unregister(name="path-twin")
