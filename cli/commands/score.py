"""`citeledger score`: one session, the reference's text block or JSON."""

from __future__ import annotations

from citeledger.cli.commands import SUMMARY

from citeledger.core.accountant import score
from citeledger.core.errors import EXIT_OK, UserError
from citeledger.engine.limits import int_text
from citeledger.cli.metrics import measured
from citeledger.cli.formats import add_format_option, check, chosen, write, write_pages
from citeledger.cli.output import write_stdout
from citeledger.cli.commands.common import (
    add_diagnostics_options, add_html_option, add_session_inputs, finish, report_warnings, ruleset_from, session_note,
    session_request,
)
from citeledger.engine.reading import read_session

# What only an option needs (the envelope view, sufficiency, a format) is imported
# when the option is given: a plain one-run `score` loads none of it; what only the
# text block needs (the engine's SessionResult, the retrieval hint) is not loaded for --harness.


def add_parser(sub) -> None:
    p = sub.add_parser(
        "score",
        help=SUMMARY["score"],
        description=(
            "Score one session: stream-json segment FILEs of one run (run-x.jsonl run-x.t2.jsonl ...), "
            "or --session PATH for a Claude Code interactive log (a project directory, its "
            "~/.claude/projects folder, or one .jsonl), or a Codex rollout (rollout-*.jsonl). Files of "
            "different sessions are refused: use `sweep` for several. A FILE is read with the rest of its session: "
            "the segments beside it (run-x.t2.jsonl beside run-x.jsonl), an interactive log's "
            "<session-id>/subagents/; the output names every file read."
        ),
    )
    add_session_inputs(p)
    add_diagnostics_options(p, automatic=False)
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print one JSON object instead of the text block")
    add_format_option(fmt, "score")
    p.add_argument(
        "--envelope", action="store_true",
        help="add the envelope view after the block: every returned file's share of the envelope",
    )
    p.add_argument(
        "--answer", action="append", default=[], metavar="GLOB",
        help="files that make up the true answer (repeatable; implies --envelope; ** any path, "
        "* within a directory, ? as the reference reads it: a regex quantifier): the answer set's share",
    )
    p.add_argument(
        "--sufficiency", action="store_true",
        help="add the reference's explore sufficiency block after the allocation block: each answered "
        "explore call bucketed by the agent's next act in its thread (--json: a `sufficiency` object)",
    )
    p.add_argument(
        "--harness", action="store_true",
        help="print codegraph's harness report of the run, byte for byte as `node parse-run.mjs FILE...` prints it: "
        "tools exposed, CLI contamination, tool calls, result, residual context occupancy, sufficiency, allocation "
        "(and the envelope view with --envelope/--answer); exactly the FILEs given are read, in their order. "
        "With --session PATH: the interactive session's report as `node parse-session.mjs PROJECT` prints it "
        "(tool tallies of the main thread and the subagents, VERDICT, TOKENS, sufficiency, allocation)",
    )
    p.add_argument("--brief", action="store_true", help="with --harness: leave out the numbered list of tool calls")
    p.add_argument(
        "--window-tokens", type=int_text, metavar="N",
        help="the context window occupancy is a share of, an integer from 1,000 to 10,000,000 "
        "(default: CG_WINDOW_TOKENS if set, else 200,000; 1000000 for a 1M-window host)",
    )
    add_html_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    if args.harness:
        return run_harness(args)
    if args.brief:
        raise UserError("--brief: only with --harness (it shortens the harness report)")
    import attrs

    from citeledger.cli.hints import hint_retrieval
    from citeledger.cli.sidecars import session_extras
    from citeledger.engine.session import assemble

    fmt = chosen(args)
    check(fmt, "score")  # an unknown format is a usage error before anything is read
    request = session_request(args, "score", metrics=fmt != "text" or bool(args.html))  # the text shows none
    result = assemble(request)
    transcript, scored = result.transcript, result.score
    session_note(args.session, transcript)
    extra_text, extra_data, extra_warnings = session_extras(args, transcript, scored, request.ruleset)
    result = attrs.evolve(result, extra_text=extra_text, extra_data=extra_data)
    write_pages(result, args.html)
    write(result, fmt)
    if result.view:
        from citeledger.report.envelope import unmatched_warnings

        extra_warnings = (*extra_warnings, *unmatched_warnings(result.view, transcript.files[0] if transcript.files else scored.name))
    status = finish(scored, extra_warnings)
    hint_retrieval(transcript, request.ruleset, scored)
    return status


def run_harness(args) -> int:
    """`score --harness`: the harness's per-run report of exactly the FILEs given.

    Exit status 0 once the report is printed, input warnings or not (on
    stderr): the harness's script exits 0, and a harness script that runs
    under `set -e` swaps one for the other.
    """
    if args.json or args.html or args.format:
        raise UserError("--harness prints the harness's text report: not with --json, --format or --html "
                        "(--json carries occupancy and run)")
    from citeledger.harness.sufficiency import sufficiency
    from citeledger.report.harness import render_harness

    if args.session:
        return run_session_report(args)
    view = None
    if args.envelope or args.answer:
        from citeledger.report.envelope import compile_globs, envelope_view

        matchers = compile_globs(args.answer)
    ruleset = ruleset_from(args)
    transcript = read_session(args.files, args.session, ruleset)
    result = score(transcript, ruleset)
    if args.envelope or args.answer:
        view = envelope_view(result, args.answer, matchers)
    records = measured(transcript, args)
    shown = args.files or transcript.files[:1]  # --session: the session's log, not its subagents' files
    text = render_harness(shown, records["run"], records["occupancy"], result,
                          sufficiency(transcript, ruleset.explore_tool), view, brief=args.brief)
    write_stdout(text)
    # The input's warnings only: a run without an explore call (a without-arm's) is no warning here.
    report_warnings(result.warnings, "--json")
    return EXIT_OK


def run_session_report(args) -> int:
    """`score --harness --session PATH`: parse-session.mjs's report of the session PATH names
    (a log, or the newest log of a project's log directory)."""
    if args.brief or args.envelope or args.answer:
        raise UserError("--brief, --envelope and --answer: not with --harness --session "
                        "(parse-session.mjs's report has no list of calls and no envelope view)")
    from citeledger.harness.session_tally import session_tally
    from citeledger.harness.sufficiency import sufficiency
    from citeledger.report.harness import render_session

    ruleset = ruleset_from(args)
    transcript = read_session(args.files, args.session, ruleset)
    result = score(transcript, ruleset)
    tool = ruleset.explore_tool
    write_stdout(render_session(session_tally(transcript, tool), sufficiency(transcript, tool), result))
    report_warnings(result.warnings, "--json")
    return EXIT_OK
