"""Ruleset variants: a base ruleset with some keys changed, validated as a file would be.

`--vary channels.symbol.ambiguity_limit=0,2,5` names a dotted key and values;
each value gives one variant of the base (one key at a time). Variants are
built from the loader's merged YAML tree and `build_ruleset`, so a bad key or
value is the same RulesetError a YAML file would give, naming `--vary`.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional

import yaml

from citeledger.rules.loader import Located, RulesetError, build_ruleset, excerpt, load_tree, locate, merge, parse_yaml

from citeledger.core import UserError

VARY = "--vary"


def split_values(text: str) -> list[str]:
    """Split on commas outside brackets and quotes: `[path],[path, symbol]` is two values."""
    parts, depth, quote, current = [], 0, "", []
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts]


def parse_value(raw: str) -> Any:
    """A value as YAML reads it: 2 is an integer, true a boolean, [a, b] a list."""
    if not raw:
        return ""
    try:  # the ruleset loader's limits: an alias bomb in a value is refused unexpanded
        return _plain(parse_yaml(raw, VARY))
    except RulesetError as exc:
        raise UserError(f"{VARY}: value {excerpt(raw)} is not valid YAML ({exc.message}); quote it")


def _plain(value):
    """Located mappings as plain dicts (yaml.safe_dump shows only those)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def parse_vary(spec: str) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """`KEY=V1,V2` -> (KEY, ((raw, value), ...))."""
    key, sep, values = spec.partition("=")
    key = key.strip()
    if not sep or not key or not values.strip():
        raise UserError(f"{VARY}: {excerpt(spec)} is not KEY=V1,V2,... (e.g. channels.symbol.ambiguity_limit=0,2,5)")
    if any(not part for part in key.split(".")):
        raise UserError(f"{VARY}: {excerpt(key)} is not a dotted ruleset key")
    raws = split_values(values)
    if any(not r for r in raws):
        raise UserError(f"{VARY}: {excerpt(spec)} has an empty value")
    return key, tuple((raw, parse_value(raw)) for raw in raws)


def _located(file: str) -> Located:
    node = Located()
    node.file, node.line, node.lines = file, 0, {}
    return node


def _override(changes: Mapping[str, Any], file: str) -> Located:
    """Nested mappings from dotted keys, marked as coming from `file`."""
    root = _located(file)
    for key, value in changes.items():
        node = root
        *parents, leaf = key.split(".")
        for part in parents:
            nxt = node.get(part)
            if not isinstance(nxt, Located):
                nxt = node[part] = _located(file)
            node = nxt
        node[leaf] = _as_located(value, file)
    return root


def _as_located(value, file):
    if isinstance(value, dict):
        node = _located(file)
        for k, v in value.items():
            node[k] = _as_located(v, file)
        return node
    return value


def variant(base: str, changes: Mapping[str, Any], name: Optional[str] = None, origin: str = VARY):
    """The ruleset `base` with dotted `changes` applied on top, validated."""
    tree = load_tree(base)
    override = _override(changes, origin)
    override["name"] = name or " ".join(f"{k}={_show(v)}" for k, v in changes.items())
    merged = merge(tree, override)
    return build_ruleset(merged, locate(base))


def _show(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return yaml.safe_dump(value, default_flow_style=True, width=1 << 16).strip().removesuffix("...").strip()


def one_at_a_time(base: str, specs: Iterable[str]) -> list:
    """One variant of `base` per value of each `--vary` spec, in the order given."""
    out = []
    for spec in specs:
        key, values = parse_vary(spec)
        for raw, value in values:
            out.append(variant(base, {key: value}, name=f"{key}={raw}"))
    return out


def leaf_differences(base: Mapping, target: Mapping, prefix: str = "") -> list[tuple[str, Any]]:
    """Dotted keys whose value in `target` differs from `base` (mappings compared key by key)."""
    out = []
    for key, value in target.items():
        if key in ("name", "description", "extends") and not prefix:
            continue
        dotted = prefix + key
        old = base.get(key)
        if isinstance(value, dict) and isinstance(old, dict):
            out.extend(leaf_differences(old, value, dotted + "."))
        elif value != old:
            out.append((dotted, value))
    return out


def switches(base: str, target: str) -> list[tuple[str, Any]]:
    """Each key `target` changes relative to `base`: the switches of e.g. corrected.yaml."""
    return leaf_differences(load_tree(base), load_tree(target))


__all__ = [
    "RulesetError", "leaf_differences", "one_at_a_time", "parse_value", "parse_vary",
    "split_values", "switches", "variant",
]
