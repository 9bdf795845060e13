"""`citeledger explain`: why each returned file was or was not credited."""

from __future__ import annotations

from citeledger.cli.commands import SUMMARY

from citeledger.core import score
from citeledger.report.explain import render_explain
from citeledger.report.text import added_line
from citeledger.report.jsonreport import json_bytes, session_dict
from citeledger.report.sufficiency import render_sufficiency, sufficiency_dict, with_next_acts
from citeledger.harness.sufficiency import sufficiency
from citeledger.cli.output import write_file, write_stdout
from citeledger.cli.sidecars import add_diagnostics_options, session_extras
from citeledger.cli.commands.common import (
    add_html_option, add_session_inputs, files_added, finish, read_session, ruleset_from,
    session_note,
)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "explain",
        help=SUMMARY["explain"],
        description=(
            "For every file the explore calls returned: its pooled chars, what each channel of the "
            "ruleset found (in rank order) and the guard that decided, e.g. an ambiguity cutoff, a "
            "weak owner losing to a strong one, a bare basename whose extension was shipped. Same "
            "inputs as `score`: stream-json segment FILEs of one session, or --session PATH."
        ),
    )
    add_session_inputs(p)
    add_diagnostics_options(p, automatic=False)
    p.add_argument("--json", action="store_true", help="print one JSON object (score's, with each file's findings)")
    p.add_argument(
        "--sufficiency", action="store_true",
        help="add the reference's explore sufficiency block after the allocation block: each answered "
        "explore call bucketed by the agent's next act in its thread (--json: a `sufficiency` object)",
    )
    add_html_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    ruleset = ruleset_from(args)
    transcript = read_session(args.files, args.session, ruleset, whole=True)
    session_note(args.session, transcript)
    added = files_added(transcript, args.files)
    result = score(transcript, ruleset)
    extra_text, extra_data, extra_warnings = session_extras(args, transcript, result, ruleset)
    judged = sufficiency(transcript) if args.sufficiency else None
    if args.html:
        page = with_next_acts(session_dict(result, explain=True), transcript, judged or sufficiency(transcript))
        from citeledger.report.html import session_page  # here: a run without --html draws no page

        write_file(args.html, session_page(page, result.answer))
    if args.json:
        data = session_dict(result, explain=True)
        if added:  # the partial-session rule read these too; `inputs` lists every file read
            data["added_inputs"] = added
        if judged is not None:
            data["sufficiency"] = sufficiency_dict(judged)
        data.update(extra_data)
        write_stdout(json_bytes(data, indent=True) + b"\n")
    else:
        block = "\n" + render_sufficiency(judged) if judged is not None else ""
        write_stdout(render_explain(result) + added_line(added) + block + extra_text)
    return finish(result, extra_warnings)
