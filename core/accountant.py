"""Score a transcript under a ruleset: calls, sections, verdicts, pooling."""

from __future__ import annotations

from citeledger.core.channel import Envelope
from citeledger.core.sections.source_lines import line_cost

from citeledger.core.jsstr import is_blank
from citeledger.core.sections import Call
from citeledger.core.transcript import InputWarning, Transcript
from citeledger.core.plugins import channels as channel_classes
from citeledger.core.scores import CallScore, FileScore, SessionScore, Verdict
from citeledger.core.sections.splitter import cached_cut
from citeledger.core.sections.units import MEASURES


_CHANNELS: dict[int, tuple] = {}  # id(ruleset) -> (ruleset, its channel objects)


def _channels_for(ruleset) -> tuple:
    """The ruleset's channel objects, made once per ruleset object.

    Keyed by identity, not equality: hashing a Ruleset hashes every option of
    every rule, and scoring asks once per transcript and ruleset. An entry
    holds its ruleset, so the id cannot pass to another object meanwhile.
    """
    entry = _CHANNELS.get(id(ruleset))
    if entry is None:
        if len(_CHANNELS) >= 64:  # bounded, as the lru_cache it replaces
            del _CHANNELS[next(iter(_CHANNELS))]
        known = channel_classes()
        channels = tuple(known[rule.name](rule.options) for rule in ruleset.channels)
        entry = _CHANNELS[id(ruleset)] = (ruleset, channels)
    return entry[1]


def _readable(transcript: Transcript, reader):
    """The transcript as a ruleset's reader reads it: (responses, results, texts, warnings)."""
    responses, results, texts = transcript.responses, transcript.results, transcript.assistant_texts
    warnings = list(transcript.warnings)
    if reader.bom == "unreadable" and transcript.bom_lines:
        lost = set(transcript.bom_lines)
        responses = tuple(
            r for r in responses if r.origin not in lost and r.tool_use_origin not in lost
        )
        results = tuple(r for r in results if r.origin not in lost)
        texts = tuple(t for t in texts if t.origin not in lost)
        warnings += [  # in file order: a set's order would vary from run to run
            InputWarning(o.file, o.line, "not JSON (starts with a byte order mark), skipped")
            for o in dict.fromkeys(transcript.bom_lines)
        ]
    return responses, results, texts, tuple(warnings)


def _read(transcript: Transcript, reader, memo: "Shared") -> tuple:
    """(responses, answer, its source, whether it has one, warnings), once per way of reading.

    Joining the result texts and trimming the answer copy it whole, so
    rulesets that read alike share the work.
    """
    key = (reader.bom, reader.answer)
    read = memo.reads.get(key)
    if read is None:
        responses, results, texts, warnings = _readable(transcript, reader)
        answer, source = final_answer(results, texts, reader.answer)
        read = memo.reads[key] = (responses, answer, source, not is_blank(answer), warnings)
    return read


def final_answer(results, texts, rule: str) -> tuple[str, str]:
    """(answer, where it came from)."""
    if results:
        return "\n\n".join(r.text for r in results), "result"
    if rule == "final-turn-text":
        turns: dict[int, list[str]] = {}
        for t in texts:
            if t.after_last_tool_use and not is_blank(t.text):
                turns.setdefault(t.turn, []).append(t.text)
        if turns:
            return "\n\n".join("\n\n".join(parts) for parts in turns.values()), "final-turn-text"
        return "", "none"
    for t in reversed(texts):
        if not is_blank(t.text):
            return t.text, "text-event"
    return "", "none"


def calls_of(responses, ruleset, cuts: dict | None = None) -> tuple[Call, ...]:
    return _calls(_cuts_of(responses, ruleset, {} if cuts is None else cuts), ruleset.splitter)


