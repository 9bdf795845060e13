"""Start-up: `citeledger --help` and `--version` load no command, report, plot or HTML code,
and a plain `score` draws no page (issue 21: one run must start quickly)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
RUN = ROOT / "tests" / "fixtures" / "real" / "stream" / "express-res-send.jsonl"

# What the child prints: the modules loaded once the command line has run.
PROBE = """
import contextlib, io, json, sys
from citeledger.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps({"out": out.getvalue(), "modules": sorted(sys.modules)}))
"""

HEAVY = ("citeledger.report", "citeledger.cli.commands.", "matplotlib", "numpy", "rich")


def loaded(*args: str) -> tuple[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True, cwd=ROOT)
    data = json.loads(done.stdout.splitlines()[-1])
    return data["out"], data["modules"]


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_load_no_command_or_report_code(flag):
    out, modules = loaded(flag)
    assert out.startswith("usage: citeledger" if flag == "--help" else "citeledger ")
    heavy = [m for m in modules if m.startswith(HEAVY)]
    assert heavy == [], heavy


def test_the_top_level_help_lists_every_command_by_its_summary():
    from citeledger.cli import COMMANDS
    from citeledger.cli.commands import SUMMARY

    out, _ = loaded("--help")
    for name in COMMANDS:
        assert f"{name}" in out and SUMMARY[name] in " ".join(out.split()), name


def test_a_command_loads_its_own_module_only():
    out, modules = loaded("score", str(RUN))
    assert "efficiency" in out.lower() or "%" in out
    commands = [m for m in modules if m.startswith("citeledger.cli.commands.") and m != "citeledger.cli.commands.common"]
    assert commands == ["citeledger.cli.commands.score"], commands
    drawn = [m for m in modules if m.startswith(("citeledger.report.html", "citeledger.report.plot", "matplotlib"))]
    assert drawn == [], drawn
    # Nor what only an option, a sidecar or a URL needs: numpy, rich, the diagnostic join, sufficiency, fsspec.
    unused = ("numpy", "rich", "citeledger.report.diagnostics", "citeledger.harness.diagnostics",
              "citeledger.report.sufficiency", "fsspec")
    assert [m for m in modules if m.startswith(unused)] == []


def test_a_plain_score_imports_only_what_it_uses():
    """A plain `score` needs neither what only an option needs (the envelope view, JSON), nor
    ctypes (keeping freed memory is for the commands that score many sessions)."""
    out, modules = loaded("score", str(RUN))
    assert "efficiency" in out.lower()
    unused = ("citeledger.report.envelope", "citeledger.report.jsonreport", "ctypes")
    assert [m for m in modules if m.startswith(unused)] == []
    assert "citeledger.channels.symbol" in modules  # the built-in plugins still registered


def test_a_plain_score_imports_only_the_plugins_its_ruleset_uses():
    """`default` ranks the path and symbol channels and uses the codegraph_explore source and
    the text format: no other channel, source, metric or format module is imported, and once
    the plugin index is kept (the first run above), the entry points are not scanned."""
    loaded("score", str(RUN))  # the index and the ruleset kept, whatever ran before
    out, modules = loaded("score", str(RUN))
    assert "efficiency" in out.lower()
    plugins = {m for m in modules if m.startswith(("citeledger.channels.", "citeledger.sources.",
                                                   "citeledger.metrics.", "citeledger.report.formats."))}
    assert plugins == {"citeledger.channels.path", "citeledger.channels.symbol",
                       "citeledger.sources.codegraph_explore", "citeledger.sources.sectioned",
                       "citeledger.sources.sectioned.header", "citeledger.sources.sectioned.splitter",
                       "citeledger.report.formats.text"}, sorted(plugins)
    assert "importlib.metadata" not in modules  # no scan of the installed distributions


@pytest.mark.parametrize("command, frozen", [("score", True), ("sweep", False)])
def test_a_one_session_process_leaves_its_objects_out_of_the_collection_at_exit(command, frozen):
    """`citeledger score` (the process's own command line) freezes what it made before the
    interpreter exits, which then walks no object for cycles; a many-session command does not."""
    probe = ("import gc, sys; from citeledger.cli import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print(gc.get_freeze_count(), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe, command, "-q", str(RUN)] if command == "sweep" else
                          [sys.executable, "-c", probe, command, str(RUN)], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout, done.stderr
    assert (int(done.stderr.splitlines()[-1]) > 10_000) == frozen, done.stderr


def test_a_harness_run_loads_no_parser_scan_or_text_block_records():
    """`score --harness --brief RUN`, the harness's per-run call (issue 46): once the kept files
    are there, its plain header lines are read by the grammar's terminals (no lark), the plugin
    index is trusted (no importlib.metadata, hence no email), and nothing only the text block,
    an option or a write needs is imported."""
    loaded("score", "--harness", "--brief", str(RUN))  # the kept files, whatever ran before
    out, modules = loaded("score", "--harness", "--brief", str(RUN))
    assert "Explore allocation" in out
    unused = ("lark", "importlib.metadata", "email", "yaml", "tempfile", "csv", "citeledger.report.results",
              "citeledger.report.envelope", "citeledger.report.tables", "citeledger.engine.session",
              "citeledger.cli.sidecars", "citeledger.cli.hints")
    assert [m for m in modules if m in unused or m.startswith(tuple(u + "." for u in unused))] == []
