"""The plugin registry: installed channels, readers, sources, metrics and formats, built-in or not.

Every plugin, citeledger's own included, is a module named under the
`citeledger` entry-point group of an installed distribution (as pytest's
`pytest11` and llm's `llm`): citeledger's own are in its pyproject.toml, so a
built-in registers exactly as a third party's does, and core names none.
What a plugin adds (channels, readers, sources, metrics, formats) is said by the hooks it
implements, not by its group; an entry point's name is its plugin's name in
the registry, one namespace for every kind.

A plugin module is imported when something asks for a name it registers (a
plain `score` imports the two channels and the one source its ruleset uses,
not the other nine), and the entry points are scanned once, not on every
run: `index()` keeps what the scan and a full load found — each entry
point's name and module, the kinds and names it registers, the source of
the modules that define them — in the user's cache (infra/cache.py), in a
file named by Python's and citeledger's versions and by every
`sys.path` entry and its modification time (installing, upgrading or
removing a distribution adds or removes a directory in one of them). A kept
index is used only while every module it names still has the source it was
built from; else, or when there is none, the group is scanned and every
plugin loaded, as pluggy's `load_setuptools_entrypoints` does (docs/decisions.md,
"The lean engine").
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping

import attrs
import pluggy

from citeledger.core import hookspecs
from citeledger.core.errors import UserError
from citeledger.infra import plugin_index
from citeledger.infra.plugin_index import Entry, Index

GROUP = "citeledger"

# Each kind of plugin and the hook that registers it.
HOOKS = {
    "channels": "citeledger_register_channels",
    "readers": "citeledger_register_readers",
    "sources": "citeledger_register_sources",
    "metrics": "citeledger_register_metrics",
    "formats": "citeledger_register_formats",
}


class PluginError(UserError):
    """A plugin that breaks the plugin contract (one line, exit status 2)."""


@functools.lru_cache(maxsize=1)
def manager() -> pluggy.PluginManager:
    """The plugin manager; its plugins are registered as they are asked for (`load`, `load_all`)."""
    pm = pluggy.PluginManager("citeledger")
    pm.add_hookspecs(hookspecs)
    return pm


@functools.lru_cache(maxsize=1)
def index() -> Index:
    """The group's entries: the kept index when it still holds, else a scan and a full load (kept)."""
    from citeledger.core import __version__

    path = plugin_index.index_file(__version__)
    found = plugin_index.kept(path)
    if found is not None:
        return found
    ignored = _load_group(manager())
    found = attrs.evolve(plugin_index.built(manager(), HOOKS, registered), ignored=ignored)
    plugin_index.keep(path, found)
    return found


# The distribution whose entry points are the built-ins: they are loaded first, and a third
# party's entry point of the same name is ignored (it would replace a built-in otherwise).
OWN = "citeledger"


def _group(name: str | None = None) -> list:
    """The group's entry points (of `name` alone when given), citeledger's own first, then in
    sys.path order as importlib.metadata finds them."""
    from importlib import metadata

    found = [(dist, ep) for dist in metadata.distributions() for ep in dist.entry_points
             if ep.group == GROUP and (name is None or ep.name == name)]
    return sorted(found, key=lambda item: _distribution(item[0]) != OWN)


def _distribution(dist) -> str:
    try:
        return str(dist.metadata["Name"] or "?")
    except Exception:  # a broken METADATA file: named by what is known
        return "?"


def _load_group(pm: pluggy.PluginManager, name: str | None = None) -> tuple:
    """Register every entry point of the group (of `name` alone when given), each import guarded
    (`_imported`); the entry points a built-in's name hides: ((name, value, distribution), ...)."""
    ignored = []
    for dist, ep in _group(name):
        if pm.is_blocked(ep.name):
            continue
        if pm.has_plugin(ep.name):
            if _distribution(dist) != OWN and ep.name in _own_names(pm):
                ignored.append((ep.name, ep.value, _distribution(dist)))
            continue
        _register(pm, ep.name, lambda: ep.load(), f"{ep.value}, distribution {_distribution(dist)}")
    return tuple(ignored)


def _own_names(pm: pluggy.PluginManager) -> set:
    return {name for name, plugin in pm.list_name_plugin()
            if getattr(plugin, "__name__", "").startswith(OWN + ".")}


def _register(pm: pluggy.PluginManager, name: str, imported, where: str) -> None:
    """Register what `imported()` returns as plugin `name`. A plugin whose import raises, exits
    (sys.exit) or that pluggy refuses stops the run in one line naming it (`where`: its module)."""
    try:
        plugin = imported()
    except (Exception, SystemExit) as exc:  # a third party's module: anything may happen in it
        raise PluginError(f"plugin {name!r} ({where}): importing it {_raised(exc)}") from None
    try:
        pm.register(plugin, name=name)
    except Exception as exc:  # pluggy's PluginValidationError: a hook it cannot take
        raise PluginError(f"plugin {name!r} ({where}): {_raised(exc)}") from None


def _raised(exc: BaseException) -> str:
    """What a plugin's code did, in a few words: `called sys.exit(0)`, `raised RuntimeError: boom`."""
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code!r})"
    said = str(exc).splitlines()[0] if str(exc) else ""
    return f"raised {type(exc).__name__}" + (f": {said[:200]}" if said else "")


def load(entry: Entry) -> None:
    """Register the plugin of `entry` (importing its module) unless it is registered or blocked."""
    pm = manager()
    if pm.has_plugin(entry.name) or pm.is_blocked(entry.name):
        return
    if entry.module is None:
        _load_group(pm, entry.name)
    else:
        _register(pm, entry.name, lambda: importlib.import_module(entry.module), entry.module)


