"""A real headless browser for the HTML tests: Debian's chromium, driven over
the DevTools protocol on a pipe (--remote-debugging-pipe), stdlib only.

Why the pipe and not --dump-dom: the protocol reports every console message
and uncaught exception as an event (no scraping of log lines whose format
changes between versions), lets a test evaluate JavaScript in the loaded page
to read numbers back from the DOM, and takes screenshots. Messages are JSON,
each ended by a NUL byte; chromium reads commands on fd 3 and writes on fd 4.

Missing chromium is a failure, never a skip: CI (.ci/run) installs it.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import pathlib
import select
import shutil
import subprocess
import tempfile
import time

INSTALL = "chromium is needed for the HTML tests: apt-get update && apt-get install -y chromium"
TIMEOUT = 60.0  # seconds for any one protocol reply (a loaded 2-core machine is slow)


def chromium_path() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError(INSTALL)


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless chromium; `open(path)` loads a file and returns a Page."""

    def __init__(self):
        self._profile = tempfile.mkdtemp(prefix="citeledger-chromium-")
        self._log = open(os.path.join(self._profile, "stderr.log"), "wb")  # shown if chromium fails
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def fds():  # chromium reads commands on fd 3 and writes replies on fd 4
            # Copied above 10 first, so neither copy overwrites the other's source.
            high_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
            high_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self._proc = subprocess.Popen(
            [
                chromium_path(), "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--remote-debugging-pipe", f"--user-data-dir={self._profile}", "--hide-scrollbars",
                "--window-size=1280,900", "about:blank",
            ],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log,
            preexec_fn=fds, pass_fds=(3, 4),  # kept open past preexec_fn
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []

    # ------------------------------------------------------------ protocol
    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def _read(self) -> dict:
        deadline = time.monotonic() + TIMEOUT
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._from_child], [], [], max(left, 0))
            if not ready:
                raise BrowserError(f"no reply from chromium in {TIMEOUT:.0f}s; its stderr ends: {self.stderr_tail()}")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise BrowserError(f"chromium closed the protocol pipe; its stderr ends: {self.stderr_tail()}")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def stderr_tail(self, limit: int = 800) -> str:
        self._log.flush()
        try:
            with open(self._log.name, "rb") as fh:
                return fh.read().decode("utf-8", "replace")[-limit:].strip() or "(nothing)"
        except OSError:
            return "(unreadable)"

    def wait_for(self, method: str, session: str) -> dict:
        for i, e in enumerate(self.events):
            if e.get("method") == method and e.get("sessionId") == session:
                return self.events.pop(i)
        while True:
            e = self._read()
            if e.get("method") == method and e.get("sessionId") == session:
                return e
            self.events.append(e)

    # ------------------------------------------------------------ pages
    def open(self, path, width: int = 1280, height: int = 900, javascript: bool = True) -> "Page":
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable", session=session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session)
        if not javascript:  # the page's own script stays off; Runtime.evaluate still reads the DOM
            self.send("Emulation.setScriptExecutionDisabled", {"value": True}, session)
        url = pathlib.Path(path).resolve().as_uri()
        self.send("Page.navigate", {"url": url}, session)
        self.wait_for("Page.loadEventFired", session)
        return Page(self, session, target)

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self._proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()
        shutil.rmtree(self._profile, ignore_errors=True)


class Page:
    def __init__(self, browser: Browser, session: str, target: str):
        self.browser, self.session, self.target = browser, session, target

    def eval(self, expression: str):
        """The JSON value of a JavaScript expression evaluated in the page."""
        got = self.browser.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, self.session
        )
        if "exceptionDetails" in got:
            raise BrowserError(f"{expression[:80]}: {got['exceptionDetails'].get('text')}")
        return got["result"].get("value")

    def problems(self) -> list[str]:
        """Console messages, uncaught exceptions and log entries of error or warning level."""
        self.eval("0")  # flush: events queued before this reply are now read
        out = []
        for e in self.browser.events:
            if e.get("sessionId") != self.session:
                continue
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.consoleAPICalled":
                args = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
                out.append(f"console.{params.get('type')}: {args}")
            elif method == "Runtime.exceptionThrown":
                d = params.get("exceptionDetails", {})
                out.append(f"exception: {d.get('text')} {d.get('exception', {}).get('description', '')}")
            elif method == "Log.entryAdded" and params["entry"].get("level") in ("error", "warning"):
                out.append(f"log {params['entry']['level']}: {params['entry'].get('text')}")
        return out

    def screenshot(self, path, full_page: bool = True) -> None:
        params = {"format": "png"}
        if full_page:
            size = self.eval("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": min(size[1], 4000), "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.browser.send("Page.captureScreenshot", params, self.session)["data"]
        pathlib.Path(path).write_bytes(base64.b64decode(data))

    def close(self) -> None:
        self.browser.send("Target.closeTarget", {"targetId": self.target})
