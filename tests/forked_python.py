"""`python -m citeledger.cli ...` (or `python -c CODE`, `python SCRIPT`) run as subprocess.run
runs it, without paying an interpreter's start-up and citeledger's imports every time.

Each run is a process of its own, forked from a server process (one per test process, started
on first use) that has imported every citeledger module and run nothing. A fresh interpreter
takes about 300 ms to import citeledger and score a small session; a fork, about 30 ms.

What the run has, as from a fresh interpreter: its own pid and exit status (SystemExit's code,
1 and a traceback for an uncaught exception, minus the signal that killed it), stdin, stdout and
stderr as given (real pipes for PIPE), the caller's environment and working directory, sys.argv
and sys.path[0] as `python -m`, `-c` or a script sets them, default signal handlers, an address
space cap (`memory`, RLIMIT_AS, which its own workers inherit), a kill at `timeout`, and the
interpreter's own ending (stdout flushed, atexit handlers run).
What it does not have: citeledger imported afresh (tests of what start-up imports, or of a
first run's on-disk cache, start a real interpreter), its own hash seed, interpreter options,
and environment variables read only at start-up (PYTHON*, LANG, LC_*): a run asking for other
values of those than the server started with is refused, to be run with subprocess instead.
"""

from __future__ import annotations

import atexit
import importlib
import os
import resource
import pickle
import pkgutil
import selectors
import signal
import socket
import subprocess
import sys
import time

MESSAGE = 1 << 20  # bytes: the largest request (argv and environment) or reply


def _read_at_start_only(env) -> dict:
    return {k: v for k, v in env.items() if k.startswith(("PYTHON", "LC_")) or k == "LANG"}


# ------------------------------------------------------------------ the caller's side

_server: dict = {}  # this process's server: its Popen, socket and start-up environment


