"""Load a ruleset from YAML: safe parsing, `extends:`, validation with locations.

Rulesets come from colleagues, so they are untrusted input: only
yaml.safe_load's types, no unknown keys, every value type-checked, every
regular expression compiled (once) here. Errors name the file, line and key.
"""

from __future__ import annotations

import math
import os
import re
import stat
import typing
from importlib import resources
from typing import Any

import attrs

from citeledger.core import INTEGER_RANGE, UserError, channels as installed_channels, field_range, sources as installed_sources

from citeledger.core import untrusted
from citeledger.rules import safety
from citeledger.rules.compiled import looks_like_path, shipped_names  # noqa: F401 (shipped_names: part of the loader's API)
from citeledger.core import UNITS, AnswerRules, ChannelRule, ReaderRules, Ruleset, SourceRule

Located = untrusted.Located  # a mapping that knows its keys' lines (part of the loader's API)

TOP_KEYS = {"name", "description", "extends", "reader", "answer", "unit", "channels", "sources"}

# Keys that moved, and their dotted names now: a ruleset written for the old
# name is refused, never read with a changed meaning. A source says which of its
# options had another name (its `moved`), so none is named here.
MOVED = {"splitter.unit": "unit"}

# Limits on an untrusted ruleset (docs/robustness.md). A shipped ruleset is
# about 2 KB, 60 nodes, 4 levels deep, 1 extends.
MAX_RULESET_BYTES = 1 << 20  # one file, and a whole extends: chain together
MAX_NODES = untrusted.MAX_NODES  # YAML nodes after aliases are expanded, in one file and in a whole chain
MAX_DEPTH = untrusted.MAX_DEPTH  # nesting of YAML mappings and lists
MAX_EXTENDS = 32  # files in one extends: chain
EXCERPT = 60  # characters of a value quoted in an error


