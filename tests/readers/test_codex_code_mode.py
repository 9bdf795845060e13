"""Codex 0.144's code mode (`exec` calls whose JavaScript calls `tools.exec_command`), read as
FACTS.md §9 reads ../shared/transcripts/public-c/gildore-arena/45c7e7dd/codex-session.jsonl by
hand, in place (issue 41)."""

from __future__ import annotations

from public_transcripts import files, scored, swept

ROLLOUT = "public-c/gildore-arena/45c7e7dd/codex-session.jsonl"


def test_a_code_mode_rollouts_shell_reads_are_counted_with_their_printed_output():
    score = scored(ROLLOUT)
    assert score.envelope == 148_755 and score.meta_chars == 33_731  # FACTS: 5 reads, to the char
    assert [c.envelope for c in score.calls] == [13_519, 15_219, 39_807, 40_105, 40_105]
    assert score.used == 0  # neither answer names a file read
    (record,) = swept(ROLLOUT)
    assert record["turns"] == 3


def test_a_script_is_split_at_its_printf_markers_and_files_without_one_are_joint():
    chars = files(scored(ROLLOUT))
    skill = next(path for path in chars if path.endswith("skills/apply-grant/SKILL.md"))
    assert chars[skill] == 8_889  # then `printf '\n--- repo ---\n'` and an rg listing: no file
    vault = ("gildore-arena-vault/README.md", "gildore-arena-vault/src/state.rs",
             "gildore-arena-vault/src/instructions/deposit.rs", "gildore-arena-vault/src/instructions/consume_ticker.rs")
    assert chars["JOINT[" + " | ".join(vault) + "]"] == 11_004  # four seds after the last marker
    flash = next(path for path in chars if path.startswith("JOINT[lib/flashtrade/client.ts | "))
    assert chars[flash] == 39_807 and flash.count(" | ") == 9  # ten seds, one after another


def test_a_call_the_log_ends_before_is_said_once():
    # FACTS.md §9: turn 3 ends on the exec call at line 71 (the export script); §10: five
    # exec_command calls at lines 328-332 have no output (the log was copied mid-turn).
    (ended,) = [w for w in scored(ROLLOUT).warnings if "with no result" in w.message]
    assert ended.line == 71 and "exec_command call 'call_EbLBUgTjkHEHDNW7AsAxcUFt' with no result" in ended.message
    (five,) = [w for w in scored("public-c/gildore-arena/8c8b717f/codex-session.jsonl").warnings
               if "with no result" in w.message]
    assert five.line == 328 and "and 4 more with no result" in five.message


def test_the_default_ruleset_says_nothing_of_calls_it_does_not_read():
    assert not [w for w in scored(ROLLOUT, "default").warnings if "with no result" in w.message]
