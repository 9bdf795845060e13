"""A shell script's output split per command at its `echo` markers (issues 41 and 42).

`echo "=== a ==="; ls dir; echo; cat a | head -30; echo "=== b ==="; cat b` prints the
markers, a listing and two files in one output. Read by hand, each part between two
markers belongs to the commands that printed it: a.txt's 30 lines to a, b's text to b, the
listing and the markers to no file. The rule, written once:

- the command is cut into its simple commands (`;`, a newline, `&&`, `||`; a pipeline is
  one); a command that prints nothing (`cd`, `export`, an assignment) is left out;
- an `echo` of literal words or a `printf` of a literal format prints a known text (its
  marker); any other command prints a chunk, charged to the file it reads (`reads`, the
  caller's rule) or to no file;
- the markers are found in order in the output, each at a line start; a chunk is what lies
  between; consecutive chunks of one file join with the markers between them (three
  `sed -n` ranges of a file joined by `echo ---` are that file's). A marker not at a line
  start (`cat f` of a file with no last newline prints `}--- next ---`) joins the chunks
  on its two sides, the file's when one of them is a file.

Chunks with no marker between them are one chunk: of the file among them, of no file when
none reads one, and of all the files jointly when several do (`sed a; sed b` prints both
files with nothing to tell where one ends: FACTS.md's JOINT[a | b]). An `if`/`for`/`while`/
`until`/`case` compound is one chunk of the files its commands read (which branch ran is not
in the output); `NAME=literal` assignments are expanded in the commands after them. Where the
command is otherwise not a plain list (a heredoc, a subshell, a group, a function, `echo -n`,
`echo $x`), the markers cannot be found in order, or there is neither a marker nor a joint
read (and the caller's rule sees a read: `unseen` is false), there is no split (None): the
caller keeps its own rule. FACTS.md §6, §9, §10 and §15 read their scripts so by hand.
"""

from __future__ import annotations

import re
import shlex
from typing import Callable, Optional

_KEYWORDS = frozenset({"then", "do", "done", "fi", "esac", "select",
                       "function", "elif", "else", "{", "}", "(", "((", "[[", "time", "coproc"})
