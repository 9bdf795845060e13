"""Set B of the real transcripts (../shared/transcripts/public-b, RESULTS.md): each fact
the turn model decides, checked on the file in place (issue 41)."""

from __future__ import annotations

from public_transcripts import calls_by_source, files, scored, swept


def turns_of(relative: str) -> int:
    (record,) = swept(relative)
    return record["turns"]


# H2: user events nobody typed are no prompts.

def test_a_posthog_session_with_74_task_notifications_has_its_15_prompts():
    assert turns_of("public-b/posthog-impact/claude-session.jsonl") == 15


def test_a_user_bang_shell_command_before_the_prompt_is_no_turn():
    assert turns_of("public-b/cloak-squads/claude-session.jsonl") == 1


# H4: a result written before its call is paired by id.

def test_a_read_result_logged_before_its_call_is_charged_to_its_file():
    score = scored("public-b/posthog-impact/claude-session.jsonl")
    assert calls_by_source(score)["read"] == 9
    assert files(score)["personal_project/weave/feedback.md"] == 2409
    assert sum(c.envelope for c in score.calls if c.number in next(s.calls for s in score.sources if s.name == "read")) == 28467
    assert any("written before its call (line 31): paired by id" in w.message for w in score.warnings)


def test_the_default_ruleset_keeps_the_references_unknown_id_warning_for_the_early_result():
    score = scored("public-b/posthog-impact/claude-session.jsonl", "default")
    assert any(w.line == 29 and "unknown tool_use id" in w.message for w in score.warnings)


# H3: a Codex turn cut before its final_answer has no answer.

def test_a_codex_rollout_cut_before_its_final_answer_is_not_scored_for_want_of_an_answer():
    for relative in ("public-b/fundwise/codex-session.jsonl", "public-b/solhawk/codex-session.jsonl"):
        score = scored(relative)
        assert (score.status, score.has_answer, score.answer) == ("no-answer", False, "")


def test_a_codex_second_turn_of_only_commentary_adds_nothing_to_the_first_turns_answer():
    score = scored("public-b/openclaw-agent/codex-session.jsonl")
    assert len(score.answer) == 931
    assert score.envelope == 19033


def test_the_default_ruleset_still_takes_a_cut_codex_turns_last_message_as_its_answer():
    # default keeps every candidate (answer.never: []), as before this issue.
    assert len(scored("public-b/fundwise/codex-session.jsonl", "default").answer) == 260


# H5: a message Claude Code wrote itself is never the answer under retrieval.

def test_a_rate_limit_banner_is_not_the_answer_of_a_session_that_hit_its_limit():
    score = scored("public-b/will-it-rain/claude.jsonl")
    assert "You've hit your limit" not in score.answer
    assert score.answer.endswith(_last_model_text_end())


def _last_model_text_end() -> str:
    import json

    from public_transcripts import public

    with open(public("public-b", "will-it-rain", "claude.jsonl"), encoding="utf-8") as f:
        line = f.read().splitlines()[679]  # line 680: the model's own last text (RESULTS.md #18)
    blocks = json.loads(line)["message"]["content"]
    text = "".join(b["text"] for b in blocks if b.get("type") == "text")
    assert len(text.encode("utf-16-le")) // 2 == 215  # RESULTS.md counts UTF-16 units
    return text


def test_the_default_ruleset_keeps_the_references_answer_the_rate_limit_banner():
    assert scored("public-b/will-it-rain/claude.jsonl", "default").answer == "You've hit your limit · resets 1am (Europe/Paris)"


def test_the_default_ruleset_keeps_the_usage_banner_as_the_answer_of_a_session_out_of_usage():
    score = scored("public-b/lokal/claude-session.jsonl", "default")
    assert score.answer.startswith("You're out of extra usage")


# H1: a read inside $(...) put nothing in the context.

def test_a_skill_preamble_that_reads_its_config_inside_a_substitution_retrieved_nothing():
    for relative in ("public-b/lokal/claude-session.jsonl", "public-b/raze/claude-session.jsonl"):
        score = scored(relative)
        assert (score.status, score.envelope, score.calls) == ("no-explore", 0, ())


def test_a_session_that_read_one_skill_file_after_the_preamble_has_that_one_file():
    score = scored("public-b/cloak-squads/claude-session.jsonl")
    assert files(score) == {"/Users/rafazaum/.claude/skills/apply-grant/SKILL.md": 9565}
    assert score.envelope == 9565


# H7: tool notices are in the envelope, never a file's content.

def test_a_read_answered_by_the_file_unchanged_notice_is_no_content_of_the_file():
    score = scored("public-b/trackgentic/stream.jsonl")
    assert (score.envelope, score.used, score.meta_chars) == (11151, 11058, 93)
    assert round(score.efficiency * 100, 1) == 99.2


def test_a_background_tasks_output_that_printed_nothing_is_no_file_returned():
    score = scored("public-b/posthog-impact/claude-session.jsonl")
    assert score.envelope == 29530
    assert not any(path.endswith("bomjc7gus.output") for path in files(score))


# The corpus figures of RESULTS.md ("What the wrong facts do to the corpus figures").

def test_sweeping_set_b_scores_the_13_scorable_sessions_with_a_single_question_median_of_10_9_percent():
    import statistics

    from public_transcripts import swept

    records = swept("public-b")
    scored_ = [r for r in records if r["status"] == "scored"]
    assert len(records) == 18 and len(scored_) == 13
    single = sorted(r["efficiency"] for r in scored_ if r["turns"] == 1)
    assert len(single) == 8
    assert round(statistics.median(single) * 100, 1) == 10.9
    assert {r["session"] for r in records if r["status"] != "scored"} == {
        "fundwise/codex-session.jsonl", "solhawk/codex-session.jsonl", "lokal/claude-session.jsonl",
        "raze/claude-session.jsonl", "trackgentic/session/mp9r3tbb.jsonl"}


# H6: a Grep's context lines with absolute paths go to their own file.

def test_a_grep_with_context_lines_named_by_absolute_paths_charges_each_file_its_own_lines():
    score = scored("public-b/trackgentic/session/mp9xlpcv.jsonl")
    assert "(unknown)" not in files(score)
    (call,) = [c for c in score.calls if c.origin_line == 36]
    assert dict(call.files) == {"packages/library/src/core/hierarchy.ts": 1096, "packages/library/src/core/tracker.ts": 3492}
    assert call.envelope == 1096 + 3492 + 9  # the `--` separators are meta


# H8: one name per file, from the session's own working directory.

def test_a_windows_session_names_its_files_relative_to_its_project():
    names = set(files(scored("public-b/will-it-rain/claude.jsonl")))
    assert "src/config.ts" in names and "src/discord.ts" in names
    assert not any("\\\\" in name or name.startswith("c:") for name in names)


def test_a_home_relative_read_is_named_from_the_session_home():
    assert set(files(scored("public-b/scout/codex-session.jsonl"))) == {".config/opencode/opencode.json", ".zshrc"}


def test_files_read_after_a_cd_are_named_from_the_sessions_first_directory():
    names = set(files(scored("public-b/posthog-impact/claude-session.jsonl")))
    assert "personal_project/weave/doc.md" in names
    assert not any(name.startswith(("doc.md", "SUBMISSION.md", "feedback.md")) for name in names)
