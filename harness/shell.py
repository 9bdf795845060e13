"""What a shell command does for retrieval: codegraph's harness rule (bashIntent).

One definition, shared by every report and source that asks whether a `Bash`
call read a file (the sufficiency block now; a `bash_read` source later).
The rule is the harness's, in transcripts.md "Reading through the shell":
a heredoc or redirect is a write and never a read; a read is the first
`cat`/`sed`/... at a command position whose arguments name a path; a search
is `grep`/`rg`/`find`/`ls`/... at any command position.
"""

from __future__ import annotations

import re
from typing import Optional

import attrs

from citeledger.infra.jsstr import JS_WHITESPACE
from citeledger.infra.lazyre import LazyPattern

# "Spaces" are JavaScript's \s (the harness is JavaScript), not Python's.
_S = "[" + re.escape(JS_WHITESPACE) + "]"
# A command position: the start of the string, or after ; & | $( or a
# backtick; then optional spaces and an optional `sudo `.
_POSITION = r"(?:^|[;&|`]|\$\()" + _S + "*(?:sudo" + _S + "+)?"
_WRITE = LazyPattern("<<|>" + _S + "*[^" + re.escape(JS_WHITESPACE) + "]")
_READ = LazyPattern(_POSITION + "(?:cat|bat|head|tail|less|more|nl|sed|awk)" + _S + r"+([^\n|;&]*)")
_SEARCH = LazyPattern(_POSITION + r"(?:grep|egrep|fgrep|rg|ag|ack|find|fd|ls|tree)\b", re.ASCII)
_NUMERIC = LazyPattern(r"['\"]?[0-9]")
# A redirect of standard error alone (`2>/dev/null`, `2>&1`, `2>> log`): it writes no file the
# command reads. Dropped before the write test only when asked (the harness counts it a write).
_STDERR_REDIRECT = LazyPattern("(?<![^" + re.escape(JS_WHITESPACE) + ";&|(`])2>>?(?:&[0-9-]|" + _S + "*[^" + re.escape(JS_WHITESPACE) + ";&|]+)")
_SPLIT = LazyPattern(_S + "+")


# The kinds of intent (the harness's words).
READ_KIND, SEARCH_KIND = "read", "search"


@attrs.frozen
class ShellIntent:
    """`kind` is "read" (with the `path` read), "search", or None (neither)."""

    kind: Optional[str]
    path: str = ""

    @property
    def reads(self) -> bool:
        return self.kind == READ_KIND


NEITHER = ShellIntent(None)
SEARCH = ShellIntent(SEARCH_KIND)


def shell_intent(command: str, stderr_redirect_writes: bool = True, captured_reads: bool = True) -> ShellIntent:
    """What `command` does: a read of one path, a search, or neither.

    `stderr_redirect_writes`: the harness's rule (True) takes `2>/dev/null` for a write, so
    `cat f 2>/dev/null | tail` reads nothing; False drops standard-error redirects first.
    `captured_reads`: the harness's rule (True) counts a read inside `$(...)` or backticks,
    whose output the substitution captures; False skips it, the first read outside one is
    tried (`X=$(cat f | grep y)` prints none of f: issue 41, H1).
    """
    if not stderr_redirect_writes:
        command = _STDERR_REDIRECT.sub(" ", command)
    if not _WRITE.search(command):
        for read in _READ.finditer(command):
            if not captured_reads and captured(command, read.start(1)):
                continue
            # only the first read command is tried
            args = [a for a in _SPLIT.split(read.group(1)) if a and not a.startswith("-") and not _NUMERIC.match(a)]
            paths = [a for a in args if "/" in a or "." in a]
            if paths:
                return ShellIntent(READ_KIND, _unquote(paths[-1]))
            break
    return SEARCH if _SEARCH.search(command) else NEITHER


def captured(command: str, index: int) -> bool:
    """Whether position `index` of `command` is inside a command substitution (`$(`...`)` or
    backticks) still open there: its output is captured, not printed. Single quotes are
    followed (a `)` inside '...' closes nothing); double quotes do not stop a substitution."""
    stack: list[str] = []
    quoted = False
    i = 0
    while i < index:
        c = command[i]
        if quoted:
            quoted = c != "'"
        elif c == "'":
            quoted = True
        elif c == "\\":
            i += 1
        elif c == "$" and command.startswith("$(", i):
            stack.append("$(")
            i += 1
        elif c == "(":
            stack.append("(")
        elif c == ")" and stack:
            stack.pop()
        elif c == "`":
            if stack and stack[-1] == "`":
                stack.pop()
            else:
                stack.append("`")
        i += 1
    return "$(" in stack or "`" in stack


def _unquote(arg: str) -> str:
    """One quote character stripped at each end."""
    if arg[:1] in ("'", '"'):
        arg = arg[1:]
    if arg[-1:] in ("'", '"'):
        arg = arg[:-1]
    return arg


def normal_path(path: str) -> str:
    """Backslashes to `/`, one leading `./` dropped."""
    path = path.replace("\\", "/")
    return path[2:] if path.startswith("./") else path


def same_file(a: str, b: str) -> bool:
    """The harness's same-file test: equal after normal_path, or one ends with "/" + the other.

    An empty path names nothing.
    """
    if not a or not b:
        return False
    a, b = normal_path(a), normal_path(b)
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)
