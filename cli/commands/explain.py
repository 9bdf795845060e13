"""`citeledger explain`: why each returned file was or was not credited."""

from __future__ import annotations

from citeledger.cli.commands import SUMMARY
from citeledger.cli.hints import hint_retrieval

import attrs

from citeledger.cli.formats import add_format_option, check, chosen, write, write_pages
from citeledger.cli.sidecars import session_extras
from citeledger.cli.commands.common import (
    add_diagnostics_options, add_html_option, add_session_inputs, finish, session_note, session_request,
)
from citeledger.engine.session import assemble


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
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print one JSON object (score's, with each file's findings)")
    add_format_option(fmt, "explain")
    p.add_argument(
        "--sufficiency", action="store_true",
        help="add the reference's explore sufficiency block after the allocation block: each answered "
        "explore call bucketed by the agent's next act in its thread (--json: a `sufficiency` object)",
    )
    add_html_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    fmt = chosen(args)
    check(fmt, "explain")
    request = session_request(args, "explain")
    result = assemble(request)
    transcript, scored = result.transcript, result.score
    session_note(args.session, transcript)
    extra_text, extra_data, extra_warnings = session_extras(args, transcript, scored, request.ruleset)
    result = attrs.evolve(result, extra_text=extra_text, extra_data=extra_data)
    write_pages(result, args.html)
    write(result, fmt)
    status = finish(scored, extra_warnings)
    hint_retrieval(transcript, request.ruleset, scored)
    return status
