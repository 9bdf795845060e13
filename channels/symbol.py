"""The symbol channel: the answer names something the file's header defines."""

from __future__ import annotations

import re
from collections import defaultdict

import attrs

from citeledger.core import Envelope, Finding, bounded, hookimpl, needs_groups, utf16_len



@attrs.frozen
class SymbolOptions:
    # An inline code span; group 1 is its content.
    code_span: re.Pattern = attrs.field(validator=needs_groups(1))
    # A symbol token inside a code span (or in prose, when allowed).
    token: re.Pattern
    # Tokens shorter than this (in UTF-16 units) are too generic to count.
    min_length: int = bounded(0, 10_000)
    # Lower-case tokens that are keywords or generic words, never symbols.
    stopwords: tuple[str, ...]
    # Only tokens inside code spans count; prose mentions do not.
    code_spans_only: bool
    # Header kinds that define a name; others (calls, references, imports)
    # are call sites and edges and never credit a file.
    defining_kinds: tuple[str, ...]
    # Only the defining kinds own a name (false: every kind does).
    defining_kinds_only: bool
    # Defining kinds that usually are import bindings (weak owners).
    weak_kinds: tuple[str, ...]
    # "lose": weak owners count only when no strong owner exists;
    # "credit": weak owners are owners beside the strong ones.
    weak_owners: str = attrs.field(validator=attrs.validators.in_(("lose", "credit")))
    # A name owned by this many files or more identifies none; 0 turns it off.
    ambiguity_limit: int = bounded(0, 1_000_000)
    # Names that a render tag (`focused (...)`, `skeleton (...)`) lists
    # without a kind count as strong definitions.
    tag_names_define: bool
    # Derived, not a ruleset key: whether tokens may be searched for in all
    # code spans at once (SymbolChannel._tokens); worked out once per ruleset.
    joinable_token: bool = attrs.field(init=False, default=False, eq=False, repr=False)

    def __attrs_post_init__(self):
        object.__setattr__(self, "joinable_token", not _has_anchor(self.token))


_UNKNOWN = object()
_NOT_DEFINED = "no cited symbol is defined in this file's header"


def _tag_how(tag: str) -> str:
    """How a render tag's bare name is listed: "`focused` tag" (kinds have no space)."""
    return f"`{tag}` tag"


@attrs.frozen
class Owners:
    strong: frozenset
    weak: frozenset


class _OwnerTable:
    """name -> Owners, each made when first asked for.

    An answer cites a few of the many names the headers list: making every
    name's record up front cost more than the judging that reads them.
    """

    __slots__ = ("_strong", "_weak", "_known", "_made")

    def __init__(self, strong: dict[str, set], weak: dict[str, set]):
        self._strong, self._weak = strong, weak
        self._known = strong.keys() | weak.keys()
        self._made: dict[str, Owners] = {}

    def owned(self, names) -> list[tuple[str, Owners]]:
        """(name, its owners) for each of `names` that some file owns, in order."""
        return [(name, self.get(name)) for name in names if name in self._known]

    def get(self, name: str) -> Owners | None:
        owners = self._made.get(name)
        if owners is None and name in self._known:
            owners = Owners(frozenset(self._strong.get(name, ())), frozenset(self._weak.get(name, ())))
            self._made[name] = owners
        return owners


