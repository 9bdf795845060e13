"""Which family a tool call belongs to, and whether a shell command runs codegraph's CLI:
the harness's rules (parse-run.mjs `familyOf`, `FILE_ACCESS`, `CG_CLI_RE`).

The families price what each kind of retrieval left in the context window
(metrics/occupancy.py); the CLI rule finds a without-arm that shelled out to
codegraph's binary, which the target repository's index makes possible
(metrics/run.py).
"""

from __future__ import annotations

import re

from citeledger.infra.jsstr import JS_WHITESPACE
from citeledger.infra.lazyre import LazyPattern

CODEGRAPH = "codegraph"
# In the order the harness prints them; "search" is Grep/Glob.
FAMILIES = ("codegraph", "read", "search", "bash", "other")
# The without-arm's way of getting the same bytes: reading and searching files.
FILE_ACCESS = ("read", "search", "bash")
_BY_NAME = {"Read": "read", "NotebookRead": "read", "Grep": "search", "Glob": "search", "Bash": "bash", "BashOutput": "bash"}


def is_codegraph_tool(name: str) -> bool:
    """A tool of codegraph's (any of its MCP tools): its name contains "codegraph"."""
    return CODEGRAPH in name


def tool_family(name: str) -> str:
    """The family of a tool by its name (a name no rule names is "other")."""
    if CODEGRAPH in name:
        return "codegraph"
    return _BY_NAME.get(name, "other")


# JavaScript's \s and \S (the harness is JavaScript), ASCII \w.
_S = "[" + re.escape(JS_WHITESPACE) + "]"
_NOT_S = "[^" + re.escape(JS_WHITESPACE) + "]"
_W = "[A-Za-z0-9_]"
# A command position (the start, or after ; & | ( && || $( or a backtick), then
# spaces, environment assignments (FOO=1 ), and the binary by any path.
# Mentions are not invocations: `grep codegraph src/`, `ls .codegraph` and
# `which codegraph` do not match.
_CLI = LazyPattern(
    r"(?:^|[;&|(]|&&|\|\||\$\(|`)" + _S + "*"
    + "(?:[A-Za-z_]" + _W + "*=" + _NOT_S + "*" + _S + "+)*"
    + r"[A-Za-z0-9_./~-]*codegraph(?:" + _S + r"|\Z)"
)


def runs_codegraph_cli(command: str) -> bool:
    """The shell command invokes codegraph's CLI, in any command position."""
    return CODEGRAPH in command and _CLI.search(command) is not None
