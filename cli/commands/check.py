"""`citeledger check SPEC`: gate a build on codegraph's CG-6 fixtures and the transcript's own numbers.

Exit status: 0 every check holds; 4 a check fails (EXIT_CHECK_FAILED; with
--expect-fail the two swap); 1 every check holds but some input was skipped
(the warnings); 2 a spec or input error, naming the file and key.
"""

from __future__ import annotations

import os
from typing import Optional

from citeledger.cli.commands import SUMMARY
from citeledger.cli.commands.common import (
    add_jobs_options, add_session_inputs, no_sessions, one_ruleset, report_warnings, ruleset_from, session_note,
    swept_status,
)
from citeledger.engine.limits import MAX_RESAMPLES, MAX_SEED, float_text, int_text
from citeledger.cli.formats import add_format_option, check as check_format, chosen, write
from citeledger.core.errors import EXIT_CHECK_FAILED, EXIT_OK, EXIT_WARNINGS, UserError
from citeledger.harness.check_session import ARM_KEYS
from citeledger.harness.check_spec import SpecError, load_spec

NEEDS_TRANSCRIPT = ("efficiencyAtLeast", "lowerBoundAtLeast", "readReturnedShareAtMost", "noContamination", "noRace")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "check",
        help=SUMMARY["check"],
        usage="%(prog)s SPEC [--diagnostics SIDECAR ...] [FILE ... | --session LOG] "
              "[--arms LABEL_A LABEL_B PASS ...] [--corpus PATH ...] [--json | --format NAME] [--junit FILE] "
              "[--step-summary [FILE]] [--expect-fail]",
        description=(
            "Judge a build against SPEC (docs/check.md): codegraph's allocation-fixtures.json as it writes "
            "it (each fixture's assert keys judged on the last report of the --diagnostics sidecars whose "
            "query is the fixture's, with probe-allocation.mjs's rules and wording; mustContain reads the "
            "explore response of the transcript joined to that report), plus a `session:` block of "
            "citeledger's own keys judged on the session given (FILE ... or --session LOG, read as `score` "
            "reads it) and, for maxDrop, on the two arms of a pass (--arms, as `compare --arms` computes it); "
            "a `corpus:` block judged on what `sweep --corpus PATH ...` computes (its slice table). "
            "Exit status: 0 every check holds; 4 a check fails (--expect-fail: 0 when one fails, 4 when "
            "all hold); 1 all hold but some input was skipped (warnings); 2 a spec or input error."
        ),
        epilog="Exit status (docs/cli.md): 0 every check holds; 1 every check holds, with input warnings; "
               "2 usage, spec or input error; 3 internal error; 4 a check fails (--expect-fail inverts 0 and 4).",
    )
    p.add_argument("spec", metavar="SPEC", nargs="?", help="the spec: a .json file (codegraph's "
                   "allocation-fixtures.json shape) or a YAML file")
    add_session_inputs(p)
    p.add_argument("--diagnostics", action="append", default=[], metavar="SIDECAR",
                   help="codegraph's explore diagnostic sidecar (CODEGRAPH_EXPLORE_DEBUG=FILE), repeatable: "
                   "the reports the fixtures are judged on, in the order given")
    p.add_argument("--arms", nargs="+", metavar="LABEL_A LABEL_B PASS",
                   help="for session.maxDrop: the baseline arm, the new arm, then the pass directories holding "
                   "both (as compare --arms)")
    p.add_argument("--corpus", nargs="+", metavar="PATH",
                   help="for the spec's corpus: keys: the transcripts and folders to sweep (as `citeledger sweep "
                   "PATH ...` under --ruleset), whose slice table the keys are judged on")
    p.add_argument("--seed", type=int_text, default=0, metavar="N",
                   help=f"maxDrop's bootstrap seed, 0 to {MAX_SEED} (default: %(default)s)")
    p.add_argument("--resamples", type=int_text, default=10_000, metavar="N",
                   help=f"maxDrop's bootstrap resamples, 1 to {MAX_RESAMPLES:,} (default: %(default)s)")
    p.add_argument("--confidence", type=float_text, default=0.95, metavar="LEVEL",
                   help="maxDrop's interval confidence, between 0 and 1 (default: %(default)s)")
    add_jobs_options(p)
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true",
                     help="print {passed, fixtures: [{id, passed, checks: [{name, pass, detail}]}], session: "
                     "[{key, pass, detail}]} instead of the text")
    add_format_option(fmt, "check")
    p.add_argument("--junit", metavar="FILE",
                   help="also write JUnit XML to FILE (atomically): one testcase per check, a failure with its "
                   "detail line per check that does not hold; the exit status is unchanged")
    p.add_argument("--step-summary", nargs="?", const="", metavar="FILE",
                   help="also append a Markdown summary (the verdict, a table of every check) to FILE; without "
                   "FILE, to $GITHUB_STEP_SUMMARY (GitHub Actions shows it on the run's page)")
    p.add_argument("--expect-fail", action="store_true",
                   help="a spec written to fail: exit 0 when a check fails, 4 when every check holds")
    p.set_defaults(run=run, exclude=[], sufficiency=False, key="parent", intermixed=True)


