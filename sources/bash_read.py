"""The bash_read source: shell commands that read a file, their output charged to it.

Whether a command reads, and which file, is `harness.shell.shell_intent`: the
harness's bashIntent rule, defined once (a heredoc or a redirect is a write,
never a read; `cat`, `sed -n`, `head`, `tail`, `nl`, ... at a command
position with a path argument is a read of that path). A read's whole
output is charged to the path; any other command (a search, a write, a
build) retrieved no file and is no call of this source. What the output holds of
the file is `harness/context.shell_output`'s: a failed read or an output of only the
command's own `echo` lines is no call; a tool notice ("(Bash completed with no
output)") or what another command printed after the read is meta. A script whose `echo`
markers show where each command's output starts is split per command
(`harness/shell_split.py`): each part to the file its command read (an error line's part and
a listing's to no file), the markers meta; several files printed with nothing between
them are charged jointly (`core.source.joint`: `JOINT[a | b]`, never cited).

`tools` names Claude Code's `Bash` and the shell tools of Codex rollouts
(readers/codex.py records their argv as one command line).
"""

from __future__ import annotations

import re

import attrs

from citeledger.core import (DROPPED, NEITHER, READ_KIND, SHELL_TOOLS, ResultSource, ShellIntent, hookimpl, joint,
                             only_errors, shell_intent, shell_output, simple_commands, split_output, tool_notice)


class BashReadSource(ResultSource):
    name = "bash_read"

    @attrs.frozen
    class Options:
        tools: tuple[str, ...] = SHELL_TOOLS
        # The harness's rule counts `2>/dev/null` a write (sufficiency keeps it); a read with its
        # errors silenced still read the file, so this source does not.
        stderr_redirect_writes: bool = False
        # The harness's rule counts a read inside `$(...)`; its output is captured, not printed,
        # so this source does not (issue 41, H1).
        captured_reads: bool = False

    def pieces(self, text, result):
        use = result.use
        command = use.command if use is not None else None
        if command is None:  # no command to read (arguments not JSON): no read; the reader warns once
            return None, ""
        intent = shell_intent(command, self.options.stderr_redirect_writes, self.options.captured_reads)
        if not intent.reads:
            intent = windows_read(command)
        if not tool_notice(text) and text.strip():
            split = split_output(command, text, self._reads, unseen=not intent.reads)
            pieces = [(None if not owners or only_errors(part) else
                       joint([moved(command, at, path) for path, at in owners]), part)
                      for owners, part in split or ()]
            if any(path for path, _ in pieces):  # a script: each part to the command(s) that printed it
                return pieces, ""
        if not intent.reads:  # a search, a write or neither: no file retrieved
            return None, ""
        # What reached the context (harness/context.py): the file's part, the rest meta.
        read_at = max(command.find(intent.path), 0)
        output = shell_output(command, text, read_at)
        if output.notice in DROPPED:  # a failed read, or only the command's own echo lines
            return None, ""
        if output.notice:
            return [(None, text)], ""
        named = _read_args(command, read_at) or [intent.path]
        path = joint([moved(command, read_at, one) for one in named])  # `cat a b c`: the three jointly
        return [(path, output.content)] + ([(None, output.rest)] if output.rest else []), ""

    def _reads(self, simple: str):
        """The path one simple command of a script reads (the same shell rule), or None: a
        read piped through a filter (`cat f | grep x`) printed the lines it kept, a search's
        output; through `head`/`tail`/`nl` a slice of the file, a read."""
        intent = shell_intent(simple, self.options.stderr_redirect_writes, self.options.captured_reads)
        if not intent.reads:
            intent = windows_read(simple)
        if not intent.reads:
            return None
        stages = _PIPE.split(simple[max(simple.find(intent.path), 0):])[1:]
        if any(stage.split()[:1] and stage.split()[0] not in _SLICES for stage in stages):
            return None
        return intent.path


# Windows shells' reads (PowerShell's Get-Content and its alias gc, cmd's type) at a command position
# (or after `powershell -c` / `-Command`), with the path they read (an optional -Path / -LiteralPath first).
_WINDOWS_READ = re.compile(r"(?:^|[;&|(]\s*|\n\s*|-(?:c|Command)\s+[\"']?)(?:Get-Content|gc|type)\s+(?:-(?:Literal)?Path\s+)?"
                           r"(\"[^\"]+\"|'[^']+'|[^\s;&|)]+)", re.IGNORECASE)


def windows_read(command: str) -> ShellIntent:
    """A read by a Windows shell (`Get-Content c:\\x\\y.ts`, `type y.ts`), or NEITHER: no write
    (`>`) in the command, and the path names a file (a `/`, `\\` or `.` in it)."""
    if ">" in command:
        return NEITHER
    found = _WINDOWS_READ.search(command)
    if found is None:
        return NEITHER
    path = found.group(1).strip("'\"")
    if path.startswith("-") or not any(c in path for c in "/\\."):
        return NEITHER
    return ShellIntent(READ_KIND, path.replace("\\", "/"))


def _read_args(command: str, read_at: int):
    """The paths the read at `read_at` names when its command reads several files in one output
    (`cat a b c`, `head -5 a b`), else None."""
    for text, at in simple_commands(command) or ():
        if at <= read_at < at + len(text):
            words = _PIPE.split(text)[0].split()
            if words and words[0] in _CONCATENATES:
                paths = [w.strip("'\"") for w in words[1:] if not w.startswith("-") and not w[:1].isdigit()
                         and ("/" in w or "." in w)]
                return paths if len(set(paths)) > 1 else None
    return None


_CONCATENATES = frozenset({"cat", "bat", "nl", "head", "tail", "more", "less"})
_PIPE = re.compile(r"(?<![|])\|(?![|])")
_SLICES = frozenset({"head", "tail", "nl", "cat", "less", "more"})
_CD = re.compile(r"(?:^|[;&|(]|&&)\s*cd\s+(\"[^\"]+\"|'[^']+'|[^\s;&|)]+)\s*(?:&&|;|\n)")


def moved(command: str, read_at: int, path: str) -> str:
    """`path` as the command named it after a `cd DIR &&` before the read: relative to DIR
    (a relative DIR is the call's working directory's, which `within` resolves)."""
    if path.startswith(("/", "~")) or path[1:3] in (":\\", ":/"):
        return path
    last = None
    for match in _CD.finditer(command, 0, read_at):
        last = match.group(1).strip("'\"")
    if not last or last in ("-", "~"):
        return path
    return last.rstrip("/") + "/" + path


@hookimpl
def citeledger_register_sources(register):
    register(BashReadSource)