def excerpt(value, limit: int = EXCERPT) -> str:
    """repr(value), cut to about `limit` characters: errors never echo a whole value."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class RulesetError(UserError):
    """A ruleset that cannot be used; str() is one line: file:line: key: problem."""

    def __init__(self, file: str, line: int, key: str, message: str):
        # A key or message built from the ruleset's own text is cut short.
        key, message = _clip(_one_line(str(key)), 80), _clip(_one_line(str(message)), 400)
        self.file, self.line, self.key, self.message = file, line, key, message
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {key + ': ' if key else ''}{message}")


_SPACE_RUN = re.compile(r"\s+")


def _one_line(text: str) -> str:
    """An error is one line: a line break inside a message (libyaml's own) becomes a space.

    Each white space run holding a line break becomes one space; runs are found by `\\s+`,
    which is linear (`\\s*[\\r\\n]+\\s*` backtracks quadratically on a long run of spaces)."""
    return _SPACE_RUN.sub(lambda m: " " if "\n" in m.group() or "\r" in m.group() else m.group(), text)


def _refused(exc: untrusted.Refused) -> RulesetError:
    return RulesetError(exc.file, exc.line, exc.key, exc.message)


def locate(name_or_path: str, relative_to: str = "") -> str:
    """A ruleset file from a path or a shipped ruleset's name."""
    shipped = resources.files("citeledger.rulesets").joinpath(f"{name_or_path}.yaml")
    if not looks_like_path(name_or_path) and shipped.is_file():
        return str(shipped)  # a shipped name is the shipped ruleset, whatever lies in the working directory
    candidates = [name_or_path]
    if relative_to and not os.path.isabs(name_or_path):
        candidates.insert(0, os.path.join(os.path.dirname(relative_to), name_or_path))
    for candidate in candidates:
        if os.path.isfile(candidate):
            return candidate
    for candidate in candidates:  # there, but not a file to read (/dev/zero, a FIFO, a directory)
        kind = _kind(candidate)
        if kind:
            raise RulesetError(candidate, 0, "", f"not a regular file ({kind}), not read as a ruleset")
    raise RulesetError(
        relative_to or name_or_path, 0, "",
        f"no ruleset {excerpt(name_or_path)} (a path, or one of: {', '.join(shipped_names())})",
    )


def _kind(path: str) -> str:
    """What `path` is when it exists but is not a regular file ("" otherwise)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return ""
    kinds = [(stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")]
    return next((name for test, name in kinds if test(mode)), "")


class Budget:
    """What is left of the ruleset limits for the files of one extends: chain:
    every file read counts against the same bytes and nodes."""

    def __init__(self):
        self.bytes = MAX_RULESET_BYTES
        self.nodes = MAX_NODES


def _read_text(path: str, budget: "Budget | None" = None) -> str:
    """The file's text, within what is left of the byte limit; never opens a FIFO or device."""
    left = budget.bytes if budget else MAX_RULESET_BYTES
    try:
        data = untrusted.read_bytes(path, left, "ruleset")
    except untrusted.Refused as exc:
        if exc.message.startswith("larger than"):
            chain = " (the files of its extends: chain together)" if left < MAX_RULESET_BYTES else ""
            raise RulesetError(path, 0, "", f"larger than the ruleset limit of {MAX_RULESET_BYTES:,} bytes{chain}")
        raise _refused(exc) from None
    if budget:
        budget.bytes -= len(data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise RulesetError(path, 0, "", "not UTF-8 text")


def check_shape(text: str, name: str, limit: int = MAX_NODES) -> int:
    """infra/untrusted.py's check of a YAML text's size after aliases and its depth."""
    try:
        return untrusted.check_shape(text, name, limit)
    except untrusted.Refused as exc:
        raise _refused(exc) from None


def parse_yaml(text: str, name: str, budget: "Budget | None" = None):
    """YAML text as Located mappings and plain values, within infra/untrusted.py's limits
    (within what is left of them in `budget`, which the file's nodes then use up)."""
    try:
        data, nodes = untrusted.parse_yaml(text, name, budget.nodes if budget else MAX_NODES)
    except untrusted.Refused as exc:
        raise _refused(exc) from None
    if budget:
        budget.nodes -= nodes
    return data


def _read(path: str, budget: "Budget | None" = None) -> Located:
    data = parse_yaml(_read_text(path, budget), path, budget)
    if not isinstance(data, Located):
        raise RulesetError(path, 1, "", "a ruleset is a YAML mapping")
    if data and not set(data) & TOP_KEYS:
        # Not a ruleset at all (`extends: /etc/shadow`): name no key, they are its content.
        raise RulesetError(path, 0, "", f"not a ruleset (none of the keys {', '.join(sorted(TOP_KEYS))})")
    return data


def merge(base: Located, override: Located) -> Located:
    """Deep merge: mappings merge key by key; any other value replaces."""
    merged = Located(base)
    merged.file, merged.line = override.file, override.line
    merged.lines = dict(getattr(base, "lines", {}))
    for key, value in override.items():
        if isinstance(value, Located) and isinstance(base.get(key), Located):
            merged[key] = merge(base[key], value)
        else:
            merged[key] = value
        merged.lines[key] = override.line_of(key)
    return merged


def load_tree(name_or_path: str, relative_to: str = "", seen: tuple = (), budget: "Budget | None" = None) -> Located:
    """The merged YAML mapping of a ruleset and everything it extends (the
    limits on size and nodes bound the whole chain, checked file by file)."""
    budget = budget or Budget()
    path = locate(name_or_path, relative_to)
    real = os.path.realpath(path)
    if real in seen:
        raise RulesetError(path, 0, "extends", "extends itself (a cycle)")
    if len(seen) >= MAX_EXTENDS:
        raise RulesetError(relative_to or path, 0, "extends", f"a chain of more than {MAX_EXTENDS} rulesets")
    tree = _read(path, budget)
    parent = tree.get("extends")
    if parent is None:
        return tree
    if not isinstance(parent, str):
        raise RulesetError(path, tree.line_of("extends"), "extends", "must be a ruleset name or path")
    base = load_tree(parent, path, seen + (real,), budget)
    merged = merge(base, tree)
    merged.pop("extends", None)
    return merged


def load_ruleset(name_or_path: str) -> Ruleset:
    tree = load_tree(name_or_path)
    return build_ruleset(tree, locate(name_or_path))


def build_ruleset(tree: Located, source: str) -> Ruleset:
    _refuse_moved(tree, installed_sources())
    _reject_unknown(tree, TOP_KEYS, "")
    name = tree.get("name") or os.path.basename(source).removesuffix(".yaml")
    _check_type(tree, "name", name, str, "")
    description = tree.get("description", "")
    _check_type(tree, "description", description, str, "")
    reader = build(ReaderRules, _section(tree, "reader"), "reader")
    answer = build(AnswerRules, _section(tree, "answer"), "answer")
    unit = _choice(tree, "unit", UNITS)
    rank, options = _plugins(_section(tree, "channels"), "rank", "channel", installed_channels())
    use, source_options = _plugins(_section(tree, "sources"), "use", "source", installed_sources())
    return Ruleset(
        name=name,
        description=description.strip(),
        reader=reader,
        answer=answer,
        unit=unit,
        channels=tuple(ChannelRule(r, options[r]) for r in rank),
        source=source,
        channel_options=tuple(ChannelRule(k, v) for k, v in options.items()),
        sources=tuple(SourceRule(u, source_options[u]) for u in use),
    )


def _refuse_moved(tree: Located, sources: dict) -> None:
    """A key that moved (`splitter.header`, say) is one error naming its new key, at its line
    (the first in the ruleset's own file, then in the files it extends)."""
    moved = dict(MOVED)
    for name, cls in sorted(sources.items()):
        moved.update({old: f"sources.{name}.{new}" for old, new in getattr(cls, "moved", {}).items()})
    found = []
    for old, new in moved.items():
        section, key = old.split(".", 1)
        body = tree.get(section)
        if isinstance(body, Located) and key in body:
            found.append((body.file != tree.file, body.line_of(key), body.file, old, new))
    if found:
        _, line, file, old, new = min(found)
        raise RulesetError(file, line, old, f"moved: write it as `{new}`")


def _choice(tree: Located, key: str, choices: tuple) -> str:
    """A top-level key that takes one of `choices`."""
    if key not in tree:
        raise RulesetError(tree.file, tree.line, key, "missing")
    value = tree[key]
    _check_type(tree, key, value, str, "")
    if value not in choices:
        raise RulesetError(tree.file, tree.line_of(key), key,
                           f"must be one of {', '.join(map(repr, choices))}, not {excerpt(value)}")
    return value


def _plugins(section: Located, list_key: str, kind: str, known: dict) -> tuple[list, dict]:
    """A `channels:` or `sources:` section: (the plugins its list key names, in order;
    each named or configured plugin's built Options).

    `list_key` (`rank`, `use`) lists the plugins that count; a key named after an
    installed plugin holds its options, checked even when the list leaves it out
    (a typo is an error wherever it is).
    """
    prefix = f"{kind}s"
    order = section.get(list_key)
    if not isinstance(order, list) or not order or not all(isinstance(r, str) for r in order):
        raise RulesetError(section.file, section.line_of(list_key), f"{prefix}.{list_key}",
                           f"must be a non-empty list of {kind} names")
    for key in set(section) - {list_key} | set(order):
        if key not in known:
            line = section.line_of(key if key in section else list_key)
            raise RulesetError(section.file, line, f"{prefix}.{key}", f"unknown {kind} (installed: {', '.join(sorted(known))})")
    if len(set(order)) != len(order):
        raise RulesetError(section.file, section.line_of(list_key), f"{prefix}.{list_key}", f"lists a {kind} twice")
    options = {}
    for key in sorted(set(section) - {list_key} | set(order)):
        body = section.get(key)
        if body is None:
            body = Located()
            body.file, body.line, body.lines = section.file, section.line_of(list_key), {}
        if not isinstance(body, Located):
            raise RulesetError(section.file, section.line_of(key), f"{prefix}.{key}", "must be a mapping of options")
        options[key] = build(known[key].Options, body, f"{prefix}.{key}")
    return order, options


def _section(tree: Located, key: str) -> Located:
    value = tree.get(key)
    if not isinstance(value, Located):
        raise RulesetError(tree.file, tree.line_of(key), key, "missing or not a mapping")
    return value


def _reject_unknown(mapping: Located, allowed, prefix: str) -> None:
    for key in mapping:
        if key not in allowed:
            raise RulesetError(
                mapping.file, mapping.line_of(key), prefix + key,
                f"unknown key (known: {', '.join(sorted(allowed))})",
            )


def _check_type(mapping, key, value, expected, prefix) -> None:
    if expected is int and isinstance(value, bool) or not isinstance(value, expected):
        names = {str: "a string", int: "an integer", bool: "true or false", float: "a number"}
        raise RulesetError(
            mapping.file, mapping.line_of(key), prefix + key,
            f"must be {names.get(expected, expected.__name__)}, not {type(value).__name__}",
        )


def compile_pattern(text: str):
    """User patterns are RE2 syntax (ASCII \\w and \\b, like JavaScript's).

    They run on RE2 (linear time, citeledger.infra.re2text) or are refused:
    safety.UnsafePattern, an re.error (docs/robustness.md).
    """
    return safety.compile_ruleset_pattern(text)


def build(cls, mapping: Located, prefix: str):
    """An attrs instance of `cls` from a YAML mapping, checked key by key."""
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in attrs.fields(cls) if f.init}  # init=False fields are derived, not keys
    _reject_unknown(mapping, fields, prefix + ".")
    values: dict[str, Any] = {}
    for name, field in fields.items():
        if name not in mapping:
            if field.default is attrs.NOTHING:
                raise RulesetError(mapping.file, mapping.line, f"{prefix}.{name}", "missing")
            continue
        values[name] = _convert(mapping, name, mapping[name], hints[name], prefix + ".", field_range(field))
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:
        bad = next((n for n in values if n in str(exc)), "")
        raise RulesetError(mapping.file, mapping.line_of(bad) if bad else mapping.line, f"{prefix}.{bad}".rstrip("."), _validator_message(exc))


def _validator_message(exc: Exception) -> str:
    if len(exc.args) >= 4 and isinstance(exc.args[2], (tuple, list)):  # attrs in_ validator
        return f"must be one of {', '.join(map(repr, exc.args[2]))}, not {excerpt(exc.args[3])}"
    return str(exc.args[0]) if exc.args else str(exc)


def _convert(mapping: Located, key: str, value, hint, prefix: str, limits: tuple[int, int] = INTEGER_RANGE):
    origin = typing.get_origin(hint)
    if hint is re.Pattern:
        _check_type(mapping, key, value, str, prefix)
        try:
            return compile_pattern(value)
        except safety.UnsafePattern as exc:
            raise RulesetError(mapping.file, mapping.line_of(key), prefix + key, f"refused ({exc})")
        except re.error as exc:
            raise RulesetError(mapping.file, mapping.line_of(key), prefix + key, f"bad regular expression ({exc})")
    if origin is tuple or origin is list:
        if not isinstance(value, list):
            raise RulesetError(mapping.file, mapping.line_of(key), prefix + key, f"must be a list, not {type(value).__name__}")
        (item_type, *_) = typing.get_args(hint) or (str,)
        for item in value:
            if not isinstance(item, item_type) or isinstance(item, bool) and item_type is not bool:
                raise RulesetError(mapping.file, mapping.line_of(key), prefix + key, f"items must be {item_type.__name__}")
        return tuple(value)
    if origin is dict:  # named records (a source's declarations): a mapping, so `extends:` adds to it
        if not isinstance(value, Located):
            raise RulesetError(mapping.file, mapping.line_of(key), prefix + key, f"must be a mapping, not {type(value).__name__}")
        _, item_type = typing.get_args(hint)
        for name, item in value.items():
            if not isinstance(item, Located):
                raise RulesetError(value.file, value.line_of(name), f"{prefix}{key}.{name}", "must be a mapping of options")
        return {name: build(item_type, item, f"{prefix}{key}.{name}") for name, item in value.items()}
    if origin is typing.Union:  # Optional[X]
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if value is None:
            return None
        return _convert(mapping, key, value, args[0], prefix, limits)
    if attrs.has(hint):
        if not isinstance(value, Located):
            raise RulesetError(mapping.file, mapping.line_of(key), prefix + key, "must be a mapping")
        return build(hint, value, prefix + key)
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if hint in (str, int, bool, float):
        _check_type(mapping, key, value, hint, prefix)
        if hint is int:
            _check_range(mapping, key, value, prefix, limits)
        if hint is float and not math.isfinite(value):
            raise RulesetError(mapping.file, mapping.line_of(key), prefix + key, f"must be a finite number, not {value}")
        return value
    return value


def _check_range(mapping, key, value: int, prefix: str, limits: tuple[int, int]) -> None:
    low, high = limits
    if not low <= value <= high:
        shown = f"{value:,}" if value.bit_length() <= 64 else "a number of more than 19 digits"
        raise RulesetError(
            mapping.file, mapping.line_of(key), prefix + key, f"out of range: {shown} (an integer from {low:,} to {high:,})"
        )
