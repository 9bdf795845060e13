"""A shell script's output split per command at its `echo` markers (issue 42; FACTS.md §6).

`echo "=== a ==="; ls dir; echo; cat a | head -30; echo "=== b ==="; cat b` prints the
markers, a listing and two files in one output. Read by hand, each part between two
markers belongs to the commands that printed it: a.txt's 30 lines to a, b's text to b, the
listing and the markers to no file. The rule, written once:

- the command is cut into its simple commands (`;`, a newline, `&&`, `||`; a pipeline is
  one); a command that prints nothing (`cd`, `export`, an assignment) is left out;
- an `echo` of literal words prints a known line (its marker); any other command prints a
  chunk, charged to the file it reads (`reads`, the caller's rule) or to no file;
- the markers are found in order in the output, each at a line start; a chunk is what lies
  between; consecutive chunks of one file join with the markers between them (three
  `sed -n` ranges of a file joined by `echo ---` are that file's). A marker not at a line
  start (`cat f` of a file with no last newline prints `}--- next ---`) joins the chunks
  on its two sides, the file's when one of them is a file.

Where the command is not a plain list (a loop, a test, a heredoc, a subshell, a function,
`echo -n`, `echo $x`), two chunks of different owners touch with no marker between, or the
markers cannot be found in order, there is no split (None): the caller keeps its own rule.
"""

from __future__ import annotations

import re
import shlex
from typing import Callable, Optional

_KEYWORDS = frozenset({"for", "while", "until", "if", "then", "do", "done", "fi", "case", "esac", "select",
                       "function", "elif", "else", "{", "}", "(", "((", "[[", "time", "coproc"})
