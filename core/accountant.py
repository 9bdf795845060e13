"""Score a transcript under a ruleset: calls, sections, verdicts, pooling.

Parse once, score many: the rulesets scoring one transcript share work in
declared stages (`STAGES`). Each stage's fields are those the Ruleset schema
says feed it (core/ruleset.py), and its cache key is built from exactly those
values, so two rulesets share a result only when every value it depends on is
equal. Every cached result is keyed by a stage; a test holds the stages to the
schema: a field no stage declares fails it.
Every cache lives in one `Shared` object, made per `score_many` call.
"""

from __future__ import annotations

import operator
import sys
from typing import Callable

import attrs

from citeledger.core.channel import Envelope, check_findings
from citeledger.infra.jsstr import is_blank
from citeledger.core.plugins import channels as channel_classes, sources as source_classes
from citeledger.core.ruleset import Ruleset
from citeledger.core.scores import CallScore, FileScore, SessionScore, Verdict
from citeledger.core.sections import Call
from citeledger.core.sections.source_lines import line_cost
from citeledger.core.sections.units import MEASURES
from citeledger.core.source import Given, make_sources, pull, result_key, tally
from citeledger.core.answers import assemble_answer, session_answer, turns_of, with_written, written_files
from citeledger.core.transcript import InputWarning, Transcript, explore_queries


@attrs.frozen
class Stage:
    """One shared step of scoring and the ruleset fields (dotted paths) its result depends on.

    A field under `[]` is one item of a list of rules (`channels[].options`: one
    ranked channel's rule), passed in whole as `extra` by the code judging that
    rule; a stage given more than its fields (the ranking its charges follow)
    takes that as `extra` too.
    """

    name: str
    fields: tuple[str, ...]
    _values: Callable = attrs.field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self):
        scalar = [f for f in self.fields if "[]" not in f]
        get = operator.attrgetter(*scalar) if scalar else (lambda r: ())
        object.__setattr__(self, "_values", (lambda r: (get(r),)) if len(scalar) == 1 else get)

    def key(self, ruleset, *extra) -> tuple:
        return (self.name, *self._values(ruleset), *extra)


# Every shared step of scoring, and the steps whose results it builds on. A
# stage's key holds the fields the schema declares for it (each field's
# `stages` metadata, core/ruleset.py `feeds`) and those of the stages it builds
# on: a new ruleset key declares its stages on its field, nothing here changes.
BUILDS_ON = {
    # what the reader keeps (the corpus reads once per distinct reading options, citeledger.corpus)
    "transcript": (),
    # the results a ruleset can read, the final answer and the warnings
    "read": (),
    # each tool result a source reads cut into pieces (explore responses at their headers)
    "cut": (),
    # work channels derive from the sections' texts (owner tables, citations):
    # it never depends on the unit sizes are counted in
    "sections": ("cut",),
    # the calls' sections, sized in the ruleset's unit
    "envelope": ("sections",),
    # one ranked channel's findings: its rule (extra), the sections' texts and the answer
    "findings": ("sections", "read"),
    # per path, the first-ranked channel crediting it: the ranked rules' findings
    "verdicts": ("sections", "read"),
    # each call's explore query: which cuts are calls does not depend on the unit
    "queries": ("sections",),
    # sizes tallied per call and pooled per file, whatever the ranking
    "layout": ("envelope",),
    # the charges: the layout under one ranking (extra: the ranks the verdicts decided)
    "charges": ("envelope",),
    # the charged files with their verdicts
    "files": ("envelope", "read"),
    # fields that label a result and are never part of a cached one
    "label": (),
}


def declared_fields(cls=None, prefix: str = "") -> dict[str, tuple[str, ...]]:
    """Every ruleset field (dotted) and the stages its metadata says it feeds. A record's
    fields are its own fields, expanded; a list of rules names its rule's class in `items`,
    whose fields it adds under `[]` (`channels[].name`)."""
    cls = Ruleset if cls is None else cls
    names = vars(sys.modules[cls.__module__])  # the annotations are strings (PEP 563): no eval
    found = {}
    for field in attrs.fields(cls):
        path, kind = prefix + field.name, field.type
        record = names.get(kind) if isinstance(kind, str) else kind
        if isinstance(record, type) and attrs.has(record):
            found.update(declared_fields(record, path + "."))
            continue
        found[path] = tuple(field.metadata.get("stages", ()))
        items = field.metadata.get("items")
        if items is not None:
            found.update(declared_fields(items, path + "[]."))
    return found


