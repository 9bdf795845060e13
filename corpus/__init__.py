"""A corpus: find every session under some paths, score each one, stream the outcomes.

Discovery (`discover`) walks files and directories in sorted order and asks
the readers (core/reader.py's contract) what is theirs:

- which files a reader claims (`claims(path)`, asked in the readers' claim
  order: core.plugins.readers, by each reader's `priority`);
- how a reader's files group into sessions (`sessions`: claude-stream's
  `run-x.jsonl`, `run-x.t2.jsonl`, ... in segment order), and which folders
  belong to a session and are not walked (`part_of_session`: an interactive
  log's `<session-id>/subagents/`);
- the whole session of a file given by name (`session_of`), so a named file is
  never read without the rest of its session.

What the A/B harness leaves beside transcripts (checkouts, tree copies,
diagnostics sidecars) and `exclude` globs are skipped first (harness/layout.py).

Scoring (`score_corpus`) parses each session once per distinct reading option
set and scores it under every ruleset, in a process pool; outcomes come back in
discovery order whatever the number of jobs, and only a bounded window of
sessions is in flight, so memory does not grow with the corpus.
"""

from __future__ import annotations

import os
from typing import Callable, Iterable, Iterator, Optional, Sequence

import attrs

from citeledger.core.errors import InputError, UserError
from citeledger.core.plugins import readers
from citeledger.core.reader import SessionFiles, part_of_session, read_session, session_of, sessions_of, whereabouts_of
from citeledger.harness.layout import arm_and_run, is_sidecar, segment, skipped_dir
from citeledger.infra import fs
from citeledger.infra.files import sniffing
from citeledger.infra.globs import path_matcher
from citeledger.infra.pool import Pool, chunks, default_jobs
from citeledger.core.scores import SessionScore
from citeledger.core.transcript import InputWarning, Whereabouts, pickle_by_fields


@pickle_by_fields
@attrs.frozen
class SessionRef:
    """One session found on disk."""

    key: str  # stable id: its first file's path relative to the root it was found under
    files: tuple[str, ...]  # in reading order (segments, or the single interactive log)
    reader: str  # a name from citeledger.core.plugins.readers()
    group: str  # default compare key: the parent directory relative to the root ("." at the top)
    # Turns: known from the files (segments) at discovery, else 0 until read;
    # an outcome's ref carries the count its reader made (Transcript.turns).
    turns: int
    root: str = ""  # the path given to discover() it was found under
    arm: Optional[str] = None  # harness arm label: run-<arm>-<i>, run-headless-<arm> (harness/layout.py)
    run: Optional[int] = None  # harness run number (<i>, or bench-readme's run<i>/ folder)
    # When, where and by which agent (core.Whereabouts): asked of its reader before scoring
    # (sweep --since/--until/--project) or when it is scored; None until then.
    whereabouts: Optional[Whereabouts] = None


@pickle_by_fields
@attrs.frozen
class SessionOutcome:
    ref: SessionRef
    scores: tuple[Optional[SessionScore], ...]  # one per ruleset, in the order given; None on error
    error: Optional[str]  # one-line reason when the session could not be read
    warnings: tuple[InputWarning, ...]
    # What score_corpus's `extra` made of the transcript under the first ruleset (None without one).
    extra: object = None


# ---------------------------------------------------------------- discovery


def reader_order() -> list[tuple[str, type]]:
    """(name, reader class) in the claim order (core.plugins.readers: by `priority`)."""
    return list(readers().items())


def claim(path: str, order=None) -> Optional[str]:
    """The name of the first reader (in `reader_order`) that claims `path`, else None."""
    with sniffing():  # the readers' checks of `path` made once between them
        for name, cls in order or reader_order():
            try:
                if cls().claims(path):
                    return name
            except Exception:  # a plugin's claims() must not stop discovery
                continue
    return None


def _part_of_session(dirpath: str, order) -> bool:
    for _, cls in order:
        try:
            if part_of_session(cls(), dirpath):
                return True
        except Exception:
            continue
    return False


