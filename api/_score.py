"""`citeledger.load_ruleset` and `citeledger.score`: one session, as `citeledger score` reads it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable, Optional, Union

if TYPE_CHECKING:
    from citeledger.core import Ruleset
    from citeledger.report.results import SessionResult

PathLike = Union[str, "os.PathLike[str]"]


def load_ruleset(name_or_path: PathLike) -> "Ruleset":
    """A ruleset: a shipped one by name (`default`, ...; kept built in the user's cache, as the
    command line loads it) or a YAML file by path. A bad file raises `citeledger.core.UserError`
    (an `InputError` naming file and line)."""
    from citeledger.rules import compiled

    return compiled.load(os.fspath(name_or_path))


def as_ruleset(ruleset: Union[PathLike, "Ruleset"]) -> "Ruleset":
    """A Ruleset as given, else `load_ruleset` of a name or path."""
    from citeledger.core import Ruleset

    return ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)


def as_paths(paths: Union[PathLike, Iterable[PathLike]]) -> list[str]:
    """One path or several, as strings."""
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def score(
    paths: Union[PathLike, Iterable[PathLike]] = (),
    ruleset: Union[PathLike, "Ruleset"] = "default",
    *,
    session: Optional[PathLike] = None,
    sufficiency: bool = False,
    envelope: bool = False,
    answer: Iterable[str] = (),
    window_tokens: Optional[int] = None,
) -> "SessionResult":
    """Score one session: the result `citeledger score --json` prints (`.to_dict()` is that object).

    `paths` are files of one session, any one of them enough: the rest of its session
    (the segments beside `run-x.jsonl`, an interactive log's subagents) is read with it,
    as on the command line, and `.inputs` names every file read; files of different
    sessions raise `UserError`. `session` is `--session`: a Claude Code interactive log,
    its project folder or one `.jsonl` (`.session_path` is the log it chose). `ruleset` is
    a shipped name, a YAML path or a loaded `Ruleset`. `sufficiency`, `envelope`, `answer`
    (globs of the true answer's files) and `window_tokens` (1,000 to 10,000,000; None:
    CG_WINDOW_TOKENS, else 200,000) are the options of the same names.
    The figures are at hand by name (`.status`, `.efficiency`, `.used`, `.envelope`,
    `.calls`, `.files`); an unscored session (`status` `no-explore`, `no-answer`) has
    efficiency None, as in the JSON. Unreadable input raises `InputError`, worded with this
    function's argument names (`session=`, not the command line's `--session`).
    """
    from citeledger.core import UserError
    from citeledger.engine.session import SessionRequest, assemble

    _check_window(window_tokens)
    files = as_paths(paths)
    _not_a_transcript(ruleset, files)
    globs = tuple(answer)
    request = SessionRequest(
        ruleset=as_ruleset(ruleset), files=tuple(files),
        session=os.fspath(session) if session is not None else None,
        sufficiency=sufficiency, answer_globs=globs if globs or envelope else None,
        metrics=True, window_tokens=window_tokens,
    )
    try:
        return assemble(request)
    except UserError as exc:
        raise in_python(exc) from None


def _check_window(window_tokens) -> None:
    """`window_tokens` in the command line's --window-tokens range (engine/limits.py), else a UserError."""
    if window_tokens is None:
        return
    from citeledger.core import UserError
    from citeledger.engine.limits import window_range

    allowed = window_range()
    if isinstance(window_tokens, bool) or not isinstance(window_tokens, int) or not (
            allowed.low <= window_tokens <= allowed.high):
        raise UserError(f"window_tokens={window_tokens!r:.40}: out of range ({allowed.describe()})")


# The command line's words in the errors of reading one session, and the library's (argument names).
PYTHON_WORDS = (
    ("no transcript given: FILE ... (segments of one session) or --session PATH",
     "no transcript given: score(paths) takes the files of one session, or score(session=PATH) a Claude "
     "Code interactive log or its project folder"),
    ("is a directory (use --session for a Claude Code project log)",
     "is a directory: give it as session= (a Claude Code project folder), or citeledger.sweep(PATH) for "
     "every session under it"),
    ("give segment files or --session, not both", "give paths or session=, not both"),
    ("score and explain read one session — to score each, use `citeledger sweep` with these files",
     "citeledger.score reads one session — citeledger.sweep(paths) scores each"),
    ("--session", "session="),
    ("--answer ", "answer="),
)


def in_python(exc):
    """`exc` (a UserError) worded for a Python caller: `session=` where the command line says `--session`."""
    from citeledger.core import InputError, UserError

    def words(text: str) -> str:
        for cli_words, python in PYTHON_WORDS:
            text = text.replace(cli_words, python)
        return text

    if isinstance(exc, InputError):
        return type(exc)(exc.file, words(exc.message), exc.line)
    said = words(str(exc))
    if said == str(exc):
        return exc
    try:
        return type(exc)(said)  # its own class (a GlobError stays one)
    except TypeError:
        return UserError(said)


def _not_a_transcript(ruleset, files) -> None:
    """`score("a.jsonl", "b.jsonl")` passes b.jsonl as the ruleset: say so rather than read it as YAML."""
    from citeledger.core import UserError

    if isinstance(ruleset, (str, os.PathLike)) and os.fspath(ruleset).endswith((".jsonl", ".json")):
        raise UserError(f"ruleset={os.fspath(ruleset)!r} is a transcript, not a ruleset: the files of one "
                        f"session go in one argument, score([{', '.join(map(repr, files + [os.fspath(ruleset)]))}])")