def _stages() -> dict[str, Stage]:
    fields = declared_fields()
    own = {name: [f for f, feeds in fields.items() if name in feeds] for name in BUILDS_ON}

    def of(name: str) -> list[str]:
        return [f for base in BUILDS_ON[name] for f in of(base)] + own[name]

    return {name: Stage(name, tuple(dict.fromkeys(of(name)))) for name in BUILDS_ON}


STAGES = _stages()


def stage_key(name: str, ruleset, *extra) -> tuple:
    """The cache key of stage `name` for `ruleset`: its declared fields' values, then `extra`."""
    return STAGES[name].key(ruleset, *extra)


class Plan:
    """What scoring reads of each ruleset, worked out once per scoring call.

    A ruleset's stage keys become small ints: each distinct key (its declared
    fields' values, `Stage.key`) is numbered when first seen, so two rulesets
    get one number exactly when every value the stage depends on is equal,
    and a lookup hashes an int instead of patterns and options compared field
    by field. The channel objects are made here too, one per distinct rule
    (name, options). `score_corpus` makes one per call (corpus._plan)
    and hands it to every session's `score_many`; a `Shared` made without one
    makes its own. Nothing outlives the call that made it.
    """

    __slots__ = ("_of", "_numbers", "_channels", "sources", "_answers", "_answers_of", "memo")

    def __init__(self, memo: bool = True):
        # Each ruleset's part is worked out when it is first scored, so a
        # failure to make its channels is that session's, as without a Plan.
        self._of: dict = {}  # ruleset -> _RulesetPlan (a Ruleset's hash is cached)
        self._numbers: dict = {}  # a stage key's values -> its number
        self._channels: dict = {}  # rule number -> the channel object
        # The sources' own memo for the call, keyed by content (the explore
        # source's cut responses: a response returned again in another session
        # of the call, as an A/B pass asks one question over and over, is cut,
        # sized and its headers parsed once; the source bounds what it holds).
        # `memo=False` (a test's switch): each session starts with an empty one.
        self.sources: dict = {}
        self.memo = memo
        # The channels' work on one session's answer (Envelope.answers), kept
        # across the session's reading option sets (a ruleset reading other
        # tools reads the transcript again: same answer). Keyed by content;
        # dropped when another session's transcript comes.
        self._answers: dict = {}
        self._answers_of: tuple = ()

    def answers(self, transcript) -> dict:
        """The answers memo for `transcript`'s session (a new one for another session)."""
        if transcript.files != self._answers_of:
            self._answers, self._answers_of = {}, transcript.files
        return self._answers

    def number(self, key) -> int:
        return self._numbers.setdefault(key, len(self._numbers))

    def of(self, ruleset) -> "_RulesetPlan":
        found = self._of.get(ruleset)
        if found is None:
            found = self._of[ruleset] = _RulesetPlan(ruleset, self)
        return found


class _RulesetPlan:
    """One ruleset's stage numbers, channel objects and channel names (`Plan.of`)."""

    __slots__ = ("keys", "findings", "channels", "names", "line_level", "sources")

    def __init__(self, ruleset, plan: Plan | None):
        known = channel_classes()
        if plan is None:  # one ruleset scoring alone shares nothing: no key to work out
            self.keys = _ALONE
            self.channels = tuple(known[rule.name](rule.options) for rule in ruleset.channels)
            self.findings = tuple(range(len(STAGES), len(STAGES) + len(self.channels)))
            self._finish(ruleset)
            return
        self.keys = {name: plan.number(stage.key(ruleset)) for name, stage in STAGES.items()}
        findings, channels = [], []
        for rule in ruleset.channels:
            number = plan.number(("rule", rule))  # by value: equal rules share a number
            channel = plan._channels.get(number)
            if channel is None:
                channel = plan._channels[number] = known[rule.name](rule.options)
            channels.append(channel)
            findings.append(plan.number(STAGES["findings"].key(ruleset, rule)))
        self.findings = tuple(findings)
        self.channels = tuple(channels)
        self._finish(ruleset)

    def _finish(self, ruleset) -> None:
        channels = self.channels
        self.names = tuple(c.name for c in channels)
        self.line_level = any(getattr(c, "line_level", False) for c in channels)
        self.sources = make_sources(ruleset.sources, source_classes())


