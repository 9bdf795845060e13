"""The CG-6 fixture judge, its spec, the spend of a reservation and the session keys.

Expected shares, chars and verdicts are read off the shipped sidecars by hand
(tests/fixtures/real/explore/<tree>/<slug>.debug.json, one report each;
fixtures/DIAGNOSTIC.md has the format): e.g. express-4.21.2/res-send has
lib/response.js share 0.581241 (8,031 final chars of an 8,183 reservation),
lib/router/index.js 0.210321 (2,906), lib/utils.js 0.100166 (1,384), 12,321
source chars in all. The oracle test runs our JavaScript transcription of
codegraph's `evaluate()` (tests/oracle/check_evaluate.mjs) on every report
shipped and asks for the same checks.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import attrs
import pytest

from citeledger.harness.diagnostics import FileDecision, read_diagnostics
from citeledger.harness import check_session as session
from citeledger.harness.check import NO_REPORT, NO_TEXT, choose_report, evaluate, missing
from citeledger.core import js_key_order
from citeledger.harness.check_spec import SpecError, load_spec
from citeledger.harness.spend import MIN_RESERVED, spent, starvation, starved_paths
from citeledger.report.envelope import glob_matcher

REPO = Path(__file__).resolve().parents[2]
REAL = REPO / "tests" / "fixtures" / "real" / "explore"
PASS = REPO / "tests" / "fixtures" / "pass"
ORACLE = REPO / "tests" / "oracle" / "check_evaluate.mjs"
SIDECARS = sorted(REAL.glob("*/*.debug.json")) + sorted(PASS.glob("*/*/explore-*.jsonl"))


def report(slug: str):
    reports, warnings = read_diagnostics(str(REAL / f"{slug}.debug.json"), "codegraph_explore")
    assert not warnings and len(reports) == 1
    return reports[0]


def fixture(tmp_path, assert_, groups=None, **keys):
    """A spec of one fixture written in codegraph's shape, loaded."""
    item = {"id": "f", "title": "t", "groups": groups if groups is not None else {
        "answer": ["lib/response.js", "lib/utils.js"], "incidental": ["lib/router/**"]}, "assert": assert_, **keys}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"fixtures": [item]}))
    return load_spec(str(path)).fixtures[0]


def judged(tmp_path, slug, assert_, text=None, **keys):
    return evaluate(fixture(tmp_path, assert_, **keys), report(slug), text, glob_matcher).checks


def one(checks):
    assert len(checks) == 1
    return checks[0].name, checks[0].passed, checks[0].detail


# ---------------------------------------------------------------- every assert key, both ways


def test_answer_share_at_least(tmp_path):
    # answer = response.js 0.581241 + utils.js 0.100166 = 0.681407 of the envelope
    assert one(judged(tmp_path, "express-4.21.2/res-send", {"answerShareAtLeast": 0.68})) == (
        "answer group takes >= 68.0% of the envelope", True, "answer 68.1% delivered (68.2% allocated)")
    assert one(judged(tmp_path, "express-4.21.2/res-send", {"answerShareAtLeast": 0.69}))[1] is False


def test_answer_share_of_source_at_least(tmp_path):
    # (8,031 + 1,384) of 12,321 source chars = 76.41%
    assert one(judged(tmp_path, "express-4.21.2/res-send", {"answerShareOfSourceAtLeast": 0.76})) == (
        "answer group takes >= 76.0% of DELIVERED SOURCE", True, "answer 9,415 of 12,321 source chars (76.4%)")
    assert one(judged(tmp_path, "express-4.21.2/res-send", {"answerShareOfSourceAtLeast": 0.77}))[1] is False


def test_answer_share_of_source_with_nothing_delivered_is_zero(tmp_path):
    assert one(judged(tmp_path, "express-4.21.2/no-match", {"answerShareOfSourceAtLeast": 0})) == (
        "answer group takes >= 0.0% of DELIVERED SOURCE", True, "answer 0 of 0 source chars (0.0%)")


