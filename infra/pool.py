"""A process pool that yields results in submission order, a bounded window in flight,
and ends its workers at once on an error or a signal."""

from __future__ import annotations

import collections
import os
from typing import Callable, Iterable, Iterator, Optional


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def chunks(items: Iterable, size: int) -> Iterator[list]:
    """`items` in lists of `size` (the last one shorter)."""
    chunk: list = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class Pool:
    """Worker processes started on first use, each running `initializer(*initargs)` first.

    A context manager: on an error or a signal the workers are ended at once
    (stop_pool); else they finish and are joined.
    """

    def __init__(self, initializer: Callable, initargs: tuple = ()):
        self.initializer, self.initargs = initializer, initargs
        self._pool = None
        self._size = 0
        self._before: frozenset = frozenset()

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, kind, *_) -> None:
        self.close(failed=kind is not None)

    def started(self, size: int):
        """The executor with `size` workers (a pool of another size is closed first)."""
        if self._pool is not None and self._size != size:
            self.close()
        if self._pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor  # here: importing it costs a one-job run 7 ms

            # Children alive before the pool are not its workers: stop_pool leaves them be.
            self._before = frozenset(multiprocessing.active_children())
            self._pool = ProcessPoolExecutor(size, initializer=_start_worker,
                                             initargs=(self.initializer, self.initargs))
            self._size = size
        return self._pool

    def close(self, failed: bool = False) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if failed:
            stop_pool(pool, self._before)
        else:
            pool.shutdown(wait=True)

    def map(self, size: int, task: Callable, parts: list) -> list:
        """`task` of every part, in order, in `size` workers."""
        pool = self.started(size)
        try:
            return list(pool.map(task, parts))
        except BaseException:
            self.close(failed=True)
            raise

    def ordered(self, size: int, task: Callable, parts: Iterator,
                progress: Optional[Callable[[int], None]] = None) -> Iterator:
        """What `task` returns for each part (a list), flattened, in the parts' order.

        At most `4 * size` parts are in flight, so neither the pending work nor
        the finished-but-unread results grow with the input. `progress(n)` is
        called here with the length of each part's result as it arrives.
        """
        pool = self.started(size)
        try:
            pending: collections.deque = collections.deque()
            for part in parts:
                pending.append(pool.submit(task, part))
                if len(pending) >= 4 * size:
                    break
            while pending:
                results = pending.popleft().result()
                nxt = next(parts, None)
                if nxt is not None:
                    pending.append(pool.submit(task, nxt))
                if progress:
                    progress(len(results))
                yield from results
        except BaseException:  # a signal, an interrupt, the consumer closing us: end the workers now
            self.close(failed=True)
            raise
        self.close()


def _start_worker(initializer: Callable, initargs: tuple) -> None:
    end_with_parent()
    initializer(*initargs)


def stop_pool(pool: "concurrent.futures.ProcessPoolExecutor", before=frozenset()) -> None:
    """End a pool's workers at once: cancel queued work, terminate what runs.

    shutdown() alone would first finish every chunk already submitted (up to
    4 per worker), and leave workers running if this process were killed.
    The workers are this process's children started since `before` (the
    children alive when the pool was made), through multiprocessing's public
    `active_children`: a worker being started when a signal lands is one too.
    """
    import multiprocessing

    _STOPPED.append(True)
    processes = [p for p in multiprocessing.active_children() if p not in before]
    for process in processes:
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.join(timeout=5)
        if process.is_alive():
            process.kill()
            process.join(timeout=5)


_STOPPED: list = []  # a pool's workers were ended mid-work in this process (stop_pool)


def stopped_any() -> bool:
    """Whether stop_pool ended workers in this process: a worker ended halfway through writing its
    result can leave concurrent.futures' result reader waiting forever, and the interpreter's
    exit joins that reader's thread (cli.main then ends the process itself, its cleanup done)."""
    return bool(_STOPPED)


def end_with_parent() -> None:
    """In a worker: the signals a run ends by (SIGTERM, SIGHUP) end the worker
    plainly, and on Linux the worker is sent SIGTERM should its parent die."""
    import signal

    from citeledger.infra.signals import ENDING_SIGNALS

    for signum in ENDING_SIGNALS:
        signal.signal(signum, signal.SIG_DFL)
    # Ctrl-C reaches the whole process group: the parent ends the workers; a worker's own
    # KeyboardInterrupt would print a stray "Process ForkProcess-N:" traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the pool's own shutdown still ends workers
        pass