def _connection() -> socket.socket:
    proc = _server.get("proc")
    if proc is None or proc.poll() is not None or _server.get("pid") != os.getpid():
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        proc = subprocess.Popen([sys.executable, __file__, str(theirs.fileno())], pass_fds=(theirs.fileno(),),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        theirs.close()
        _server.update(proc=proc, sock=ours, pid=os.getpid(), env=_read_at_start_only(os.environ))
        atexit.register(_stop, proc, ours)
    return _server["sock"]


def _stop(proc: subprocess.Popen, sock: socket.socket) -> None:
    sock.close()  # the server ends at the end of its socket
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def _fd(stream, mode: int, opened: list) -> tuple[int, int | None]:
    """(the descriptor the run gets, our end of its pipe or None)."""
    if stream == subprocess.PIPE:
        r, w = os.pipe()
        ours, theirs = (w, r) if mode == os.O_RDONLY else (r, w)
        opened.append(theirs)
        return theirs, ours
    if stream is None or stream == subprocess.DEVNULL:
        fd = os.open(os.devnull, mode)
        opened.append(fd)
        return fd, None
    return (stream if isinstance(stream, int) else stream.fileno()), None


def _request(sock: socket.socket, what: dict, fds: list[int]) -> int:
    socket.send_fds(sock, [pickle.dumps(what)], fds)
    return _reply(sock, "pid")


def _reply(sock: socket.socket, kind: str):
    data = sock.recv(MESSAGE)
    if not data:
        raise RuntimeError(f"the forked-python server ended (status {_server['proc'].wait()})")
    got, value = pickle.loads(data)
    assert got == kind, (got, kind)
    return value


def run(args, *, stdin=None, stdout=None, stderr=None, capture_output: bool = False, cwd=None, env=None,
        memory: int | None = None, timeout: float | None = None, text: bool = False,
        encoding: str | None = None, errors: str | None = None, check: bool = False) -> subprocess.CompletedProcess:
    """subprocess.run(args, ...) for args = [sys.executable, "-m" MODULE | "-c" CODE | SCRIPT, ...],
    in a forked process. stdin/stdout/stderr: None (here: /dev/null), DEVNULL, PIPE, STDOUT
    (stderr), a descriptor or a file object; `memory` caps the run's address space."""
    if capture_output:
        stdout = stderr = subprocess.PIPE
    args = [os.fspath(a) for a in args]
    if args[0] != sys.executable or len(args) < 2:
        raise ValueError(f"not a run of this interpreter: {args[:2]}")
    env = dict(os.environ if env is None else env)
    sock = _connection()
    if _read_at_start_only(env) != _server["env"]:  # the server could not start as this run would: a real one
        return subprocess.run(args, stdin=stdin, stdout=stdout, stderr=stderr, cwd=cwd, env=env, timeout=timeout,
                              text=text, encoding=encoding, errors=errors, check=check,
                              preexec_fn=(lambda: resource.setrlimit(resource.RLIMIT_AS, (memory, memory))) if memory else None)
    opened: list[int] = []
    try:
        in_fd, _ = _fd(stdin, os.O_RDONLY, opened)
        out_fd, out_r = _fd(stdout, os.O_WRONLY, opened)
        err_fd, err_r = (out_fd, None) if stderr == subprocess.STDOUT else _fd(stderr, os.O_WRONLY, opened)
        what = {"args": args[1:], "cwd": os.fspath(cwd or os.getcwd()), "env": env, "memory": memory}
        pid = _request(sock, what, [in_fd, out_fd, err_fd])
    finally:
        for fd in opened:
            os.close(fd)
    out, err, status = _collect(sock, pid, out_r, err_r, timeout, args)
    if text or encoding or errors:
        out, err = (_text(b, encoding, errors) for b in (out, err))
    done = subprocess.CompletedProcess(args, status, out, err)
    if check:
        done.check_returncode()
    return done


def _collect(sock, pid: int, out_r, err_r, timeout, args) -> tuple:
    """The run's stdout and stderr (read to their end, None where not a pipe) and exit status;
    the run is killed at `timeout` seconds."""
    output = {fd: bytearray() for fd in (out_r, err_r) if fd is not None}
    deadline = None if timeout is None else time.monotonic() + timeout
    status = None
    with selectors.DefaultSelector() as selector:
        for fd in output:
            selector.register(fd, selectors.EVENT_READ)
        selector.register(sock, selectors.EVENT_READ)
        try:
            while selector.get_map():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    if status is None and not any(key.fileobj is sock for key, _ in selector.select(0)):
                        os.kill(pid, signal.SIGKILL)  # not yet reaped by the server: the pid is still the run's
                    if status is None:
                        _reply(sock, "status")
                    got = [bytes(output[fd]) if fd in output else None for fd in (out_r, err_r)]
                    raise subprocess.TimeoutExpired(args, timeout, *got)
                for key, _ in selector.select(left):
                    if key.fileobj is sock:
                        status = _reply(sock, "status")
                        selector.unregister(sock)
                        continue
                    chunk = os.read(key.fd, 1 << 16)
                    if chunk:
                        output[key.fd] += chunk
                    else:
                        selector.unregister(key.fd)
        finally:
            for fd in output:
                os.close(fd)
    out, err = (bytes(output[fd]) if fd in output else None for fd in (out_r, err_r))
    return out, err, status


def _text(data: bytes | None, encoding, errors):
    if data is None:
        return None
    import locale

    text = data.decode(encoding or locale.getpreferredencoding(False), errors or "strict")
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as subprocess's text mode reads it


# ------------------------------------------------------------------ the server's side

def _preload() -> None:
    """Import every citeledger module (each defers numpy, matplotlib, pandas and dask to the call
    that needs them) and importlib.metadata (plugins are found through entry points): what a run
    imports, run nothing. No thread starts, so forking is safe."""
    from fresh_env import PACKAGE_PARTS, REPO

    packages = ["citeledger"]  # the api/ folder; the others are citeledger.FOLDER
    packages += [f"citeledger.{part}" for part in PACKAGE_PARTS if (REPO / part / "__init__.py").is_file()]
    for name in packages:
        try:
            package = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue  # a folder installed under another name (api/ is citeledger itself)
        for module in pkgutil.walk_packages(package.__path__, f"{name}."):
            if not module.name.endswith(".__main__"):
                importlib.import_module(module.name)
    importlib.import_module("importlib.metadata")
    import threading

    assert threading.active_count() == 1 and "numpy" not in sys.modules, "the server must stay fork-safe"


def _serve(sock: socket.socket) -> dict:
    """Fork a process for each request, telling its pid and then its exit status.
    Returns only in a forked process: its request."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C of the test run is the test process's to handle
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, MESSAGE, 3)
        except ConnectionResetError:
            data = b""
        if not data:  # the test process closed its end
            sys.exit(0)
        what = pickle.loads(data)
        pid = os.fork()
        if pid == 0:
            sock.close()
            what["fds"] = fds
            return what
        for fd in fds:
            os.close(fd)
        sock.send(pickle.dumps(("pid", pid)))
        _, wait_status = os.waitpid(pid, 0)
        sock.send(pickle.dumps(("status", os.waitstatus_to_exitcode(wait_status))))


def _become(what: dict) -> None:
    """In the forked process: take the run's limits, descriptors, directory and environment."""
    import resource

    signal.signal(signal.SIGINT, signal.default_int_handler)
    if what["memory"] is not None:
        resource.setrlimit(resource.RLIMIT_AS, (what["memory"], what["memory"]))
    for target, fd in enumerate(what["fds"]):
        os.dup2(fd, target)
    for fd in set(what["fds"]):
        if fd > 2:
            os.close(fd)
    os.chdir(what["cwd"])
    os.environ.clear()
    os.environ.update(what["env"])


def _execute(args: list[str]) -> None:
    """Run `python ARGS` here, as the interpreter's command line would (raises SystemExit as it ends)."""
    import runpy
    import types

    if args[0] == "-m":
        sys.argv, sys.path[0] = [args[1], *args[2:]], os.getcwd()
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    elif args[0] == "-c":
        sys.argv, sys.path[0] = ["-c", *args[2:]], ""
        main = sys.modules["__main__"] = types.ModuleType("__main__")
        exec(compile(args[1], "<string>", "exec"), main.__dict__)
    else:
        sys.argv, sys.path[0] = list(args), os.path.dirname(os.path.realpath(args[0]))
        runpy.run_path(args[0], run_name="__main__")


if __name__ == "__main__":  # the server (sys.path[0] is this file's folder, where fresh_env is)
    _preload()
    _request_here = _serve(socket.socket(fileno=int(sys.argv[1])))
    _become(_request_here)
    _execute(_request_here["args"])  # at the top level: what it raises ends the process as in `python ARGS`