def _cuts_of(responses, ruleset, cuts: dict) -> tuple:
    """(cut, origin) of each response, for every split that differs only in trailing_block or unit."""
    separator = ruleset.reader.block_separator
    return tuple((cached_cut(separator.join(r.blocks), ruleset.splitter, cuts), r.origin) for r in responses)


def _calls(cuts, rules) -> tuple[Call, ...]:
    """The calls that returned sections, numbered from 1, from `_cuts_of`."""
    calls = []
    for cut, origin in cuts:
        sections = cut.sections(rules.trailing_block, rules.unit)
        if sections:
            calls.append(Call(len(calls) + 1, sections, origin))
    return tuple(calls)


class Shared:
    """Work the rulesets scoring one transcript can share: parse once, score many.

    Rulesets that split alike share the cut responses, calls and envelope;
    channels with the same options, answer and envelope share their findings;
    rulesets that rank every file alike share the charges. Lives as long as
    one `score_many` call, so nothing outlives the transcript it describes.
    """

    __slots__ = ("reads", "cuts", "response_cuts", "envelopes", "channel_memos", "judged", "layouts", "accounts")

    def __init__(self):
        self.cuts: dict = {}
        self.channel_memos: dict = {}
        self.envelopes: dict = {}
        self.judged: dict = {}
        self.layouts: dict = {}
        self.reads: dict = {}
        self.response_cuts: dict = {}
        self.accounts: dict = {}


class _Charges:
    """What one session is charged under one ranking: its call scores and their totals.

    Rulesets that split alike and rank every file alike share one (without
    line credit), so the totals and the file order are worked out once.
    """

    __slots__ = ("calls", "files", "meta", "envelope", "used_by_rank", "line_used", "line_pinned")

    def __init__(self, calls, layout: "_Layout", rank, n, lines):
        call_scores = []
        # Calls that returned the same text share one _Tally: each is ranked once.
        ranked: dict[int, tuple] = {}
        line_credit: dict[int, tuple] = {}
        pooled = {path: [chars, count, 0] for path, chars, count in layout.pooled}
        for call, tally in zip(calls, layout.tallies):
            key = id(tally)
            if key not in ranked:
                ranked[key] = tally.ranked(rank, n)
            by_rank, used_sections = ranked[key]
            line_used = line_pinned = 0
            if lines.on:  # line credit depends on findings, not only on ranks
                if key not in line_credit:
                    line_credit[key] = _line_credit(call.sections, lines)
                line_used, line_pinned, by_path = line_credit[key]
                for path, chars in by_path:
                    pooled[path][2] += chars
            origin = call.origin
            call_scores.append(
                CallScore(
                    call.number, tally.envelope, sum(by_rank), by_rank, tally.sections,
                    used_sections, tally.files, origin.file, origin.line, line_used, line_pinned,
                )
            )
        self.calls = tuple(call_scores)
        # (path, chars, sections, line chars), pooled chars descending; sorted()
        # is stable: ties keep first-seen order, as the reference's sort.
        self.files = sorted(((path, *slot) for path, slot in pooled.items()), key=lambda row: -row[1])
        self.meta = layout.meta
        self.envelope = layout.envelope
        # Column sums of the calls' per-rank chars (zip and map(sum) run in C).
        by_ranks = [c.used_by_rank for c in call_scores]
        self.used_by_rank = tuple(map(sum, zip(*by_ranks))) if by_ranks else (0,) * n
        self.line_used = sum(c.line_used for c in call_scores) if lines.on else 0
        self.line_pinned = sum(c.line_pinned for c in call_scores) if lines.on else 0


