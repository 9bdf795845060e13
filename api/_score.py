"""`citeledger.load_ruleset` and `citeledger.score`: one session, as `citeledger score` reads it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable, Optional, Union

if TYPE_CHECKING:
    from citeledger.core import Ruleset, SessionScore

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
) -> "SessionScore":
    """Score one session: what `citeledger score --json` renders (`.efficiency`, `.calls`, `.files`).

    `paths` are files of one session, any one of them enough: the rest of its session
    (the segments beside `run-x.jsonl`, an interactive log's subagents) is read with it,
    as on the command line; files of different sessions raise `UserError`.
    `session` is `--session`: a Claude Code interactive log, its project folder or one
    `.jsonl`. `ruleset` is a shipped name, a YAML path or a loaded `Ruleset`.
    An unscored session comes back with `status` other than `"scored"` (`no-explore`,
    `no-answer`); its warnings are in `.warnings`. Unreadable input raises `InputError`.
    """
    from citeledger.cli.commands.common import read_session
    from citeledger.core import score as score_transcript

    rules = as_ruleset(ruleset)
    transcript = read_session(as_paths(paths), os.fspath(session) if session else None, rules, whole=True)
    return score_transcript(transcript, rules)
