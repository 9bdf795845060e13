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
import socket
import uuid
from typing import Callable, Iterator, Optional

RETRIES = 3  # a part whose worker dies is run again, up to this many times

# Seconds to connect to a scheduler and finish its handshake (--dask-timeout), and the range allowed.
TIMEOUT = 10
TIMEOUT_RANGE = (1, 600)

# Schemes a scheduler address may name but this engine cannot use, and why.
REFUSED = {
    "inproc": "is an address inside one Python process, not reachable from this one",
    "tls": "needs certificates (a security configuration) citeledger does not pass",
    "ucx": "needs UCX and ucx-py; give the scheduler's tcp:// address",
    "ws": "needs a websocket comm; give the scheduler's tcp:// address",
    "wss": "needs a websocket comm and certificates; give the scheduler's tcp:// address",
}


class EngineError(Exception):
    """A scheduler address that cannot be used, or a scheduler that did not answer: one line naming it."""


def parse_address(text: str) -> tuple[str, int]:
    """(host, port) of a scheduler address `tcp://HOST:PORT` (`HOST:PORT` alone is tcp, as Dask
    reads it; an IPv6 host in brackets), else an EngineError saying what is wrong with it."""
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    if scheme in REFUSED:
        raise EngineError(f"{scheme}:// {REFUSED[scheme]}")
    if scheme != "tcp":
        raise EngineError(f"unknown scheme {scheme!r}: expected tcp://HOST:PORT")
    if rest.startswith("["):
        host, close, after = rest[1:].partition("]")
        port = after[1:] if close and after.startswith(":") else ""
    else:
        host, _, port = rest.rpartition(":") if ":" in rest else (rest, "", "")
    if not host or "/" in host or "@" in host:
        raise EngineError("no host: expected tcp://HOST:PORT")
    if not port:
        raise EngineError("no port: expected tcp://HOST:PORT (a scheduler listens on 8786 by default)")
    if not (port.isascii() and port.isdigit() and 1 <= int(port[-6:]) <= 65535 and len(port) <= 5):
        raise EngineError(f"port {port[:12]!r} is not an integer from 1 to 65,535")
    return host, int(port)


def _run_part(token: str, initializer: Callable, initargs: tuple, task: Callable, part):
    """On a worker: run the pool's initializer once per pool (this process may serve several), then the task."""
    if _STATE.get("token") != token:
        initializer(*initargs)
        _STATE["token"] = token
    return task(part)


_STATE: dict = {}


class DaskPool:
    """Pool's `map`/`ordered`/`close`, on a Dask client (made on first use)."""

    def __init__(self, initializer: Callable, initargs: tuple = (), address: Optional[str] = None, jobs: int = 2,
                 timeout: float = TIMEOUT):
        self.initializer, self.initargs = initializer, initargs
        self.address, self.jobs, self.timeout = address, jobs, timeout
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
                self._client = self._connected(Client)
            else:
                self._cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1, processes=True,
                                             dashboard_address=None)
                self._client = Client(self._cluster)
            self._args = self._client.scatter(self.initargs, broadcast=True)  # sent once, not once a part
        return self._client

    def _connected(self, client_class):
        """A client of the scheduler at the address, connected and past its handshake within the
        timeout; else an EngineError naming the address and what happened."""
        import asyncio

        host, port = parse_address(self.address)
        try:  # a refused or unreachable port fails here at once, not after Dask's retries
            socket.create_connection((host, port), timeout=self.timeout).close()
        except OSError as exc:
            raise EngineError(f"{self.address}: cannot connect: {exc.strerror or exc}") from None
        try:  # Dask's own handshake waits for the scheduler's reply without a bound: done here first
            _handshake(self.address, self.timeout)
            return client_class(self.address, timeout=self.timeout)
        except MemoryError:
            raise EngineError(f"{self.address}: not a Dask scheduler (it announced a message too large to "
                              "hold)") from None
        except (OSError, TimeoutError, asyncio.TimeoutError) as exc:  # one class from 3.11, two before
            raise EngineError(f"{self.address}: no Dask scheduler answered within {self.timeout:g} s "
                              f"({_said(exc)})") from None
        except Exception as exc:  # junk where a scheduler's handshake should be
            raise EngineError(f"{self.address}: not a Dask scheduler ({_said(exc)})") from None

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
                                 pure=False, retries=RETRIES), part

        pending: collections.deque = collections.deque()
        for part in parts:
            pending.append(submit(part))
            if len(pending) >= 4 * size:
                break
        while pending:
            results = self._result(*pending.popleft(), submit)
            nxt = next(parts, None)
            if nxt is not None:
                pending.append(submit(nxt))
            if progress:
                progress(len(results))
            if flatten:
                yield from results
            else:
                yield results

    def _result(self, future, part, submit):
        """A part's results. A worker that dies holding the only copy of the scattered initializer
        arguments takes them with it, and Dask cancels every part that needs them ("already
        forgotten"): they are scattered again and the part run again, up to RETRIES times."""
        from distributed import CancelledError

        for _ in range(RETRIES):
            try:
                return future.result()
            except CancelledError:
                self._args = self._client.scatter(self.initargs, broadcast=True)
                future, part = submit(part)
        return future.result()


def _handshake(address: str, timeout: float) -> None:
    """Connect to `address` and read its handshake, all within `timeout` seconds (TimeoutError)."""
    import asyncio

    from distributed.comm import connect

    async def probe():
        comm = await connect(address, timeout=timeout)
        await comm.close()

    async def bounded():
        await asyncio.wait_for(probe(), timeout)

    asyncio.run(bounded())


def _said(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return type(exc).__name__ + (f": {text[:160]}" if text else "")
