"""A corpus: find every session under some paths, score each one, stream the outcomes.

Discovery (`discover`) walks files and directories in sorted order and groups
what it finds into sessions:

- stream-json segment groups: `run-x.jsonl`, `run-x.t2.jsonl`, `run-x.t3.jsonl`
  in one directory are one session, read in segment order;
- Claude Code interactive logs: `<session-id>.jsonl`, with its
  `<session-id>/subagents/` folder read into it (every log in a project folder
  is a session of its own, not only the newest);
- anything a third-party reader claims (`claims(path)`), asked before the
  built-in readers so a new format can take its files.

Scoring (`score_corpus`) parses each session once per distinct reading option
set and scores it under every ruleset, in a process pool; outcomes come back in
discovery order whatever the number of jobs, and only a bounded window of
sessions is in flight, so memory does not grow with the corpus.
"""

from __future__ import annotations

import collections
import os
import re
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Iterable, Iterator, Optional, Sequence

import attrs

from citeledger.core.errors import InputError, UserError
from citeledger.core.transcript import InputWarning, pickle_by_fields
from citeledger.core.plugins import readers
from citeledger.core.readers.claude_interactive import looks_interactive
from citeledger.core.scores import SessionScore

STREAM = "claude-stream"
INTERACTIVE = "claude-interactive"
_SEGMENT = re.compile(r"^(?P<base>.+?)(?:\.t(?P<turn>\d+))?\.jsonl$")


@pickle_by_fields
@attrs.frozen
class SessionRef:
    """One session found on disk."""

    key: str  # stable id: its first file's path relative to the root it was found under
    files: tuple[str, ...]  # segment files in order (or the single interactive log)
    reader: str  # a name from citeledger.core.plugins.readers()
    group: str  # default compare key: the parent directory relative to the root ("." at the top)
    turns: int  # segments (stream) or user prompts (interactive): 1 is single-question
    root: str = ""  # the path given to discover() it was found under


@pickle_by_fields
@attrs.frozen
class SessionOutcome:
    ref: SessionRef
    scores: tuple[Optional[SessionScore], ...]  # one per ruleset, in the order given; None on error
    error: Optional[str]  # one-line reason when the session could not be read
    warnings: tuple[InputWarning, ...]


# ---------------------------------------------------------------- discovery


def _reader_order() -> list[tuple[str, type]]:
    """Third-party readers first (by name), then the built-in interactive, then stream."""
    known = readers()
    builtin = (INTERACTIVE, STREAM)
    extra = sorted((n, c) for n, c in known.items() if n not in builtin)
    return extra + [(n, known[n]) for n in builtin if n in known]


def count_prompts(path: str) -> int:
    """User prompts on the main thread of an interactive log (at least 1).

    Only lines that can be prompts are decoded: a tool_result carrier always
    holds the literal `"tool_result"`, and those lines hold most of the bytes.
    """
    from citeledger.core.readers.jsonl import _raw_lines, decode_line
    from citeledger.core.readers.walker import _is_prompt

    prompts = 0
    try:
        with open(path, "rb") as fh:
            # Bounded lines: a 200 MB line is never held whole (None past 64 MiB).
            for _, raw in _raw_lines(fh, 64 << 20):
                if raw is None or b'"user"' not in raw or b'"tool_result"' in raw:
                    continue
                try:
                    event = decode_line(raw.lstrip(b"\xef\xbb\xbf"))
                except (ValueError, RecursionError):
                    continue
                if (
                    isinstance(event, dict)
                    and event.get("type") == "user"
                    and event.get("parent_tool_use_id") is None
                    and isinstance(event.get("message"), dict)
                    and _is_prompt(event["message"].get("content"))
                ):
                    prompts += 1
    except OSError:
        pass
    return max(prompts, 1)


def _is_subagent_dir(dirpath: str) -> bool:
    """`<session-id>/subagents` beside `<session-id>.jsonl`: part of that session."""
    return os.path.basename(dirpath) == "subagents" and os.path.isfile(os.path.dirname(dirpath) + ".jsonl")


