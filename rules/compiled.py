"""The shipped rulesets, loaded once and kept: a file in the user's cache (infra/cache.py).

Loading a shipped ruleset reads YAML, checks every key and compiles every
pattern; a one-run `score` would spend more on that (and on importing the
YAML parser and the loader) than on scoring. The built Ruleset is pickled
into a file named by a digest of everything the build reads: citeledger's
version, Python's and attrs' versions, every shipped ruleset's text (one
may extend another) and where it lies, the installed channels and sources, and the
source of the modules whose classes and checks make the ruleset (so an
edited checkout never meets a stale file). A file that fails to load, or loads as anything but a Ruleset, is
ignored and rewritten. A ruleset given as a path is loaded as before.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import sys
from importlib import resources

from citeledger.core import Ruleset, __version__, cache, channels, sources


def shipped_names() -> list[str]:
    folder = resources.files("citeledger.rulesets")
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))


def looks_like_path(name: str) -> bool:
    """A ruleset argument read as a file: it names a folder (`./corrected`) or a YAML file."""
    return "/" in name or os.sep in name or name.endswith((".yaml", ".yml"))


def _shipped_file(name: str):
    """The shipped ruleset `name` when the loader would take it (no file of that name here), else None."""
    if not name or looks_like_path(name):
        return None
    shipped = resources.files("citeledger.rulesets").joinpath(f"{name}.yaml")
    return shipped if shipped.is_file() else None


def _key_parts(name: str) -> list[str]:
    import attrs

    folder = resources.files("citeledger.rulesets")
    parts = [name, str(folder), sys.version, attrs.__version__]  # what reads the pickle back
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".yaml"):
            parts += [entry.name, entry.read_text("utf-8")]
    installed = {**{f"channel {n}": c for n, c in channels().items()}, **{f"source {n}": c for n, c in sources().items()}}
    modules = {"citeledger.rules.loader", "citeledger.core.ruleset", "citeledger.rules.safety",
               "citeledger.infra.re2text", "citeledger.core.ranges", "citeledger.core.source"}
    modules |= {cls.__module__ for cls in installed.values()}
    modules |= {cls.Options.__module__ for cls in installed.values()}
    parts += [f"{n}={cls.__module__}.{cls.__qualname__}" for n, cls in sorted(installed.items())]
    for module in sorted(modules):
        loaded = sys.modules.get(module)
        origin = getattr(loaded, "__file__", None) or importlib.util.find_spec(module).origin  # found, not imported
        with open(origin, "rb") as fh:
            parts += [module, fh.read().decode("utf-8", "surrogateescape")]
    return parts


def load(name_or_path: str) -> Ruleset:
    """load_ruleset(name_or_path), from the kept file when it is a shipped ruleset's name."""
    if _shipped_file(name_or_path) is None:
        from citeledger.rules.loader import load_ruleset

        return load_ruleset(name_or_path)
    path = cache.file_for("ruleset", *_key_parts(name_or_path), version=__version__)
    data = cache.read(path)
    if data is not None:
        try:
            ruleset = pickle.loads(data)
        except Exception:  # any failure to load: not trusted, built again below
            ruleset = None
        if type(ruleset) is Ruleset:
            return ruleset
    from citeledger.rules.loader import load_ruleset

    ruleset = load_ruleset(name_or_path)
    cache.write(path, pickle.dumps(ruleset, protocol=pickle.HIGHEST_PROTOCOL))
    return ruleset


def load_many(names) -> list[Ruleset]:
    """`load` of each name or path (none: default; a Ruleset is taken as it is), refused when
    two rulesets share a name: a sweep's rows and tables are keyed by ruleset name."""
    names = list(names or ["default"])
    rulesets = [n if isinstance(n, Ruleset) else load(n) for n in names]
    names = [n.source if isinstance(n, Ruleset) else n for n in names]
    seen: dict[str, str] = {}
    for name, ruleset in zip(names, rulesets):
        if ruleset.name in seen:
            from citeledger.core import UserError

            raise UserError(f"{name}: ruleset name {ruleset.name!r} is also the name of {seen[ruleset.name]}; "
                            "names must differ")
        seen[ruleset.name] = name
    return rulesets