_SILENT = frozenset({"cd", "export", "set", "unset", "true", ":", "shopt", "alias", "umask"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_TRIES = 256  # alignments tried before giving up (a long output of many blank lines)


def split_output(command: str, output: str, reads: Callable[[str], Optional[str]]) -> Optional[list]:
    """(path or None, text, at) pieces adding up to `output`, or None when the rule does not
    apply. `reads(simple_command)` is the path a simple command reads, or None; `at` is
    where in `command` the reading command starts (-1 for a marker or a file-less chunk)."""
    segments = _segments(command, reads)
    if segments is None or not any(kind == "echo" for kind, *_ in segments):
        return None
    padded = not output.endswith("\n")  # Claude Code drops a result's last newline
    found = _align(segments, output + "\n" if padded else output)
    if found is None:
        return None
    pieces = _joined(found)
    if padded:
        path, text, at = pieces[-1]
        pieces[-1] = (path, text[:-1], at)
    return [(path, text, at) for path, text, at in pieces if text]


def _segments(command: str, reads) -> Optional[list]:
    """("echo", line) and ("chunk", path, at) in order, adjacent markers joined, adjacent
    chunks of one owner joined; None when the command is not a plain list or two chunks of
    different owners touch."""
    simple = simple_commands(command)
    if simple is None:
        return None
    segments: list = []
    known: dict = {}  # NAME=literal assignments so far: `cat "$D/x"` reads D's x
    for text, at in simple:
        text = _expanded(text, known)
        word = text.split(None, 1)[0]
        if _ASSIGNMENT.match(word) and "$(" not in text and "`" not in text:
            _assign(text, known)
            continue
        if word in _SILENT:
            continue
        if word in _KEYWORDS:
            return None
        if word == "echo":
            line = echo_line(text)
            if line is None:
                return None
            segment = ("echo", line)
        else:
            path = reads(text)
            segment = ("chunk", path, at if path else -1)
        if segments and segments[-1][0] == segment[0] == "echo":
            segments[-1] = ("echo", segments[-1][1] + segment[1])
        elif segments and segments[-1][0] == segment[0] == "chunk":
            if segments[-1][1] != segment[1]:
                return None  # where one ends and the other starts cannot be told
        else:
            segments.append(segment)
    return segments


def _assign(text: str, known: dict) -> None:
    """Record `NAME=value` (one word, literal) in `known`; anything else unsets NAME."""
    name = text.split("=", 1)[0]
    try:
        words = shlex.split(text, posix=True)
    except ValueError:
        words = []
    if len(words) == 1 and "$" not in text and "`" not in text:
        known[name] = words[0].split("=", 1)[1]
    else:
        known.pop(name, None)


def _expanded(text: str, known: dict) -> str:
    """`text` with `$NAME` and `${NAME}` of the known literal assignments replaced."""
    if not known or "$" not in text:
        return text
    return _VARIABLE.sub(lambda m: known.get(m.group(1) or m.group(2), m.group(0)), text)


def echo_line(text: str) -> Optional[str]:
    """What `echo WORDS` prints, or None when it cannot be known (a variable, a substitution,
    a glob, a pipe or redirect, `-n`, `-e` with an escape)."""
    if any(c in text for c in "$`\\") or any(c in _unquoted(text) for c in "|&><*?[;"):
        return None
    try:
        words = shlex.split(text, comments=False, posix=True)[1:]
    except ValueError:
        return None
    while words and re.fullmatch(r"-[neE]+", words[0]):
        if "n" in words[0]:
            return None
        words = words[1:]
    return " ".join(words) + "\n"


def _unquoted(text: str) -> str:
    """`text` without its quoted parts."""
    return re.sub(r"'[^']*'|\"[^\"]*\"", "", text)


def simple_commands(command: str) -> Optional[list]:
    """The simple commands (pipelines) of `command` split at `;`, newline, `&&` and `||` outside
    quotes and substitutions, each with where it starts; None for a heredoc, a background `&`,
    a subshell or group, or unbalanced quotes."""
    parts, start, depth, i, n = [], 0, 0, 0, len(command)
    quote = ""
    while i < n:
        c = command[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c == "\\":
            i += 1
        elif c == "#" and depth == 0 and (i == 0 or command[i - 1] in " \t\n;"):
            parts.append((start, i))  # a comment: the command ends where it starts
            end = command.find("\n", i)
            i = start = n if end < 0 else end
            continue
        elif command.startswith("$(", i):
            depth += 1
            i += 1
        elif c == "(" or (c == "{" and (i + 1 == n or command[i + 1] in " \n")):
            if depth == 0:
                return None
            depth += c == "("
        elif c == ")" and depth:
            depth -= 1
        elif command.startswith("<<", i):
            return None
        elif depth == 0 and (c in ";\n" or command.startswith(("&&", "||"), i)):
            parts.append((start, i))
            i += 1 if c in ";\n" else 2
            start = i
            continue
        elif depth == 0 and c == "&" and not command.startswith(("&>", ">&"), i - 1) and command[i + 1:i + 2] != ">":
            return None
        i += 1
    if quote or depth:
        return None
    parts.append((start, n))
    found = []
    for begin, end in parts:
        text = command[begin:end]
        stripped = text.strip()
        if stripped:
            found.append((stripped, begin + text.index(stripped)))
    return found


def _align(segments: list, output: str) -> Optional[list]:
    """The segments laid on `output`: a list of (owner, text, at, is_marker), or None."""
    budget = [_TRIES]

    def walk(index: int, position: int, chunk: Optional[tuple]) -> Optional[list]:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if index == len(segments):
            if chunk is not None:
                return [(chunk[1], output[position:], chunk[2], False)]
            return [] if position == len(output) else None
        segment = segments[index]
        if segment[0] == "chunk":
            return walk(index + 1, position, segment)
        line = segment[1]
        after = segments[index + 1] if index + 1 < len(segments) else None
        for at in _places(output, line, position, chunk, after):
            rest = walk(index + 1, at + len(line), None)
            if rest is not None:
                head = [(chunk[1], output[position:at], chunk[2], False)] if chunk is not None else []
                return head + [(None, line, -1, True)] + rest
        joined = _unmarked(chunk, after)
        return None if joined is None else walk(index + 2, position, joined)

    return walk(0, 0, None)


def _unmarked(chunk, after):
    """The one chunk two chunks make when the marker between them is not at a line start (a
    file without a last newline: `}--- next ---`): the file's, when at most one is a file."""
    if chunk is None or after is None:
        return None
    if chunk[1] is not None and after[1] is not None and chunk[1] != after[1]:
        return None
    return chunk if chunk[1] is not None or after[1] is None else after


def _places(output: str, line: str, position: int, chunk, after) -> list:
    """Where marker `line` may stand: at `position` when no chunk comes before it, else at
    each line start from there, the likeliest first (after a file's chunk and before no
    file's, the last; else the first: a listing rarely holds a marker, a file may)."""
    if chunk is None:
        return [position] if output.startswith(line, position) else []
    places, at = [], output.find(line, position)
    while at >= 0:
        if at == 0 or output[at - 1] == "\n":
            places.append(at)
        at = output.find(line, at + 1)
    if chunk[1] is not None and (after is None or after[1] is None):
        places.reverse()
    return places


def _joined(found: list) -> list:
    """(path, text, at) pieces: a marker between two chunks of one file joins them."""
    pieces: list = []
    index = 0
    while index < len(found):
        owner, text, at, marker = found[index]
        if pieces and not marker and owner is not None and len(pieces) >= 2 and pieces[-2][0] == owner \
                and pieces[-1][3]:
            _, between, _, _ = pieces.pop()
            previous = pieces.pop()
            pieces.append((owner, previous[1] + between + text, previous[2], False))
        else:
            pieces.append((owner, text, at, marker))
        index += 1
    return [(owner, text, at) for owner, text, at, _ in pieces]