# The stage numbers of a ruleset scored alone (`score` without a Shared): distinct, and
# the findings' follow them.
_ALONE = {name: i for i, name in enumerate(STAGES)}


class Shared:
    """Work the rulesets scoring one transcript share, keyed by stage numbers (`Plan`).

    Made by each `score_many` call, so nothing outlives the transcript it
    describes. `sources` is the Plan's (one scoring call's) memo of the
    sources, keyed by content, shared by every ruleset that cuts alike and
    every session of the call that returned the same text.
    """

    __slots__ = ("results", "sources", "plan", "answers")

    def __init__(self, plan: Plan | None = None):
        self.results: dict = {}
        # The channels' work on the answer alone (Envelope.answers): keyed by
        # the answer and the options it reads, so every envelope shares it.
        self.answers: dict = {}
        self.plan = plan if plan is not None else Plan()
        self.sources = self.plan.sources if self.plan.memo else {}

    def get(self, key, make):
        """The result under `key`, made by `make()` the first time."""
        found = self.results.get(key)  # get(): one hash of the key, not two
        if found is None:
            found = self.results[key] = make()
        return found


def readable_responses(transcript: Transcript, ruleset) -> tuple:
    """The explore responses as `ruleset`'s reader reads them (a line starting with a byte
    order mark is unreadable under `reader.bom: unreadable`, as JSON.parse fails on it)."""
    return _readable(transcript, ruleset.reader)[0]


def _readable(transcript: Transcript, reader):
    """The transcript as a ruleset's reader reads it: (responses, results, texts, warnings, tool results)."""
    responses, results, texts = transcript.responses, transcript.results, transcript.assistant_texts
    tool_results = transcript.tool_results
    warnings = list(transcript.warnings)
    if reader.bom == "unreadable" and transcript.bom_lines:
        lost = set(transcript.bom_lines)
        responses = tuple(
            r for r in responses if r.origin not in lost and r.tool_use_origin not in lost
        )
        results = tuple(r for r in results if r.origin not in lost)
        texts = tuple(t for t in texts if t.origin not in lost)
        tool_results = tuple(
            r for r in tool_results
            if r.origin not in lost and (r.use is None or r.use.origin not in lost)
        )
        warnings += [  # in file order: a set's order would vary from run to run
            InputWarning(o.file, o.line, "not JSON (starts with a byte order mark), skipped")
            for o in dict.fromkeys(transcript.bom_lines)
        ]
    return responses, results, texts, tuple(warnings), tool_results


def _read(transcript: Transcript, ruleset) -> tuple:
    """(responses, the Answer judged, whether it has one, warnings, kept tool results, turns):
    `turns` are the session's turns when `answer.scope: turn` judges more than one, else None."""
    reader, rules = ruleset.reader, ruleset.answer
    responses, results, texts, warnings, tool_results = _readable(transcript, reader)
    written = written_files(transcript.tool_uses, rules.written)
    turns = None
    if rules.scope == "turn":
        judged = turns_of(results, texts, (*responses, *tool_results), reader.answer, rules.never)
        if len(judged) > 1:  # one turn: its answer is the session's
            turns = with_written(judged, written)
    answer = assemble_answer(results, texts, reader, rules, written, judged if turns is not None else None)
    return responses, answer, not is_blank(answer.text), warnings, tool_results, turns




def _cuts_of(given: Given, ruleset, sources, memo: Shared) -> tuple:
    """(pulled cuts in reading order, the sources' warnings): the same text read again is the same cut."""
    return pull(given, ruleset, sources, memo.sources)


