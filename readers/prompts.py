"""Which user events of a Claude Code interactive log are the user's own prompts.

An interactive log records, as `user` events with a string or text content,
much that nobody typed (issue 29 item 4, docs/transcripts-as-found.md): the
`isMeta` expansion of a slash command and Stop-hook feedback, `Caveat:`
notices, a local command (`/status`, `/exit`: `<command-name>` then its
`<local-command-stdout>`), the compact summary, an interrupt notice, and
the prompts of Task subagents written inline (`isSidechain: true`), Claude Code's
notices of a background task (`<task-notification>`, `"origin": {"kind":
"task-notification"}`) and the user's own `!` shell command with its output
(`<bash-input>`, `<bash-stdout>`, `<bash-stderr>`; issue 41, H2). A slash
command the model answers (`/init`, a custom command) is a prompt; a local one
is told from it by the output that follows it.
"""

from __future__ import annotations

PROMPT, NOT_PROMPT, COMMAND, COMMAND_OUTPUT = "prompt", "not", "command", "command-output"

_NOT_PROMPTS = (
    "Caveat:", "<local-command-caveat>",
    "This session is being continued from a previous conversation",  # the compact summary
    "[Request interrupted by user",
    "<task-notification>",  # a background task's notice (Monitor events, a Bash run in the background)
    "<bash-input>", "<bash-stdout>", "<bash-stderr>",  # the user's own `!` command and its output
)
_COMMAND_OUTPUTS = ("<local-command-stdout>", "<local-command-stderr>")
_COMMANDS = ("<command-name>", "<command-message>")


def first_text(content) -> str:
    """A user event's text: the string, or its first text block's."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                return block["text"]
    return ""


def prompt_kind(event: dict, content) -> str:
    """PROMPT, NOT_PROMPT, COMMAND (a slash command: a prompt unless its output
    follows) or COMMAND_OUTPUT (a local command's output) of a main-thread user
    event that is no tool result."""
    if event.get("isMeta") or event.get("isSidechain") is True or event.get("isCompactSummary"):
        return NOT_PROMPT
    origin = event.get("origin")
    if isinstance(origin, dict) and origin.get("kind") == "task-notification":
        return NOT_PROMPT
    text = first_text(content).lstrip()
    if text.startswith(_COMMAND_OUTPUTS):
        return COMMAND_OUTPUT
    if text.startswith(_NOT_PROMPTS):
        return NOT_PROMPT
    if text.startswith(_COMMANDS):
        return COMMAND
    return PROMPT
