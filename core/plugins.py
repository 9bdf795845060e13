"""The plugin registry: installed channels, readers, sources and formats, built-in or not.

Every plugin, citeledger's own included, is a module named under the
`citeledger` entry-point group of an installed distribution (as pytest's
`pytest11` and llm's `llm`): citeledger's own are in its pyproject.toml, so a
built-in registers exactly as a third party's does, and core names none.
What a plugin adds (channels, readers, sources, formats) is said by the hooks it
implements, not by its group; an entry point's name is its plugin's name in
the registry, one namespace for every kind.
"""

from __future__ import annotations

import functools

import attrs
import pluggy

from citeledger.core import hookspecs
from citeledger.core.errors import UserError

GROUP = "citeledger"


class PluginError(UserError):
    """A plugin that breaks the plugin contract (one line, exit status 2)."""


@functools.lru_cache(maxsize=1)
def manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager("citeledger")
    pm.add_hookspecs(hookspecs)
    pm.load_setuptools_entrypoints(GROUP)
    return pm


def _collect(hook, check=None) -> dict[str, type]:
    """The classes a registration hook registers, by name; each passed to `check` if given."""
    found: dict[str, type] = {}

    def register(cls):
        name = getattr(cls, "name", None)
        if not isinstance(name, str) or not name:
            raise PluginError(f"{cls!r} has no name")
        if name in found and found[name] is not cls:
            raise PluginError(f"two plugins register the name {name!r}")
        found[name] = cls

    hook(register=register)
    for cls in found.values() if check else ():
        check(cls)
    return found


@functools.lru_cache(maxsize=1)
def channels() -> dict[str, type]:
    """Channel classes by name."""
    return _collect(manager().hook.citeledger_register_channels, check_channel)


def check_channel(cls) -> None:
    _check_plugin(cls, "channel", {"judge": "judge(answer, envelope)"})


def _check_plugin(cls, kind: str, methods: dict) -> None:
    """Refuse a plugin class whose Options cannot key the shared-work caches, or that
    lacks a method of its kind (`methods`: name -> how the error shows it)."""
    options = getattr(cls, "Options", None)
    if not (attrs.has(options) and options.__hash__ is not None):
        raise PluginError(f"{kind} plugin {cls.name!r}: Options must be a frozen attrs class (@attrs.frozen)")
    for method, shown in methods.items():
        if not callable(getattr(cls, method, None)):
            raise PluginError(f"{kind} plugin {cls.name!r}: has no {shown} method")


@functools.lru_cache(maxsize=1)
def sources() -> dict[str, type]:
    """Envelope source classes by name (core/source.py)."""
    return _collect(manager().hook.citeledger_register_sources, check_source)


def check_source(cls) -> None:
    _check_plugin(cls, "source", {"tools": "tools()", "cuts": "cuts()"})
    moved = getattr(cls, "moved", {})
    if not (isinstance(moved, dict) and all(isinstance(k, str) and "." in k and isinstance(v, str)
                                            for k, v in moved.items())):
        raise PluginError(f"source plugin {cls.name!r}: moved must map old dotted ruleset keys to option names")
    tool = getattr(cls, "default_explore_tool", None)
    if tool is not None and not (isinstance(tool, str) and tool):
        raise PluginError(f"source plugin {cls.name!r}: default_explore_tool must be a tool name")


def priority(cls) -> int:
    """A reader's place in the claim order: higher is asked first (0 when it says none)."""
    value = getattr(cls, "priority", 0)
    if not isinstance(value, int) or isinstance(value, bool):
        raise PluginError(f"reader plugin {cls.name!r}: priority must be an int")
    return value


@functools.lru_cache(maxsize=1)
def metrics() -> dict[str, type]:
    """Metric classes by name (core/metric.py), by name: JSON keys in one order whatever the load order."""
    return dict(sorted(_collect(manager().hook.citeledger_register_metrics, check_metric).items()))


def check_metric(cls) -> None:
    for method, shown in {"measure": "measure(transcript, options)", "as_json": "as_json(record)"}.items():
        if not callable(getattr(cls, method, None)):
            raise PluginError(f"metric plugin {cls.name!r}: has no {shown} method")


@functools.lru_cache(maxsize=1)
def readers() -> dict[str, type]:
    """Reader classes by name, in the order discovery asks them to claim a file.

    Higher `priority` first, then by name: a reader that claims any file of
    an extension (a catch-all) says a low priority so every other reader is
    asked before it. The last one is the catch-all.
    """
    found = _collect(manager().hook.citeledger_register_readers)
    return dict(sorted(found.items(), key=lambda item: (-priority(item[1]), item[0])))


@functools.lru_cache(maxsize=1)
def formats() -> dict[str, type]:
    """Report format classes by name (text, json, csv, html, plot and any installed)."""
    return _collect(manager().hook.citeledger_register_formats, check_format)


def check_format(cls) -> None:
    renders = getattr(cls, "renders", None)
    if not isinstance(renders, (frozenset, set, tuple)) or not all(isinstance(k, str) for k in renders):
        raise PluginError(f"format plugin {cls.name!r}: renders must be a set of result kinds (str)")
    if not callable(getattr(cls, "render", None)):
        raise PluginError(f"format plugin {cls.name!r}: has no render(result) method")


# ------------------------------------------------------ evidence, as the channel renders it


def _channel_method(name: str, method: str):
    """A channel class's own rendering method, or None (the channel is not installed or has none)."""
    cls = channels().get(name)
    return getattr(cls, method, None) if cls is not None else None


def evidence_label(verdict) -> str:
    """How the text block labels a credit: the crediting channel's `evidence_label`, else
    "<channel> `<evidence>`". `verdict` has `channel` (not None) and `evidence` (a Verdict or a Finding)."""
    own = _channel_method(verdict.channel, "evidence_label")
    return own(verdict) if own is not None else default_evidence_label(verdict)


def default_evidence_label(verdict) -> str:
    return f"{verdict.channel} `{verdict.evidence}`"


def evidence_spans(channel: str, answer: str, evidence: str) -> list[tuple[int, int]]:
    """Where in `answer` the evidence of a `channel` credit stands (the HTML's citation marks):
    the channel's `evidence_spans`, else every occurrence (core.channel.find_evidence)."""
    from citeledger.core.channel import find_evidence

    own = _channel_method(channel, "evidence_spans")
    return list(own(answer, evidence)) if own is not None else find_evidence(answer, evidence)
