"""The plugin registry: installed channels, readers and sources, built-in or not.

Every plugin, citeledger's own included, is a module named under an
entry-point group (`citeledger.channels`, `citeledger.readers`,
`citeledger.sources`) of an
installed distribution: citeledger's own are in its pyproject.toml, so a
built-in registers exactly as a third party's does, and core names none.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys

import attrs
import pluggy

from citeledger.core import cache, hookspecs
from citeledger.core.errors import UserError

CHANNEL_GROUP = "citeledger.channels"
READER_GROUP = "citeledger.readers"
SOURCE_GROUP = "citeledger.sources"
GROUPS = (CHANNEL_GROUP, READER_GROUP, SOURCE_GROUP)


class PluginError(UserError):
    """A plugin that breaks the plugin contract (one line, exit status 2)."""


@functools.lru_cache(maxsize=1)
def manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager("citeledger")
    pm.add_hookspecs(hookspecs)
    found = entry_points()
    # pluggy's load_setuptools_entrypoints, group by group: in the order the
    # distributions are found, a name already registered (or blocked) is skipped.
    for group in GROUPS:
        for ep_group, name, module, attr in found:
            if ep_group != group or pm.get_plugin(name) or pm.is_blocked(name):
                continue
            plugin = importlib.import_module(module)
            for part in attr.split(".") if attr else ():
                plugin = getattr(plugin, part)
            pm.register(plugin, name=name)
    return pm


# ------------------------------------------------------ entry points, scanned once and kept

# First line of a kept listing: what the rest of the file is (a file without it is not trusted).
_LISTING = "citeledger entry points 1"


def entry_points() -> list[tuple[str, str, str, str]]:
    """(group, name, module, attr) of every entry point in GROUPS, in the order
    importlib.metadata finds the distributions (attr "" when the value names a module).

    Scanning every installed distribution needs importlib.metadata (and email,
    zipfile, csv ...), which costs a one-run `score` more than its scoring; the
    listing is kept in the user's cache (core/cache.py), in a file named by
    everything the scan reads (`_installed`), so an installed, removed or
    changed distribution, or another environment, never finds a stale one.
    """
    parts = _installed()
    path = cache.file_for("entry-points", *parts) if parts is not None else None
    kept = _parse(cache.read(path))
    if kept is not None:
        return kept
    found = _scan()
    cache.write(path, "\n".join([_LISTING, *("\t".join(ep) for ep in found)]).encode("utf-8", "surrogateescape") + b"\n")
    return found


def _scan() -> list[tuple[str, str, str, str]]:
    from importlib import metadata

    return [(ep.group, ep.name, ep.module, ep.attr or "")
            for dist in metadata.distributions() for ep in dist.entry_points if ep.group in GROUPS]


def _parse(data) -> list[tuple[str, str, str, str]] | None:
    """A kept listing's entry points, or None when it is missing or not one."""
    if data is None:
        return None
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    if lines[0] != _LISTING or lines[-1] != "":
        return None
    found = [tuple(line.split("\t")) for line in lines[1:-1]]
    return found if all(len(ep) == 4 and ep[0] in GROUPS for ep in found) else None


def _installed() -> list[str] | None:
    """What importlib.metadata reads to find the entry points, as texts: each sys.path
    entry, the distributions in it in the order listed, and every distribution's
    entry_points.txt; None when another finder also lists distributions (no
    listing is kept then: it could change without any of these)."""
    from importlib.machinery import PathFinder

    if any(getattr(f, "find_distributions", None) is not None and f is not PathFinder for f in sys.meta_path):
        return None
    parts = [sys.version]
    for entry in sys.path:
        root = entry or "."
        try:
            names = os.listdir(root)
        except OSError:  # a zip file, or nothing: its stat says whether it changed
            try:
                st = os.stat(root)
            except OSError:
                parts.append(f"absent {entry}")
            else:
                parts.append(f"file {entry} {st.st_mtime_ns} {st.st_size} {st.st_ino}")
            continue
        parts.append(f"dir {entry}")
        if root.lower().endswith(".egg"):
            parts.append(_entry_points_text(os.path.join(root, "EGG-INFO")))
        for name in names:  # only distributions: other files coming and going keep the key
            if name.lower().endswith((".dist-info", ".egg-info")):
                parts += [name, _entry_points_text(os.path.join(root, name))]
    return parts


def _entry_points_text(folder: str) -> str:
    try:
        with open(os.path.join(folder, "entry_points.txt"), "rb") as fh:
            return "+" + fh.read().decode("utf-8", "surrogateescape")
    except OSError:
        return "-"


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


def priority(cls) -> int:
    """A reader's place in the claim order: higher is asked first (0 when it says none)."""
    value = getattr(cls, "priority", 0)
    if not isinstance(value, int) or isinstance(value, bool):
        raise PluginError(f"reader plugin {cls.name!r}: priority must be an int")
    return value


@functools.lru_cache(maxsize=1)
def readers() -> dict[str, type]:
    """Reader classes by name, in the order discovery asks them to claim a file.

    Higher `priority` first, then by name: a reader that claims any file of
    an extension (a catch-all) says a low priority so every other reader is
    asked before it. The last one is the catch-all.
    """
    found = _collect(manager().hook.citeledger_register_readers)
    return dict(sorted(found.items(), key=lambda item: (-priority(item[1]), item[0])))


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