def _inputs_for(spec, args) -> None:
    """What the spec's session keys need, given before anything is read."""
    given = spec.session.given()
    transcript = bool(args.files or args.session)
    if spec.fixtures and not args.diagnostics:
        raise SpecError(spec.path, "fixtures", f"{len(spec.fixtures)} fixture(s) to judge on a diagnostic sidecar: "
                        "give --diagnostics SIDECAR")
    for key in given:
        if key in NEEDS_TRANSCRIPT and not transcript:
            raise SpecError(spec.path, f"session.{key}", "needs a transcript: give FILE ... or --session LOG")
    for key in given:
        if key in ARM_KEYS and not args.arms:
            raise SpecError(spec.path, f"session.{key}", "needs the arms of a pass: --arms LABEL_A LABEL_B PASS ...")
    if args.arms and not set(ARM_KEYS) & set(given):
        raise UserError(f"--arms: {spec.path} has no session.{', '.join(ARM_KEYS)} to judge on the arms")
    if spec.corpus and not args.corpus:
        raise SpecError(spec.path, f"corpus.{spec.corpus[0].where}", "needs the sessions to sweep: --corpus PATH ...")
    if args.corpus and not spec.corpus:
        raise UserError(f"--corpus: {spec.path} has no corpus: keys to judge on the sweep")
    if args.arms and len(args.arms) < 3:
        raise UserError("--arms takes LABEL_A LABEL_B and at least one PASS directory")


def _matchers(spec) -> dict:
    """Every fixture's globs compiled before anything is read: a bad one is a spec error naming it."""
    from citeledger.report.envelope import GlobError, glob_matcher

    compiled: dict = {}
    for i, fixture in enumerate(spec.fixtures):
        for name, globs in fixture.groups:
            for j, glob in enumerate(globs):
                try:
                    compiled[glob] = glob_matcher(glob, where=f"glob {glob!r}")
                except GlobError as exc:
                    raise SpecError(spec.path, f"fixtures[{i}] ({fixture.id}).groups.{name}[{j}]", str(exc)) from None
    return compiled


def _sidecars(paths, tool) -> tuple[list, list]:
    """The reports of the explore tool `tool` in the sidecars given, and their warnings."""
    from citeledger.harness.diagnostics import read_diagnostics

    reports, warnings = [], []
    for path in paths:
        read, said = read_diagnostics(path, tool)
        reports += read
        warnings += said
    return reports, warnings


def _session(args, ruleset):
    """(transcript, score) of the session given, or Nones."""
    if not (args.files or args.session):
        return None, None
    from citeledger.engine.session import SessionRequest, assemble

    result = assemble(SessionRequest(ruleset=ruleset, files=tuple(args.files), session=args.session))
    session_note(args.session, result.transcript)
    return result.transcript, result.score


def _responses_of(transcript, score, ruleset, reports, sidecars) -> tuple[list, list]:
    """(report, response text, origin) of every explore call joined to a report; the join's warnings."""
    if transcript is None or not reports:
        return [], []
    from citeledger.report.diagnostics import MATCHED, SessionDiagnostics, join_calls, join_warnings

    joins = join_calls(transcript, score, ruleset, reports, sidecars)
    by_origin = {r.origin: r for r in transcript.responses}
    texts = [(j.report, "".join(by_origin[j.origin].blocks), j.origin) for j in joins if j.status == MATCHED]
    said = join_warnings(SessionDiagnostics(session=transcript.files[0] if transcript.files else "", arm="",
                                            sidecars=tuple(sidecars), joins=joins, rows=()))
    return texts, said