def _envelope(pulled, unit: str, channel_memo: dict, *context, answers=None) -> Envelope:
    """The calls that returned sections (sized in `unit`), numbered from 1, and their distinct paths."""
    calls = []
    for one in pulled:
        cut = one.cut
        sections = cut.sections(unit)
        if sections:
            calls.append(Call(len(calls) + 1, sections, one.origin, cut.number, one.source, one.response, one.result))
    paths = tuple(dict.fromkeys(s.path for c in calls for s in c.sections if not s.meta))
    # context: the tool uses, the responses
    return Envelope(tuple(calls), paths, channel_memo, *context, answers={} if answers is None else answers)


def calls_of(responses, ruleset, results=(), files=(), memo: dict | None = None, base=None) -> tuple[Call, ...]:
    """The calls of `responses` (and the kept tool `results`) exactly as `score` numbers
    and cuts them (a result without a section is no call), for reports that need the
    sections beside a score. `memo`: the sources' memo of a scoring call (`Plan.sources`,
    handed to score_corpus's `extra`), so responses that call cut are not cut again."""
    # Only the sources: a Plan would also make the channel objects and stage keys.
    sources = make_sources(ruleset.sources, source_classes())
    pulled, _ = pull(Given(tuple(responses), tuple(results), tuple(files), base), ruleset, sources,
                     {} if memo is None else memo)
    return _envelope(pulled, ruleset.unit, {}).calls


class _Charges:
    """What one session is charged under one ranking: its call scores and their totals.

    Rulesets that split alike and rank every file alike share one (without
    line credit), so the totals and the file order are worked out once.
    """

    __slots__ = ("calls", "files", "meta", "envelope", "used_by_rank", "line_used", "line_pinned")

    def __init__(self, calls, layout: "_Layout", rank, n, lines):
        self.meta = layout.meta
        self.envelope = layout.envelope
        self.files = layout.files  # its order does not depend on the ranking
        self.line_used = self.line_pinned = 0
        # Calls that returned the same text share one row: each is ranked once.
        ranks = [_ranked(row[3], rank, n) for row in layout.rows]
        if lines.on:  # line credit depends on findings, not only on ranks
            self._with_lines(calls, layout, ranks, n, lines)
            return
        self.calls = tuple(
            CallScore(number, envelope, sum(by_rank), by_rank, sections, used, files, file, line, 0, 0)
            for (number, file, line), (envelope, sections, files, _), (by_rank, used) in zip(
                layout.heads, [layout.rows[i] for i in layout.index], [ranks[i] for i in layout.index]
            )
        )
        # Column sums of the calls' per-rank chars (zip and map(sum) run in C).
        by_ranks = [c.used_by_rank for c in self.calls]
        self.used_by_rank = tuple(map(sum, zip(*by_ranks))) if by_ranks else (0,) * n

    def _with_lines(self, calls, layout, ranks, n, lines):
        call_scores = []
        line_credit: dict[int, tuple] = {}
        pooled = {path: [chars, count, 0] for path, chars, count in layout.pooled}
        for call, i in zip(calls, layout.index):
            envelope, sections, files, _ = layout.rows[i]
            by_rank, used_sections = ranks[i]
            if i not in line_credit:
                line_credit[i] = _line_credit(call.sections, lines)
            line_used, line_pinned, by_path = line_credit[i]
            for path, chars in by_path:
                pooled[path][2] += chars
            origin = call.origin
            call_scores.append(
                CallScore(
                    call.number, envelope, sum(by_rank), by_rank, sections,
                    used_sections, files, origin.file, origin.line, line_used, line_pinned,
                )
            )
        self.calls = tuple(call_scores)
        self.files = _by_pooled_chars((path, *slot) for path, slot in pooled.items())
        by_ranks = [c.used_by_rank for c in call_scores]
        self.used_by_rank = tuple(map(sum, zip(*by_ranks))) if by_ranks else (0,) * n
        self.line_used = sum(c.line_used for c in call_scores)
        self.line_pinned = sum(c.line_pinned for c in call_scores)


