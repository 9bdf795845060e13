"""The plugin registry: built-in and installed channels and readers.

Built-ins are a default-plugins list, as pytest and llm keep theirs; a
third-party package registers through an entry-point group. Core names the
built-in modules as strings and never imports them itself: the channels
package sits above core.
"""

from __future__ import annotations

import functools

import attrs
import pluggy

from citeledger.core import hookspecs
from citeledger.core.errors import UserError

CHANNEL_GROUP = "citeledger.channels"
READER_GROUP = "citeledger.readers"

DEFAULT_PLUGINS = (
    "citeledger.channels.path",
    "citeledger.channels.symbol",
    "citeledger.channels.line_range",
    "citeledger.channels.quote",
    "citeledger.channels.read_after",
    "citeledger.core.readers.claude_stream",
    "citeledger.core.readers.claude_interactive",
    "citeledger.core.readers.codex",
    "citeledger.core.readers.gemini",
)


class PluginError(UserError):
    """A plugin that breaks the plugin contract (one line, exit status 2)."""


@functools.lru_cache(maxsize=1)
def manager() -> pluggy.PluginManager:
    import importlib

    pm = pluggy.PluginManager("citeledger")
    pm.add_hookspecs(hookspecs)
    for name in DEFAULT_PLUGINS:
        pm.register(importlib.import_module(name), name=name)
    for group in (CHANNEL_GROUP, READER_GROUP):  # third-party plugins
        pm.load_setuptools_entrypoints(group)
    return pm


def _collect(hook) -> dict[str, type]:
    found: dict[str, type] = {}

    def register(cls):
        name = getattr(cls, "name", None)
        if not isinstance(name, str) or not name:
            raise PluginError(f"{cls!r} has no name")
        if name in found and found[name] is not cls:
            raise PluginError(f"two plugins register the name {name!r}")
        found[name] = cls

    hook(register=register)
    return found


@functools.lru_cache(maxsize=1)
def channels() -> dict[str, type]:
    """Channel classes by name."""
    found = _collect(manager().hook.citeledger_register_channels)
    for cls in found.values():
        check_channel(cls)
    return found


def check_channel(cls) -> None:
    """Refuse a channel class whose Options cannot key the shared-work caches."""
    options = getattr(cls, "Options", None)
    if not (attrs.has(options) and options.__hash__ is not None):
        raise PluginError(f"channel plugin {cls.name!r}: Options must be a frozen attrs class (@attrs.frozen)")
    if not callable(getattr(cls, "judge", None)):
        raise PluginError(f"channel plugin {cls.name!r}: has no judge(answer, envelope) method")


@functools.lru_cache(maxsize=1)
def readers() -> dict[str, type]:
    """Reader classes by name."""
    return _collect(manager().hook.citeledger_register_readers)