def _fixtures(spec, matchers, reports, texts, sidecars) -> list:
    from citeledger.harness.check import choose_report, evaluate, missing, report_index

    results = []
    index = report_index(reports)
    joined = {r: (text, origin) for r, text, origin in texts}  # the last text joined to each (equal) report
    for fixture in spec.fixtures:
        report = choose_report(fixture, reports, index)
        if report is None:
            results.append(missing(fixture, reports, sidecars))
            continue
        text, origin = joined.get(report, (None, None))
        results.append(evaluate(fixture, report, text, matchers.__getitem__, origin))
    return results


def _session_checks(spec, score, transcript, ruleset, groups, labels) -> list:
    from citeledger.harness import check_session as judge

    keys, checks = spec.session, []
    if keys.efficiency_at_least is not None:
        checks.append(judge.efficiency_check(score, keys.efficiency_at_least))
    if keys.lower_bound_at_least is not None:
        checks.append(judge.lower_bound_check(score, keys.lower_bound_at_least))
    if keys.read_returned_share_at_most is not None:
        from citeledger.harness.sufficiency import sufficiency
        from citeledger.report.text import TOOL_NAME

        checks.append(judge.read_returned_check(sufficiency(transcript, ruleset.explore_tool),
                                                keys.read_returned_share_at_most, TOOL_NAME))
    if keys.no_contamination or keys.no_race:
        from citeledger.core import MetricOptions, metrics

        run = metrics()["run"]().measure(transcript, MetricOptions())
        if keys.no_contamination:
            checks.append(judge.contamination_check(run))
        if keys.no_race:
            checks.append(judge.race_check(run))
    for key, value in (("maxDrop", keys.max_drop), ("maxPooledDrop", keys.max_pooled_drop),
                       ("maxSignificantDrop", keys.max_significant_drop)):
        if value is not None:
            checks += judge.max_drop_checks(groups, value, labels, key)
    return checks


def _arm_groups(args, warnings: list) -> tuple[list, tuple]:
    """compare --arms's group rows for the two arms under the passes (its statistics, its seed), from the engine."""
    if not args.arms:
        return [], ()
    from citeledger.cli.progress import progress_bar
    from citeledger.engine.compare import CompareRequest, arm_groups
    from citeledger.rules.compiled import load_many

    labels = (args.arms[0], args.arms[1])
    request = CompareRequest(
        passes=tuple(args.arms[2:]), arms=labels, ruleset=load_many([one_ruleset(args.ruleset, "check")])[0],
        ruleset_named=bool(args.ruleset), seed=args.seed, resamples=args.resamples, confidence=args.confidence,
        exclude=tuple(args.exclude), jobs=args.jobs, window_tokens=getattr(args, "window_tokens", None),
        progress=lambda total, label: progress_bar(total, label, args.quiet),
    )
    return arm_groups(request, warnings), labels


def _corpus_checks(spec, args) -> tuple[list, int]:
    """The corpus keys judged on `sweep`'s own slice table of --corpus, and the sweep's exit status."""
    if not spec.corpus:
        return [], EXIT_OK
    from citeledger.harness.check_corpus import corpus_checks

    names = args.ruleset or []
    result = swept(args.corpus, names[0] if names else None, args.jobs)
    status = swept_status(result)
    arms = {arm: rows[0] for arm, rows in result.arms}
    return list(corpus_checks(spec.corpus, result.slices[0], arms, result.header["rulesets"][0])), status


def swept(paths, ruleset: Optional[str], jobs: int):
    """What `citeledger sweep PATHS --ruleset RULESET -q` computes, with nothing written on stdout
    (its warnings and notes on stderr as ever): `check --corpus` judges the sweep's own numbers,
    its slice tables and, per harness arm (SessionRef.arm), the same tables of that arm's sessions."""
    import contextlib
    from types import SimpleNamespace

    from citeledger.cli.hints import hint_sweep
    from citeledger.cli.sidecars import Diagnosed
    from citeledger.engine.sweep import NullSink, SweepHooks, SweepRequest, run_sweep
    from citeledger.rules.compiled import load_many

    rulesets = tuple(load_many([ruleset] if ruleset else None))
    # sweep's own sidecar defaults: each run's explore-<label>.jsonl beside it, nothing written
    diagnosed = Diagnosed(SimpleNamespace(diagnostics=[], no_diagnostics=False, diagnostics_out=None),
                          rulesets[0], pooled=True, keep=False)

    def finish(result, sink) -> None:
        report_warnings(result.warnings)
        hint_sweep(result.unscored, rulesets)

    def select(refs, found_warnings):
        return refs or no_sessions(list(paths), found_warnings)

    hooks = SweepHooks(diagnosed=diagnosed, select=select, outputs=lambda: contextlib.nullcontext(NullSink()),
                       finish=finish)
    try:
        return run_sweep(SweepRequest(paths=tuple(paths), rulesets=rulesets, jobs=jobs, arm_tables=True), hooks)
    finally:
        diagnosed.close()