def load_all() -> None:
    """Register every plugin of the group."""
    for entry in index().entries:
        load(entry)


def fingerprint(*kinds: str) -> list[str]:
    """Texts that change whenever a plugin of `kinds` could: its name, class, and the source of
    the modules that define it; and every plugin registered by hand (not through the group)."""
    found = index()
    parts = [f"{kind} {name}={where}" for kind in kinds for name, where in sorted(found.qualified(kind).items())]
    parts += [f"{module} {digest}" for module, _, digest in found.sources]
    indexed = {e.name for e in found.entries}
    parts += [f"by hand {name}" for name, _ in manager().list_name_plugin() if name not in indexed]
    return parts


def _collect(hook, check=None) -> dict[str, type]:
    """The classes a registration hook registers, by name; each passed to `check` if given."""
    found: dict[str, type] = {}
    for impl in reversed(hook.get_hookimpls()):  # pluggy's call order: the last registered first
        for cls in registered(impl, hook.name):
            if found.get(cls.name, cls) is not cls:
                raise PluginError(f"two plugins register the name {cls.name!r}")
            found[cls.name] = cls
    for cls in found.values() if check else ():
        check(cls)
    return found


def registered(impl, hook_name: str) -> list:
    """The classes one plugin's registration hook registers. A hook that raises or exits, or
    registers what is not a named class, stops the run in one line naming the plugin."""
    classes: list = []

    def register(cls):
        if not isinstance(cls, type):
            raise PluginError(f"plugin {impl.plugin_name!r}: {hook_name} registered {_shown(cls)}, not a class")
        name = getattr(cls, "name", None)
        if not isinstance(name, str) or not name:
            raise PluginError(f"plugin {impl.plugin_name!r}: {hook_name} registered {_shown(cls)}, which has no name")
        classes.append(cls)

    try:
        impl.function(register=register)
    except PluginError:
        raise
    except (Exception, SystemExit) as exc:  # a third party's hook: anything may happen in it
        raise PluginError(f"plugin {impl.plugin_name!r}: its {hook_name} hook {_raised(exc)}") from None
    return classes


def _shown(value) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"a {type(value).__name__}"
    return text if len(text) <= 80 else text[:77] + "..."


class Registry(Mapping):
    """The plugin classes of one kind, by name; a name's module is imported when it is asked for.

    Looking a name up loads only the plugin that registers it; iterating (or
    `len`) loads every plugin of the kind. The order is a full load's, as
    pluggy calls the hooks (the last registered first: plugins registered by
    hand come before the group's), then `order` (readers: by priority).
    """

    def __init__(self, kind: str, check=None, order=None):
        self.kind, self._check, self._order = kind, check, order
        self._got: dict[str, type | None] = {}  # None: no plugin registers the name
        self._all: dict[str, type] | None = None

    def _found(self) -> dict[str, type]:
        return _collect(getattr(manager().hook, HOOKS[self.kind]), self._check)

    def __getitem__(self, name: str) -> type:
        if self._all is not None:
            return self._all[name]
        if name not in self._got:
            for entry in index().providers(self.kind).get(name, ()):
                load(entry)
            self._got[name] = self._found().get(name)  # two plugins registering it: a PluginError
        found = self._got[name]
        if found is None:
            raise KeyError(name)
        return found

    def _every(self) -> dict[str, type]:
        if self._all is None:
            known = index().providers(self.kind)
            for entry in dict.fromkeys(e for entries in known.values() for e in entries):
                load(entry)
            found = self._found()
            rank = {name: i for i, name in enumerate(known)}
            ordered = sorted(found.items(), key=lambda item: (item[0] in rank, rank.get(item[0], 0)))
            self._all = dict(self._order(ordered) if self._order else ordered)
        return self._all

    def __iter__(self):
        return iter(self._every())

    def __len__(self) -> int:
        return len(self._every())

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {sorted(self._all or self._got)!r})"


@functools.lru_cache(maxsize=1)
def channels() -> Registry:
    """Channel classes by name."""
    return Registry("channels", check_channel)


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
def sources() -> Registry:
    """Envelope source classes by name (core/source.py)."""
    return Registry("sources", check_source)


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
def metrics() -> Registry:
    """Metric classes by name (core/metric.py), by name: JSON keys in one order whatever the load order."""
    return Registry("metrics", check_metric, order=sorted)


def check_metric(cls) -> None:
    for method, shown in {"measure": "measure(transcript, options)", "as_json": "as_json(record)"}.items():
        if not callable(getattr(cls, method, None)):
            raise PluginError(f"metric plugin {cls.name!r}: has no {shown} method")


@functools.lru_cache(maxsize=1)
def readers() -> Registry:
    """Reader classes by name, in the order discovery asks them to claim a file.

    Higher `priority` first, then by name: a reader that claims any file of
    an extension (a catch-all) says a low priority so every other reader is
    asked before it. The last one is the catch-all.
    """
    return Registry("readers", order=lambda found: sorted(found, key=lambda item: (-priority(item[1]), item[0])))


@functools.lru_cache(maxsize=1)
def formats() -> Registry:
    """Report format classes by name (text, json, csv, html, plot and any installed)."""
    return Registry("formats", check_format)


def check_format(cls) -> None:
    renders = getattr(cls, "renders", None)
    if not isinstance(renders, (frozenset, set, tuple)) or not all(isinstance(k, str) for k in renders):
        raise PluginError(f"format plugin {cls.name!r}: renders must be a set of result kinds (str)")
    if not callable(getattr(cls, "render", None)):
        raise PluginError(f"format plugin {cls.name!r}: has no render(result) method")