class SymbolChannel:
    name = "symbol"
    colour = "#2ca02c"  # on every page that draws its credits (report.palette)
    Options = SymbolOptions

    def __init__(self, options: SymbolOptions):
        self.options = options
        self._stop = frozenset(options.stopwords)
        self._defining = frozenset(options.defining_kinds)
        self._weak = frozenset(options.weak_kinds)

    def citations(self, answer: str) -> list[str]:
        """Cited symbols in first-seen order."""
        opts = self.options
        spans = _all(opts.code_span, answer, 1) if opts.code_spans_only else [answer]
        # Each distinct token is judged once; filtering the first-seen order
        # of all tokens keeps the first-seen order of the cited ones.
        tokens = dict.fromkeys(self._tokens(spans))
        least, stop = opts.min_length, self._stop
        # len() is the UTF-16 length of an ASCII token (nearly all): no call for those.
        return [
            tok for tok in tokens
            if (len(tok) if tok.isascii() else utf16_len(tok)) >= least and tok.lower() not in stop
        ]

    def _tokens(self, spans: list[str]) -> list[str]:
        """Every token match in each span, in order.

        One search over the spans joined by newlines finds exactly the
        per-span matches when no match holds the newline and the token
        pattern has no ^ $ \\A \\Z anchor nor lookaround (a match that fits inside its span
        is the one the span alone gives: the text up to it is the same, and
        \\b sees a newline as it sees a string end). One call instead of one
        per span: a linear-time engine's per-call cost exceeds its matching.
        """
        token = self.options.token
        if self.options.joinable_token and len(spans) > 1:
            found = _all(token, "\n".join(spans), 0)
            if not any("\n" in tok for tok in found):
                return found
        return [tok for span in spans for tok in _all(token, span, 0)]

    def _owner_table(self, listed) -> "_OwnerTable":
        strong: dict[str, set] = defaultdict(set)
        weak: dict[str, set] = defaultdict(set)
        # Which table each way of listing a name puts the file in (None: neither),
        # decided once per distinct kind or tag rather than per listing.
        table_of: dict[str, dict | None] = {}
        for path, names in listed.items():
            for name, hows in names.items():
                for how in hows:
                    table = table_of.get(how, _UNKNOWN)
                    if table is _UNKNOWN:
                        table = table_of[how] = self._table_for(how, strong, weak)
                    if table is not None:
                        table[name].add(path)
        return _OwnerTable(strong, weak)

    def _table_for(self, how: str, strong: dict, weak: dict):
        """The owner table a listing `how` (a kind, or a render tag's "`x` tag") adds to, or None."""
        if how.endswith(" tag"):  # a render tag's bare name (kinds have no space)
            return strong if self.options.tag_names_define else None
        if not self.options.defining_kinds_only or how in self._defining:
            return weak if how in self._weak else strong
        return None

    def judge(self, answer: str, envelope: Envelope) -> dict[str, Finding]:
        memo = envelope.memo
        opts = self.options
        cited_key = ("symbol", "cited", answer, opts.code_span, opts.token, opts.min_length, self._stop, opts.code_spans_only)
        # The citations depend on the answer alone: every envelope of the transcript shares them.
        answers = envelope.answers
        found = answers.get(cited_key)
        if found is None:
            cited = self.citations(answer)
            # Only the cited names' listings can credit or explain a file: an
            # answer cites a few dozen of the hundreds of names the headers list.
            found = answers[cited_key] = (cited, frozenset(cited))  # a frozenset hashes once
        cited, wanted = found
        key = ("symbol", "listed", wanted)
        listed = memo.get(key)
        if listed is None:
            listed = memo[key] = self._listed(envelope, wanted)
        table_key = ("symbol", "owners", wanted, opts.defining_kinds_only, self._defining, self._weak, opts.tag_names_define)
        table = memo.get(table_key)
        if table is None:
            table = memo[table_key] = self._owner_table(listed)
        owned = table.owned(cited)
        # The findings depend on weak_owners only where a name has strong and
        # weak owners, and on the cutoff only where some name reaches it:
        # rulesets that differ in those alone share the findings otherwise.
        weak_owners = opts.weak_owners if any(o.strong and o.weak for _, o in owned) else "lose"
        limit = self.options.ambiguity_limit
        effective = [(name, owners, self._effective(owners, weak_owners)) for name, owners in owned]
        if limit and not any(len(e) >= limit for _, _, e in effective):
            limit = 0
        key = ("symbol", "findings", cited_key, table_key, weak_owners, limit)
        findings = memo.get(key)
        if findings is None:
            findings = memo[key] = self._findings(envelope.paths, cited, listed, effective, limit)
        return findings

    @staticmethod
    def _effective(owners: Owners, weak_owners: str) -> frozenset:
        if weak_owners == "credit":
            return owners.strong | owners.weak
        return owners.strong or owners.weak

    def _findings(self, paths, cited, listed, effective, limit) -> dict[str, Finding]:
        """A Finding per path from the cited names' effective owners, under the cutoff `limit`."""
        # One pass over the cited names in first-seen order: each file keeps
        # the first name that credits it, else the first near miss.
        credit: dict[str, tuple[str, int]] = {}
        miss: dict[str, tuple[str, str]] = {}
        for name, owners, effective in effective:
            over = limit and len(effective) >= limit
            for path in effective:
                if path in credit:
                    continue
                if over:
                    miss.setdefault(path, (name, f"symbol `{name}`: owned by {len(effective)} files, ambiguity cutoff (limit {limit})"))
                else:
                    credit[path] = (name, len(effective))
            for path in owners.weak - effective:
                if path not in credit and path not in miss:
                    others = ", ".join(sorted(owners.strong))
                    kinds = ", ".join(sorted(listed[path][name] & self._weak))
                    miss[path] = (name, f"symbol `{name}`: weak owner ({kinds}) loses to a strong owner in {others}")
        findings = {}
        # Findings are frozen: every file whose header lists no cited name shares one.
        unlisted = Finding(self.name, False, None, _NOT_DEFINED)
        for path in paths:
            if path in credit:
                name, owned = credit[path]
                also = f" and in {owned - 1} other file(s)" if owned > 1 else ""
                findings[path] = Finding(self.name, True, name, f"symbol `{name}`: defined here{also}")
            elif path in miss:
                findings[path] = Finding(self.name, False, *miss[path])
            else:
                here = listed.get(path)
                findings[path] = self._unowned(here, cited) if here else unlisted
        return findings

    def _listed(self, envelope: Envelope, wanted: frozenset) -> dict[str, dict[str, set]]:
        """path -> name -> how its header lists the name (its kinds, and `tag` tags for
        render-tag names), for the `wanted` names."""
        return header_listings(envelope.calls, wanted)

    def _unowned(self, here: dict, cited) -> Finding:
        """Not credited and no cited name owns the file: say which guard kept a listed name out."""
        for name in cited if here else ():  # nothing listed here: no guard to name
            how = here.get(name)
            if how:
                tags = sorted(h for h in how if h.endswith(" tag"))
                kinds = sorted(h for h in how if not h.endswith(" tag"))
                if kinds:
                    why = f"listed here only as {', '.join(kinds)}, not a defining kind"
                else:
                    why = f"named by the {tags[0]} without a kind (tag_names_define is off)"
                return Finding(self.name, False, name, f"symbol `{name}`: {why}")
        return Finding(self.name, False, None, _NOT_DEFINED)

    # ---- evidence rendering (core.channel.Channel); the text label is the default one

    # An inline code span of the answer as the page marks it; the ruleset's
    # code_span option is not at hand when a report is drawn from JSON.
    _MARKED_SPAN = re.compile(r"`[^`\n]+`")

    @classmethod
    def evidence_spans(cls, answer: str, evidence: str) -> list[tuple[int, int]]:
        """A symbol counts where it stands in backticks, when it stands in any; else anywhere
        (a ruleset that reads prose symbols)."""
        import bisect  # here, as the page is the only caller

        from citeledger.core import find_evidence

        found = find_evidence(answer, evidence)
        spans = [m.span() for m in cls._MARKED_SPAN.finditer(answer)]  # sorted, non-overlapping
        starts = [a for a, _ in spans]
        inside = []
        for f in found:  # the code span starting last before the occurrence is the only one that can hold it
            k = bisect.bisect_left(starts, f[0]) - 1
            if k >= 0 and f[1] < spans[k][1]:
                inside.append(f)
        return inside or found


