"""Records that cross module boundaries: what a transcript holds once read.

A reader turns files into a `Transcript` (parsing happens once); scoring a
transcript under a ruleset turns it into calls and sections. Everything here is
frozen: a parsed corpus is shared by every ruleset that scores it.
"""

from __future__ import annotations

from typing import Hashable, Optional

import attrs

from citeledger.infra.records import InputWarning, pickle_by_fields  # noqa: F401 (records of a transcript)

frozen = attrs.frozen  # frozen=True, slots=True, auto_attribs


@frozen
class Origin:
    """Where a record came from: file and 1-based line."""

    file: str
    line: int


@frozen
class ToolUse:
    """One tool_use block of any tool, kept so channels and reports can see
    what the agent did besides exploring (a `Read` after an explore, say).

    `order` is the position of its event among every event read, in reading
    order (segments in turn; an interactive log's subagent files after it);
    `thread` is the event's `parent_tool_use_id` (None: the main thread). Only
    the string-valued input fields that something reads are kept.
    """

    name: str
    id: str
    thread: Optional[str]
    origin: Origin
    order: int
    query: Optional[str] = None  # an explore's input.query
    file_path: Optional[str] = None  # Read's input.file_path
    path: Optional[str] = None  # Grep's / Glob's input.path
    pattern: Optional[str] = None  # Grep's / Glob's input.pattern
    # For "what the agent did next" (harness/sufficiency.py):
    key: Hashable = None  # the id as a JavaScript Map key (1 is not "1"), see walker.js_map_key
    message: Hashable = None  # its event's message.id as a key when truthy, else None
    assistant: bool = False  # from an `assistant` event (an interactive log's other events can hold tool_use)
    command: Optional[str] = None  # Bash's input.command
    notebook_path: Optional[str] = None  # NotebookRead's input.notebook_path
    output_mode: Optional[str] = None  # Grep's input.output_mode
    # The harness's numbered list of calls (metrics/run.py):
    subagent_type: Optional[str] = None  # Task's input.subagent_type
    description: Optional[str] = None  # Task's input.description
    task: Optional[str] = None  # a codegraph tool's input.task
    symbol: Optional[str] = None  # a codegraph tool's input.symbol
    # What it wrote to file_path: Write's input.content, Edit's input.new_string (core/answers.py).
    written: Optional[str] = None


@frozen
class ToolResult:
    """One successful tool_result the reading options keep, of any tool: the explore
    tool's (`ReadOptions.explore_tool`: `Transcript.responses`) or one a source of the
    ruleset reads (`ReadOptions.keep`: `Transcript.tool_results`). A transcript read
    for explore responses alone keeps no other.

    `blocks` holds each content item's contribution separately so that the source
    reading it decides how they are joined (the reference joins with nothing).
    """

    name: str  # the tool's name
    blocks: tuple[str, ...]  # one string per content item
    origin: Origin
    use: Optional["ToolUse"] = None  # the tool_use that called it (its input fields), when the reader records it
    cwd: Optional[str] = None  # the session's working directory when it ran, where logged (core.source.within)
    tool_use_id: str = ""  # the id of the call it answers, as a string
    parent_tool_use_id: Optional[str] = None  # its event's thread (None: the main thread)
    tool_use_origin: Optional[Origin] = None  # where the tool_use named it
    order: int = -1  # its event's position in reading order (see ToolUse.order)
    turn: int = 0  # the turn it was returned in (1-based; 0: the reader counts none)
    # What it put in the context when that is no file content (docs/transcripts-as-found.md,
    # "The turn model"): "" content; a notice ("no-output", "unchanged", "error", "listing",
    # "notice"). A source charges a notice as meta under rulesets that read notices.
    notice: str = ""


def explore_queries(tool_uses, responses) -> tuple[Optional[str], ...]:
    """Each response's explore query: the input.query of the last tool_use of
    its id read before it (None when there is none, or no string)."""
    asked: dict[str, list] = {}
    for use in tool_uses:
        asked.setdefault(use.id, []).append(use)
    out = []
    for response in responses:
        found = None
        for use in asked.get(response.tool_use_id, ()):
            if use.order < response.order:
                found = use.query
        out.append(found)
    return tuple(out)


