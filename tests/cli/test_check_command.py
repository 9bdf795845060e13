"""`citeledger check`: the exit statuses a CI job trusts, the text, the JSON, the session keys.

The runs and sidecars are the shipped ones: tests/fixtures/pass/cg22/ab-express
(run-new-1 asked "how does res.send decide the Content-Type and ETag" once;
explore-new.jsonl holds its report at lines 1, 11 and 13) and
tests/fixtures/real (express-res-send.jsonl carries the response
res-send.debug.json describes). The session numbers are those `score --json`
prints for the same run, read here from its output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeledger.cli import main

REPO = Path(__file__).resolve().parents[2]
AB = REPO / "tests" / "fixtures" / "pass" / "cg22" / "ab-express"
FLASK = REPO / "tests" / "fixtures" / "pass" / "cg22" / "ab-flask"
REAL = REPO / "tests" / "fixtures" / "real"
RUN = AB / "run-new-1.jsonl"
SIDECAR = AB / "explore-new.jsonl"
RES_SEND = "how does res.send decide the Content-Type and ETag"
FAILED = 4  # docs/cli.md: a check does not hold


def cli(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def spec(tmp_path, fixtures=(), session=None, name="spec.json"):
    data = {"fixtures": list(fixtures)}
    if session is not None:
        data["session"] = session
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def res_send(**want):
    return {"id": "res-send", "title": "res.send on express", "query": RES_SEND,
            "groups": {"answer": ["lib/response.js", "lib/utils.js"], "incidental": ["lib/router/**"]}, "assert": want}


# explore-new.jsonl line 13 (1.6.1): response.js 0.581241 + utils.js 0.100166 delivered,
# router/index.js 0.210321; response.js spent 8,031 of its 8,183 reservation.
HOLDS = {"answerShareAtLeast": 0.6, "incidentalShareAtMost": 0.25, "topFileGroup": "answer",
         "mustDeliverBytes": ["lib/response.js"], "spendShareAtLeast": {"lib/response.js": 0.9},
         "mustContain": ["res.send = function send(body)"]}


def test_a_spec_that_holds_exits_0(tmp_path, capsys):
    status, out, err = cli(capsys, "check", spec(tmp_path, [res_send(**HOLDS)]), "--diagnostics", SIDECAR, RUN)
    assert (status, err) == (0, "")
    assert out.count("   PASS  ") == 6 and "FAIL" not in out
    assert "   envelope 13,817 delivered · 13,814 allocated of 13,000 budget (hard ceiling 19,500) [over budget]\n" in out
    assert "   answer        68.2%   68.1%\n   incidental    21.0%   21.0%\n" in out
    assert out.endswith("\nPASS  res-send\n\ncheck: PASS — 6 of 6 check(s) hold\n")


def test_a_spec_that_fails_exits_4_and_says_which_check(tmp_path, capsys):
    path = spec(tmp_path, [res_send(**dict(HOLDS, answerShareAtLeast=0.7))])
    status, out, err = cli(capsys, "check", path, "--diagnostics", SIDECAR, RUN)
    assert (status, err) == (FAILED, "")
    assert ("   FAIL  answer group takes >= 70.0% of the envelope\n"
            "         answer 68.1% delivered (68.2% allocated)\n") in out
    assert out.endswith("\nFAIL  res-send\n\ncheck: FAIL — 5 of 6 check(s) hold\n")


def test_expect_fail_inverts_the_status(tmp_path, capsys):
    failing = spec(tmp_path, [res_send(answerShareAtLeast=0.7)], name="failing.json")
    holding = spec(tmp_path, [res_send(answerShareAtLeast=0.6)], name="holding.json")
    assert cli(capsys, "check", failing, "--diagnostics", SIDECAR, "--expect-fail")[0] == 0
    status, out, _ = cli(capsys, "check", holding, "--diagnostics", SIDECAR, "--expect-fail")
    assert status == FAILED and "all hold: the fixture is fixed, flip the gate" in out


def test_codegraph_shaped_fixtures_without_a_report_here_are_named_and_fail(tmp_path, capsys):
    """codegraph's own fixtures ask about its fixture trees: no shipped sidecar answers them."""
    fixtures = [
        {"id": "payroll-go", "title": "generated CRUD", "kind": "fixture", "path": "__tests__/fixtures/payroll-go",
         "query": "how does payroll cycle create and calculate payslips?", "rationale": ["..."],
         "groups": {"answer": ["internal/usecase/**"], "incidental": ["internal/gen/**"]},
         "assert": {"answerShareAtLeast": 0.55, "$mustContainComment": "...", "mustContain": ["runPayrollCycleAll"]},
         "baseline": {"measuredOn": "2026-08-03"}, "afterCG12": {"verdict": "ALL GATES PASS"}},
        {"id": "self-query", "title": "this repo", "kind": "self", "path": ".",
         "query": "how does explore allocate its output budget across files",
         "groups": {"answer": ["src/mcp/**"]}, "assert": {"topFileGroup": "answer"}, "afterCG26": {}},
    ]
    path = spec(tmp_path, fixtures)
    path.write_text(json.dumps({"$comment": ["codegraph's own"], "fixtures": fixtures}))
    status, out, _ = cli(capsys, "check", path, "--diagnostics", SIDECAR)
    assert status == FAILED
    for fid, query in (("payroll-go", fixtures[0]["query"]), ("self-query", fixtures[1]["query"])):
        assert f'no report has the query "{query}" (14 report(s) in {SIDECAR})' in out
        assert f"\nFAIL  {fid}\n" in out
    status, out, _ = cli(capsys, "check", path, "--diagnostics", SIDECAR, "--json")
    data = json.loads(out)
    assert data["passed"] is False and [f["id"] for f in data["fixtures"]] == ["payroll-go", "self-query"]
    assert all(f["report"] is None and not f["passed"] for f in data["fixtures"])