def _walk(root: str, keep_dir, warnings: list, output=None) -> Iterator[str]:
    """Files under `root` in sorted order, each directory's files before its
    subdirectories'; `keep_dir(dirpath, dirnames, filenames, parent_files)`
    decides whether a subdirectory is walked (it sees the directory's own listing).

    Nothing is skipped in silence: a directory that cannot be listed and a
    file that is not a regular file (a FIFO would block whoever opens it)
    become warnings naming the path. A symlinked directory is followed once;
    one that leads to a directory already walked (a loop) is listed, not
    walked again. A dangling symlink is yielded, for its reader to report.
    """
    stack: list[tuple[str, Sequence[str]]] = [(root, ())]
    # (device, inode) of each directory walked -> its path; the run's --out (`output`) as walked
    walked: dict[tuple[int, int], str] = {} if output is None or output == _identity_of(root) else {output: ""}
    while stack:
        dirpath, parent_files = stack.pop()
        entries = _list_directory(dirpath, walked, warnings)
        if entries is None:
            continue
        kinds = entries
        dirnames = [name for name, kind in kinds if kind == "directory"]
        filenames = [name for name, kind in kinds if kind != "directory"]
        if dirpath != root and not keep_dir(dirpath, dirnames, filenames, parent_files):
            continue
        for name, kind in kinds:
            path = fs.join(dirpath, name)
            if kind == "file":
                yield path
            elif kind != "directory":
                warnings.append(InputWarning(path, 0, f"not a regular file ({kind}), not read"))
        stack.extend((fs.join(dirpath, d), filenames) for d in reversed(dirnames))


def _list_directory(dirpath: str, walked: dict, warnings: list):
    """A directory's (name, kind) entries sorted by name (infra/fs.py: on disk or behind a URL),
    or None (with a warning) if it cannot be or was already read."""
    try:
        key = fs.identity(dirpath)
        first = walked.get(key)
        if first == "":
            return None  # the run's own --out directory: its outputs, not transcripts
        if first is not None:
            # Through a symlink (or a loop of them): read once, where first met.
            warnings.append(InputWarning(dirpath, 0, f"the same directory as {first} (a symlink), not read again"))
            return None
        walked[key] = dirpath
        return fs.entries(dirpath)
    except fs.NoBackend:
        raise  # not this directory's fault: the command cannot read URLs at all
    except OSError as exc:
        warnings.append(InputWarning(dirpath, 0, f"cannot read directory: {exc.strerror or exc}"))
        return None


def _rel(path: str, root: str, root_is_file: bool) -> str:
    if root_is_file:
        return path if fs.is_url(path) else os.path.normpath(path)
    prefix = os.path.join(root, "")
    # os.walk yields root + sep + rest: slicing is exact and far cheaper than relpath
    return path[len(prefix):] if path.startswith(prefix) else os.path.relpath(path, root)


def session_for(paths: Sequence[str], order=None) -> tuple[str, SessionFiles]:
    """(reader name, whole session) of files given by name: each file with every other file
    of its session its reader finds beside it (the partial-session rule, docs/decisions.md).

    Files of several sessions are read as one, in the order first given; a file
    no reader claims is an input error.
    """
    order = order or reader_order()
    name = None
    files: dict[str, None] = {}
    seen: set[str] = set()  # real paths: one file named two ways is read once
    warnings: list[InputWarning] = []
    turns = 0
    for path in paths:
        if fs.realpath(path) in seen:
            continue
        # A file named but claimed by no reader goes to the last one asked
        # (the catch-all), which says in one line why it is not a transcript.
        this = claim(path, order) or (order[-1][0] if order else None)
        if this is None:
            raise InputError(path, "no installed reader claims this file")
        if name is not None and this != name:
            raise InputError(path, f"is a {this} transcript, but {next(iter(files))} is {name}: one format per session")
        name = this
        whole = session_of(dict(order)[name](), path)
        new = [f for f in whole.files if fs.realpath(f) not in seen]
        seen.update(map(fs.realpath, new))
        files.update(dict.fromkeys(new))
        warnings.extend(whole.warnings)
        turns += whole.turns or 0
    return name, SessionFiles(tuple(files), turns or None, tuple(warnings))


