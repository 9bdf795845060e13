"""Hints, not silence: a session an explore-only ruleset cannot score, whose agent read files
another way, says once how to score it (`--ruleset retrieval`)."""

from __future__ import annotations

import sys

# The shipped ruleset that counts Read, Grep, Glob and shell reads (rulesets/retrieval.yaml).
RETRIEVAL = "retrieval"


def retrieval_calls(transcript, ruleset) -> int:
    """The tool calls of `transcript` whose results the retrieval ruleset reads, when `ruleset`
    reads none of them (else 0: it already counts what they returned)."""
    if ruleset.read_options().keep is not None or ruleset.name == RETRIEVAL:
        return 0
    from citeledger.rules import compiled

    keep = compiled.load(RETRIEVAL).read_options().keep
    return sum(1 for use in transcript.tool_uses if keep is not None and keep(use.name))


def hint_retrieval(transcript, ruleset, scored) -> None:
    """One note on stderr when the session is not scored for want of an explore response but its
    agent made calls the retrieval ruleset scores (a note: the exit status does not change)."""
    if scored.status != "no-explore":
        return
    calls = retrieval_calls(transcript, ruleset)
    if calls:
        print(f"citeledger: note: {calls} Read/Grep/Glob/shell call(s): try --ruleset {RETRIEVAL}", file=sys.stderr)


def hint_sweep(unscored, rulesets) -> None:
    """The sweep's one note: sessions an explore-only ruleset found no explore response in."""
    lacking = [r.name for r in rulesets if r.read_options().keep is None and r.name != RETRIEVAL]
    n = sum(1 for u in unscored if u["status"] == "no-explore" and u["ruleset"] in lacking)
    if n and not any(r.name == RETRIEVAL for r in rulesets):
        print(f"citeledger: note: {n} session(s) with no explore response under {', '.join(lacking)}: "
              f"if their agents read files with Read/Grep/Glob or a shell, try --ruleset {RETRIEVAL}", file=sys.stderr)