def test_incidental_share_at_most(tmp_path):
    # lib/router/index.js: 0.210321 delivered, 0.210366 allocated
    assert one(judged(tmp_path, "express-4.21.2/res-send", {"incidentalShareAtMost": 0.25})) == (
        "incidental group takes <= 25.0% of the envelope", True, "incidental 21.0% delivered (21.0% allocated)")
    assert one(judged(tmp_path, "express-4.21.2/res-send", {"incidentalShareAtMost": 0.2}))[1] is False


def test_top_file_group(tmp_path):
    assert one(judged(tmp_path, "express-4.21.2/res-send", {"topFileGroup": "answer"})) == (
        'largest delivered file is in "answer"', True, 'lib/response.js (58.1%, group "answer")')
    # The stale response.js delivered nothing: router/index.js (8,940 chars) is the largest, in no group.
    assert one(judged(tmp_path, "express-drift/res-send-stale", {"topFileGroup": "answer"})) == (
        'largest delivered file is in "answer"', False, 'lib/router/index.js (72.3%, group "incidental")')
    assert one(judged(tmp_path, "express-4.21.2/no-match", {"topFileGroup": "answer"})) == (
        'largest delivered file is in "answer"', False, "no file delivered any source")


def test_an_empty_top_file_group_is_no_assertion(tmp_path):
    """The reference judges topFileGroup only when it is truthy."""
    assert judged(tmp_path, "express-4.21.2/res-send", {"topFileGroup": ""}) == ()


def test_must_deliver_bytes(tmp_path):
    checks = judged(tmp_path, "express-4.21.2/app-listen",
                    {"mustDeliverBytes": ["lib/express.js", "lib/middleware/init.js", "lib/nothing.js"]})
    assert [(c.name, c.passed, c.detail) for c in checks] == [
        ("lib/express.js delivers source", True, "2,764 delivered of 2,764 allocated"),
        # rank 5, cut at maxFiles: allowance 0, never rendered
        ("lib/middleware/init.js delivers source", False, "0 delivered of 0 allocated — never rendered (max-files, rank #5)"),
        ("lib/nothing.js delivers source", False, "not among the ranked candidates"),
    ]


def test_must_deliver_bytes_of_a_stale_file(tmp_path):
    # express-drift: lib/response.js rendered stale-omitted, nothing emitted, no skip reason
    assert one(judged(tmp_path, "express-drift/res-send-stale", {"mustDeliverBytes": ["lib/response.js"]})) == (
        "lib/response.js delivers source", False, "0 delivered of 0 allocated — never rendered (not reached, rank #1)")


def test_must_deliver_bytes_says_when_the_hard_ceiling_dropped_a_section(tmp_path):
    """No shipped report has a `dropped` file (DIAGNOSTIC.md): one with its section cut, by hand."""
    base = report("express-4.21.2/res-send")
    cut = attrs.evolve(base.files[0], render="dropped", final_chars=0, share=0.0)
    checks = evaluate(fixture(tmp_path, {"mustDeliverBytes": ["lib/response.js"]}),
                      attrs.evolve(base, files=(cut, *base.files[1:])), None, glob_matcher).checks
    assert one(checks) == ("lib/response.js delivers source", False,
                           "0 delivered of 8,031 allocated — hard ceiling dropped the whole section")


def test_spend_share_at_least(tmp_path):
    # response.js 8,031 of 8,183 (98.1%); view-render's view.js 3,944 of 7,045 (56.0%)
    assert one(judged(tmp_path, "express-4.21.2/res-send", {"spendShareAtLeast": {"lib/response.js": 0.98}})) == (
        "lib/response.js spends >= 98.0% of its reservation", True, "8,031 delivered of a 8,183 reservation (98.1%)")
    assert one(judged(tmp_path, "express-4.21.2/res-send", {"spendShareAtLeast": {"lib/response.js": 0.99}}))[1] is False
    assert one(judged(tmp_path, "express-4.21.2/view-render", {"spendShareAtLeast": {"lib/view.js": 0.6}})) == (
        "lib/view.js spends >= 60.0% of its reservation", False, "3,944 delivered of a 7,045 reservation (56.0%)")