def _by_pooled_chars(rows) -> tuple:
    """(path, chars, sections, line chars) rows, pooled chars descending; sorted()
    is stable: ties keep first-seen order, as the reference's sort."""
    return tuple(sorted(rows, key=lambda row: -row[1]))


class _Layout:
    """What the calls of one envelope add up to whatever the ranking.

    The rulesets that split alike share it: only the ranked totals (and line
    credit) differ between them, so sizes are tallied once per split, and
    so is the order of the files (without line credit: a ranking changes
    no file's chars).

    Calls that returned the same text (one text_key) tally alike: `rows` has
    one (envelope, sections, files, by_path) per distinct text (`_tally`),
    `index` each call's row, `heads` each call's (number, file, line).
    """

    __slots__ = ("rows", "index", "heads", "pooled", "files", "meta", "envelope")

    def __init__(self, calls):
        by_text: dict = {}  # text key -> row
        rows, metas, index = [], [], []
        pooled: dict[str, list[int]] = {}  # path -> [chars, sections], first-seen order
        envelope = meta = 0
        for call in calls:
            key = call.text_key or ("call", call.number)  # 0 (a Call made elsewhere) shares with none
            i = by_text.get(key)
            if i is None:
                i = by_text[key] = len(rows)
                row_envelope, row_meta, files, by_path = _tally(call.sections)
                rows.append((row_envelope, len(files), files, by_path))
                metas.append(row_meta)
            index.append(i)
            row = rows[i]
            envelope += row[0]
            meta += metas[i]
            for path, chars, count in row[3]:
                slot = pooled.get(path)
                if slot is None:
                    pooled[path] = [chars, count]
                else:
                    slot[0] += chars
                    slot[1] += count
        self.rows, self.index = tuple(rows), tuple(index)
        self.heads = tuple([(call.number, call.origin.file, call.origin.line) for call in calls])
        self.pooled = tuple([(path, *slot) for path, slot in pooled.items()])
        self.meta = meta
        self.envelope = envelope
        self.files = _by_pooled_chars([(path, chars, count, 0) for path, chars, count in self.pooled])


def _tally(sections) -> tuple:
    """What one call's sections add up to, whatever the ranking: (envelope, meta
    chars, (path, chars) of each file section, (path, chars, sections) per path
    in first-seen order)."""
    env = meta = 0
    files = []
    by_path: dict[str, list[int]] = {}  # path -> [chars, sections], first-seen order
    for s in sections:
        chars = s.chars
        env += chars
        if s.meta:
            meta += chars
            continue
        path = s.path
        files.append((path, chars))
        slot = by_path.get(path)
        if slot is None:
            by_path[path] = [chars, 1]
        else:
            slot[0] += chars
            slot[1] += 1
    return env, meta, tuple(files), tuple([(path, *slot) for path, slot in by_path.items()])


def _ranked(by_path, rank, n) -> tuple[tuple[int, ...], int]:
    """(chars credited by each ranked channel, sections used) of a tally's by_path
    under `rank`."""
    by_rank = [0] * n
    used_sections = 0
    for path, chars, count in by_path:  # per file, not per section
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


def score_many(transcript: Transcript, rulesets, plan: Plan | None = None) -> tuple[SessionScore, ...]:
    """The transcript scored under each ruleset, sharing what they have in common
    (`plan`: the scoring call's, when it scores more than this transcript)."""
    shared = Shared(plan)
    if plan is not None:
        shared.answers = plan.answers(transcript)
    return tuple(score(transcript, ruleset, shared) for ruleset in rulesets)