def _walk(root: str) -> Iterator[str]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not _is_subagent_dir(os.path.join(dirpath, d)))
        for name in sorted(filenames):
            yield os.path.join(dirpath, name)


def _claim(path: str, order) -> Optional[str]:
    for name, cls in order:
        try:
            if cls().claims(path):
                if name == STREAM and looks_interactive(path) and INTERACTIVE in dict(order):
                    return INTERACTIVE
                return name
        except Exception:  # a plugin's claims() must not stop discovery
            continue
    return None


def _rel(path: str, root: str, root_is_file: bool) -> str:
    if root_is_file:
        return os.path.normpath(path)
    prefix = os.path.join(root, "")
    # os.walk yields root + sep + rest: slicing is exact and far cheaper than relpath
    return path[len(prefix):] if path.startswith(prefix) else os.path.relpath(path, root)


def discover(paths: Sequence[str]) -> tuple[list[SessionRef], list[InputWarning]]:
    """Every session under `paths`, in a deterministic order (paths as given, then sorted)."""
    order = _reader_order()
    refs: list[SessionRef] = []
    warnings: list[InputWarning] = []
    seen: set[str] = set()
    cwd = os.getcwd()
    for root in paths:
        if not os.path.exists(root):
            warnings.append(InputWarning(root, 0, "no such file or directory"))
            continue
        root_is_file = os.path.isfile(root)
        files = [root] if root_is_file else list(_walk(root))
        segments: dict[tuple[str, str], dict[int, str]] = collections.defaultdict(dict)
        found: list[tuple[str, SessionRef]] = []
        for path in files:
            real = os.path.normpath(os.path.join(cwd, path))  # no symlink resolution: os.walk follows none
            if real in seen:
                warnings.append(InputWarning(path, 0, "found twice (overlapping paths), counted once"))
                continue
            name = _claim(path, order)
            if name is None:
                if root_is_file:
                    warnings.append(InputWarning(path, 0, "no reader claims this file, skipped"))
                continue
            seen.add(real)
            if name == STREAM:
                m = _SEGMENT.match(os.path.basename(path))
                turn = int(m["turn"]) if m["turn"] else 1
                by_turn = segments[(os.path.dirname(path), m["base"])]
                if turn in by_turn:  # run.t1.jsonl beside run.jsonl, or .t2 beside .t02
                    warnings.append(InputWarning(
                        path, 0, f"same segment (t{turn}) as {os.path.basename(by_turn[turn])}: scored as a session of its own"))
                    found.append((path, _ref(root, root_is_file, (path,), STREAM, 1)))
                else:
                    by_turn[turn] = path
                continue
            turns = count_prompts(path) if name == INTERACTIVE else 1
            found.append((path, _ref(root, root_is_file, (path,), name, turns)))
        for (_, base), by_turn in segments.items():
            ordered = tuple(by_turn[t] for t in sorted(by_turn))
            missing = sorted(set(range(1, max(by_turn) + 1)) - set(by_turn))
            if missing:
                warnings.append(
                    InputWarning(ordered[0], 0, f"segment(s) {', '.join(f't{t}' for t in missing)} of {base} not found; read without them")
                )
            found.append((ordered[0], _ref(root, root_is_file, ordered, STREAM, len(ordered))))
        found.sort(key=lambda item: item[1].key)
        refs.extend(ref for _, ref in found)
        if not found and not any(w.file == root for w in warnings):
            warnings.append(InputWarning(root, 0, "no sessions found here"))
    return refs, warnings


def _ref(root, root_is_file, files, reader, turns) -> SessionRef:
    first = files[0]
    if root_is_file:
        group = "."  # a file given by name: pairs with the other pass's files given by name
    else:
        group = os.path.dirname(_rel(first, root, False)) or "."
    return SessionRef(
        key=_rel(first, root, root_is_file), files=tuple(files), reader=reader,
        group=group, turns=turns, root=root,
    )


# ---------------------------------------------------------------- scoring


def _plan(rulesets) -> tuple[tuple[object, tuple[int, ...]], ...]:
    """Rulesets grouped by reading options: (options, indexes of rulesets), first-seen order."""
    plan: dict = {}
    for i, ruleset in enumerate(rulesets):
        plan.setdefault(ruleset.reader.read_options(), []).append(i)
    return tuple((options, tuple(ix)) for options, ix in plan.items())


