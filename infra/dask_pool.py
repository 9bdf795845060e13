"""Pool's interface (infra/pool.py) over a Dask cluster: the same ordered results, from its workers.

`sweep --engine dask[=ADDRESS]` scores on a `distributed` scheduler at
ADDRESS, or on a `LocalCluster` of `jobs` single-threaded worker processes
when none is given. Parts are submitted with retries, so a worker lost
mid-sweep has its parts run again elsewhere; each part's result is read
once, in order, so every session comes back exactly once. Imported only
when that engine is asked for: nothing of Dask is loaded otherwise.
"""

from __future__ import annotations

import collections
import uuid
from typing import Callable, Iterator, Optional

RETRIES = 3  # a part whose worker dies is run again, up to this many times


def _run_part(token: str, initializer: Callable, initargs: tuple, task: Callable, part):
    """On a worker: run the pool's initializer once per pool (this process may serve several), then the task."""
    if _STATE.get("token") != token:
        initializer(*initargs)
        _STATE["token"] = token
    return task(part)


_STATE: dict = {}


class DaskPool:
    """Pool's `map`/`ordered`/`close`, on a Dask client (made on first use)."""

    def __init__(self, initializer: Callable, initargs: tuple = (), address: Optional[str] = None, jobs: int = 2):
        self.initializer, self.initargs = initializer, initargs
        self.address, self.jobs = address, jobs
        self.token = uuid.uuid4().hex
        self._client = self._cluster = self._args = None

    def __enter__(self) -> "DaskPool":
        return self

    def __exit__(self, *_) -> None:
        self.close()

    def client(self):
        if self._client is None:
            from distributed import Client, LocalCluster

            if self.address:
                self._client = Client(self.address)
            else:
                self._cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1, processes=True,
                                             dashboard_address=None)
                self._client = Client(self._cluster)
            self._args = self._client.scatter(self.initargs, broadcast=True)  # sent once, not once a part
        return self._client

    def workers(self) -> int:
        """The cluster's worker threads (one session at a time each)."""
        return max(1, sum(self.client().nthreads().values()))

    def close(self, failed: bool = False) -> None:
        client, cluster, self._client, self._cluster = self._client, self._cluster, None, None
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()

    def map(self, size: int, task: Callable, parts: list) -> list:
        return list(self._each(size, task, iter(parts), None, flatten=False))

    def ordered(self, size: int, task: Callable, parts: Iterator,
                progress: Optional[Callable[[int], None]] = None) -> Iterator:
        yield from self._each(size, task, parts, progress, flatten=True)

    def _each(self, size: int, task: Callable, parts: Iterator, progress, flatten: bool) -> Iterator:
        """Pool.ordered's window (4 parts a worker in flight), each part a Dask task with retries."""
        client = self.client()

        def submit(part):
            return client.submit(_run_part, self.token, self.initializer, self._args, task, part,
                                 pure=False, retries=RETRIES)

        pending: collections.deque = collections.deque()
        for part in parts:
            pending.append(submit(part))
            if len(pending) >= 4 * size:
                break
        while pending:
            results = pending.popleft().result()
            nxt = next(parts, None)
            if nxt is not None:
                pending.append(submit(nxt))
            if progress:
                progress(len(results))
            if flatten:
                yield from results
            else:
                yield results