def test_spend_share_of_a_file_without_a_reservation_fails(tmp_path):
    checks = judged(tmp_path, "express-4.21.2/app-listen",
                    {"spendShareAtLeast": {"lib/middleware/init.js": 0, "lib/nothing.js": 0}})
    assert [(c.passed, c.detail) for c in checks] == [
        (False, "0 delivered of a 0 reservation (0.0%)"), (False, "not among the ranked candidates")]


def test_must_contain_reads_the_response_text(tmp_path):
    # The response carries res.send's definition, and names sendFile in a header but not its body.
    text = (REAL / "express-4.21.2" / "res-send.md").read_text("utf-8")
    checks = judged(tmp_path, "express-4.21.2/res-send",
                    {"mustContain": ["res.send = function send(body)", "res.sendFile = function"]}, text=text)
    assert [(c.name, c.passed, c.detail) for c in checks] == [
        ('response contains "res.send = function send(body)"', True, "present"),
        ('response contains "res.sendFile = function"', False, "absent"),
    ]


def test_must_contain_without_a_joined_response_fails_and_says_why(tmp_path):
    assert one(judged(tmp_path, "express-4.21.2/res-send", {"mustContain": ["res.send"]})) == (
        'response contains "res.send"', False, NO_TEXT)


def test_checks_come_in_the_reference_order(tmp_path):
    keys = {"mustContain": ["x"], "spendShareAtLeast": {"lib/utils.js": 0.5}, "mustDeliverBytes": ["lib/utils.js"],
            "topFileGroup": "answer", "incidentalShareAtMost": 0.5, "answerShareOfSourceAtLeast": 0.5,
            "answerShareAtLeast": 0.5}
    names = [c.name for c in judged(tmp_path, "express-4.21.2/res-send", keys, text="")]
    assert [n.split(" ")[0] + (" SOURCE" if "SOURCE" in n else "") for n in names] == [
        "answer", "answer SOURCE", "incidental", "largest", "lib/utils.js", "lib/utils.js", "response"]


# ---------------------------------------------------------------- groups


def test_the_first_group_with_a_matching_glob_wins_and_the_rest_is_other(tmp_path):
    groups = {"incidental": ["lib/router/**"], "answer": ["lib/**"]}
    result = evaluate(fixture(tmp_path, {}, groups=groups), report("express-4.21.2/res-send"), None, glob_matcher)
    assert dict(result.delivered) == {"answer": 0.581241 + 0.100166, "incidental": 0.210321}
    result = evaluate(fixture(tmp_path, {}, groups={"answer": ["lib/*.js"]}), report("express-4.21.2/res-send"),
                      None, glob_matcher)
    assert dict(result.delivered) == {"answer": 0.581241 + 0.100166, "other": 0.210321}  # * stops at /


def test_a_question_mark_in_a_glob_is_a_quantifier_as_in_the_reference(tmp_path):
    result = evaluate(fixture(tmp_path, {}, groups={"answer": ["lib/respons?e.js"]}),
                      report("express-4.21.2/res-send"), None, glob_matcher)
    assert dict(result.delivered)["answer"] == 0.581241


def test_groups_are_tried_in_javascript_object_order():
    assert js_key_order(["answer", "10", "2", "x", "01"]) == ["2", "10", "answer", "x", "01"]


# ---------------------------------------------------------------- which report


def test_the_last_report_with_the_fixture_query_is_judged(tmp_path):
    reports, _ = read_diagnostics(str(PASS / "cg22" / "ab-express" / "explore-new.jsonl"), "codegraph_explore")
    chosen = choose_report(fixture(tmp_path, {}, query="how does res.send decide the Content-Type and ETag"), reports)
    assert chosen.origin.line == 13  # lines 1, 11 and 13 ask it
    assert choose_report(fixture(tmp_path, {}), reports).origin.line == 14  # no query: the last report