def _summary_path(args) -> Optional[str]:
    """Where --step-summary appends (None: not asked); refused before anything is read."""
    if args.step_summary is None:
        return None
    path = args.step_summary or os.environ.get("GITHUB_STEP_SUMMARY", "")
    if not path:
        raise UserError("--step-summary: no FILE given and GITHUB_STEP_SUMMARY is not set")
    return path


def _write_ci(args, summary: Optional[str], result) -> None:
    """The CI forms of the verdict (report/check_ci.py renders, cli/output.py writes)."""
    from citeledger.cli.output import append_text, write_file
    from citeledger.report.check_ci import junit_xml, step_summary

    if args.junit:
        write_file(args.junit, junit_xml(result))
    if summary:
        append_text(summary, step_summary(result))


# What `check` with no SPEC says: what it needs, as the spec's keys decide it.
NEEDS = ("no SPEC given: check judges a spec (docs/check.md): a .json file in codegraph's "
         "allocation-fixtures.json shape or a YAML file; its fixtures need --diagnostics SIDECAR, its "
         "session keys FILE ... or --session LOG (or - for standard input), maxDrop --arms LABEL_A LABEL_B PASS ..., "
         "its corpus keys --corpus PATH ...")


def run(args) -> int:
    if args.spec is None:
        raise UserError(NEEDS)
    summary = _summary_path(args)
    fmt = chosen(args)
    check_format(fmt, "check")  # an unknown format is a usage error before anything is read
    spec = load_spec(args.spec)
    matchers = _matchers(spec)  # the spec's own errors first, then what it needs of the command line
    _inputs_for(spec, args)
    for path in args.arms[2:] if args.arms else ():
        if not os.path.isdir(path):
            raise UserError(f"--arms: {path}: not a directory")
    ruleset = ruleset_from(args)  # its explore tool is the one whose reports and calls count
    reports, warnings = _sidecars(args.diagnostics, ruleset.explore_tool)
    transcript, score = _session(args, ruleset)
    texts, said = _responses_of(transcript, score, ruleset, reports, args.diagnostics)
    warnings += said
    if score is not None:
        warnings += score.warnings
    groups, labels = _arm_groups(args, warnings)
    results = _fixtures(spec, matchers, reports, texts, args.diagnostics)
    session_checks = _session_checks(spec, score, transcript, ruleset, groups, labels)
    corpus, sweep_status = _corpus_checks(spec, args)
    from citeledger.report.results import CheckResult

    result = CheckResult(
        spec=args.spec, fixtures=tuple(results), checks=(*session_checks, *corpus),
        passed=all(r.passed for r in results) and all(c.passed for c in session_checks + corpus),
        expect_fail=args.expect_fail, session_title=_session_title(args, score) if session_checks else "",
        sidecars=tuple(args.diagnostics), inputs=tuple(transcript.files) if transcript is not None else None,
        corpus_paths=tuple(args.corpus or ()),
    )
    write(result, fmt)
    _write_ci(args, summary, result)
    passed = result.passed
    report_warnings(warnings, "--json")
    if passed == args.expect_fail:
        return EXIT_CHECK_FAILED
    if sweep_status not in (EXIT_OK, EXIT_WARNINGS):
        return sweep_status  # an internal error while sweeping (listed by the sweep)
    return EXIT_WARNINGS if warnings or sweep_status == EXIT_WARNINGS else EXIT_OK


def _session_title(args, score) -> str:
    """What the session keys judged, as the text's heading names it."""
    title = f"session {score.name}" if score is not None else "the arms of " + ", ".join(args.arms[2:])
    if score is not None and args.arms:
        title += " and the arms of " + ", ".join(args.arms[2:])
    return title