def test_the_json_shape(tmp_path, capsys):
    path = spec(tmp_path, [res_send(**HOLDS)], session={"efficiencyAtLeast": 0.5})
    status, out, _ = cli(capsys, "check", path, "--diagnostics", SIDECAR, RUN, "--json")
    data = json.loads(out)
    assert status == 0 and data["passed"] is True
    (fixture,) = data["fixtures"]
    assert set(fixture) >= {"id", "passed", "checks"} and fixture["id"] == "res-send"
    assert all(set(c) == {"name", "pass", "detail"} for c in fixture["checks"])
    assert fixture["report"] == f"{SIDECAR}:13" and fixture["response"] == f"{RUN}:3"
    spend = {f["path"]: (f["spent"], f["starved"]) for f in fixture["files"]}
    assert spend["lib/response.js"] == (8031 / 8183, False)
    (key,) = data["session"]
    assert key["key"] == "efficiencyAtLeast" and key["pass"] is True and set(key) >= {"key", "pass", "detail"}


def test_the_text_lists_each_reservation_spent_and_the_starvation_pair(tmp_path, capsys):
    """express-drift: the stale response.js (score 75.2) spent 0 of 8,183 while router/index.js
    (18) spent 8,940 of 2,491."""
    stale = REAL / "explore" / "express-drift" / "res-send-stale.debug.json"
    status, out, _ = cli(capsys, "check", spec(tmp_path, [res_send(topFileGroup="answer")]), "--diagnostics", stale)
    assert status == FAILED
    assert "    1*     75     8,183       0    0.0%   stale-omitted lib/response.js\n" in out
    assert ("   FLAG: lib/response.js (score 75) spent 0/8,183 while lib/router/index.js (score 18) "
            "spent 8,940/2,491\n") in out


def test_must_contain_reads_the_response_joined_to_the_report(tmp_path, capsys):
    side = REAL / "explore" / "express-4.21.2" / "res-send.debug.json"
    run = REAL / "stream" / "express-res-send.jsonl"
    path = spec(tmp_path, [res_send(mustContain=["res.send = function send(body)", "res.sendFile = function"])])
    status, out, _ = cli(capsys, "check", path, "--diagnostics", side, run)
    assert status == FAILED
    assert 'PASS  response contains "res.send = function send(body)"\n         present\n' in out
    assert 'FAIL  response contains "res.sendFile = function"\n         absent\n' in out
    status, out, _ = cli(capsys, "check", path, "--diagnostics", side)  # no transcript: nothing to read
    assert "no explore response of the transcript given was joined to this report" in out