_OPENERS = frozenset({"if", "for", "while", "until", "case"})
_CLOSERS = frozenset({"fi", "done", "esac"})
_BRANCH = re.compile(r"\A(?:(?:then|else|elif|do|!)\s+)+")
_LEADING = re.compile(r"\A(?:(?:if|then|else|elif|do|while|until|!)\s+)+")
_SILENT = frozenset({"cd", "export", "set", "unset", "true", ":", "shopt", "alias", "umask"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_PRINTF = re.compile(r"printf\s+(?:'([^']*)'|\"([^\"$`]*)\")\s*")
_ESCAPE = re.compile(r"\\([nt\\])")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\"}
_TRIES = 256  # alignments tried before giving up (a long output of many blank lines)


def split_output(command: str, output: str, reads: Callable[[str], Optional[str]], unseen: bool = False) -> Optional[list]:
    """(owners, text) pieces adding up to `output`, or None when the rule does not apply (no
    marker and no joint read, unless `unseen`: the caller's own rule finds no read in it).
    `reads(simple_command)` is the path a simple command reads, or None; `owners` is a tuple of
    (path, where in `command` its reading command starts): none for a marker or a file-less
    chunk, one for a file's, several for a joint read."""
    segments = _segments(command, reads)
    if segments is None:
        return None
    if not unseen and not any(kind == "echo" or len(seg[0]) > 1 for kind, *seg in segments):
        return None  # one read and no marker: the caller's rule (`unseen`: its rule sees no read there)
    padded = not output.endswith("\n")  # Claude Code drops a result's last newline
    found = _align(segments, output + "\n" if padded else output)
    if found is None:
        return None
    pieces = _joined(found)
    if padded:
        owners, text = pieces[-1]
        pieces[-1] = (owners, text[:-1])
    return [(owners, text) for owners, text in pieces if text]


def _segments(command: str, reads) -> Optional[list]:
    """("echo", text) and ("chunk", owners) in order, adjacent markers joined, adjacent chunks
    joined (their owners together); None when the command is not a plain list."""
    simple = simple_commands(command)
    if simple is None:
        return None
    segments: list = []
    known: dict = {}  # NAME=literal assignments so far: `cat "$D/x"` reads D's x
    depth, inner = 0, ()  # inside an if/for/while/case: the files its commands read
    for text, at in simple:
        text = _expanded(text, known)
        word = text.split(None, 1)[0]
        if depth or word in _OPENERS:
            body = _LEADING.sub("", text)
            opens = _BRANCH.sub("", text).split(None, 1)[0] in _OPENERS
            depth += opens - (word in _CLOSERS)
            path = reads(body) if body and body.split(None, 1)[0] not in _CLOSERS else None
            if path and "$" not in path:
                inner = _together(inner, ((path, at),))
            if depth == 0:  # a compound prints what its commands print, which of them ran unknown
                segment, inner = ("chunk", inner), ()
                segments = _appended(segments, segment)
            continue
        if _ASSIGNMENT.match(word) and "$(" not in text and "`" not in text:
            _assign(text, known)
            continue
        if word in _SILENT:
            continue
        if word in _KEYWORDS:
            return None
        if word in ("echo", "printf"):
            line = echo_line(text) if word == "echo" else printf_text(text)
            if line is None:
                return None
            segment = ("echo", line)
        else:
            path = reads(text)
            segment = ("chunk", ((path, at),) if path else ())
        segments = _appended(segments, segment)
    return None if depth else segments


def _appended(segments: list, segment: tuple) -> list:
    """`segments` with `segment` after them: a marker after a marker, or a chunk after a chunk,
    joins it."""
    if segments and segments[-1][0] == segment[0] == "echo":
        segments[-1] = ("echo", segments[-1][1] + segment[1])
    elif segments and segments[-1][0] == segment[0] == "chunk":
        segments[-1] = ("chunk", _together(segments[-1][1], segment[1]))
    else:
        segments.append(segment)
    return segments


def _together(first: tuple, second: tuple) -> tuple:
    """The owners of two chunks printed with nothing between: each file once, in order."""
    seen = {path for path, _ in first}
    return first + tuple((path, at) for path, at in second if path not in seen)


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


def printf_text(text: str) -> Optional[str]:
    """What `printf 'FORMAT'` prints when FORMAT is one quoted literal (escapes `\\n`, `\\t`,
    `\\\\` and `%%` only, no argument), or None."""
    match = _PRINTF.fullmatch(text)
    if match is None:
        return None
    form = match.group(1) if match.group(1) is not None else match.group(2)
    if "%" in form.replace("%%", "") or re.search(r"\\[^nt\\]|\\\Z", form):
        return None
    return _ESCAPE.sub(lambda m: _ESCAPES[m.group(1)], form).replace("%%", "%")


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
    """The segments laid on `output`: a list of (owners, text, is_marker), or None."""
    budget = [_TRIES]

    def walk(index: int, position: int, chunk: Optional[tuple]) -> Optional[list]:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if index == len(segments):
            if chunk is not None:
                return [(chunk, output[position:], False)]
            return [] if position == len(output) else None
        segment = segments[index]
        if segment[0] == "chunk":
            return walk(index + 1, position, segment[1])
        line = segment[1]
        after = segments[index + 1][1] if index + 1 < len(segments) else None
        for at in _places(output, line, position, chunk, after):
            rest = walk(index + 1, at + len(line), None)
            if rest is not None:
                head = [(chunk, output[position:at], False)] if chunk is not None else []
                return head + [((), line, True)] + rest
        if chunk is None or after is None:
            return None
        # Not at a line start (a file with no last newline: `}--- next ---`): the chunks on its
        # two sides and the marker are one chunk.
        return walk(index + 2, position, _together(chunk, after))

    return walk(0, 0, None)


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
    if chunk and not after:
        places.reverse()
    return places


def _paths(owners: tuple) -> tuple:
    return tuple(path for path, _ in owners)


def _joined(found: list) -> list:
    """(owners, text) pieces: a marker between two chunks of the same owners joins them."""
    pieces: list = []
    for owners, text, marker in found:
        if not marker and owners and len(pieces) >= 2 and pieces[-1][2] and _paths(pieces[-2][0]) == _paths(owners):
            between = pieces.pop()[1]
            previous = pieces.pop()
            pieces.append((owners, previous[1] + between + text, False))
        else:
            pieces.append((owners, text, marker))
    return [(owners, text) for owners, text, _ in pieces]
