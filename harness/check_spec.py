"""A `citeledger check` spec: codegraph's `allocation-fixtures.json`, plus a `session:` block.

The fixtures are codegraph's (CG-6, `scripts/agent-eval/allocation-fixtures.json`):
`id`, `title`, `query`, `groups` (name -> globs) and `assert` (the keys its
`probe-allocation.mjs` judges). Keys it writes for its own runner or its
history (`kind`, `path`, `rationale`, `baseline`, `afterCG12`, ...) are kept
as names and ignored; keys starting with `$` are comments anywhere. The
`session:` block is citeledger's own (docs/check.md). An assert or session
key that is not known is an error: a gate must not pass by ignoring a
mistyped assertion. Read as JSON when the file ends in `.json`, else as YAML.
"""

from __future__ import annotations

import math
from typing import Optional

import attrs

from citeledger.core import InputError, js_key_order
from citeledger.infra import untrusted

MAX_SPEC_BYTES = 1 << 20  # codegraph's own file is 24 KB
MAX_SPEND_FLOOR = 10.0  # a file may spend more than its reservation (codegraph bounds it at 1.5x)

SHARE_KEYS = {  # assert key -> attribute: a share of 0 to 1
    "answerShareAtLeast": "answer_share_at_least",
    "answerShareOfSourceAtLeast": "answer_share_of_source_at_least",
    "incidentalShareAtMost": "incidental_share_at_most",
}
ASSERT_KEYS = (*SHARE_KEYS, "topFileGroup", "mustDeliverBytes", "spendShareAtLeast", "mustContain")
FIXTURE_KEYS = ("id", "title", "query", "groups", "assert")
SESSION_SHARES = {  # session key -> attribute: a share of 0 to 1
    "efficiencyAtLeast": "efficiency_at_least",
    "lowerBoundAtLeast": "lower_bound_at_least",
    "readReturnedShareAtMost": "read_returned_share_at_most",
    "maxDrop": "max_drop",
    "maxPooledDrop": "max_pooled_drop",
    "maxSignificantDrop": "max_significant_drop",
}
SESSION_FLAGS = {"noContamination": "no_contamination", "noRace": "no_race"}
SESSION_KEYS = (*SESSION_SHARES, *SESSION_FLAGS)
# The corpus keys (judged on `sweep`'s slice table): at the top of `corpus:` (every session),
# under `slices: {SLICE: {...}}` and under `arms: {ARM: {...}}` (the harness arm of run-<arm>-<i>).
CORPUS_SHARES = ("pooledEfficiencyAtLeast", "medianEfficiencyAtLeast", "scoredShareAtLeast")
CORPUS_SLICES = ("all", "single-question", "multi-turn")  # report/tables.SLICES


@attrs.frozen
class Assertions:
    """A fixture's `assert` block; None / empty: not judged."""

    answer_share_at_least: Optional[float] = None
    answer_share_of_source_at_least: Optional[float] = None
    incidental_share_at_most: Optional[float] = None
    top_file_group: Optional[str] = None
    must_deliver_bytes: tuple[str, ...] = ()
    spend_share_at_least: tuple[tuple[str, float], ...] = ()  # (path, floor) in the spec's order
    must_contain: tuple[str, ...] = ()


@attrs.frozen
class Fixture:
    id: str
    title: str
    query: Optional[str]  # None: the last report of the sidecars
    groups: tuple[tuple[str, tuple[str, ...]], ...]  # (name, globs), first match wins
    assertions: Assertions
    ignored: tuple[str, ...] = ()  # keys of the fixture kept and not judged (baseline, afterCG12, ...)


@attrs.frozen
class SessionKeys:
    efficiency_at_least: Optional[float] = None
    lower_bound_at_least: Optional[float] = None
    read_returned_share_at_most: Optional[float] = None
    max_drop: Optional[float] = None
    max_pooled_drop: Optional[float] = None
    max_significant_drop: Optional[float] = None
    no_contamination: Optional[bool] = None
    no_race: Optional[bool] = None

    def given(self) -> tuple[str, ...]:
        """The keys to judge, in SESSION_KEYS order (a flag set to false is no assertion)."""
        names = {**SESSION_SHARES, **SESSION_FLAGS}
        return tuple(k for k in SESSION_KEYS if getattr(self, names[k]) not in (None, False))