# ---------------------------------------------------------------- session keys against `score`


def scored(capsys, *run):
    status, out, _ = cli(capsys, "score", *run, "--json", "--sufficiency")
    assert status == 0
    return json.loads(out)


@pytest.mark.parametrize("run", [REAL / "stream" / "express-sendfile-2calls.jsonl", RUN])
def test_efficiency_and_lower_bound_are_the_numbers_score_prints(tmp_path, capsys, run):
    numbers = scored(capsys, run)
    eff, low = numbers["efficiency"], numbers["lower_bound"]
    at = spec(tmp_path, session={"efficiencyAtLeast": eff, "lowerBoundAtLeast": low}, name="at.json")
    above = spec(tmp_path, session={"efficiencyAtLeast": min(1, eff + 0.001), "lowerBoundAtLeast": min(1, low + 0.001)},
                 name="above.json")
    status, out, _ = cli(capsys, "check", at, run, "--json")
    data = json.loads(out)
    assert status == 0 and [c["pass"] for c in data["session"]] == [True, True]
    efficiency, lower = data["session"]
    assert efficiency["detail"].startswith(f"efficiency {eff * 100:.1f}%: {numbers['used']:,} of {numbers['envelope']:,} chars")
    assert lower["detail"].startswith(f"{numbers['channels'][0]}-cited alone {low * 100:.1f}%")
    status, out, _ = cli(capsys, "check", above, run, "--json")
    assert status == FAILED and [c["pass"] for c in json.loads(out)["session"]] == [False, False]


def test_read_returned_share_is_the_sufficiency_bucket_score_prints(tmp_path, capsys):
    run = REAL / "stream" / "flask-read-after.jsonl"
    buckets = scored(capsys, run)["sufficiency"]
    share = buckets["counts"]["read_returned"] / buckets["answered"]
    assert share == 0.5  # 1 of its 2 answered calls was followed by a Read of a returned file
    for ceiling, status in ((0.5, 0), (0.49, FAILED)):
        got, out, _ = cli(capsys, "check", spec(tmp_path, session={"readReturnedShareAtMost": ceiling}), run, "--json")
        (check,) = json.loads(out)["session"]
        assert got == status and check["detail"] == ("1 of 2 answered calls (50.0%) were followed by a Read of a "
                                                     "file an explore returned")


def test_a_session_that_is_not_scored_does_not_pass(tmp_path, capsys):
    run = REAL / "stream" / "express-no-explore.jsonl"
    status, out, _ = cli(capsys, "check", spec(tmp_path, session={"efficiencyAtLeast": 0}), run, "--json")
    (check,) = json.loads(out)["session"]
    assert status == FAILED and check["detail"] == "session express-no-explore has no efficiency (no-explore)"


def _group(capsys, *passes, confidence="0.95"):
    """compare --arms's row of the one group (its numbers read from its own JSON)."""
    _, out, _ = cli(capsys, "compare", *passes, "--arms", "baseline", "new", "--json", "-q", "--confidence", confidence)
    (group,) = [r for r in map(json.loads, out.splitlines()) if r.get("record") == "group" and r["group"] != "(all)"]
    return group


def test_a_drop_of_the_median_larger_than_max_drop_fails(tmp_path, capsys):
    """ab-flask's new arm's median fell 19.7 points: maxDrop 0.05 fails (exit 4) on the point
    estimate, however wide the interval printed beside it (it reaches above 0)."""
    group = _group(capsys, FLASK)
    assert group["new_median"] - group["base_median"] < -0.05 < group["ci_high"]
    status, out, _ = cli(capsys, "check", spec(tmp_path, session={"maxDrop": 0.05}), "--arms", "baseline", "new",
                         FLASK, "-q")
    assert status == FAILED
    assert ("   FAIL  arm new's median efficiency falls at most 5.0 pp below arm baseline's (group ab-flask)\n"
            "         median 71.2% (baseline, 6 runs) -> 51.5% (new, 6 runs): -19.7 pp < -5.0 pp; 95% CI [") in out
    assert "FAIL  session maxDrop" in out and "check: FAIL — 0 of 1 check(s) hold" in out


