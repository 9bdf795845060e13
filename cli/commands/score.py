"""`citeledger score`: one session, the reference's text block or JSON."""

from __future__ import annotations

from citeledger.cli.commands import SUMMARY

from citeledger.core.accountant import score
from citeledger.core.errors import EXIT_OK, UserError
from citeledger.cli.limits import int_text
from citeledger.report.text import added_line, render_text
from citeledger.cli.output import write_file, write_stdout
from citeledger.cli.sidecars import add_diagnostics_options, session_extras
from citeledger.cli.commands.common import (
    add_html_option, add_session_inputs, files_added, finish, read_session, report_warnings, ruleset_from,
    session_note,
)

# What only an option needs (the envelope view, --json, sufficiency, the page) is
# imported in `run` when the option is given: a plain one-run `score` loads none of it.


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
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the text block")
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
        "(and the envelope view with --envelope/--answer); exactly the FILEs given are read, in their order",
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
    if args.sufficiency or args.html:  # here: a plain score starts without them
        from citeledger.harness.sufficiency import sufficiency
        from citeledger.report.sufficiency import render_sufficiency, sufficiency_dict, with_next_acts
    if args.envelope or args.answer:
        from citeledger.report.envelope import (
            answer_set_dict, compile_globs, envelope_dict, envelope_view, render_envelope, unmatched_warnings,
        )

        matchers = compile_globs(args.answer)  # a bad glob is a usage error before anything is read
    if args.json or args.html:
        from citeledger.report.jsonreport import json_bytes, session_dict
    if args.json:
        from citeledger.cli.metrics import measured, metric_json
    ruleset = ruleset_from(args)
    transcript = read_session(args.files, args.session, ruleset, whole=True)
    session_note(args.session, transcript)
    added = files_added(transcript, args.files)
    result = score(transcript, ruleset)
    view = envelope_view(result, args.answer, matchers) if args.envelope or args.answer else None
    views = {}  # the envelope view and answer set, in --json and on the page alike
    if view:
        views["envelope_view"] = envelope_dict(view)
        if view.globs:
            views["answer_set"] = answer_set_dict(view)
    judged = sufficiency(transcript) if args.sufficiency else None
    if args.html:  # the page also says why, as explain does, and each call's next act
        page = with_next_acts({**session_dict(result, explain=True), **views}, transcript, judged or sufficiency(transcript))
        from citeledger.report.html import session_page  # here: a run without --html draws no page

        write_file(args.html, session_page(page, result.answer))
    extra_text, extra_data, extra_warnings = session_extras(args, transcript, result, ruleset)
    if args.json:
        data = session_dict(result)
        if args.session:
            data["session_path"] = transcript.files[0]
            added = list(transcript.files[1:])  # its subagent logs
        if added:  # the partial-session rule read these too; `inputs` lists every file read
            data["added_inputs"] = added
        data.update(views)
        data.update(metric_json(measured(transcript, args)))
        if judged is not None:
            data["sufficiency"] = sufficiency_dict(judged)
        data.update(extra_data)
        write_stdout(json_bytes(data, indent=True) + b"\n")
    else:
        write_stdout(render_text(result) + added_line(added))
        if judged is not None:  # beside allocation: the two are read together
            write_stdout("\n" + render_sufficiency(judged))
        if view:
            write_stdout("\n" + render_envelope(view))
        if extra_text:
            write_stdout(extra_text)
    if view:
        extra_warnings = (*extra_warnings, *unmatched_warnings(view, transcript.files[0] if transcript.files else result.name))
    return finish(result, extra_warnings)


def run_harness(args) -> int:
    """`score --harness`: the harness's per-run report of exactly the FILEs given.

    Exit status 0 once the report is printed, input warnings or not (on
    stderr): the harness's script exits 0, and a harness script that runs
    under `set -e` swaps one for the other.
    """
    if args.json or args.html:
        raise UserError("--harness prints the harness's text report: not with --json or --html (--json carries occupancy and run)")
    from citeledger.harness.sufficiency import sufficiency
    from citeledger.cli.metrics import measured
    from citeledger.report.harness import render_harness

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
                          sufficiency(transcript), view, brief=args.brief)
    write_stdout(text)
    # The input's warnings only: a run without an explore call (a without-arm's) is no warning here.
    report_warnings(result.warnings, "--json")
    return EXIT_OK
