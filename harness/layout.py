"""How codegraph's agent-eval harness lays a pass on disk, and what in it is not a transcript.

A pass directory (e.g. `cg22/ab-express/`) holds both arms side by side:
`run-<label>-<i>[.tN].jsonl` (ab-new-vs-baseline.sh), `run-headless-<label>[.tN].jsonl`
(run-all.sh; bench-readme.sh puts them under `<repo>/run<i>/`), beside files
that are not transcripts: `.err` files, `mcp-<label>.json`, hook files,
`explore-<label>.jsonl` (the CODEGRAPH_EXPLORE_DEBUG sidecar: one diagnostics
report per explore call) and `t-<label>/` copies of the target repository.

The skipping rule (docs/sweep.md "What is not a transcript"):
- a subdirectory that is a checkout (holds one of CHECKOUT_MARKERS) is not
  walked, nor is `node_modules`, nor a `t-*` directory beside `run-*` files or
  `mcp-*.json` (the harness's tree copies, whatever they hold);
- an `explore-*.jsonl` file is a diagnostics sidecar;
- everything else is offered to the readers; what none claims is not a
  transcript. A path given by name is always read or reported, never skipped
  in silence.
"""

from __future__ import annotations

import os
from typing import Optional, Sequence
from citeledger.infra.lazyre import LazyPattern

# Files and folders whose presence makes a directory a source checkout.
CHECKOUT_MARKERS = frozenset({
    ".git", ".hg", ".svn", "package.json", "go.mod", "pyproject.toml", "setup.py", "setup.cfg",
    "Cargo.toml", "pom.xml", "build.gradle", "build.gradle.kts", "Gemfile", "composer.json",
    "mix.exs", "CMakeLists.txt", "deno.json",
})
NEVER_WALKED = frozenset({"node_modules", ".git", ".hg", ".svn", "__pycache__"})
SIDECAR = LazyPattern(r"^explore-.+\.jsonl$")

SEGMENT = LazyPattern(r"^(?P<base>.+?)(?:\.t(?P<turn>\d+))?\.jsonl$")


def segment(path: str) -> tuple[str, int]:
    """(base name, turn) of a segment file: run-x.t2.jsonl -> ("run-x", 2); run-x.jsonl -> ("run-x", 1)."""
    m = SEGMENT.match(os.path.basename(path))
    if not m:
        return os.path.basename(path), 1
    return m["base"], int(m["turn"]) if m["turn"] else 1


# Session base names (a segment file's name without .tN.jsonl).
_HEADLESS = LazyPattern(r"^run-headless-(?P<label>.+?)(?:-(?P<run>\d+))?$")
_RUN = LazyPattern(r"^run-(?P<label>.+)-(?P<run>\d+)$")
_RUN_DIR = LazyPattern(r"^run(?P<run>\d+)$")


def skipped_dir(dirpath: str, dirnames: Sequence[str], filenames: Sequence[str], parent_files: Sequence[str]) -> Optional[str]:
    """Why a subdirectory met in a walk is not walked, or None.

    `dirnames`/`filenames` are its own entries, `parent_files` the file names
    beside it (os.walk gives both, so the rule costs no extra listing).
    """
    name = os.path.basename(dirpath)
    if name in NEVER_WALKED:
        return "tool folder"
    if CHECKOUT_MARKERS.intersection(dirnames) or CHECKOUT_MARKERS.intersection(filenames):
        return "a source checkout"
    if name.startswith("t-") and any(_harness_file(f) for f in parent_files):
        return "the harness's copy of the target repository"
    return None


def _harness_file(name: str) -> bool:
    return (name.startswith("run-") and name.endswith(".jsonl")) or (name.startswith("mcp-") and name.endswith(".json"))


def is_sidecar(path: str) -> bool:
    """The CODEGRAPH_EXPLORE_DEBUG sidecar, explore-<label>.jsonl: diagnostics, not a transcript."""
    return bool(SIDECAR.match(os.path.basename(path)))


def arm_and_run(base: str, dirpath: str = "") -> tuple[Optional[str], Optional[int]]:
    """(arm label, run number) of a harness run from its session base name, else (None, None).

    run-new-10 -> ("new", 10); run-headless-with -> ("with", 1), or the number of
    its `run<i>/` folder (bench-readme.sh's layout); other names -> (None, None).
    """
    m = _HEADLESS.match(base)
    if m:
        folder = _RUN_DIR.match(os.path.basename(os.path.normpath(dirpath))) if dirpath else None
        run = int(m["run"]) if m["run"] else int(folder["run"]) if folder else 1
        return m["label"], run
    m = _RUN.match(base)
    if m:
        return m["label"], int(m["run"])
    return None, None


def arm_label(name: str) -> str:
    """The label of the arm a `compare --arms` name means.

    compare-arms.mjs names run-all.sh's arms `headless-with`/`headless-without`,
    after their files `run-headless-<label>`; arm_and_run never gives a label
    starting with `headless-` (such a file's label is what follows it), so the
    harness's name can only mean that arm.
    """
    return name[len("headless-"):] if name.startswith("headless-") and len(name) > len("headless-") else name


def arm_group(group: str) -> str:
    """The compare group of a harness run: its directory, with bench-readme.sh's `run<i>` folder folded away."""
    head, tail = os.path.split(group)
    if _RUN_DIR.match(tail):
        return head or "."
    return group