def header_listings(calls, wanted: frozenset) -> dict[str, dict[str, set]]:
    """path -> name -> how the path's headers list the name, for the `wanted` names.

    Over every section of `calls` that has a header and is not meta (as
    Envelope.sections() gives them), in order: each symbol of a wanted name
    adds its kind, each wanted name a render tag lists adds its "`tag` tag".
    Paths and names appear as first listed.

    A header's names are parsed (by the header grammar) only when its line
    can list a wanted name: an item's name is followed by its "(" in the
    line, and a render tag's bare names come with the tag's " (", so a line
    with neither lists none of them (most lines).
    """
    listed: dict[str, dict[str, set]] = {}
    opened = [name + "(" for name in wanted]
    # A file returned again under the same header adds nothing (its sets
    # already hold it): list it once. The scoring call's Cuts gives an equal
    # header line one Header object, so identity is the cheap test; the
    # objects live through the loop, so their ids cannot be reused meanwhile.
    seen: set = set()
    for call in calls:
        for section in call.sections:
            header = section.header
            if header is None or section.meta:
                continue
            key = (section.path, id(header))
            if key in seen:
                continue
            seen.add(key)
            suffix = header.suffix
            for name in opened:
                if name in suffix:
                    break
            else:
                if " (" not in suffix or not any(name in suffix for name in wanted):
                    continue  # the line lists no wanted name: nothing to parse
            names = None
            for sym in header.symbols:
                if sym.name in wanted:
                    names = listed.setdefault(section.path, {}) if names is None else names
                    names.setdefault(sym.name, set()).add(sym.kind)
            for tag in header.tags:
                how = None
                for name in tag.names:
                    if name in wanted:
                        how = _tag_how(tag.tag) if how is None else how
                        names = listed.setdefault(section.path, {}) if names is None else names
                        names.setdefault(name, set()).add(how)
    return listed


def _has_anchor(pattern) -> bool:
    """Whether `pattern` asserts a line or string start or end, or looks around (word boundaries are fine).

    A LinearPattern knows (its `anchored`); any other pattern is assumed to have one.
    """
    return getattr(pattern, "anchored", True)


def _all(pattern: re.Pattern, text: str, group: int) -> list[str]:
    """`group` of every match of `pattern` in `text`.

    findall() builds no match objects, but returns the group only when the
    pattern has exactly that many groups; otherwise read each match.
    """
    if pattern.groups == group:
        return pattern.findall(text)
    return [m.group(group) for m in pattern.finditer(text)]


@hookimpl
def citeledger_register_channels(register):
    register(SymbolChannel)
