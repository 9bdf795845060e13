"""Load a ruleset from YAML: safe parsing, `extends:`, validation with locations.

Rulesets come from colleagues, so they are untrusted input: only
yaml.safe_load's types, no unknown keys, every value type-checked, every
regular expression compiled (once) here. Errors name the file, line and key.
"""

from __future__ import annotations

import os
import re
import typing
from importlib import resources
from typing import Any

import attrs
import yaml

from citeledger.core import UserError, channels as installed_channels

from citeledger.rules import safety
from citeledger.rules.ruleset import ChannelRule, ReaderRules, Ruleset, SplitterRules

TOP_KEYS = {"name", "description", "extends", "reader", "splitter", "channels"}


class RulesetError(UserError):
    """A ruleset that cannot be used; str() is one line: file:line: key: problem."""

    def __init__(self, file: str, line: int, key: str, message: str):
        self.file, self.line, self.key, self.message = file, line, key, message
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {key + ': ' if key else ''}{message}")


class Located(dict):
    """A YAML mapping that remembers its file and each key's line."""

    file: str = ""
    line: int = 0
    lines: dict

    def line_of(self, key) -> int:
        return getattr(self, "lines", {}).get(key, self.line)


class _Loader(yaml.SafeLoader):
    pass


def _construct_mapping(loader, node):
    loader.flatten_mapping(node)
    mapping = Located()
    mapping.file = loader.name
    mapping.line = node.start_mark.line + 1
    mapping.lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str):
            raise RulesetError(loader.name, key_node.start_mark.line + 1, str(key), "keys must be strings")
        if key in mapping:
            raise RulesetError(loader.name, key_node.start_mark.line + 1, key, "duplicate key")
        mapping[key] = loader.construct_object(value_node, deep=True)
        mapping.lines[key] = key_node.start_mark.line + 1
    return mapping


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def shipped_names() -> list[str]:
    folder = resources.files("citeledger.rulesets")
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))


def locate(name_or_path: str, relative_to: str = "") -> str:
    """A ruleset file from a path or a shipped ruleset's name."""
    candidates = [name_or_path]
    if relative_to and not os.path.isabs(name_or_path):
        candidates.insert(0, os.path.join(os.path.dirname(relative_to), name_or_path))
    for candidate in candidates:
        if os.path.isfile(candidate):
            return candidate
    shipped = resources.files("citeledger.rulesets").joinpath(f"{name_or_path}.yaml")
    if shipped.is_file():
        return str(shipped)
    raise RulesetError(
        relative_to or name_or_path, 0, "",
        f"no ruleset {name_or_path!r} (a path, or one of: {', '.join(shipped_names())})",
    )


def _read(path: str) -> Located:
    try:
        with open(path, encoding="utf-8") as fh:
            loader = _Loader(fh)
            loader.name = path
            try:
                data = loader.get_single_data()
            finally:
                loader.dispose()
    except OSError as exc:
        raise RulesetError(path, 0, "", f"cannot read: {exc.strerror or exc}")
    except UnicodeDecodeError:
        raise RulesetError(path, 0, "", "not UTF-8 text")
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise RulesetError(path, mark.line + 1 if mark else 0, "", f"not valid YAML ({exc.problem})")
    except yaml.YAMLError as exc:
        raise RulesetError(path, 0, "", f"not valid YAML ({exc})")
    if not isinstance(data, Located):
        raise RulesetError(path, 1, "", "a ruleset is a YAML mapping")
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


def load_tree(name_or_path: str, relative_to: str = "", seen: tuple = ()) -> Located:
    """The merged YAML mapping of a ruleset and everything it extends."""
    path = locate(name_or_path, relative_to)
    real = os.path.realpath(path)
    if real in seen:
        raise RulesetError(path, 0, "extends", "extends itself (a cycle)")
    tree = _read(path)
    parent = tree.get("extends")
    if parent is None:
        return tree
    if not isinstance(parent, str):
        raise RulesetError(path, tree.line_of("extends"), "extends", "must be a ruleset name or path")
    base = load_tree(parent, path, seen + (real,))
    merged = merge(base, tree)
    merged.pop("extends", None)
    return merged


def load_ruleset(name_or_path: str) -> Ruleset:
    tree = load_tree(name_or_path)
    return build_ruleset(tree, locate(name_or_path))


