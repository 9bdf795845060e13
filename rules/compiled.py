"""The shipped rulesets, loaded once and kept: a file in the user's cache (infra/cache.py).

Loading a shipped ruleset reads YAML, checks every key and compiles every
pattern; a one-run `score` would spend more on that (and on importing the
YAML parser and the loader) than on scoring. The built Ruleset is pickled
into a file named by a digest of everything the build reads: citeledger's
version, Python's version and attrs' class machinery (attr/_make.py), every shipped ruleset's text (one
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

from citeledger.core import Ruleset, __version__, cache, fingerprint


def _folder() -> str:
    """Where the shipped rulesets lie: the package's own directory (read without importlib.resources,
    whose import a one-run `score` would pay for)."""
    from citeledger import rulesets

    return os.path.dirname(os.path.abspath(rulesets.__file__))


def shipped_names() -> list[str]:
    return sorted(name[:-5] for name in os.listdir(_folder()) if name.endswith(".yaml"))


def looks_like_path(name: str) -> bool:
    """A ruleset argument read as a file: it names a folder (`./corrected`) or a YAML file."""
    return "/" in name or os.sep in name or name.endswith((".yaml", ".yml"))


def _shipped_file(name: str):
    """The shipped ruleset `name` when the loader would take it (no file of that name here), else None."""
    if not name or looks_like_path(name):
        return None
    shipped = os.path.join(_folder(), f"{name}.yaml")
    return shipped if os.path.isfile(shipped) else None


def _key_parts(name: str) -> list[str]:
    folder = _folder()
    parts = [name, folder, sys.version]
    for entry in sorted(os.listdir(folder)):
        if entry.endswith(".yaml"):
            with open(os.path.join(folder, entry), encoding="utf-8") as fh:
                parts += [entry, fh.read()]
    # What reads the pickle back: attrs' class machinery (its source, not its version: asking
    # attrs for `__version__` imports importlib.metadata).
    modules = ["attr._make", "citeledger.rules.loader", "citeledger.core.ruleset", "citeledger.rules.safety",
               "citeledger.infra.re2text", "citeledger.core.ranges", "citeledger.core.source"]
    parts += fingerprint("channels", "sources")  # the installed ones, and their modules' source
    for module in modules:
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
