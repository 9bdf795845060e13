"""Which text answers a session, or each of its turns: the one answer-assembly rule.

A reader gives the answer candidates as it finds them (`Transcript.results`, the
`result` events or a format's per-turn answers; `Transcript.assistant_texts`, the
main-thread texts), each marked with its turn and its kind (`core.transcript`:
the model's, a progress note, a message the host wrote itself). A ruleset says
which are never an answer (`answer.never`) and whether the session is judged
against one answer (`answer.scope: session`, the reference's rule) or each turn's
retrievals against that turn's answer (`answer.scope: turn`).

`answer.written` (globs) adds what the agent wrote with a file-writing tool
(Claude Code's `Write` content, `Edit`'s `new_string`: `ToolUse.written`) to a
path matching one of them: a benchmark whose agent answers "report written to
BLAST_RADIUS.md" is judged on that report. A file written again by a whole-file
write keeps only what followed; an edit adds its new text. Each written file's
text follows the answer, in the order the files were last written whole,
separated by a blank line. `assemble_answer` is the one place the answer a
ruleset judges is put together; under `answer.scope: turn` the written files
join the session's last answered turn (a tool use carries no turn yet).
"""

from __future__ import annotations

from typing import Optional

import attrs

from citeledger.core.transcript import Origin, ToolResult
from citeledger.infra.globs import path_matcher
from citeledger.infra.jsstr import is_blank

# Tools whose input replaces a file's whole text (`content`); the others that carry
# `ToolUse.written` add to it (Edit's `new_string`).
WHOLE_FILE_WRITES = frozenset({"Write", "write"})  # Claude Code's, opencode's


@attrs.frozen
class Answer:
    """The answer a ruleset judges, where it came from, and the files whose written text it holds."""

    text: str
    source: str  # "result", "text-event", "final-turn-text", "turns" or "none": the answer's
    written: tuple[str, ...] = ()  # the written files added, in order


@attrs.frozen
class Turn:
    """One turn of a session as a ruleset judges it: its number, its answer (or none, and
    why) and the tool results returned in it, in reading order."""

    number: int
    answer: str
    source: str  # where the answer came from: "result", "text-event", "final-turn-text" or "none"
    results: tuple[ToolResult, ...] = ()
    answer_origin: Optional[Origin] = None
    # Why there is none ("" when answered): "cut" (the turn ended before an answer:
    # only progress notes, or nothing), "api-error" (only the host's own message).
    no_answer: str = ""


def candidates(results, texts, never) -> tuple[tuple, tuple]:
    """(results, texts) without the kinds `never` names."""
    if not never:
        return tuple(results), tuple(texts)
    return tuple(r for r in results if r.kind not in never), tuple(t for t in texts if t.kind not in never)


def session_answer(results, texts, rule: str, never=()) -> tuple[str, str]:
    """(answer, where it came from) of a whole session: the reference's rule (`reader.answer`)
    over the candidates `never` leaves."""
    results, texts = candidates(results, texts, never)
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


def turns_of(results, texts, tool_results, rule: str, never=()) -> tuple[Turn, ...]:
    """Each turn with its answer (the session rule applied to that turn's candidates) and
    the tool results returned in it. A turn a reader does not number (0) is the first."""
    kept_results, kept_texts = candidates(results, texts, never)
    turn = _segments(results)
    numbers = sorted({turn(x.turn) for x in (*results, *texts, *tool_results)} or {1})
    by_turn: dict[int, list] = {n: [] for n in numbers}
    for result in tool_results:
        by_turn[turn(result.turn)].append(result)
    turns = []
    for number in numbers:
        mine = [r for r in kept_results if turn(r.turn) == number]
        said = [t for t in kept_texts if turn(t.turn) == number]
        answer, source = session_answer(mine, said, rule)
        if mine:
            origin = mine[-1].origin
        else:
            origin = next((t.origin for t in reversed(said) if not is_blank(t.text)), None)
        why = "" if not is_blank(answer) else _why_none(number, results, texts, never, turn)
        turns.append(Turn(number, answer, source, tuple(by_turn[number]), origin if not why else None, why))
    return tuple(turns)


def _segments(results):
    """A turn's number as judged: a reader's turn (0 is the first), except that a headless
    run's `result` event answers every turn since the previous one (`ResultText.segment`):
    those turns are one, numbered by the result's turn."""
    ends = sorted({max(r.turn, 1) for r in results if r.segment})
    if not ends:
        return lambda number: max(number, 1)

    def turn(number: int) -> int:
        number = max(number, 1)
        return next((end for end in ends if end >= number), number)

    return turn


def _why_none(number: int, results, texts, never, turn) -> str:
    """Why turn `number` has no answer: only the host's error message, or cut."""
    dropped = [x.kind for x in (*results, *texts) if turn(x.turn) == number and x.kind in never]
    if dropped and all(kind == "api-error" for kind in dropped):
        return "api-error"
    return "cut"


def written_files(tool_uses, globs) -> tuple[tuple[str, str], ...]:
    """(path, the text written to it) of every file a tool use wrote whose path a glob
    matches (infra.globs.path_matcher: with a "/", the whole path; else any component)."""
    if not globs:
        return ()
    matches = path_matcher(globs)
    texts: dict[str, list[str]] = {}
    for use in tool_uses:
        written: Optional[str] = use.written
        if written is None or not use.file_path or not matches(use.file_path):
            continue
        if use.name in WHOLE_FILE_WRITES:
            texts.pop(use.file_path, None)  # a whole-file write replaces what was written before
        texts.setdefault(use.file_path, []).append(written)
    return tuple((path, "\n".join(parts)) for path, parts in texts.items())


def assemble_answer(results, texts, reader, rules, written=(), turns=None) -> Answer:
    """The answer judged: the session's (given `turns`, every answered turn's, joined), then
    the text of each `written` file ((path, text) pairs: `written_files`)."""
    if turns is None:
        text, source = session_answer(results, texts, reader.answer, rules.never)
    else:
        answered = [t.answer for t in turns if not is_blank(t.answer)]
        text, source = "\n\n".join(answered), "turns" if answered else "none"
    if not written:
        return Answer(text, source)
    return Answer(_joined(text, written), source, tuple(path for path, _ in written))


def with_written(turns: tuple, written) -> tuple:
    """`turns` with the `written` files' text joined to the last answered turn's answer
    (a tool use carries no turn of its own yet)."""
    if not written:
        return turns
    last = max((i for i, t in enumerate(turns) if not is_blank(t.answer)), default=len(turns) - 1)
    turn = attrs.evolve(turns[last], answer=_joined(turns[last].answer, written), no_answer="")
    return turns[:last] + (turn,) + turns[last + 1:]


def _joined(text: str, written) -> str:
    """`text` (when not blank) and each written file's text, separated by a blank line."""
    parts = [text] if not is_blank(text) else []
    return "\n\n".join(parts + [body for _, body in written])
