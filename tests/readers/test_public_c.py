"""Set C's Codex rollouts against FACTS.md (§9, §10), judged as FACTS judges them (the last
answer: `answer.scope: session`) and per turn, read in place (issue 41)."""

from __future__ import annotations

import citeledger
from public_transcripts import public, scored

ROLLOUT = "public-c/gildore-arena/8c8b717f/codex-session.jsonl"


def session_scope(tmp_path):
    rules = tmp_path / "session.yaml"
    rules.write_text("extends: retrieval\nname: retrieval-session\nanswer:\n  scope: session\n")
    return rules


def test_a_codex_rollout_of_62_shell_reads_has_the_facts_envelope():
    score = scored(ROLLOUT)
    assert score.envelope == 410_273  # FACTS §10, to the char (the `if ...; then sed ...; fi` read included)
    assert len(score.calls) == 60  # FACTS: 62 shell reads, 2 of them failed (not in the envelope)


def test_judged_on_its_answers_it_is_within_five_percent_of_the_facts_used(tmp_path):
    score = citeledger.score(public(*ROLLOUT.split("/")), session_scope(tmp_path)).score
    # FACTS judges the last final_answer (268,831); a Codex session's answer joins every turn's
    # final_answer, so the files only earlier turns cited count too.
    assert abs(score.used - 268_831) <= 0.05 * 268_831
