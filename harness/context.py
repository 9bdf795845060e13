"""What a tool result put in the context: file content, or a notice (the turn model's rule).

A result's text is not always the file's. The tool says something of its own (Claude
Code's Read: "Wasted call — file unchanged since your last Read", an offset warning;
Bash: "(Bash completed with no output)"), the read failed ("No such file or directory",
a shell profile's error line), or a shell command printed other things than the file
(`echo` lines, an `ls` after `cat f && echo --- && ls`). Written once here and asked by
the sources that charge results to files (docs/transcripts-as-found.md, "The turn model").

A notice is one of NO_OUTPUT, UNCHANGED, ERROR, LISTING, NOTICE, ECHO.
"""

from __future__ import annotations

import re

import attrs
from citeledger.infra.lazyre import LazyPattern

NO_OUTPUT, UNCHANGED, ERROR, LISTING, NOTICE, ECHO = "no-output", "unchanged", "error", "listing", "notice", "echo"
# What is no call at all (a failed read, as an `is_error` result; only the command's own
# echo lines: it read nothing); any other notice is kept in the envelope as meta.
DROPPED = frozenset({ERROR, ECHO})

# A whole result that is a tool's own words (Claude Code 2.x), by its start.
_TOOL_NOTICES = (
    ("(Bash completed with no output)", NO_OUTPUT),
    ("Wasted call — file unchanged since your last Read", UNCHANGED),
    ("File unchanged since last read", UNCHANGED),
    ("<system-reminder>Warning: the file exists but is shorter than the provided offset", NOTICE),
    ("<system-reminder>Warning: the file exists but the contents are empty", NOTICE),
    ("File does not exist.", ERROR),
    ("<tool_use_error>", ERROR),
)
# A line a failed command prints instead of a file: `cmd: path: No such file or directory`,
# a shell profile's `/path/x.sh: line 18: /bin/ps: Operation not permitted`.
_ERROR_LINE = LazyPattern(
    r"^\S[^\n]*: (?:No such file or directory|Permission denied|Operation not permitted|Is a directory"
    r"|cannot open [^\n]*|No such file)$")
_PROFILE_LINE = LazyPattern(r"^/\S+: line \d+: [^\n]*$")  # a shell start-up file's own complaint
_ECHO = LazyPattern(r"(?:^|[\n;&|({]|\bthen|\bdo|\belse)\s*echo\s+(?:-[neE]+\s+)?(\"(?:[^\"\\]|\\.)*\"|'[^']*'|[^\s;&|)]+)")
_VARIABLE = LazyPattern(r"\\\$|\$\{[^}]*\}|\$\([^)]*\)|\$\w+|\$\$")


@attrs.frozen
class ShellOutput:
    """A shell read's output split into the file's content and the rest (meta), and the
    notice when there is no content ("" when there is)."""

    content: str
    rest: str
    notice: str = ""


def tool_notice(text: str) -> str:
    """The notice a whole tool result is, or "" when it is content (or a shell's output)."""
    start = text.lstrip()[:120]
    for prefix, notice in _TOOL_NOTICES:
        if start.startswith(prefix):
            return notice
    return ""


def shell_output(command: str, output: str, read_at: int = 0) -> ShellOutput:
    """What a shell read's `output` holds of the file it reads (`command` decided it reads one).

    Leading shell-profile error lines are not the file's; an output of only error lines or
    only the command's own `echo` lines holds none of it; what follows the first line a
    later `echo` printed (`cat f && echo --- && ls`; later: after `read_at` in the command,
    where the read is) is another command's.
    """
    notice = tool_notice(output)
    if notice or not output.strip():
        return ShellOutput("", output, notice or NO_OUTPUT)
    lines = output.split("\n")
    lead = 0
    while lead < len(lines) and _PROFILE_LINE.match(lines[lead]):
        lead += 1
    body = lines[lead:]
    said = [line for line in body if line.strip()]
    if said and all(_ERROR_LINE.match(line) for line in said):
        return ShellOutput("", output, ERROR)
    if not said:
        return ShellOutput("", output, NO_OUTPUT)
    echoes = echo_patterns(command)
    if echoes and all(any(e.fullmatch(line) for e in echoes) for line in said):
        return ShellOutput("", output, ECHO)
    cut = _first_echo_line(body, echo_patterns(command, read_at))
    content = "\n".join(body[:cut]) + ("\n" if cut < len(body) else "")
    head = "\n".join(lines[:lead]) + ("\n" if lead else "")
    rest = output[len(head) + len(content):]
    if not content.strip():
        return ShellOutput("", output, LISTING)
    return ShellOutput(content, head + rest)


def only_errors(text: str) -> bool:
    """Whether every line `text` says is a failed command's error line (`cat: x: No such file
    or directory`): no file's content."""
    said = [line for line in text.split("\n") if line.strip()]
    return bool(said) and all(_ERROR_LINE.match(line) or _PROFILE_LINE.match(line) for line in said)


def echo_patterns(command: str, after: int = 0) -> list:
    """A pattern per `echo` of `command` (from position `after`): its argument with each
    `$variable` any text; an echo with less than two characters of its own text says
    nothing one can tell (`echo "$x"`) and gives none."""
    patterns = []
    for match in _ECHO.finditer(command, after):
        arg = match.group(1)
        if arg[:1] in ("'", '"') and arg[-1:] == arg[:1] and len(arg) >= 2:
            arg = arg[1:-1]
        parts = _VARIABLE.split(arg)
        if sum(len(p.strip()) for p in parts) < 2:
            continue
        patterns.append(re.compile(".*".join(re.escape(p) for p in parts), re.DOTALL))
    return patterns


def _first_echo_line(body: list, echoes: list) -> int:
    """The index of the first line an `echo` printed with a literal text (no variable), or
    len(body): the read's own output comes before it."""
    literal = [e for e in echoes if ".*" not in e.pattern and e.pattern]
    for index, line in enumerate(body):
        if any(e.fullmatch(line) for e in literal):
            return index
    return len(body)
