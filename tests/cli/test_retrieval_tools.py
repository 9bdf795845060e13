"""Any retrieval tool, any benchmark (issue 42): EnterpriseBench's real runs with Sourcegraph's
MCP server, its `sgx` CLI and plain Bash, read in place from ../shared/transcripts (FACTS.md
holds every figure, read by hand); the three-arm compare; a third party's server in YAML only."""

from __future__ import annotations

import json
import re
import shutil
import textwrap
from pathlib import Path

import pytest

from citeledger.cli import main

REPO = Path(__file__).resolve().parents[2]
TRANSCRIPTS = REPO / ".." / "shared" / "transcripts"
BENCH = TRANSCRIPTS / "public-c" / "enterprisebench"
HEADLINE = BENCH / "rryas-headline-v6"
ARM = "dep-traversal-002_{}/agent_trace.jsonl"
PATTERN = "(?P<question>[^/]+)_(?P<arm>mcp_only|cli|baseline)/"
SGX = REPO / "examples" / "rulesets" / "sgx.yaml"


@pytest.fixture(autouse=True)
def _transcripts():
    if not BENCH.is_dir():
        pytest.skip("../shared/transcripts is absent")


def scored(capsys, path, ruleset="retrieval") -> dict:
    main(["score", "--ruleset", str(ruleset), "--json", str(path)])
    return json.loads(capsys.readouterr().out)


def near(value, expected, share=0.10) -> bool:
    return abs(value - expected) <= share * expected


def test_the_mcp_arm_counts_every_sourcegraph_call_with_no_configuration(capsys):
    data = scored(capsys, HEADLINE / ARM.format("mcp_only"))
    assert near(data["envelope"], 49_431) and abs(data["efficiency"] - 0.077) <= 0.03
    assert data["envelope"] == 49_431 and data["used"] == 3_802  # FACTS.md row 8, to the char
    by = {s["source"]: s for s in data["sources"]}
    # 40 calls less the 18 keyword searches that found nothing (not in the envelope, as a failed call)
    assert by["mcp"]["calls"] == 22 and by["mcp"]["envelope"] == 49_431
    assert data["meta_chars"] == 2_442  # the six list_files listings: in the envelope, charged to no file
    files = {f["path"]: f for f in data["files"]}
    # A `# repo – path` section and a read_file's blob URL name repository-qualified paths, which
    # the path rule matches to the answer's `lib/utils.js`.
    assert files["github.com/sg-evals/axios--v0.21.1/lib/utils.js"]["chars"] == 920
    assert files["github.com/sg-evals/axios--v0.21.1/lib/utils.js"]["channel"] == "path"
    assert files["github.com/sg-evals/grafana--v9.5.0/package.json"]["chars"] == 19_704  # read_file, decoded


def test_the_stream_that_ran_out_of_turns_counts_its_sourcegraph_calls(capsys):
    data = scored(capsys, BENCH / "mcp_batch" / "dep-traversal-001_mcp_only" / "agent_stdout.log")
    assert near(data["envelope"], 137_121) and data["envelope"] == 137_121 and data["used"] == 0
    by = {s["source"]: s["envelope"] for s in data["sources"]}
    assert by["mcp"] == 90_540  # list_repos 9,034 + keyword 27,467 + read_file 32,925 + list_files 1,840 + nls 19,274
    # FACTS §3 call 5: a closing `# github.com/sg-evals/lodash--4.17.20 (repo)` match names no file (45)
    keyword = [c for c in data["calls"] if c["source"]["line"] == 15][0]
    assert keyword["envelope"] - sum(f["chars"] for f in keyword["files"]) == 45


def test_one_cat_of_three_scripts_is_charged_to_the_three_jointly(capsys):
    # FACTS.md §4 note: `cat cve_id.sh direct_deps.sh transitive_paths.sh` returns the three
    # concatenated with nothing to tell where one ends: JOINT[...], not the last one named.
    data = scored(capsys, BENCH / "mcp_batch" / "dep-traversal-001_mcp_only" / "agent_trace.jsonl")
    files = {f["path"]: f["chars"] for f in data["files"]}
    names = " | ".join(f".verifiers/{n}.sh" for n in ("cve_id", "direct_deps", "transitive_paths"))
    assert files[f"JOINT[{names}]"] == 2_448
    assert data["envelope"] == 137_121


def test_the_baseline_arm_is_unchanged(capsys):
    data = scored(capsys, HEADLINE / ARM.format("baseline"))
    assert data["envelope"] == 5_777 and data["efficiency"] == 0


def test_written_judges_the_report_the_agent_wrote_and_names_it(capsys):
    data = scored(capsys, HEADLINE / ARM.format("mcp_only"), "written")
    assert abs(data["efficiency"] - 0.643) <= 0.03 and data["used"] == 31_803
    assert data["answer_written"] == ["/workspace/BLAST_RADIUS.md"]
    main(["score", "--ruleset", "written", str(HEADLINE / ARM.format("mcp_only"))])
    assert "answer judged: the final message + what the agent wrote to /workspace/BLAST_RADIUS.md" in capsys.readouterr().out
    assert "answer_written" not in scored(capsys, HEADLINE / ARM.format("mcp_only"))  # retrieval: no new key


