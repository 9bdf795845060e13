"""The plugin contract: built-ins register through entry points; broken plugins are refused in one line."""

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