class _Layout:
    """What the calls of one split add up to whatever the ranking.

    The rulesets that split alike share it: only the ranked totals (and line
    credit) differ between them, so sizes are tallied once per split.
    """

    __slots__ = ("tallies", "pooled", "meta", "envelope")

    def __init__(self, calls):
        # Calls that returned the same text share one sections tuple (see
        # splitter._Cut), and tally alike: each distinct tuple is tallied once.
        by_sections: dict[int, _Tally] = {}
        pooled: dict[str, list[int]] = {}  # path -> [chars, sections], first-seen order
        meta = 0
        for call in calls:
            tally = by_sections.get(id(call.sections))
            if tally is None:
                tally = by_sections[id(call.sections)] = _Tally(call.sections)
            meta += tally.meta
            for path, chars, count in tally.by_path:
                slot = pooled.setdefault(path, [0, 0])
                slot[0] += chars
                slot[1] += count
        self.tallies = tuple(by_sections[id(call.sections)] for call in calls)
        self.pooled = tuple((path, *slot) for path, slot in pooled.items())
        self.meta = meta
        self.envelope = sum(tally.envelope for tally in self.tallies)


class _Tally:
    """What one call's sections add up to, whatever the ranking."""

    __slots__ = ("envelope", "files", "sections", "meta", "by_path")

    def __init__(self, sections):
        env = meta = 0
        files = []
        by_path: dict[str, list[int]] = {}  # path -> [chars, sections], first-seen order
        for s in sections:
            env += s.chars
            if s.meta:
                meta += s.chars
                continue
            files.append((s.path, s.chars))
            slot = by_path.setdefault(s.path, [0, 0])
            slot[0] += s.chars
            slot[1] += 1
        self.envelope, self.files, self.sections, self.meta = env, tuple(files), len(files), meta
        self.by_path = tuple((path, *slot) for path, slot in by_path.items())

    def ranked(self, rank, n) -> tuple[tuple[int, ...], int]:
        """(chars credited by each ranked channel, sections used) under `rank`."""
        by_rank = [0] * n
        used_sections = 0
        for path, chars, count in self.by_path:  # per file, not per section
            winner = rank[path]
            if winner is not None:
                by_rank[winner] += chars
                used_sections += count
        return tuple(by_rank), used_sections


def _line_credit(sections, lines) -> tuple[int, int, tuple]:
    """(chars of credited lines, chars of pinned lines, credited line chars per path) of one call."""
    line_used = line_pinned = 0
    by_path: dict[str, int] = {}
    for s in sections:
        if s.meta:
            continue
        used_here, pinned_here = lines.credit(s)
        by_path[s.path] = by_path.get(s.path, 0) + used_here
        line_used += used_here
        line_pinned += pinned_here
    return line_used, line_pinned, tuple(by_path.items())


def score_many(transcript: Transcript, rulesets) -> tuple[SessionScore, ...]:
    """The transcript scored under each ruleset, sharing what they have in common."""
    shared = Shared()
    return tuple(score(transcript, ruleset, shared) for ruleset in rulesets)