def _small_drop_pass(tmp_path) -> Path:
    """A pass whose arm `new` is two of ab-flask's runs (baseline 5, new 3: median 69.5%) against its
    six baseline runs (median 71.2%): a drop of 1.7 points."""
    made = tmp_path / "small-drop"
    made.mkdir()
    for i in range(1, 7):
        (made / f"run-baseline-{i}.jsonl").write_bytes((FLASK / f"run-baseline-{i}.jsonl").read_bytes())
    (made / "run-new-1.jsonl").write_bytes((FLASK / "run-baseline-5.jsonl").read_bytes())
    (made / "run-new-2.jsonl").write_bytes((FLASK / "run-new-3.jsonl").read_bytes())
    return made


def test_a_drop_smaller_than_max_drop_passes_and_says_so(tmp_path, capsys):
    made = _small_drop_pass(tmp_path)
    group = _group(capsys, made)
    drop = group["new_median"] - group["base_median"]
    assert -0.02 < drop < -0.01
    status, out, _ = cli(capsys, "check", spec(tmp_path, session={"maxDrop": 0.05}), "--arms", "baseline", "new",
                         made, "-q", "--json")
    (check,) = json.loads(out)["session"]
    assert status == 0 and check["pass"] is True
    assert check["detail"].startswith("median 71.2% (baseline, 6 runs) -> 69.5% (new, 2 runs): -1.7 pp >= -5.0 pp; ")


def test_max_significant_drop_keeps_the_interval_rule(tmp_path, capsys):
    """The opt-in old rule: fail only when the interval's upper bound lies below -X."""
    path = spec(tmp_path, session={"maxSignificantDrop": 0.05})
    group = _group(capsys, FLASK)
    status, out, _ = cli(capsys, "check", path, "--arms", "baseline", "new", FLASK, "-q", "--json")
    (check,) = json.loads(out)["session"]
    assert status == 0 and check["pass"] is (group["ci_high"] >= -0.05) is True
    assert check["name"].startswith("arm new's median efficiency is not significantly (95% CI) more than 5.0 pp")
    assert check["detail"].endswith("(bootstrap 10000 resamples, seed 0)")
    # At 10% confidence the interval is narrow around the drop: its upper bound is below -5 points.
    group = _group(capsys, FLASK, confidence="0.1")
    status, out, _ = cli(capsys, "check", path, "--arms", "baseline", "new", FLASK, "-q", "--confidence", "0.1")
    assert group["ci_high"] < -0.05 and status == FAILED and "FAIL  session maxSignificantDrop" in out


def test_max_pooled_drop_is_judged_on_the_pooled_efficiencies(tmp_path, capsys):
    group = _group(capsys, FLASK)
    drop = group["new_pooled"] - group["base_pooled"]
    for bound, expected in ((0.05, FAILED), (0.10, 0)):
        status, out, _ = cli(capsys, "check", spec(tmp_path, session={"maxPooledDrop": bound}), "--arms", "baseline",
                             "new", FLASK, "-q", "--json")
        (check,) = json.loads(out)["session"]
        assert status == expected and check["pass"] is (drop >= -bound)
        assert check["detail"].startswith("pooled 63.8% (baseline, 6 runs) -> 55.3% (new, 6 runs): -8.5 pp ")


# ---------------------------------------------------------------- errors and warnings


@pytest.mark.parametrize("data, argv, message", [
    ({"fixtures": [{"id": "a", "assert": {"answerShareAtleast": 0.5}}]}, [],
     "fixtures[0] (a).assert.answerShareAtleast: unknown assert key"),
    ({"fixtures": [{"id": "a", "groups": {"answer": ["?lib/**"]}}]}, [],
     "fixtures[0] (a).groups.answer[0]: glob '?lib/**': not a valid glob"),
    ({"session": {"efficiencyAtLeast": 0.5}}, [], "session.efficiencyAtLeast: needs a transcript"),
    ({"session": {"maxDrop": 0.05}}, [], "session.maxDrop: needs the arms of a pass"),
])
def test_a_spec_error_is_exit_2_naming_the_file_and_key(tmp_path, capsys, data, argv, message):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(data))
    status, out, err = cli(capsys, "check", path, *argv)
    assert (status, out) == (2, "")
    assert err == f"citeledger: error: {path}: {message}" + err.split(message, 1)[1]
    assert err.count("\n") == 1