def test_written_on_the_baseline_arm_credits_the_reports_files(capsys):
    # FACTS.md §6: 67.0% (3,872 of 5,777). The agent's scripts print echo markers between their
    # commands: `echo "=== axios ==="; ls ...; echo; cat package.json | head -30; echo;
    # echo "=== instruction.md ==="; cat instruction.md` is split at them, as FACTS reads it.
    data = scored(capsys, HEADLINE / ARM.format("baseline"), "written")
    assert data["envelope"] == 5_777 and data["used"] == 3_872
    assert abs(data["efficiency"] - 0.670) <= 0.03
    first, sed = data["calls"][0], data["calls"][1]
    assert {f["path"]: f["chars"] for f in first["files"]} == {"axios/package.json": 889, "instruction.md": 1_616}
    assert first["envelope"] - 889 - 1_616 == 289  # the markers and the listing: no file
    # three `sed -n` ranges of yarn.lock joined by `echo "---"`: the file's, markers and all
    assert {f["path"]: f["chars"] for f in sed["files"]} == {"grafana/yarn.lock": 2_516}


def test_the_cli_arm_with_the_documented_sgx_declaration(capsys, tmp_path):
    data = scored(capsys, HEADLINE / ARM.format("cli"), SGX)
    assert data["envelope"] == 25_590 and abs(data["efficiency"] - 0.809) <= 0.03
    plain = tmp_path / "sgx-retrieval.yaml"
    plain.write_text(SGX.read_text().replace("extends: written", "extends: retrieval"))
    data = scored(capsys, HEADLINE / ARM.format("cli"), plain)
    assert data["envelope"] == 25_590 and abs(data["efficiency"] - 0.551) <= 0.03


def test_the_docs_show_the_sgx_declaration_as_shipped():
    doc = (REPO / "docs" / "your-tool.md").read_text(encoding="utf-8")
    assert SGX.read_text(encoding="utf-8") in doc


def test_a_third_party_declares_its_own_server_in_yaml_only(capsys, tmp_path):
    """A new server ("acme") whose search answers JSON {"text": ...} with `<path>` wrappers and whose
    listing is a listing: declared in a ruleset that extends retrieval, no Python."""
    rules = tmp_path / "acme.yaml"
    rules.write_text(textwrap.dedent("""\
        extends: retrieval
        name: acme
        sources:
          mcp:
            tools:
              acme:
                tool: '^mcp__acme__search$'
                decode: json-text
                shape: [path-wrapper]
                empty: '\\ANothing found'
              acme-tree:
                tool: '^mcp__acme__tree$'
                decode: json-text
                listing: true
        """))
    def use(i, name, text):
        return [{"type": "assistant", "message": {"id": f"m{i}", "content": [
                    {"type": "tool_use", "id": f"t{i}", "name": name, "input": {"q": "x"}}]}},
                {"type": "user", "message": {"content": [
                    {"type": "tool_result", "tool_use_id": f"t{i}", "content": json.dumps({"text": text})}]}}]
    lines = [*use(1, "mcp__acme__search", "<path>src/a.py</path>\n1: import os\n<path>src/b.py</path>\n1: x = 1\n"),
             *use(2, "mcp__acme__search", "Nothing found."),
             *use(3, "mcp__acme__tree", "src/\nsrc/a.py\n"),
             {"type": "result", "subtype": "success", "result": "See src/a.py."}]
    session = tmp_path / "s.jsonl"
    session.write_text("".join(json.dumps(line) + "\n" for line in lines))
    data = scored(capsys, session, rules)
    files = {f["path"]: f["chars"] for f in data["files"]}
    assert files == {"src/a.py": len("<path>src/a.py</path>\n1: import os\n"), "src/b.py": len("<path>src/b.py</path>\n1: x = 1\n")}
    assert data["meta_chars"] == len("src/\nsrc/a.py\n") and len(data["calls"]) == 2  # "Nothing found.": no call
    assert data["used"] == files["src/a.py"]