def score(transcript: Transcript, ruleset, shared: Shared | None = None) -> SessionScore:
    """One transcript under one ruleset; `shared` carries work between rulesets of one transcript."""
    if shared is None:
        memo, mine = Shared(), _RulesetPlan(ruleset, None)
    else:
        memo, mine = shared, shared.plan.of(ruleset)
    results, unit, keys = memo.results, ruleset.unit, mine.keys
    read = results.get(keys["read"])
    if read is None:
        read = results[keys["read"]] = _read(transcript, ruleset)
    responses, assembled, has_answer, warnings, tool_results, turns = read
    answer = assembled.text
    pulled, said = memo.get(keys["cut"], lambda: _cuts_of(
        Given(responses, tool_results, transcript.files, transcript.cwd), ruleset, mine.sources, memo))
    if said:  # a source's own warnings (a result charged to no known file)
        warnings = warnings + said
    # Envelopes that differ only in their unit share one channel memo.
    channel_memo = memo.get(keys["sections"], dict)
    envelope = results.get(keys["envelope"])
    if envelope is None:
        envelope = results[keys["envelope"]] = _envelope(
            pulled, unit, channel_memo, transcript.tool_uses, responses, answers=memo.answers)
    calls = envelope.calls
    channels = mine.channels
    n = len(channels)
    if turns is not None and not mine.line_level:  # answer.scope: turn (line credit judges the session)
        charges, files = _turn_charged(results, keys, mine, turns, envelope)
        lines = _NO_LINES
    else:
        rank, verdicts = _judged(results, keys, mine, answer, envelope)
        lines = _LineLedger(channels, verdicts, unit) if mine.line_level else _NO_LINES
        charges, files = _charged(results, keys, calls, rank, n, lines, verdicts)
    return SessionScore(
        name=transcript.name,
        ruleset=ruleset.name,
        channels=mine.names,
        inputs=transcript.files,
        calls=charges.calls,
        files=files,
        envelope=charges.envelope,
        used=sum(charges.used_by_rank),
        used_by_rank=charges.used_by_rank,
        meta_chars=charges.meta,
        answer=answer,
        has_answer=has_answer,
        answer_source=assembled.source,
        answer_written=assembled.written if ruleset.answer.written else None,
        warnings=warnings,
        line_level=lines.on,
        line_used=charges.line_used,
        line_pinned=charges.line_pinned,
        responses=len(responses),
        queries=memo.get(keys["queries"], lambda: _queries(pulled, unit, responses, transcript.tool_uses)),
        sources=tally(mine.sources, calls, charges.calls) if len(mine.sources) > 1 else (),
        unit=unit,
        source_names=tuple(s.name for s in mine.sources),
        whereabouts=transcript.whereabouts,
        cut=calls,
    )


def _judged(results: dict, keys: dict, mine, answer: str, envelope) -> tuple:
    """(path -> crediting rank, path -> Verdict): each ranked channel's findings and the
    verdicts, shared with the rulesets that judge alike."""
    judged = []
    for key, channel in zip(mine.findings, mine.channels):
        findings = results.get(key)
        if findings is None:
            findings = results[key] = check_findings(channel, channel.judge(answer, envelope), envelope.paths)
        judged.append(findings)
    # The verdicts are a function of the ranked rules' findings: rulesets that judge alike share them.
    found = results.get(keys["verdicts"])
    if found is None:
        found = results[keys["verdicts"]] = _verdicts(envelope.paths, judged, mine.channels)
    return found


def _turn_charged(results: dict, keys: dict, mine, turns, envelope) -> tuple:
    """(charges, FileScores) when each turn's calls are judged against that turn's answer
    (`answer.scope: turn`): a file is credited where its turn's answer cites it; its
    FileScore's verdict is the first crediting turn's (else its last turn's)."""
    turn_of = {result_key(r): t.number for t in turns for r in t.results}
    explored = {id(r): t.number for t in turns for r in t.results}
    grouped: dict = {}
    for call in envelope.calls:
        if call.response >= 0:  # an explore response, by its index among the responses read
            number = explored.get(id(envelope.responses[call.response]), 1)
        else:
            number = turn_of.get(call.result, 1)
        grouped.setdefault(number, []).append(call)
    rank_of: dict = {}  # call number -> its turn's ranking
    verdicts: dict = {}
    answers = {t.number: t.answer for t in turns}
    for number, calls in grouped.items():
        paths = tuple(dict.fromkeys(s.path for c in calls for s in c.sections if not s.meta))
        part = Envelope(tuple(calls), paths, {}, envelope.tool_uses, envelope.responses, answers=envelope.answers)
        judged = [check_findings(ch, ch.judge(answers.get(number, ""), part), paths) for ch in mine.channels]
        rank, found = _verdicts(paths, judged, mine.channels)
        for call in calls:
            rank_of[call.number] = rank
        for path, verdict in found.items():
            if path not in verdicts or (verdict.credited and not verdicts[path].credited):
                verdicts[path] = verdict
    layout = results.get(keys["layout"])
    if layout is None:
        layout = results[keys["layout"]] = _Layout(envelope.calls)
    charges = _TurnCharges(envelope.calls, layout, rank_of, len(mine.channels))
    return charges, _file_scores(charges, verdicts)