def discover(
    paths: Sequence[str], exclude: Sequence[str] = (), workers: Optional["Workers"] = None,
    output: Optional[str] = None,
) -> tuple[list[SessionRef], list[InputWarning]]:
    """Every session under `paths`, in a deterministic order (paths as given, then sorted).

    With `workers`, the readers' claims of a large directory's files (each a
    sniff of the file's head) are asked in its processes; the result is the same.

    Readers say what is theirs: which files they claim, how files group into
    sessions, which folders belong to a session. What is not a transcript in
    a walked directory (harness/layout.py: checkouts, sidecars, files no reader
    claims, paths matching an `exclude` glob) is skipped without a warning; a
    file given by name is read with the rest of its session, or warned about.
    `output`, the run's own `--out` directory, is never walked: a second run into a
    folder it sweeps does not read its first run's sweep.jsonl as a session.
    """
    walk = _Discovery(reader_order(), path_matcher(exclude) if exclude else None, workers)
    walk.output = _identity_of(output)
    refs: list[SessionRef] = []
    warnings = walk.warnings
    for root in paths:
        if not fs.exists(root):
            warnings.append(InputWarning(root, 0, "no such file or directory"))
            continue
        root_is_file = fs.isfile(root)
        if not root_is_file and not fs.isdir(root):
            warnings.append(InputWarning(root, 0, f"not a regular file or directory ({fs.kind(root)}), not read"))
            continue
        found = walk.file(root) if root_is_file else walk.directory(root)
        if found is None:  # skipped, and said why (or already read with its session)
            continue
        found.sort(key=lambda ref: ref.key)
        refs.extend(found)
        if not found and not any(w.file == root for w in warnings):
            warnings.append(InputWarning(root, 0, "no sessions found here"))
    return refs, warnings


def _identity_of(folder: Optional[str]):
    """(device, inode) of an existing local folder, else None."""
    if folder is None or fs.is_url(folder):
        return None
    try:
        return fs.identity(folder)
    except OSError:
        return None


class _Discovery:
    """One discover() call: the files seen so far (by real path) and the warnings."""

    output = None  # (device, inode) of the run's --out directory: not walked

    def __init__(self, order, excluded, workers):
        self.order, self.excluded, self.workers = order, excluded, workers
        self.warnings: list[InputWarning] = []
        self.seen: set[str] = set()
        self.completed: set[str] = set()  # files read with the session of a file given by name
        self.cwd = os.getcwd()
        self.folders: dict[str, str] = {}  # a directory's real path, resolved once

    def real(self, path: str) -> str:
        # By real path: a transcript reached by a second name (a symlink `latest.jsonl`, a
        # linked directory given as another root) is one session, not two.
        if fs.is_url(path):
            return fs.realpath(path)
        full = os.path.join(self.cwd, path)
        if os.path.islink(full):
            return os.path.realpath(full)
        folder, name = os.path.split(os.path.normpath(full))
        return os.path.join(self._real_folder(folder), name)

    def _real_folder(self, folder: str) -> str:
        """os.path.realpath(folder) of an absolute, normalised folder, from its parent's: a folder
        that is no symlink is its parent's real path and its name (one lstat for a new folder,
        not one for each component of its path, as realpath makes)."""
        climbed = []  # folders met on the way up to one whose real path is known, or a link, or "/"
        while folder not in self.folders:
            parent, name = os.path.split(folder)
            if not name or os.path.islink(folder):
                self.folders[folder] = os.path.realpath(folder)
                break
            climbed.append((folder, name))
            folder = parent
        found = self.folders[folder]
        for folder, name in reversed(climbed):
            found = self.folders[folder] = os.path.join(found, name)
        return found

    def file(self, root: str) -> Optional[list[SessionRef]]:
        """A file given by name: its whole session, or None (a warning says why, unless it was
        read already with its session)."""
        warnings, real = self.warnings, self.real
        if real(root) in self.seen:
            if real(root) not in self.completed:  # a segment already read with its session is no overlap
                warnings.append(InputWarning(root, 0, "found twice (overlapping paths), counted once"))
            return None
        if is_sidecar(root):
            warnings.append(InputWarning(root, 0, "a codegraph explore diagnostics sidecar, not a transcript: skipped"))
            return None
        name = claim(root, self.order)
        if name is None:
            warnings.append(InputWarning(root, 0, "no reader claims this file, skipped"))
            return None
        whole = session_of(dict(self.order)[name](), root)
        self.seen.update(real(f) for f in whole.files)
        self.completed.update(real(f) for f in whole.files if f != root)
        warnings.extend(whole.warnings)
        return [_ref(root, True, whole, name)]

    def directory(self, root: str) -> list[SessionRef]:
        """Every session of the files readers claim under a directory."""
        order, excluded, warnings = self.order, self.excluded, self.warnings

        def keep_dir(dirpath, dirnames, filenames, parent_files):
            if excluded and excluded(_rel(dirpath, root, False)):
                return False
            return not (skipped_dir(dirpath, dirnames, filenames, parent_files) or _part_of_session(dirpath, order))

        # The walk first, the claims after: paths under one root are distinct, so
        # `seen` (earlier roots' files) says the same before and after claiming.
        reals = _one_name_each(
            [path for path in _walk(root, keep_dir, warnings, self.output)
             if not (is_sidecar(path) or excluded and excluded(_rel(path, root, False)))], self.real, self.seen, warnings)
        walked = list(reals)
        claimed: dict[str, list[str]] = {}
        names = self.workers.claims(walked, order) if self.workers else [claim(path, order) for path in walked]
        for path, name in zip(walked, names):
            if name is None:
                continue
            self.seen.add(reals[path])
            claimed.setdefault(name, []).append(path)
        found = []
        for name, files in claimed.items():
            for whole in sessions_of(dict(order)[name](), files):
                warnings.extend(whole.warnings)
                if whole.files:  # a grouping of no file only says something (a subagent log alone)
                    found.append(_ref(root, False, whole, name))
        return found