def test_a_missing_sidecar_or_spec_is_exit_2(tmp_path, capsys):
    status, _, err = cli(capsys, "check", spec(tmp_path), "--diagnostics", tmp_path / "nope.jsonl")
    assert status == 2 and "nope.jsonl" in err and err.count("\n") == 1
    status, _, err = cli(capsys, "check", tmp_path / "nope.json")
    assert status == 2 and err.startswith(f"citeledger: error: {tmp_path / 'nope.json'}: ")


def test_skipped_input_with_every_check_holding_is_exit_1(tmp_path, capsys):
    """docs/examples/diagnostics/side.jsonl: the send-file report, a killed line, a line that is no report."""
    side = REPO / "docs" / "examples" / "diagnostics" / "side.jsonl"
    fixture = {"id": "send-file", "query": "how does res.sendFile stream a file and handle errors",
               "groups": {"answer": ["lib/response.js"]}, "assert": {"topFileGroup": "answer"}}
    status, out, err = cli(capsys, "check", spec(tmp_path, [fixture]), "--diagnostics", side)
    assert status == 1 and "check: PASS" in out
    assert f"{side}:2: diagnostic line not JSON (truncated), skipped" in err


def test_help_documents_the_exit_statuses(capsys):
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    out = capsys.readouterr().out
    assert "4 a check fails" in " ".join(out.split()) and "--expect-fail" in out


def test_diagnostics_out_csv_gains_spent_and_starved(tmp_path, capsys):
    """score --diagnostics-out on express-stale: response.js spent 0 of 8,183 (starved, in a pair
    with router/index.js's 8,940 of 2,491); utils.js 1,384 of 1,725."""
    import csv

    run = REAL / "stream" / "express-stale.jsonl"
    side = REAL / "explore" / "express-drift" / "res-send-stale.debug.json"
    status, _, _ = cli(capsys, "score", run, "--diagnostics", side, "--diagnostics-out", tmp_path / "d")
    assert status == 0
    rows = list(csv.DictReader((tmp_path / "d" / "diagnostics.csv").open()))
    assert {r["path"]: (r["spent"], r["starved"]) for r in rows} == {
        "lib/response.js": ("0.0", "True"), "lib/utils.js": (str(1384 / 1725), "False"),
        "lib/router/index.js": (str(8940 / 2491), "False")}


def test_fixtures_without_a_sidecar_are_a_usage_error(tmp_path, capsys):
    status, out, err = cli(capsys, "check", spec(tmp_path, [res_send(topFileGroup="answer")]), RUN)
    assert (status, out) == (2, "")
    assert err == (f"citeledger: error: {tmp_path / 'spec.json'}: fixtures: 1 fixture(s) to judge on a diagnostic "
                   "sidecar: give --diagnostics SIDECAR\n")


@pytest.mark.parametrize("case, key, passes", [
    ("race", "noRace", False), ("basic", "noRace", True),
    ("cli-returned", "noContamination", False), ("cli-blocked", "noContamination", True),
])
def test_no_race_and_no_contamination_judged_on_the_run_basics(tmp_path, capsys, case, key, passes):
    from harness_cases import write_case

    files = write_case(tmp_path, case)
    status, out, _ = cli(capsys, "check", spec(tmp_path, session={key: True}), "--json", *files)
    data = json.loads(out)
    (check,) = data["session"]
    assert (check["key"], check["pass"], data["passed"]) == (key, passes, passes)
    assert status == (0 if passes else FAILED)
    if key == "noContamination":  # the case's CLI calls, counted by hand: one invocation each way
        assert check["detail"].startswith("2 codegraph CLI call(s): ")