def test_a_fixture_with_no_report_is_named_and_is_not_a_pass(tmp_path):
    f = fixture(tmp_path, {"answerShareAtLeast": 0}, query="how does payroll cycle create payslips?")
    reports, _ = read_diagnostics(str(PASS / "cg22" / "ab-express" / "explore-new.jsonl"), "codegraph_explore")
    assert choose_report(f, reports) is None
    result = missing(f, reports, ["explore-new.jsonl"])
    assert not result.passed and result.report is None
    assert one(result.checks) == (NO_REPORT, False, 'no report has the query "how does payroll cycle create '
                                  'payslips?" (14 report(s) in explore-new.jsonl)')


# ---------------------------------------------------------------- spend and starvation


def test_spend_is_final_chars_over_the_reservation():
    r = report("express-4.21.2/app-listen")
    by_path = {f.path: spent(f) for f in r.files}
    assert by_path["lib/response.js"] == 3868 / 2962
    assert by_path["lib/middleware/init.js"] is None  # allowance 0


def test_the_stale_drift_report_carries_a_starvation_pair():
    # response.js (score 75.2) spent 0 of 8,183 while router/index.js (18, at most half) spent 8,940 of 2,491
    flags = starvation(report("express-drift/res-send-stale").files)
    assert [(f.starved, f.starved_spent, f.starved_reserved, f.overspent, f.overspent_spent, f.overspent_reserved)
            for f in flags] == [("lib/response.js", 0, 8183, "lib/router/index.js", 8940, 2491)]


def test_no_pair_when_the_overspender_scores_more_than_half():
    # view-render: view.js (158.4) spent 3,944 of 7,045 (not under half); application.js overspent
    # 6,864 of 3,900 but scores 79.9, more than half of 158.4: no flag either way
    assert starvation(report("express-4.21.2/view-render").files) == ()


def decision(path, score, allowance, final, render="clusters"):
    return FileDecision(path=path, rank=1, score=score, graph_score=0.0, term_hits=0, flags=(), render=render,
                        skipped=None, clipped=False, allowance=allowance, final_chars=final, share=0.0)


@pytest.mark.parametrize("starved, over, flagged", [
    (decision("a", 100, MIN_RESERVED, 999), decision("b", 50, 1000, 1501), True),
    (decision("a", 100, MIN_RESERVED - 1, 0), decision("b", 50, 1000, 1501), False),  # too small to matter
    (decision("a", 100, MIN_RESERVED, 1000), decision("b", 50, 1000, 1501), False),  # spent half
    (decision("a", 100, MIN_RESERVED, 999), decision("b", 50, 1000, 1500), False),  # not over 1.5x
    (decision("a", 100, MIN_RESERVED, 999), decision("b", 50.1, 1000, 1501), False),  # not at most half the score
    (decision("a", 100, MIN_RESERVED, 999), decision("b", 50, 1000, 1501, render="backref"), False),
    (decision("a", 100, MIN_RESERVED, 999, render=None), decision("b", 50, 1000, 1501), False),
])
def test_the_starvation_thresholds_are_the_reference_ones(starved, over, flagged):
    assert bool(starvation([starved, over])) is flagged
    assert starved_paths([starved, over]) == (frozenset({"a"}) if flagged else frozenset())


# ---------------------------------------------------------------- the oracle


def _oracle_cases():
    """Every shipped report, with fixtures pulling every key both ways (thresholds at 0, 1, the
    report's own numbers), each report's response text where one is shipped beside it."""
    cases = []
    for sidecar in SIDECARS:
        md = sidecar.with_name(sidecar.name.replace(".debug.json", ".md"))
        # A pass's responses are in its transcripts: a text of our own where no .md is shipped.
        text = md.read_text("utf-8") if md.exists() else "res.send = function send(body) {"
        for number, line in enumerate(sidecar.read_text("utf-8").splitlines(), 1):
            raw = json.loads(line)
            paths = [f["path"] for f in raw["files"]]
            for groups in ({"answer": paths[:1], "incidental": ["lib/router/**", "*.go"]},
                           {"incidental": ["**/*.js"], "answer": ["src/**", "lib/respons?e.js"]}, {}):
                for t in (0.0, 0.3, 0.581241, 1.0):
                    want = {"answerShareAtLeast": t, "answerShareOfSourceAtLeast": t, "incidentalShareAtMost": t,
                            "topFileGroup": "answer", "mustDeliverBytes": paths + ["no/such.js"],
                            "spendShareAtLeast": {p: t for p in paths + ["no/such.js"]},
                            "mustContain": ["function", "res.send", "zz-absent", ""]}
                    cases.append(({"id": f"{sidecar.parent.name}/{sidecar.name}:{number}:{len(cases)}", "title": "", "groups": groups, "assert": want},
                                  str(sidecar), number, text))
    return cases


