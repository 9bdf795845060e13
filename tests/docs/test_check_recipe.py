"""docs/check.md's GitHub Actions workflow runs: every step that needs no network, executed.

The workflow is read from the document as it is. Its steps that reach the
network (the checkouts and setups, npm, the clone, the model) are checked for
what they must do and not run: citeledger installed from its checkout, not
from PyPI; Claude Code installed; the key passed from a secret; the explore
tool allowed in -p mode. The install from a checkout is the packaging tests'
own (the shared `installed_env`: `pip install` of a copy of this checkout into
a fresh environment). Every other `run:` step is executed by bash as a GitHub
runner executes it (`bash -eo pipefail`), in a scratch workspace holding the
three files the document says are committed in eval/, with the shipped real
run of ab-express (run-new-1 and its sidecar) in place of the model's run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "docs" / "examples" / "check"
AB = REPO / "tests" / "fixtures" / "pass" / "cg22" / "ab-express"
STALE = REPO / "tests" / "fixtures" / "real"
COMMITTED = {"gate.json": EXAMPLES / "express.json", "corpus.yaml": EXAMPLES / "ci-corpus.yaml",
             "questions.txt": EXAMPLES / "questions.txt"}
NETWORK = ("npm ", "git clone", "claude ")


def workflow() -> dict:
    text = (REPO / "docs" / "check.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(# \.github/workflows/explore-gate\.yml\n.*?)```", text, re.S).group(1)
    return yaml.safe_load(block)


def steps() -> list[dict]:
    return workflow()["jobs"]["gate"]["steps"]


def named(part: str) -> dict:
    return next(s for s in steps() if part in s.get("run", ""))


def test_citeledger_is_installed_from_its_checkout_not_pypi():
    checkout = next(s for s in steps() if s.get("with", {}).get("repository", "").startswith("${{ env.CITELEDGER"))
    install = named("pip install")
    assert install["run"] == f"python -m pip install ./{checkout['with']['path']}"
    assert "CITELEDGER_REPOSITORY" in workflow()["env"]
    assert not any(re.search(r"pip install (-\S+ )*citeledger\b", s.get("run", "")) for s in steps())


def test_claude_code_is_installed_given_its_key_and_allowed_the_explore_tool():
    assert named("npm install -g")["run"] == "npm install -g @anthropic-ai/claude-code"
    model = named("claude -p")
    assert model["env"]["ANTHROPIC_API_KEY"] == "${{ secrets.ANTHROPIC_API_KEY }}"
    allowed = re.search(r"--allowedTools ([^)\n]*)", model["run"]).group(1).split()
    assert "mcp__codegraph__codegraph_explore" in allowed  # the tool citeledger's default ruleset scores
    assert "--output-format stream-json --verbose" in model["run"] and "--mcp-config" in model["run"]
    assert "eval/questions.txt" in model["run"]


def _workspace(tmp_path: Path, run: Path, sidecar: Path) -> Path:
    """The job's workspace after the steps that need the network: the committed eval/ files,
    and per question of questions.txt the shipped run (and the sidecar the MCP server writes)."""
    work = tmp_path / "workspace"
    (work / "eval").mkdir(parents=True)
    for name, source in COMMITTED.items():
        shutil.copy(source, work / "eval" / name)
    questions = (work / "eval" / "questions.txt").read_text().splitlines()
    for i, _ in enumerate(questions, 1):
        shutil.copy(run, work / "eval" / f"run-new-{i}.jsonl")
    shutil.copy(sidecar, work / "eval" / "explore-new.jsonl")
    return work


def _run_steps(work: Path, env_dir: Path) -> list[tuple[str, int, str]]:
    """(step name, exit status, stderr) of each `run:` step that needs no network, in order."""
    env = {**os.environ, "PATH": f"{env_dir / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "GITHUB_WORKSPACE": str(work), "GITHUB_STEP_SUMMARY": str(work / "summary.md")}
    done = []
    for step in steps():
        script = step.get("run")
        if script is None or "pip install" in script or any(n in script for n in NETWORK):
            continue
        run = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=work, env=env,
                             capture_output=True, text=True)
        done.append((step.get("name", script), run.returncode, run.stderr))
    return done


def test_every_offline_step_runs_and_the_gate_holds_on_a_shipped_run(installed_env, tmp_path):
    work = _workspace(tmp_path, AB / "run-new-1.jsonl", AB / "explore-new.jsonl")
    done = _run_steps(work, installed_env)
    assert [name for name, _, _ in done] == [
        "the MCP server (explore writes its diagnostic sidecar to eval/explore-new.jsonl)", "score", "gate",
        "corpus gate"]
    assert all(status == 0 for _, status, _ in done), done
    mcp = json.loads((work / "eval" / "mcp.json").read_text())["mcpServers"]["codegraph"]
    assert mcp["env"]["CODEGRAPH_EXPLORE_DEBUG"] == str(work / "eval" / "explore-new.jsonl")
    assert json.loads((work / "eval" / "score.json").read_text())["status"] == "scored"
    for report in ("check.xml", "corpus.xml"):
        root = ET.parse(work / "eval" / report).getroot()
        assert root.get("failures") == "0" and int(root.get("tests")) > 0
    assert (work / "summary.md").read_text().count("### citeledger check: PASS") == 2


def test_the_gate_fails_the_job_on_a_drifted_run(installed_env, tmp_path):
    """express-drift's stale index in place of the model's run: the gate step exits 4."""
    work = _workspace(tmp_path, STALE / "stream" / "express-stale.jsonl",
                      STALE / "explore" / "express-drift" / "res-send-stale.debug.json")
    status = {name: code for name, code, _ in _run_steps(work, installed_env)}
    assert status["gate"] == 4 and status["score"] == 0
    failures = ET.parse(work / "eval" / "check.xml").getroot().get("failures")
    assert int(failures) == 10