def _one_name_each(paths: list[str], real, seen: set, warnings: list) -> dict[str, str]:
    """`paths` less those naming a file already seen (an earlier root) or named twice here, in
    their order, each mapped to its real path (worked out once): of two names of one file the one
    that is not a symlink is kept (it carries the session's own name)."""
    chosen: dict[str, str] = {}
    for path in paths:
        key = real(path)
        if key in seen:
            warnings.append(InputWarning(path, 0, "found twice (overlapping paths), counted once"))
            continue
        kept = chosen.get(key)
        if kept is None:
            chosen[key] = path
            continue
        alias = path
        if fs.islink(kept) and not fs.islink(path):
            chosen[key], alias = path, kept
        warnings.append(InputWarning(alias, 0, f"the same file as {chosen[key]} (a second name), counted once"))
    real_of = {path: key for key, path in chosen.items()}
    return {path: real_of[path] for path in paths if path in real_of}


def _claim_chunk(paths: list[str]) -> list[Optional[str]]:
    order = reader_order()  # the same registry as the parent's: the same installed plugins
    return [claim(path, order) for path in paths]


def _ref(root: str, root_is_file: bool, whole: SessionFiles, reader: str) -> SessionRef:
    first = whole.files[0]
    if root_is_file:
        group = "."  # a file given by name: pairs with the other pass's files given by name
    else:
        group = os.path.dirname(_rel(first, root, False)) or "."
    arm, run = arm_and_run(segment(first)[0], os.path.dirname(first))
    return SessionRef(
        key=_rel(first, root, root_is_file), files=tuple(whole.files), reader=reader,
        group=group, turns=whole.turns or 0, root=root, arm=arm, run=run,
    )


# ---------------------------------------------------------------- scoring


def _plan(rulesets) -> tuple[tuple[object, tuple[int, ...], object], ...]:
    """Rulesets grouped by reading options: (options, indexes of rulesets, the
    accountant's Plan of the call), first-seen order. One Plan for the whole
    call: the rulesets' stage keys and channel objects, worked out once."""
    from citeledger.core.accountant import Plan

    plan: dict = {}
    for i, ruleset in enumerate(rulesets):
        plan.setdefault(ruleset.read_options(), []).append(i)
    keys = Plan(memo=memo_on())
    return tuple((options, tuple(ix), keys) for options, ix in plan.items())


# CITELEDGER_MEMO=off: every session is cut afresh (the memo a worker keeps across sessions
# is off): for the test that output does not depend on it, and for benchmarks.
MEMO_SWITCH = "CITELEDGER_MEMO"


def memo_on() -> bool:
    return os.environ.get(MEMO_SWITCH, "on") != "off"