def score_one(ref: SessionRef, rulesets, plan=None) -> SessionOutcome:
    """Read one session once per reading option set and score it under every ruleset."""
    from citeledger.core.accountant import score_many

    plan = plan or _plan(rulesets)
    scores: list[Optional[SessionScore]] = [None] * len(rulesets)
    warnings: dict[InputWarning, None] = {}  # ordered, each warning once
    try:
        reader = readers()[ref.reader]()
    except KeyError:
        return SessionOutcome(ref, tuple(scores), f"no reader named {ref.reader!r} is installed", ())
    for options, indexes in plan:
        try:
            transcript = reader.read(list(ref.files), options)
        except InputError as exc:
            return SessionOutcome(ref, (None,) * len(rulesets), str(exc), tuple(warnings))
        except RecursionError:
            return SessionOutcome(ref, (None,) * len(rulesets), f"{ref.files[0]}: nested too deeply", tuple(warnings))
        for i, result in zip(indexes, score_many(transcript, [rulesets[i] for i in indexes])):
            scores[i] = result
            # A score's warnings are the transcript's plus what its ruleset
            # could not read (a byte order mark, say); each is listed once.
            warnings.update(dict.fromkeys(result.warnings))
        del transcript  # released before the next option set is read
    return SessionOutcome(ref, tuple(scores), None, tuple(warnings))


def _safe_score(ref, rulesets, plan) -> SessionOutcome:
    try:
        return score_one(ref, rulesets, plan)
    except UserError:  # a plugin that breaks its contract stops the command (exit 2)
        raise
    except Exception as exc:  # a bug: the session is marked, the sweep goes on
        return SessionOutcome(ref, (None,) * len(rulesets), f"internal error: {type(exc).__name__}: {exc}", ())


# Worker state: the rulesets arrive once per process, not once per task.
_WORKER: dict = {}


def _init_worker(rulesets) -> None:
    _WORKER["rulesets"] = rulesets
    _WORKER["plan"] = _plan(rulesets)


def _score_chunk(refs: list[SessionRef]) -> list[SessionOutcome]:
    return [_safe_score(ref, _WORKER["rulesets"], _WORKER["plan"]) for ref in refs]


def _chunks(refs: Iterable[SessionRef], size: int) -> Iterator[list[SessionRef]]:
    chunk: list[SessionRef] = []
    for ref in refs:
        chunk.append(ref)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def score_corpus(
    refs: Iterable[SessionRef],
    rulesets: Sequence,
    jobs: int = 0,
    progress: Optional[Callable[[int], None]] = None,
    chunk: int = 4,
) -> Iterator[SessionOutcome]:
    """Score every session under every ruleset; yields outcomes in `refs` order.

    `jobs` <= 0 means all cores; 1 scores in this process. `progress(n)` is
    called in this process with the number of sessions just finished. At most
    `4 * jobs` chunks of `chunk` sessions are in flight, so neither the
    pending work nor the finished-but-unread outcomes grow with the corpus.
    A session that cannot be read becomes an outcome with `error` set.
    """
    rulesets = tuple(rulesets)
    jobs = jobs if jobs > 0 else default_jobs()
    if jobs == 1:
        plan = _plan(rulesets)
        for ref in refs:
            outcome = _safe_score(ref, rulesets, plan)
            if progress:
                progress(1)
            yield outcome
        return
    window = 4 * jobs
    with ProcessPoolExecutor(jobs, initializer=_init_worker, initargs=(rulesets,)) as pool:
        pending: collections.deque = collections.deque()
        work = _chunks(refs, chunk)
        for part in work:
            pending.append(pool.submit(_score_chunk, part))
            if len(pending) >= window:
                break
        while pending:
            outcomes = pending.popleft().result()
            nxt = next(work, None)
            if nxt is not None:
                pending.append(pool.submit(_score_chunk, nxt))
            if progress:
                progress(len(outcomes))
            yield from outcomes