def test_the_three_arm_compare_gives_each_arms_score(capsys, tmp_path):
    args = ["compare", str(HEADLINE), "--arms", "mcp_only", "cli", "baseline", "--arm-pattern", PATTERN,
            "--ruleset", str(SGX)]
    singles = {arm: scored(capsys, HEADLINE / ARM.format(arm), SGX)["efficiency"] for arm in ("mcp_only", "cli", "baseline")}
    main(args + ["--json"])
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    heads = [r for r in records if r.get("record") == "compare"]
    assert [(h["baseline"], h["new"]) for h in heads] == [("mcp_only", "cli"), ("mcp_only", "baseline")]
    groups = [r for r in records if r.get("record") == "group" and r["group"] == "dep-traversal-002"]
    assert [g["base_median"] for g in groups] == [singles["mcp_only"]] * 2
    assert [g["new_median"] for g in groups] == [singles["cli"], singles["baseline"]]
    main(args)
    text = capsys.readouterr().out
    assert "arm mcp_only (baseline) vs arm cli (new)" in text and "arm mcp_only (baseline) vs arm baseline (new)" in text
    assert f"{singles['cli'] * 100:.1f}%" in text
    page = tmp_path / "arms.html"
    main(args + ["--html", str(page)])
    capsys.readouterr()
    for arm in ("cli", "baseline"):
        html = (tmp_path / f"arms-{arm}.html").read_text()
        assert "dep-traversal-002" in html and f"{singles[arm] * 100:.1f}%" in html
    every = page.read_text()  # PATH itself: the three arms side by side, a row per question
    row = every[every.index('<tr data-group="dep-traversal-002">'):]
    row = row[:row.index("</tr>")]
    shown = [f"{singles[arm] * 100:.1f}%" for arm in ("mcp_only", "cli", "baseline")]
    assert [row.index(s) for s in shown] == sorted(row.index(s) for s in shown)
    assert 'href="arms-cli.html"' in every and 'href="arms-baseline.html"' in every


def _layout(root: Path) -> None:
    """Three questions x two arms, two runs each, from the real sessions (copies in tmp_path)."""
    sessions = {"mcp_only": HEADLINE / ARM.format("mcp_only"), "baseline": HEADLINE / ARM.format("baseline")}
    for question in ("q1", "q2", "q3"):
        for arm, source in sessions.items():
            for run in (1, 2):
                target = root / f"{question}_{arm}" / f"run{run}" / "agent_trace.jsonl"
                target.parent.mkdir(parents=True)
                shutil.copyfile(source, target)
    (root / "q4_mcp_only" / "run1").mkdir(parents=True)  # one-sided: listed, never pooled
    shutil.copyfile(sessions["mcp_only"], root / "q4_mcp_only" / "run1" / "agent_trace.jsonl")
    (root / "notes").mkdir()
    shutil.copyfile(sessions["baseline"], root / "notes" / "agent_trace.jsonl")  # the pattern does not match


def test_arms_are_paired_by_question_with_intervals(capsys, tmp_path):
    _layout(tmp_path)
    code = main(["compare", str(tmp_path), "--arms", "mcp_only", "baseline", "--arm-pattern", PATTERN,
                 "--ruleset", "written", "--json", "--resamples", "200"])
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    groups = {r["group"]: r for r in records if r.get("record") == "group"}
    assert set(groups) == {"q1", "q2", "q3", "q4", "(all)"}
    for q in ("q1", "q2", "q3"):
        assert groups[q]["base_n"] == groups[q]["new_n"] == 2
    assert groups["q4"]["new_n"] == 0
    pooled = groups["(all)"]
    assert pooled["base_n"] == pooled["new_n"] == 6  # q4 has no baseline run: left out of (all)
    assert pooled["difference"] == pytest.approx(3_872 / 5_777 - 31_803 / 49_431)  # FACTS: 67.0% - 64.3%
    assert pooled["ci_low"] == pooled["ci_high"] == pytest.approx(pooled["difference"])  # every run equal
    assert code == 1  # the unmatched session is listed (not scored: exit 1)
    unscored = [r for r in records if r.get("record") == "compare"][0]
    assert unscored["arm_pattern"] == PATTERN


def test_arm_pattern_refuses_a_pattern_without_its_groups(capsys):
    code = main(["compare", str(HEADLINE), "--arms", "a", "b", "--arm-pattern", "(?P<arm>x)"])
    assert code != 0 and "needs the named group(s) question" in capsys.readouterr().err


def test_the_harness_arm_table_by_pattern(capsys):
    main(["compare", str(HEADLINE), "--arms", "mcp_only", "cli", "baseline", "--arm-pattern", PATTERN,
          "--harness", "--ruleset", str(SGX)])
    out = capsys.readouterr().out
    assert re.search(r"mcp_only\s+cli\s+baseline", out)


def test_sweep_labels_every_session_with_arm_and_question(capsys, tmp_path):
    main(["sweep", str(HEADLINE), "--arm-pattern", PATTERN, "--json"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    sessions = [r for r in rows if r.get("record") == "session"]
    assert sorted((r["question"], r["arm"]) for r in sessions) == [
        ("dep-traversal-002", "baseline"), ("dep-traversal-002", "cli"), ("dep-traversal-002", "mcp_only")]
    main(["sweep", str(HEADLINE), "--arm-pattern", PATTERN, "--out", str(tmp_path / "out"), "--quiet"])
    capsys.readouterr()
    lines = (tmp_path / "out" / "sessions.csv").read_text().splitlines()
    head = lines[0].split(",")
    assert head[-2:] == ["arm", "question"] and all(line.endswith(",dep-traversal-002") for line in lines[1:])
