"""The plugin contract: built-ins are the default-plugins list; broken plugins are refused in one line."""

from __future__ import annotations

import attrs
import pytest

from citeledger.core import plugins


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
    # Readers called without options (library use) read as default.yaml says.
    from citeledger.core.readers.base import ReadOptions
    from citeledger.rules.loader import load_ruleset

    assert ReadOptions() == load_ruleset("default").reader.read_options()


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