def build_ruleset(tree: Located, source: str) -> Ruleset:
    _reject_unknown(tree, TOP_KEYS, "")
    name = tree.get("name") or os.path.basename(source).removesuffix(".yaml")
    _check_type(tree, "name", name, str, "")
    description = tree.get("description", "")
    _check_type(tree, "description", description, str, "")
    reader = build(ReaderRules, _section(tree, "reader"), "reader")
    splitter = build(SplitterRules, _section(tree, "splitter"), "splitter")
    channels = _section(tree, "channels")
    known = installed_channels()
    rank = channels.get("rank")
    if not isinstance(rank, list) or not rank or not all(isinstance(r, str) for r in rank):
        raise RulesetError(channels.file, channels.line_of("rank"), "channels.rank", "must be a non-empty list of channel names")
    for key in set(channels) - {"rank"} | set(rank):
        if key not in known:
            line = channels.line_of(key if key in channels else "rank")
            raise RulesetError(
                channels.file, line, f"channels.{key}",
                f"unknown channel (installed: {', '.join(sorted(known))})",
            )
    if len(set(rank)) != len(rank):
        raise RulesetError(channels.file, channels.line_of("rank"), "channels.rank", "lists a channel twice")
    options = {}
    for key in sorted(set(channels) - {"rank"} | set(rank)):
        body = channels.get(key)
        if body is None:
            body = Located()
            body.file, body.line, body.lines = channels.file, channels.line_of("rank"), {}
        if not isinstance(body, Located):
            raise RulesetError(channels.file, channels.line_of(key), f"channels.{key}", "must be a mapping of options")
        options[key] = build(known[key].Options, body, f"channels.{key}")
    return Ruleset(
        name=name,
        description=description.strip(),
        reader=reader,
        splitter=splitter,
        channels=tuple(ChannelRule(r, options[r]) for r in rank),
        source=source,
        channel_options=tuple(ChannelRule(k, v) for k, v in options.items()),
    )


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


def compile_pattern(text: str) -> re.Pattern:
    """User patterns are Python re syntax, ASCII-only like JavaScript's \\w and \\b.

    re has no time limit, so shapes that can backtrack catastrophically are
    refused here (safety.UnsafePattern is an re.error; docs/robustness.md).
    """
    pattern = re.compile(text, re.ASCII)
    safety.check_ruleset_pattern(pattern)
    return pattern


def build(cls, mapping: Located, prefix: str):
    """An attrs instance of `cls` from a YAML mapping, checked key by key."""
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in attrs.fields(cls)}
    _reject_unknown(mapping, fields, prefix + ".")
    values: dict[str, Any] = {}
    for name, field in fields.items():
        if name not in mapping:
            if field.default is attrs.NOTHING:
                raise RulesetError(mapping.file, mapping.line, f"{prefix}.{name}", "missing")
            continue
        values[name] = _convert(mapping, name, mapping[name], hints[name], prefix + ".")
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:
        bad = next((n for n in values if n in str(exc)), "")
        raise RulesetError(mapping.file, mapping.line_of(bad) if bad else mapping.line, f"{prefix}.{bad}".rstrip("."), _validator_message(exc))


def _validator_message(exc: Exception) -> str:
    if len(exc.args) >= 4 and isinstance(exc.args[2], (tuple, list)):  # attrs in_ validator
        return f"must be one of {', '.join(map(repr, exc.args[2]))}, not {exc.args[3]!r}"
    return str(exc.args[0]) if exc.args else str(exc)


def _convert(mapping: Located, key: str, value, hint, prefix: str):
    origin = typing.get_origin(hint)
    if hint is re.Pattern:
        _check_type(mapping, key, value, str, prefix)
        try:
            return compile_pattern(value)
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
    if origin is typing.Union:  # Optional[X]
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if value is None:
            return None
        return _convert(mapping, key, value, args[0], prefix)
    if attrs.has(hint):
        if not isinstance(value, Located):
            raise RulesetError(mapping.file, mapping.line_of(key), prefix + key, "must be a mapping")
        return build(hint, value, prefix + key)
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if hint in (str, int, bool, float):
        _check_type(mapping, key, value, hint, prefix)
        return value
    return value
