"""Set A of the real transcripts (../shared/transcripts/public-a, RESULTS.md): the items of the
earlier real-transcript issue, still right on the real files (issue 41)."""

from __future__ import annotations

from public_transcripts import scored, swept

RTCHESS = "public-a/rtchess-codex/exported-session.jsonl"


# D1: a Codex shell read that failed is no retrieval.

def test_a_codex_head_of_a_missing_file_is_not_charged():
    score = scored(RTCHESS)
    assert 1834 not in {c.origin_line for c in score.calls}  # "Exit code: 1 ... No such file or directory"


def test_a_codex_read_that_printed_only_the_shell_profiles_error_charges_no_file():
    # Lines 1449 and 1454: `sed -n '250,320p' ui.js`, exit 0, the output one line of
    # /opt/homebrew's shellenv.sh complaining: no line of ui.js reached the context.
    score = scored(RTCHESS)
    by_line = {c.origin_line: c for c in score.calls}
    for line in (1449, 1454):
        assert by_line[line].files == ()


def test_a_codex_read_after_a_shell_profile_error_charges_the_file_without_the_error_line():
    score = scored(RTCHESS)
    (call,) = [c for c in score.calls if c.origin_line == 250]  # `sed -n '272,340p' app.js`
    assert call.files[0][0] == "app.js"
    assert call.envelope - call.files[0][1] == len("/opt/homebrew/Library/Homebrew/cmd/shellenv.sh: line 18: /bin/ps: Operation not permitted\n")


# D2: a Codex turn answers with its final_answer, never its commentary.

def test_a_codex_rollout_with_one_prompt_is_one_turn_answered_by_its_final_answer():
    score = scored("public-a/localpush-codex/rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl")
    assert len(score.answer) == 38


def test_an_interrupted_codex_rollout_of_only_commentary_has_no_answer():
    score = scored("public-a/localpush-codex/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl")
    assert (score.has_answer, score.answer) == (False, "")


# D3/D4: interactive logs are read as such, their Stop-hook messages no turns.

def test_sweeping_set_a_reads_every_claude_interactive_log_with_its_real_prompts():
    records = {r["session"]: r for r in swept("public-a/claude-reliability")}
    assert {r["reader"] for r in records.values()} == {"claude-interactive"}
    assert {r["turns"] for r in records.values()} == {1}


# D5 (RESULTS.md): Gemini CLI headless stream-json whose harness wrote the prompt first.
GEMINI_HEADLESS = ("010ac575", "49bdd49a", "65829f23", "d00f7a9b")


def test_a_gemini_headless_log_after_the_harness_prompt_line_is_read_as_gemini_with_or_without_its_result_line():
    from citeledger.core.plugins import readers
    from citeledger.corpus import claim, reader_order
    from public_transcripts import public

    for run in GEMINI_HEADLESS:
        path = str(public("public-a", "metaphi-gemini", run, "transcript.jsonl"))
        assert claim(path, reader_order()) == "gemini-stream", run  # not the Claude stream reader, not refused
        assert readers()["gemini-stream"]().claims(path)


def test_a_gemini_headless_read_file_that_returned_nothing_is_no_retrieval():
    # Every read_file of these runs returned "" or "File not found" (status error): nothing reached
    # the context, so the session is no-explore, judged as a Gemini log with its calls seen.
    for run in GEMINI_HEADLESS:
        score = scored(f"public-a/metaphi-gemini/{run}/transcript.jsonl")
        assert (score.status, score.envelope) == ("no-explore", 0), run
        assert not any("Claude" in w.message for w in score.warnings), run


def test_the_harness_prompt_line_before_a_gemini_run_is_no_turn_of_its_own():
    # RESULTS.md rows 27-30: one prompt a run; 010ac575 and 49bdd49a hold a second run appended.
    turns = {run: swept(f"public-a/metaphi-gemini/{run}/transcript.jsonl")[0]["turns"] for run in GEMINI_HEADLESS}
    assert turns == {"010ac575": 2, "49bdd49a": 2, "65829f23": 1, "d00f7a9b": 1}