class _TurnCharges:
    """A session's charges when each call is ranked by its own turn's verdicts (`_turn_charged`)."""

    __slots__ = ("calls", "files", "meta", "envelope", "used_by_rank", "line_used", "line_pinned")

    def __init__(self, calls, layout: "_Layout", rank_of: dict, n: int):
        self.meta, self.envelope, self.files = layout.meta, layout.envelope, layout.files
        self.line_used = self.line_pinned = 0
        scores = []
        for call, (number, file, line), i in zip(calls, layout.heads, layout.index):
            envelope, sections, files, by_path = layout.rows[i]
            by_rank, used = _ranked(by_path, rank_of[call.number], n)
            scores.append(CallScore(number, envelope, sum(by_rank), by_rank, sections, used, files, file, line, 0, 0))
        self.calls = tuple(scores)
        self.used_by_rank = tuple(map(sum, zip(*[c.used_by_rank for c in scores]))) if scores else (0,) * n


def _charged(results: dict, keys: dict, calls, rank, n: int, lines, verdicts) -> tuple:
    """The session's charges and its FileScores, shared with the rulesets that split and rank alike."""
    layout = results.get(keys["layout"])
    if layout is None:
        layout = results[keys["layout"]] = _Layout(calls)
    if lines.on:  # line credit depends on findings, not only on ranks
        charges = _Charges(calls, layout, rank, n, lines)
        files = _file_scores(charges, verdicts)
    else:
        # Rulesets that split alike and rank every file alike charge alike (the charges
        # stage, given the ranking: the result depends only on the ranks) ...
        key = (keys["charges"], n, tuple(rank.values()))
        charges = results.get(key)
        if charges is None:
            charges = results[key] = _Charges(calls, layout, rank, n, lines)
        # and those that also judge alike list the same files.
        files = results.get(keys["files"])
        if files is None:
            files = results[keys["files"]] = _file_scores(charges, verdicts)
    return charges, files


def _file_scores(charges, verdicts) -> tuple:
    """A FileScore per charged file, in the charges' order."""
    return tuple([
        FileScore(path, chars, count, verdicts[path], line_chars)
        for path, chars, count, line_chars in charges.files
    ])


def _queries(pulled, unit: str, responses, tool_uses) -> tuple:
    """Each call's query: its explore response's (a call is a pulled result with sections,
    in order, as _envelope makes them); None for a call of another source."""
    asked = explore_queries(tool_uses, responses)
    return tuple(
        asked[one.response] if one.response >= 0 else None
        for one in pulled if one.cut.sections(unit)
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
        if winner is None:
            verdicts[path] = Verdict(path, None, None, findings)
        else:
            verdicts[path] = Verdict(path, channels[winner].name, findings[winner].evidence, findings)
    return rank, verdicts


class _LineLedger:
    """Line-level credit of one section (docs/line-level.md).

    On only when a ranked channel is line-aware. Lines pinned by any credited
    line-aware finding (whatever its rank) are the file's credited lines; a
    file credited only whole (path, symbol) has all its shipped lines credited.
    """

    def __init__(self, channels, verdicts, unit):
        self.on = channels is not None and any(getattr(c, "line_level", False) for c in channels)
        if not self.on:
            return
        self._measure = MEASURES[unit]
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


# The ledger of every ruleset without a line-aware channel: off, holds nothing.
_NO_LINES = _LineLedger(None, None, None)
