"""The envelope view (spec section 8): each file's share of what explore
returned, and the share of a hand-given answer set (`--envelope`, `--answer GLOB`)."""

from __future__ import annotations

import re
from typing import Callable

import attrs

from citeledger.core import BadPattern, SessionScore, UserError, compile_linear, percent, printable, ratio, thousands

TOP_FILES = 12
# The characters the reference escapes in a glob; `*` becomes a pattern and
# `?` is left alone (it stays a regex quantifier: a quirk `default` keeps).
_ESCAPED = frozenset(".+^${}()|[]\\")
# JavaScript's `.` stops at these; Python's only at "\n".
_JS_DOT = "[^\n\r\u2028\u2029]"


class GlobError(UserError):
    """An --answer glob that does not compile (a usage error, exit 2)."""


def glob_matcher(glob: str, where: str = "") -> Callable[[str], bool]:
    """The one place a glob becomes a pattern: a predicate on a returned path.

    Spec section 8: `. + ^ $ { } ( ) | [ ] \\` escaped, then `**` -> `.*` and
    `*` -> `[^/]*`, anchored at both ends, with JavaScript semantics. The
    resulting JavaScript pattern uses no syntax Python's `re` reads
    differently, except `.` (JavaScript's stops at every line terminator) and
    `$` (Python's also matches before a final "\\n"), translated here. Keep
    every glob compilation in this function so the engine can be swapped.
    `where` names the glob in an error (default: `--answer GLOB`).
    """
    while glob.startswith("./"):  # returned paths never start with ./ (the path channel drops it too)
        glob = glob[2:]
    parts = []
    for token in re.split(r"(\*\*|\*)", glob):
        if token == "**":
            parts.append(_JS_DOT + "*")
        elif token == "*":
            parts.append("[^/]*")
        else:
            parts.append("".join("\\" + c if c in _ESCAPED else c for c in token))
    body = "".join(parts)
    try:
        compiled = re.compile(rf"\A{body}\Z")  # what the glob means, and whether it compiles at all
    except re.error as exc:
        raise GlobError(f"{where or '--answer ' + repr(glob)}: not a valid glob ({exc.msg})") from None
    # Matched on RE2 (linear time; the body is RE2 syntax too): in re,
    # `**a**a**a…b` against a long path backtracks exponentially. re runs only
    # a glob RE2 cannot (a lone surrogate, which RE2's UTF-8 cannot hold).
    try:
        pattern = compile_linear(rf"\A{body}\z", single=True)
    except BadPattern:
        pattern = compiled
    return lambda path: pattern.match(path) is not None


@attrs.frozen
class EnvelopeFile:
    path: str
    chars: int
    in_answer: bool


@attrs.frozen
class EnvelopeView:
    chars: int  # the envelope: every section of every call (whatever its source)
    responses: int  # explore responses, with a section or not
    files: tuple[EnvelopeFile, ...]  # pooled chars descending, stable
    globs: tuple[str, ...]
    unmatched: tuple[str, ...] = ()  # globs that matched no returned file (a warning each)

    @property
    def answer_chars(self) -> int:
        return sum(f.chars for f in self.files if f.in_answer)

    @property
    def answer_share(self) -> float:
        return ratio(self.answer_chars, self.chars)

    @property
    def top_file_answers(self) -> bool:
        """Whether the largest file is in the answer set (False when nothing was returned)."""
        return bool(self.files) and self.files[0].in_answer


def compile_globs(globs) -> tuple[Callable[[str], bool], ...]:
    """Every glob compiled, before any scoring: a bad one is a usage error naming it."""
    return tuple(glob_matcher(g) for g in globs)


def envelope_view(score: SessionScore, globs=(), matchers=None) -> EnvelopeView:
    """The view of a scored session; its files are the allocation block's pooled files, in its order."""
    matchers = compile_globs(globs) if matchers is None else matchers
    hits = [[m(f.path) for m in matchers] for f in score.files]
    files = tuple(EnvelopeFile(f.path, f.chars, any(row)) for f, row in zip(score.files, hits))
    unmatched = tuple(g for i, g in enumerate(globs) if not any(row[i] for row in hits))
    return EnvelopeView(chars=score.envelope, responses=score.responses, files=files, globs=tuple(globs),
                        unmatched=unmatched)


def unmatched_warnings(view: EnvelopeView, where: str) -> tuple:
    """One warning per --answer glob that matched no returned file: a silent 0% misleads."""
    from citeledger.core import InputWarning

    return tuple(InputWarning(file=where, line=0, message=f"--answer {g!r} matched no returned file")
                 for g in view.unmatched)


def render_envelope(view: EnvelopeView) -> str:
    """The reference's block, printed after the allocation block (a blank line between)."""
    lines = [f"Explore envelope: {thousands(view.chars)} chars over {view.responses} response(s)"]
    if view.globs:
        lines.append(
            f"  answer-set share: {percent(view.answer_share)} | top file answers: {'true' if view.top_file_answers else 'false'}"
        )
    for f in view.files[:TOP_FILES]:
        lines.append(f"  {'*' if f.in_answer else ' '} {percent(ratio(f.chars, view.chars)):>6} {f.chars:>6}  {printable(f.path)}")
    if len(view.files) > TOP_FILES:
        lines.append(f"    … {len(view.files) - TOP_FILES} more files")
    return "\n".join(lines) + "\n"


def envelope_dict(view: EnvelopeView) -> dict:
    """The view for --json (every file, not only the top 12)."""
    out = {"chars": view.chars, "responses": view.responses}
    if view.globs:
        out.update(answer_share=view.answer_share, top_file_answers=view.top_file_answers)
    out["files"] = [
        {"path": f.path, "chars": f.chars, "share": ratio(f.chars, view.chars), "in_answer_set": f.in_answer}
        for f in view.files
    ]
    return out


def answer_set_dict(view: EnvelopeView) -> dict:
    """The answer set for --json, as `answer_set` has always been written."""
    return {
        "globs": list(view.globs),
        "chars": view.answer_chars,
        "share": view.answer_share,
        "files": [f.path for f in view.files if f.in_answer],
    }
