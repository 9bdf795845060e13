"""The agents' own log folders: what `sweep` reads when given no path, and `--agent`.

Each installed reader says which agent's logs it reads (`agent`) and where that
agent keeps them on this machine (`homes(environ)`: readers/whereabouts.py for
the built-in ones). Nothing here knows a folder: a reader added for another
agent adds its folders.
"""

from __future__ import annotations

import os
import sys

from citeledger.core.errors import UserError
from citeledger.core.plugins import readers
from citeledger.core.reader import agent_homes

AGENTS = ("claude", "codex", "gemini", "opencode")
# Where an agent keeps logs no installed reader reads (opencode's storage: its reader reads
# `opencode export`'s document): named when --agent asks for them.
UNREAD = {"opencode": "~/.local/share/opencode/storage"}


def add_agent_option(parser) -> None:
    parser.add_argument("--agent", choices=AGENTS, metavar="|".join(AGENTS),
                        help="only this agent's sessions (with no PATH: only its own log folders)")


def agents_read() -> dict:
    """agent -> the names of the installed readers that read its logs."""
    found: dict = {}
    for name, cls in readers().items():
        agent = getattr(cls, "agent", None)
        if agent:
            found.setdefault(agent, []).append(name)
    return found


def readers_of(agent) -> frozenset:
    """The reader names of `agent` (None: every reader); an agent no installed reader reads is a
    usage error naming where its logs are."""
    if agent is None:
        return frozenset(readers())
    names = agents_read().get(agent)
    if not names:
        where = f" (its logs: {UNREAD[agent]})" if agent in UNREAD else ""
        raise UserError(f"--agent {agent}: no installed reader reads {agent}'s logs{where}")
    return frozenset(names)


def agent_folders(agent=None, environ=None) -> list[str]:
    """The folders of the agents' logs that exist here (of `agent` alone when given), each
    named once on stderr; none is a usage error naming where they were looked for."""
    environ = os.environ if environ is None else environ
    wanted = readers_of(agent)
    folders: dict[str, str] = {}
    for name, cls in readers().items():
        if name in wanted:
            for folder in agent_homes(cls(), environ):
                folders.setdefault(folder, getattr(cls, "agent", None) or name)
    if not folders and agent in UNREAD:
        raise UserError(f"--agent {agent}: the installed reader reads what `{agent} export` prints, not {agent}'s "
                        f"own logs ({UNREAD[agent]}): give a PATH to an export")
    if not folders:
        looked = "$CLAUDE_CONFIG_DIR or ~/.claude/projects, ~/.config/claude/projects; " \
                 "$CODEX_HOME/sessions or ~/.codex/sessions; ~/.gemini/tmp/*/chats"
        raise UserError(f"no PATH given and no agent's log folder found ({looked}): give a PATH")
    for folder, who in folders.items():
        print(f"citeledger: note: reading {who}'s logs in {folder}", file=sys.stderr)
    return list(folders)
