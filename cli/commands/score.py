"""`citeledger score`: one session, the reference's text block or JSON."""

from __future__ import annotations

from citeledger.core.accountant import score
from citeledger.report.envelope import answer_set
from citeledger.core.errors import EXIT_OK, EXIT_WARNINGS
from citeledger.core.jsstr import percent, thousands
from citeledger.report.jsonreport import session_dict
from citeledger.report.text import render_text
from citeledger.core.scores import ratio
from citeledger.report.html import session_page
from citeledger.cli.output import write_file, write_stdout
from citeledger.cli.commands.common import (
    add_html_option, add_session_inputs, added_line, files_added, read_session, report_warnings, ruleset_from,
)
from citeledger.report.jsonreport import json_bytes


def add_parser(sub) -> None:
    p = sub.add_parser(
        "score",
        help="score one session (the reference's text block, or --json)",
        description=(
            "Score one session: stream-json segment FILEs of one run (run-x.jsonl run-x.t2.jsonl ...), "
            "or --session PATH for a Claude Code interactive log (a project directory, its "
            "~/.claude/projects folder, or one .jsonl). A FILE is read with the rest of its session: "
            "the segments beside it (run-x.t2.jsonl beside run-x.jsonl), an interactive log's "
            "<session-id>/subagents/; the output names every file read."
        ),
    )
    add_session_inputs(p)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the text block")
    p.add_argument(
        "--answer", action="append", default=[], metavar="GLOB",
        help="files that make up the true answer (repeatable; ** any path, * within a directory): "
        "adds the envelope view with the answer set's share",
    )
    add_html_option(p)
    p.set_defaults(run=run)


def render_answer_set(result, view) -> str:
    lines = [
        f"Envelope view — answer set ({', '.join(view.globs)}): {len(view.members)}/{len(result.files)} files, "
        f"{percent(view.share)} of {thousands(view.envelope)} chars",
    ]
    for f in result.files:
        mark = "*" if f.path in view.members else " "
        lines.append(f"  {mark} {percent(ratio(f.chars, view.envelope)):>6} {f.chars:>6}  {f.path}")
    return "\n".join(lines) + "\n"


def run(args) -> int:
    ruleset = ruleset_from(args)
    transcript = read_session(args.files, args.session, ruleset, whole=True)
    added = files_added(transcript, args.files)
    result = score(transcript, ruleset)
    view = answer_set(result, args.answer) if args.answer else None
    if args.html:  # the page also says why, as explain does
        write_file(args.html, session_page(session_dict(result, explain=True), result.answer, view))
    if args.json:
        data = session_dict(result)
        if added:  # the partial-session rule read these too; `inputs` lists every file read
            data["added_inputs"] = added
        if view:
            data["answer_set"] = {
                "globs": list(view.globs),
                "chars": view.chars,
                "share": view.share,
                "files": list(view.members),
            }
        write_stdout(json_bytes(data, indent=True) + b"\n")
    else:
        write_stdout(render_text(result) + added_line(added))
        if view:
            write_stdout(render_answer_set(result, view))
    report_warnings(result.warnings, "--json")  # on stderr whatever the format; --json also carries them
    return EXIT_WARNINGS if result.warnings or result.status != "scored" else EXIT_OK