@frozen
class ExploreAnswer:
    """A `user` event's successful tool_result for a tool_use an `assistant`
    event named the explore tool (`ReadOptions.explore_tool`) before it: the response
    text the sufficiency block judges (harness/sufficiency.py), by its tool_use id's key."""

    key: Hashable
    blocks: tuple[str, ...]  # joined with nothing, as for allocation
    origin: Origin


# What an answer candidate is when it is no answer of the model's (`answer.never` in a ruleset):
# a progress note (Codex's `phase: commentary`) or a message the host wrote itself
# (Claude Code's `"model": "<synthetic>"`, `isApiErrorMessage`: "You've hit your limit ...").
COMMENTARY, API_ERROR = "commentary", "api-error"
NOT_ANSWERS = (COMMENTARY, API_ERROR)


@frozen
class ResultText:
    """The string of one `result` event (a headless run's final answer), or one turn's
    answer as a reader of another format gives it (a Codex final_answer message)."""

    text: str
    origin: Origin
    turn: int = 0  # the turn it answers (0: the reader counts none)
    kind: str = ""  # "" the model's answer; COMMENTARY or API_ERROR (see NOT_ANSWERS)
    # A headless run's `result` event: it answers every turn since the previous one (a
    # Stop hook's feedback is a user message of the same run, not a new question).
    segment: bool = False


@frozen
class AssistantText:
    """The text of one main-thread assistant event (one content block's worth).

    `turn` counts user prompts; `after_last_tool_use` is true when no
    tool_use follows it in its turn.
    """

    text: str
    turn: int
    after_last_tool_use: bool
    origin: Origin
    kind: str = ""  # "" the model's text; COMMENTARY or API_ERROR (see NOT_ANSWERS)


@frozen
class Whereabouts:
    """When, where and by which agent a session ran, as its log says (None: the log does not say).

    Each reader fills it from its own format (its `whereabouts(paths)`, reading the
    head of the session's first file); `core.reader.read_session` sets it on the
    transcript, and discovery can ask it before anything is scored (`--since`).
    """

    started: Optional[str] = None  # ISO 8601, the log's first timestamp, as logged
    model: Optional[str] = None  # the first model named
    project: Optional[str] = None  # the first working directory, else the folder the agent filed it under
    agent: Optional[str] = None  # claude, codex, gemini, ...: the agent whose log it is

    def as_dict(self) -> dict:
        return {"started": self.started, "model": self.model, "project": self.project, "agent": self.agent}


@frozen
class Transcript:
    """One session as read, independent of any ruleset."""

    name: str
    files: tuple[str, ...]
    responses: tuple[ToolResult, ...]  # the explore tool's results, in reading order
    results: tuple[ResultText, ...]  # every `result` event's string, in order
    assistant_texts: tuple[AssistantText, ...]
    warnings: tuple[InputWarning, ...]
    # Lines that began with a UTF-8 byte order mark: the reference's
    # JSON.parse fails on them, so a ruleset may treat them as unreadable.
    bom_lines: tuple[Origin, ...] = ()
    reader: str = ""
    # Every tool_use block, any tool, in reading order (readers that record them).
    tool_uses: tuple[ToolUse, ...] = ()
    # Turns as the reader's format counts them (segments, user prompts, turn
    # contexts): 1 is a single-question session.
    turns: int = 1
    # The sufficiency block's inputs: explore answers in reading order, and
    # every thread (None: main) in the order it first appears in an
    # `assistant` event whose content is a list.
    explore_answers: tuple[ExploreAnswer, ...] = ()
    threads: tuple[Optional[str], ...] = ()
    # Results of the tools the reading options keep (`ToolResult`), in reading order.
    tool_results: tuple[ToolResult, ...] = ()
    # What the host logged beside the tool traffic (core/run_log.py): requests and
    # their usage, the prompt's growth, compactions, init tools, result events.
    # None: the reader's format logs none of it.
    run_log: Optional["RunLog"] = None  # noqa: F821 (core.run_log imports this module)
    # When, where and by which agent (Whereabouts): set by core.reader.read_session.
    whereabouts: Whereabouts = Whereabouts()
    # The session's own working directory (its first logged one): every returned path is
    # named from it, whatever `cd` moved the cwd to later (core.source.within). None: none logged.
    cwd: Optional[str] = None