@attrs.frozen
class CorpusFloor:
    """One corpus key: `key` (CORPUS_SHARES) at least `value`, over one slice of the sweep's
    sessions, or (`arm` set) over one harness arm's sessions."""

    key: str
    value: float
    where: str  # its place in the spec: `pooledEfficiencyAtLeast`, `slices.multi-turn.scoredShareAtLeast`, ...
    slice: str = "all"
    arm: Optional[str] = None


@attrs.frozen
class Spec:
    path: str
    fixtures: tuple[Fixture, ...]
    session: SessionKeys
    corpus: tuple[CorpusFloor, ...] = ()  # the `corpus:` block, in the spec's order


class SpecError(InputError):
    """A spec that cannot be used: names the file and the key (exit 2)."""

    def __init__(self, file: str, key: str, message: str, line: int = 0):
        super().__init__(file, f"{key}: {message}" if key else message, line)


def load_spec(path: str) -> Spec:
    """The spec at `path`; raises SpecError (or InputError when it cannot be read)."""
    data = _parse(path, _read(path))
    if not isinstance(data, dict):
        raise SpecError(path, "", "not a spec: the top level is not an object (want `fixtures:` and/or `session:`)")
    if "fixtures" not in data and "session" not in data and "corpus" not in data:
        raise SpecError(path, "", "no `fixtures`, `session` or `corpus` key: nothing to check")
    fixtures = data.get("fixtures", [])
    if not isinstance(fixtures, list):
        raise SpecError(path, "fixtures", f"is {_kind(fixtures)}, not a list")
    loaded = tuple(_fixture(path, f"fixtures[{i}]", item) for i, item in enumerate(fixtures))
    seen: dict = {}
    for i, fixture in enumerate(loaded):
        if fixture.id in seen:
            raise SpecError(path, f"fixtures[{i}].id", f"{fixture.id!r} is also fixtures[{seen[fixture.id]}]'s id")
        seen[fixture.id] = i
    corpus = _corpus(path, data.get("corpus", {}))
    return Spec(path=path, fixtures=loaded, session=_session(path, data.get("session", {})), corpus=corpus)


def _read(path: str) -> bytes:
    """The spec's bytes: a regular file within MAX_SPEC_BYTES (infra/untrusted.py)."""
    try:
        return untrusted.read_bytes(path, MAX_SPEC_BYTES, "spec")
    except untrusted.Refused as exc:
        if exc.message.startswith("cannot read"):
            raise InputError(path, f"cannot read the spec: {exc.message.removeprefix('cannot read: ')}") from None
        raise SpecError(path, "", f"{exc.message}: not a spec") from None


def _parse(path: str, raw: bytes):
    """The spec's document, read as the ruleset loader reads a ruleset (infra/untrusted.py: an
    alias budget, a depth, a digit limit, duplicate keys refused)."""
    try:
        if path.endswith(".json"):
            return untrusted.parse_json(raw, path)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SpecError(path, "", f"not UTF-8 text (byte {exc.start:,})") from None
        return untrusted.parse_yaml(text, path)[0]
    except untrusted.Refused as exc:
        raise SpecError(path, exc.key, exc.message, exc.line) from None


def _kind(value) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)


def _string(path: str, key: str, value, empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value):
        raise SpecError(path, key, f"is {_kind(value) if value != '' else 'an empty string'}, not a string")
    return value


def _strings(path: str, key: str, value, empty: bool = False) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise SpecError(path, key, f"is {_kind(value)}, not a list of strings")
    return tuple(_string(path, f"{key}[{i}]", v, empty) for i, v in enumerate(value))