def score_one(ref: SessionRef, rulesets, plan=None, extra=None) -> SessionOutcome:
    """Read one session once per reading option set and score it under every ruleset.

    `extra(ref, transcript, score)`, when given, is called with the transcript
    as the first ruleset read it and its score (which carries its cut calls):
    work a command needs from the transcript itself is done here, where it was
    read and cut, not again.
    """
    from citeledger.core.accountant import score_many

    plan = plan or _plan(rulesets)
    scores: list[Optional[SessionScore]] = [None] * len(rulesets)
    warnings: dict[InputWarning, None] = {}  # ordered, each warning once
    made = None
    try:
        reader = readers()[ref.reader]()
    except KeyError:
        return SessionOutcome(ref, tuple(scores), f"no reader named {ref.reader!r} is installed", ())
    if ref.whereabouts is None:
        ref = attrs.evolve(ref, whereabouts=whereabouts_of(reader, ref.files))
    for options, indexes, keys in plan:
        try:
            transcript = read_session(reader, ref.files, options, ref.whereabouts)
        except InputError as exc:
            return SessionOutcome(ref, (None,) * len(rulesets), str(exc), tuple(warnings))
        except RecursionError:
            return SessionOutcome(ref, (None,) * len(rulesets), f"{ref.files[0]}: nested too deeply", tuple(warnings))
        ref = attrs.evolve(ref, turns=transcript.turns)  # the reader's count, from this one read
        for i, result in zip(indexes, score_many(transcript, [rulesets[i] for i in indexes], keys)):
            scores[i] = result
            # A score's warnings are the transcript's plus what its ruleset
            # could not read (a byte order mark, say); each is listed once.
            warnings.update(dict.fromkeys(result.warnings))
        if extra is not None and 0 in indexes:
            made = extra(ref, transcript, scores[0])
        del transcript  # released before the next option set is read
    return SessionOutcome(ref, tuple(scores), None, tuple(warnings), made)


def _safe_score(ref, rulesets, plan, extra=None) -> SessionOutcome:
    try:
        return score_one(ref, rulesets, plan, extra)
    except UserError:  # a plugin that breaks its contract stops the command (exit 2)
        raise
    except Exception as exc:  # a bug: the session is marked, the sweep goes on
        return SessionOutcome(ref, (None,) * len(rulesets), f"internal error: {type(exc).__name__}: {exc}", ())


# Worker state: the rulesets arrive once per process, not once per task.
_WORKER: dict = {}


def _init_worker(rulesets, extra=None, shape=None) -> None:
    _WORKER["rulesets"] = rulesets
    _WORKER["plan"] = _plan(rulesets)
    _WORKER["extra"] = extra
    _WORKER["shape"] = shape or _as_is


def _as_is(outcome: SessionOutcome) -> SessionOutcome:
    return outcome


def _score_chunk(refs: list[SessionRef]) -> list:
    rulesets, plan, extra, shape = _WORKER["rulesets"], _WORKER["plan"], _WORKER["extra"], _WORKER["shape"]
    return [shape(_safe_score(ref, rulesets, plan, extra)) for ref in refs]


def score_corpus(
    refs: Iterable[SessionRef],
    rulesets: Sequence,
    jobs: int = 0,
    progress: Optional[Callable[[int], None]] = None,
    chunk: int = 16,
    extra: Optional[Callable] = None,
    shape: Optional[Callable] = None,
) -> Iterator:
    """Score every session under every ruleset; yields outcomes in `refs` order.

    `jobs` <= 0 means all cores; 1 scores in this process. `progress(n)` is
    called in this process with the number of sessions just finished.
    A session that cannot be read becomes an outcome with `error` set.
    `extra` (picklable: it is sent to each worker once) is score_one's.
    `shape(outcome)` (picklable too), when given, is called where the session
    was scored and what it returns is yielded instead of the outcome: a
    command that keeps a few numbers and bytes of each session has the workers
    make them, so only those cross back and this process only merges.
    """
    jobs = jobs if jobs > 0 else default_jobs()
    with Workers(jobs, rulesets, extra, shape) as workers:
        yield from workers.score(refs, jobs, progress, chunk)


# Below this many files a directory's claims are asked here: handing them out costs more.
CLAIMS_IN_WORKERS = 1024
CLAIM_CHUNK = 256


