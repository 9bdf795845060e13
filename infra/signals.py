"""The signals a run ends by, as this platform has them: SIGTERM everywhere, SIGHUP on POSIX.

Windows has no SIGHUP (and delivers SIGTERM only from the process itself); a
name missing here is left out rather than failing at import.
"""

from __future__ import annotations

import signal

# A run unwinds on these (cli/__init__.py), and a worker ends plainly on them (infra/pool.py).
ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
# Held while an --out directory's files are renamed into place (cli/output.py).
HELD_SIGNALS = (*ENDING_SIGNALS, signal.SIGINT)