def score(transcript: Transcript, ruleset, shared: Shared | None = None) -> SessionScore:
    """One transcript under one ruleset; `shared` carries work between rulesets of one transcript."""
    memo = shared or Shared()
    responses, answer, source, has_answer, warnings = _read(transcript, ruleset.reader, memo)
    # The responses depend only on the transcript and reader.bom.
    split = (ruleset.reader.bom, ruleset.reader.block_separator, ruleset.splitter)
    envelope = memo.envelopes.get(split)  # get(): one hash of the key, not two
    if envelope is None:
        rules = ruleset.splitter
        # Splits that differ only in trailing_block or unit cut the same texts:
        # join and look up each response once.
        cut_by = split[:2] + (rules.header, rules.trailer)
        cuts = memo.response_cuts.get(cut_by)
        if cuts is None:
            cuts = memo.response_cuts[cut_by] = _cuts_of(responses, ruleset, memo.cuts)
        calls = _calls(cuts, rules)
        paths = tuple(dict.fromkeys(s.path for c in calls for s in c.sections if not s.meta))
        # Channel work never depends on the unit sizes are counted in, so
        # envelopes that differ only in their unit share one channel memo.
        shape = cut_by + (rules.trailing_block,)
        envelope = memo.envelopes[split] = Envelope(calls, paths, memo.channel_memos.setdefault(shape, {}), transcript.tool_uses, responses)
    calls, paths = envelope.calls, envelope.paths
    channels = _channels_for(ruleset)
    rules = ruleset.splitter
    splitter_shape = (rules.header, rules.trailer, rules.trailing_block)
    judged = []
    for rule, channel in zip(ruleset.channels, channels):
        # Findings never depend on the unit chars are counted in.
        key = (split[:2], splitter_shape, rule.name, rule.options, answer)
        findings = memo.judged.get(key)
        if findings is None:
            findings = memo.judged[key] = channel.judge(answer, envelope)
        judged.append(findings)
    rank, verdicts = _verdicts(paths, judged, channels)
    n = len(channels)
    lines = _LineLedger(channels, verdicts, ruleset)
    layout = memo.layouts.get(split)
    if layout is None:
        layout = memo.layouts[split] = _Layout(calls)
    if lines.on:  # line credit depends on findings, not only on ranks
        charges = _Charges(calls, layout, rank, n, lines)
    else:
        # Rulesets that split alike and rank every file alike charge alike.
        account = (split, n, tuple(rank.values()))
        charges = memo.accounts.get(account)
        if charges is None:
            charges = memo.accounts[account] = _Charges(calls, layout, rank, n, lines)
    return SessionScore(
        name=transcript.name,
        ruleset=ruleset.name,
        channels=tuple(c.name for c in channels),
        inputs=transcript.files,
        calls=charges.calls,
        files=tuple(
            FileScore(path, chars, count, verdicts[path], line_chars)
            for path, chars, count, line_chars in charges.files
        ),
        envelope=charges.envelope,
        used=sum(charges.used_by_rank),
        used_by_rank=charges.used_by_rank,
        meta_chars=charges.meta,
        answer=answer,
        has_answer=has_answer,
        answer_source=source,
        warnings=warnings,
        line_level=lines.on,
        line_used=charges.line_used,
        line_pinned=charges.line_pinned,
    )


def _verdicts(paths, judged, channels) -> tuple[dict, dict]:
    """path -> rank of the channel crediting it (None: none), and path -> its Verdict."""
    rank = {}
    verdicts = {}
    # One row of findings per path, in rank order (zip builds the rows in C).
    rows = zip(*[[findings[path] for path in paths] for findings in judged]) if judged else [()] * len(paths)
    for path, findings in zip(paths, rows):
        winner = None
        for i, finding in enumerate(findings):
            if finding.credited:
                winner = i
                break
        rank[path] = winner
        verdicts[path] = Verdict(
            path,
            channels[winner].name if winner is not None else None,
            findings[winner].evidence if winner is not None else None,
            findings,
        )
    return rank, verdicts


class _LineLedger:
    """Line-level credit of one section (docs/line-level.md).

    On only when a ranked channel is line-aware. Lines pinned by any credited
    line-aware finding (whatever its rank) are the file's credited lines; a
    file credited only whole (path, symbol) has all its shipped lines credited.
    """

    def __init__(self, channels, verdicts, ruleset):
        self.on = any(getattr(c, "line_level", False) for c in channels)
        if not self.on:
            return
        self._measure = MEASURES[ruleset.splitter.unit]
        self._verdicts = verdicts
        self._pinned = {}
        for path, verdict in verdicts.items():
            sets = [f.lines for f in verdict.findings if f.credited and f.lines is not None]
            self._pinned[path] = frozenset().union(*sets) if sets else None

    def credit(self, section) -> tuple[int, int]:
        """(chars of credited lines, chars of pinned lines) in this section."""
        pinned = self._pinned[section.path]
        if pinned is not None:
            chars = line_cost(section.text, pinned, self._measure)
            return chars, chars
        if self._verdicts[section.path].credited:
            return line_cost(section.text, None, self._measure), 0
        return 0, 0