def checked_engine(engine: str, timeout=None) -> Optional[str]:
    """`engine` ("local", "dask" or "dask=ADDRESS") as Workers takes it: None for local processes;
    an address is parsed (infra/dask_pool.py) and a timeout checked before anything starts, else
    one UserError naming them. Dask itself is not imported here."""
    if engine == "local":
        return None
    if engine != "dask" and not engine.startswith("dask="):
        raise UserError(f"--engine {engine[:200]}: expected local, dask or dask=SCHEDULER_ADDRESS")
    from citeledger.infra import dask_pool

    low, high = dask_pool.TIMEOUT_RANGE
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or not low <= timeout <= high):
        raise UserError(f"dask timeout {timeout!r:.40}: out of range (seconds, from {low} to {high})")
    if engine == "dask=":
        raise UserError("--engine dask=: no address (give dask=tcp://HOST:PORT, or dask alone for a local cluster)")
    address = engine.partition("=")[2]
    try:
        if address:
            dask_pool.parse_address(address)
    except dask_pool.EngineError as exc:
        raise UserError(f"--engine dask={address[:200]}: {exc}") from None
    return engine


class Workers:
    """The worker processes of one corpus command: discovery's claims, then the scoring.

    Made before discovery, the processes start (forked) before the session
    list exists, so none of them carries a copy of it, and the claims' sniffing
    runs in them. A context manager: on an error or a signal the workers are
    ended at once (infra/pool.py's stop_pool); else they finish and are joined.
    """

    def __init__(self, jobs: int, rulesets: Sequence, extra: Optional[Callable] = None,
                 shape: Optional[Callable] = None, engine: Optional[str] = None, timeout=None):
        self.jobs = jobs if jobs > 0 else default_jobs()
        self.rulesets = tuple(rulesets)
        self.extra = extra
        self.shape = shape or _as_is
        initargs = (self.rulesets, self.extra, self.shape)
        self.remote = engine is not None  # a cluster's workers: claims are asked here, one job runs there too
        if engine is None:
            self.pool = Pool(_init_worker, initargs)
        else:  # "dask" or "dask=ADDRESS" (infra/dask_pool.py; Dask is imported only here)
            from citeledger.infra.dask_pool import TIMEOUT, DaskPool, EngineError

            self.pool = DaskPool(_init_worker, initargs, address=engine.partition("=")[2] or None, jobs=self.jobs,
                                 timeout=timeout or TIMEOUT)
            try:
                self.jobs = self.pool.workers()
            except EngineError as exc:
                self.pool.close(failed=True)
                raise UserError(f"--engine dask={exc}") from None

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, kind, *_) -> None:
        self.close(failed=kind is not None)

    def close(self, failed: bool = False) -> None:
        self.pool.close(failed)

    def claims(self, paths: list[str], order) -> list[Optional[str]]:
        """`claim` of every path, in order: in the workers when there are many (a cluster's
        workers only for URLs: each claim is then a read of the object's head over the network)."""
        if self.jobs <= 1 or len(paths) < CLAIMS_IN_WORKERS or self.remote and not fs.is_url(paths[0]):
            return [claim(path, order) for path in paths]
        parts = self.pool.map(self.jobs, _claim_chunk,
                              [paths[i:i + CLAIM_CHUNK] for i in range(0, len(paths), CLAIM_CHUNK)])
        return [name for part in parts for name in part]

    def score(self, refs: Iterable[SessionRef], jobs: int = 0, progress: Optional[Callable[[int], None]] = None,
              chunk: int = 16) -> Iterator:
        """score_corpus's outcomes (or shapes) with `jobs` processes (<= 0: this pool's; 1: here).

        At most `4 * jobs` chunks of `chunk` sessions are in flight (Pool.ordered).
        Chunks of 16: each round trip to a worker costs about as much as scoring
        a small session (chunks of 4 made a 2-job sweep of the 400 MB bench
        corpus 10% slower; 32 starts to leave a worker idle at the end).
        """
        jobs = min(jobs, self.jobs) if jobs > 0 else self.jobs
        if jobs == 1 and not self.remote:
            self.close()  # started for the claims, not needed for one session
            plan = _plan(self.rulesets)
            for ref in refs:
                outcome = self.shape(_safe_score(ref, self.rulesets, plan, self.extra))
                if progress:
                    progress(1)
                yield outcome
            return
        yield from self.pool.ordered(jobs, _score_chunk, chunks(refs, chunk), progress)
