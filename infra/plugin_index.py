"""A kept index of a plugin group: what a full load of its entry points found, trusted on later
runs while every module it names still has the source it was built from (core/plugins.py uses it
so a run imports only the plugins it asks for; docs/decisions.md, "The lean engine").

Nothing here knows a plugin kind: `built` is given the hooks to ask.
"""

from __future__ import annotations

import hashlib
import marshal
import sys

import attrs

from citeledger.infra import cache

# How many kept indexes stay in the cache directory (one per state of sys.path met); older ones go.
INDEXES_KEPT = 8


@attrs.frozen
class Entry:
    """One entry point of the group, as a full load found it."""

    name: str  # the entry point's name: its plugin's name in the manager
    module: str | None  # the module it names (None: it names an object in one; loaded through pluggy)
    provides: tuple  # ((kind, ((registered name, "module.qualname"), ...)), ...)


@attrs.frozen
class Index:
    """What the group holds: its entries in scan order, and the source digest of every module that
    defines one of their plugins (the entry's module, each class's and its Options' module)."""

    entries: tuple  # of Entry
    sources: tuple  # ((module, origin path, sha256 of its bytes), ...)
    ignored: tuple = ()  # ((name, value, distribution), ...): entry points a built-in's name hides

    def providers(self, kind: str) -> dict:
        """Registered name -> the Entries that register it (two: a conflict, refused when the name
        is asked for), for one kind, in the order of a full load (pluggy calls the last registered first)."""
        found: dict[str, tuple] = {}
        for entry in reversed(self.entries):
            for k, names in entry.provides:
                for name, _ in names if k == kind else ():
                    found[name] = (*found.get(name, ()), entry)
        return found

    def qualified(self, kind: str) -> dict:
        """Registered name -> "module.qualname" of its class, for one kind."""
        return {name: where for entry in reversed(self.entries) for k, names in entry.provides if k == kind
                for name, where in names}


def index_file(version: str):
    """The cache file of the index for this interpreter, `version` of the package and the installed
    packages' state (infra/cache.installed_state: pluggy upgraded, a distribution added or removed)."""
    return cache.file_for("plugins", *cache.installed_state(), version=version)


def _digest(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return None


def kept(path) -> Index | None:
    """The index kept at `path`, if it loads and every module it names has its recorded source."""
    data = cache.read(path)
    if data is None:
        return None
    try:
        entries, sources, ignored = marshal.loads(data)
        index = Index(entries=tuple(Entry(name=n, module=m, provides=p) for n, m, p in entries),
                      sources=tuple(sources), ignored=tuple(ignored))
    except Exception:  # any failure to load: not trusted, built again
        return None
    return index if proves_itself(index) else None


def proves_itself(index: Index) -> bool:
    """Whether a kept index still holds: it records the source digest of every module its entries
    name (none left out, none empty), and each module's file has that digest now. A well-formed
    index with no digests would otherwise be trusted forever, naming modules long gone."""
    recorded = {module: digest for module, _, digest in index.sources}
    named = {entry.module for entry in index.entries if entry.module is not None}
    if not index.sources or not named <= set(recorded):
        return False
    if not all(isinstance(digest, str) and len(digest) == 64 for digest in recorded.values()):
        return False
    return all(_digest(origin) == digest for _, origin, digest in index.sources)


def built(pm, hooks: dict, registered) -> Index:
    """The Index of what the plugin manager `pm` holds after a full load of its group, asking each
    of `hooks` (kind -> registration hook name) what each plugin registers (`registered(impl,
    hook name)`: the classes a hook implementation registers)."""
    provides: dict[str, dict[str, list]] = {}
    modules: set[str] = set()
    for kind, hook in hooks.items():
        for impl in getattr(pm.hook, hook).get_hookimpls():
            classes = registered(impl, hook)
            mine = provides.setdefault(impl.plugin_name, {}).setdefault(kind, [])
            mine += [(cls.name, f"{cls.__module__}.{cls.__qualname__}") for cls in classes]
            modules |= {cls.__module__ for cls in classes}
            modules |= {cls.Options.__module__ for cls in classes if isinstance(getattr(cls, "Options", None), type)}
    entries = []
    for name, plugin in pm.list_name_plugin():
        module = plugin.__name__ if isinstance(plugin, type(sys)) else None
        if module is not None:
            modules.add(module)
        kinds = provides.get(name, {})
        entries.append(Entry(name=name, module=module, provides=tuple(
            (kind, tuple(kinds[kind])) for kind in hooks if kind in kinds)))
    sources = []
    for module in sorted(modules):
        origin = getattr(sys.modules.get(module), "__file__", None)
        if origin:
            sources.append((module, origin, _digest(origin)))
    return Index(entries=tuple(entries), sources=tuple(sources))


def keep(path, index: Index) -> None:
    """Write `index` to `path` (atomically, at most INDEXES_KEPT kept)."""
    data = marshal.dumps(([(e.name, e.module, e.provides) for e in index.entries], list(index.sources),
                          list(index.ignored)))
    cache.write(path, data, keep=INDEXES_KEPT)
