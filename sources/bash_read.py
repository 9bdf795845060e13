"""The bash_read source: shell commands that read a file, their output charged to it.

Whether a command reads, and which file, is `harness.shell.shell_intent`: the
harness's bashIntent rule, defined once (a heredoc or a redirect is a write,
never a read; `cat`, `sed -n`, `head`, `tail`, `nl`, ... at a command
position with a path argument is a read of that path). A read's whole
output is charged to the path; any other command (a search, a write, a
build) retrieved no file and is no call of this source.

`tools` names Claude Code's `Bash` and the shell tools of Codex rollouts
(readers/codex.py records their argv as one command line).
"""

from __future__ import annotations

import attrs

from citeledger.core import SHELL_TOOLS, ResultSource, hookimpl, shell_intent


class BashReadSource(ResultSource):
    name = "bash_read"

    @attrs.frozen
    class Options:
        tools: tuple[str, ...] = SHELL_TOOLS
        # The harness's rule counts `2>/dev/null` a write (sufficiency keeps it); a read with its
        # errors silenced still read the file, so this source does not.
        stderr_redirect_writes: bool = False

    def pieces(self, text, result):
        use = result.use
        command = use.command if use is not None else None
        if command is None:  # no command to read (arguments not JSON): no read; the reader warns once
            return None, ""
        intent = shell_intent(command, self.options.stderr_redirect_writes)
        if not intent.reads:  # a search, a write or neither: no file retrieved
            return None, ""
        return [(intent.path, text)], ""


@hookimpl
def citeledger_register_sources(register):
    register(BashReadSource)