def _number(path: str, key: str, value, high: float = 1.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(path, key, f"is {_kind(value)}, not a number (0 to {high:g})")
    if isinstance(value, int) and not -2**53 <= value <= 2**53:  # math.isfinite cannot take it as a float
        raise SpecError(path, key, f"a number of {len(str(abs(value))):,} digits is out of range (a number from 0 to {high:g})")
    if not math.isfinite(value) or not 0 <= value <= high:
        raise SpecError(path, key, f"{value!r} is out of range (a number from 0 to {high:g})")
    return float(value)


def _mapping(path: str, key: str, value) -> dict:
    if not isinstance(value, dict):
        raise SpecError(path, key, f"is {_kind(value)}, not an object")
    for k in value:
        if not isinstance(k, str):
            raise SpecError(path, key, f"key {k!r} is not a string")
    return value


def _fixture(path: str, where: str, item) -> Fixture:
    item = _mapping(path, where, item)
    if "id" not in item:
        raise SpecError(path, where, "has no `id`")
    fid = _string(path, f"{where}.id", item["id"])
    where = f"{where} ({fid})"
    query = item.get("query")
    groups = _mapping(path, f"{where}.groups", item.get("groups", {}))
    return Fixture(
        id=fid,
        title=_string(path, f"{where}.title", item.get("title", ""), empty=True),
        query=None if query is None else _string(path, f"{where}.query", query, empty=True),
        groups=tuple((name, _strings(path, f"{where}.groups.{name}", groups[name])) for name in js_key_order(groups)),
        assertions=_assertions(path, f"{where}.assert", item.get("assert", {})),
        ignored=tuple(k for k in item if k not in FIXTURE_KEYS and not k.startswith("$")),
    )


def _assertions(path: str, where: str, block) -> Assertions:
    block = _mapping(path, where, block)
    for key in block:
        if key not in ASSERT_KEYS and not key.startswith("$"):
            raise SpecError(path, f"{where}.{key}", f"unknown assert key (known: {', '.join(ASSERT_KEYS)})")
    shares = {attr: _number(path, f"{where}.{key}", block[key]) for key, attr in SHARE_KEYS.items() if key in block}
    top = block.get("topFileGroup")
    spend = _mapping(path, f"{where}.spendShareAtLeast", block.get("spendShareAtLeast", {}))
    return Assertions(
        **shares,
        # The reference judges topFileGroup when it is truthy: "" is no assertion.
        top_file_group=None if top in (None, "") else _string(path, f"{where}.topFileGroup", top),
        must_deliver_bytes=_strings(path, f"{where}.mustDeliverBytes", block.get("mustDeliverBytes", [])),
        spend_share_at_least=tuple(
            (p, _number(path, f"{where}.spendShareAtLeast.{p}", spend[p], MAX_SPEND_FLOOR)) for p in js_key_order(spend)
        ),
        must_contain=_strings(path, f"{where}.mustContain", block.get("mustContain", []), empty=True),
    )


def _session(path: str, block) -> SessionKeys:
    block = _mapping(path, "session", {} if block is None else block)
    values = {}
    for key, value in block.items():
        if key.startswith("$"):
            continue
        if key in SESSION_SHARES:
            values[SESSION_SHARES[key]] = _number(path, f"session.{key}", value)
        elif key in SESSION_FLAGS:
            if not isinstance(value, bool):
                raise SpecError(path, f"session.{key}", f"is {_kind(value)}, not true or false")
            values[SESSION_FLAGS[key]] = value
        else:
            raise SpecError(path, f"session.{key}", f"unknown session key (known: {', '.join(SESSION_KEYS)})")
    return SessionKeys(**values)


def _floors(path: str, where: str, block, slice_: str = "all", arm: Optional[str] = None,
            nested: tuple[str, ...] = ()) -> list:
    """The corpus shares of one block (`nested`: the keys it may hold besides them)."""
    block = _mapping(path, where, {} if block is None else block)
    floors = []
    for key, value in block.items():
        if key.startswith("$") or key in nested:
            continue
        if key not in CORPUS_SHARES:
            known = ", ".join((*CORPUS_SHARES, *nested))
            raise SpecError(path, f"{where}.{key}", f"unknown corpus key (known: {known})")
        floors.append(CorpusFloor(key=key, value=_number(path, f"{where}.{key}", value),
                                  where=f"{where}.{key}"[len("corpus."):], slice=slice_, arm=arm))
    return floors


def _corpus(path: str, block) -> tuple[CorpusFloor, ...]:
    block = _mapping(path, "corpus", {} if block is None else block)
    floors = _floors(path, "corpus", block, nested=("slices", "arms"))
    slices = _mapping(path, "corpus.slices", block.get("slices") or {})
    for name in slices:
        if name.startswith("$"):
            continue
        if name not in CORPUS_SLICES:
            raise SpecError(path, f"corpus.slices.{name}", f"unknown slice (known: {', '.join(CORPUS_SLICES)})")
        floors += _floors(path, f"corpus.slices.{name}", slices[name], slice_=name)
    arms = _mapping(path, "corpus.arms", block.get("arms") or {})
    for name in arms:
        if not name.startswith("$"):
            floors += _floors(path, f"corpus.arms.{name}", arms[name], arm=name)
    return tuple(floors)