def test_equal_to_the_oracle_on_every_shipped_report(tmp_path):
    cases = _oracle_cases()
    stdin = [{"fixture": f, "report": json.loads(Path(s).read_text("utf-8").splitlines()[n - 1]), "text": t}
             for f, s, n, t in cases]
    done = subprocess.run(["node", str(ORACLE)], input=json.dumps(stdin), capture_output=True, text=True, check=True)
    expected = json.loads(done.stdout)
    fixtures = []
    for start in range(0, len(cases), 400):  # specs under the size limit
        spec = tmp_path / f"spec-{start}.json"
        spec.write_text(json.dumps({"fixtures": [f for f, _, _, _ in cases[start:start + 400]]}, ensure_ascii=False))
        fixtures += load_spec(str(spec)).fixtures
    reports = {str(s): read_diagnostics(str(s), "codegraph_explore")[0] for s in SIDECARS}
    got = [evaluate(f, reports[s][n - 1], t, glob_matcher).checks for f, (_, s, n, t) in zip(fixtures, cases)]
    assert len(got) == len(expected) == 852  # 71 reports (25 real, 46 of the passes) x 3 groupings x 4 thresholds
    for ours, theirs in zip(got, expected):
        assert [(c.name, c.passed, c.detail) for c in ours] == [(c["name"], c["pass"], c["detail"]) for c in theirs["checks"]]
    # Per case: 3 share checks, 1 top file, one delivery and one spend check per file and the
    # missing path, 4 needles.
    assert sum(len(c) for c in got) == sum(10 + 2 * len(case["report"]["files"]) for case in stdin)
    assert {c.passed for checks in got for c in checks} == {True, False}


# ---------------------------------------------------------------- the spec


