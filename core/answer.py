"""The answer judged: the final message, and what the agent wrote to files when a ruleset says.

`assemble_answer` is the one place the answer a ruleset judges is put
together. Today it assembles the session's answer (the final message as
`reader.answer` picks it, `final_answer`); a per-turn answer scope calls it
once per turn with that turn's texts and tool uses.

`answer.written` (globs) adds what the agent wrote with a file-writing tool
(Claude Code's `Write` content, `Edit`'s `new_string`: `ToolUse.written`) to
a path matching one of them: a benchmark whose agent answers "report written
to BLAST_RADIUS.md" is judged on that report. A file written again by a
whole-file write keeps only what followed; an edit adds its new text. Each
written file's text follows the final message, in the order the files were
last written whole, separated by a blank line.
"""

from __future__ import annotations

from typing import Optional

import attrs

from citeledger.infra.globs import path_matcher
from citeledger.infra.jsstr import is_blank

# Tools whose input replaces a file's whole text (`content`); the others that carry
# `ToolUse.written` add to it (Edit's `new_string`).
WHOLE_FILE_WRITES = frozenset({"Write"})


@attrs.frozen
class Answer:
    """The answer a ruleset judges, where it came from, and the files whose written text it holds."""

    text: str
    source: str  # "result", "text-event", "final-turn-text" or "none": the final message's
    written: tuple[str, ...] = ()  # the written files added, in order


def final_answer(results, texts, rule: str) -> tuple[str, str]:
    """(the final message, where it came from): the `result` event(s), else the main-thread
    text `rule` picks (`reader.answer`)."""
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


def assemble_answer(results, texts, tool_uses, reader, answer_rules) -> Answer:
    """The answer judged: the final message, then every written file's text its globs take."""
    text, source = final_answer(results, texts, reader.answer)
    written = written_files(tool_uses, answer_rules.written)
    if not written:
        return Answer(text, source)
    parts = [text] if not is_blank(text) else []
    parts += [body for _, body in written]
    return Answer("\n\n".join(parts), source, tuple(path for path, _ in written))