def write(tmp_path, data, name="spec.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


CODEGRAPH_SHAPE = {
    "$comment": ["fixtures in codegraph's own shape: every key it writes, judged or not"],
    "fixtures": [{
        "id": "payroll-go", "title": "generated CRUD beside a workflow", "kind": "fixture",
        "path": "__tests__/fixtures/payroll-go", "query": "how does payroll cycle create and calculate payslips?",
        "rationale": ["why"], "groups": {"answer": ["internal/usecase/**"], "incidental": ["internal/gen/**"]},
        "assert": {"answerShareAtLeast": 0.55, "incidentalShareAtMost": 0.25, "topFileGroup": "answer",
                   "mustDeliverBytes": ["internal/usecase/payroll/cycle.go"], "$mustContainComment": "why",
                   "mustContain": ["runPayrollCycleAll"], "spendShareAtLeast": {"internal/usecase/payroll/cycle.go": 0.6},
                   "answerShareOfSourceAtLeast": 0.5},
        "baseline": {"measuredOn": "2026-08-03", "delivered": {"x": 0.3}}, "afterCG12": {"verdict": "ALL GATES PASS"},
    }],
}


def test_codegraph_shape_loads_keeping_the_keys_it_does_not_judge(tmp_path):
    spec = load_spec(write(tmp_path, CODEGRAPH_SHAPE))
    (f,) = spec.fixtures
    assert f.ignored == ("kind", "path", "rationale", "baseline", "afterCG12")
    assert f.assertions.answer_share_at_least == 0.55 and f.assertions.must_contain == ("runPayrollCycleAll",)
    assert f.assertions.spend_share_at_least == (("internal/usecase/payroll/cycle.go", 0.6),)
    assert spec.session.given() == ()


def test_a_yaml_spec_with_a_session_block(tmp_path):
    spec = load_spec(write(tmp_path, "fixtures: []\nsession:\n  efficiencyAtLeast: 0.5\n  maxDrop: 0.05\n"
                           "  noRace: false\n  $why: comment\n", "spec.yaml"))
    assert spec.session.given() == ("efficiencyAtLeast", "maxDrop")


@pytest.mark.parametrize("data, key, message", [
    ({"fixtures": [{"id": "a", "assert": {"answerShareAtleast": 0.5}}]}, "fixtures[0] (a).assert.answerShareAtleast",
     "unknown assert key"),
    ({"fixtures": [{"id": "a", "assert": {"answerShareAtLeast": 1.5}}]}, "fixtures[0] (a).assert.answerShareAtLeast",
     "1.5 is out of range (a number from 0 to 1)"),
    ({"fixtures": [{"id": "a", "assert": {"incidentalShareAtMost": "low"}}]},
     "fixtures[0] (a).assert.incidentalShareAtMost", "is a string, not a number"),
    ({"fixtures": [{"id": "a", "assert": {"mustContain": "x"}}]}, "fixtures[0] (a).assert.mustContain",
     "not a list of strings"),
    ({"fixtures": [{"id": "a", "groups": {"answer": "lib/**"}}]}, "fixtures[0] (a).groups.answer", "not a list"),
    ({"fixtures": [{"id": "a"}, {"id": "a"}]}, "fixtures[1].id", "also fixtures[0]'s id"),
    ({"fixtures": [{"title": "no id"}]}, "fixtures[0]", "has no `id`"),
    ({"session": {"efficiency": 0.5}}, "session.efficiency", "unknown session key"),
    ({"session": {"noRace": "yes"}}, "session.noRace", "not true or false"),
    ({"fixtures": {}}, "fixtures", "not a list"),
])
def test_a_bad_spec_names_the_file_and_key(tmp_path, data, key, message):
    path = write(tmp_path, data)
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert str(caught.value).startswith(f"{path}: {key}: ") and message in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("text, message", [("{not json", "not JSON"), ("[1, 2]", "top level is not an object"),
                                           ("{}", "nothing to check")])
def test_a_file_that_is_no_spec(tmp_path, text, message):
    with pytest.raises(SpecError, match=message):
        load_spec(write(tmp_path, text))


# ---------------------------------------------------------------- session keys


ROW = {"group": "g", "base_n": 3, "new_n": 3, "base_median": 0.6, "new_median": 0.5, "difference": -0.1,
       "ci_low": -0.2, "ci_high": -0.05, "confidence": 0.95, "resamples": 100, "seed": 7,
       "base_pooled": 0.6, "new_pooled": 0.58}


def test_max_drop_is_judged_on_the_point_estimate_with_the_interval_beside():
    (dropped,) = session.max_drop_checks([ROW], 0.05, ("base", "new"))
    (held,) = session.max_drop_checks([ROW], 0.11, ("base", "new"))
    assert not dropped.passed and held.passed and held.key == "maxDrop"
    assert dropped.detail == ("median 60.0% (base, 3 runs) -> 50.0% (new, 3 runs): -10.0 pp < -5.0 pp; "
                              "95% CI [-20.0, -5.0] pp (bootstrap 100 resamples, seed 7)")
    one_point = dict(ROW, new_median=0.59, difference=-0.01, ci_low=-0.3, ci_high=0.2)
    (small,) = session.max_drop_checks([one_point], 0.05, ("base", "new"))
    assert small.passed and small.detail.startswith("median 60.0% (base, 3 runs) -> 59.0% (new, 3 runs): -1.0 pp >= -5.0 pp")


def test_the_numbers_beside_a_verdict_never_say_the_opposite():
    """A drop of 5.04 points against 5.0 fails, and prints enough digits to show why."""
    close = dict(ROW, base_median=0.6, new_median=0.6 - 0.0504)
    (check,) = session.max_drop_checks([close], 0.05, ("base", "new"))
    assert not check.passed and ": -5.04 pp < -5.00 pp;" in check.detail
    assert session.shown_pair(-0.05, -0.05, True) == ("-5.0", "-5.0")


def test_max_significant_drop_is_judged_on_the_upper_bound_of_the_interval():
    (held,) = session.max_drop_checks([ROW], 0.05, ("base", "new"), "maxSignificantDrop")
    (dropped,) = session.max_drop_checks([ROW], 0.04, ("base", "new"), "maxSignificantDrop")
    assert held.passed and not dropped.passed and held.key == "maxSignificantDrop"
    assert held.detail == ("median 60.0% (base, 3 runs) -> 50.0% (new, 3 runs): -10.0 pp, 95% CI [-20.0, -5.0] pp, "
                           "upper bound >= -5.0 pp (bootstrap 100 resamples, seed 7)")


def test_max_pooled_drop_reads_the_pooled_efficiencies():
    (check,) = session.max_drop_checks([ROW], 0.05, ("base", "new"), "maxPooledDrop")
    assert check.passed and check.detail == ("pooled 60.0% (base, 3 runs) -> 58.0% (new, 3 runs): -2.0 pp >= -5.0 pp "
                                             "(a ratio of the group's summed chars)")


def test_max_drop_of_a_group_one_arm_has_no_run_of_fails():
    row = {"group": "g", "base_n": 2, "new_n": 0, "base_median": 0.6, "new_median": None, "difference": None,
           "ci_low": None, "ci_high": None, "confidence": 0.95, "resamples": 100, "seed": 0}
    (check,) = session.max_drop_checks([row, dict(row, group="(all)")], 0.05, ("base", "new"))
    assert not check.passed and check.detail == "no scored run of arm new in this group"


def _every_pair(files):
    """probe-file-spend.mjs's findStarvation as it is written: every pair, both loops in order."""
    from citeledger.harness.spend import OVERSPEND_RATIO, SCORE_RATIO, STARVED_SHARE, Starvation, _spender

    spenders = [f for f in files if _spender(f)]
    return tuple(
        Starvation(starved=s.path, starved_score=s.score, starved_reserved=s.allowance, starved_spent=s.final_chars,
                   overspent=o.path, overspent_score=o.score, overspent_reserved=o.allowance,
                   overspent_spent=o.final_chars)
        for s in spenders if not (s.allowance < MIN_RESERVED or s.final_chars >= s.allowance * STARVED_SHARE)
        for o in spenders if not (o.path == s.path or o.final_chars <= o.allowance * OVERSPEND_RATIO)
        and not (o.score * SCORE_RATIO > s.score))


def test_the_listed_pairs_are_the_references_in_its_order_and_the_rest_counted():
    import random
    from types import SimpleNamespace

    from citeledger.harness.spend import starvations

    rng = random.Random(7)
    for trial in range(400):
        unique = trial % 2  # half the reports name each file once, half repeat paths
        files = [SimpleNamespace(path=f"p{i}" if unique else rng.choice("abcdefgh"),
                                 score=rng.choice([1, 2, 3, 5, 8, 10, float("nan")]),
                                 allowance=rng.choice([0, 1000, 4000]), final_chars=rng.choice([0, 1500, 7000]),
                                 render=rng.choice(["full", "backref", None])) for i in range(rng.randrange(14))]
        every = _every_pair(files)
        assert repr(starvations(files, per_file=10**6).flags) == repr(every)  # repr: NaN scores compare equal
        capped = starvations(files, per_file=2)
        assert sum(n for _, n in capped.counts) == len(every)
        if unique:  # each starved file's first two pairs, in the reference's order
            per_file: dict = {}
            for flag in every:
                per_file.setdefault(flag.starved, []).append(flag)
            assert repr(capped.flags) == repr(tuple(f for flags in per_file.values() for f in flags[:2]))
            assert capped.more() == {path: len(flags) - 2 for path, flags in per_file.items() if len(flags) > 2}
