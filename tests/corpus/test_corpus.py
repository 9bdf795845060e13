"""Discovery (what is one session) and streaming scoring (order, parse once, errors)."""

import json
import shutil
import re
from pathlib import Path

import pytest

from citeledger import corpus
from citeledger.corpus import discover, score_corpus
from citeledger.readers.claude_stream import ClaudeStreamReader
from citeledger.rules.loader import load_ruleset

HERE = Path(__file__).parent.parent
CORPUS = HERE / "fixtures" / "corpus"
REAL = HERE / "fixtures" / "real"


def test_segment_groups_are_one_session_in_order():
    refs, warnings = discover([str(CORPUS / "base")])
    assert warnings == []
    assert [r.key for r in refs] == [
        "alpha/r1.jsonl", "alpha/r2.jsonl", "alpha/r3.jsonl",
        "beta/r1.jsonl", "beta/r2.jsonl", "beta/r3.jsonl", "gamma/r1.jsonl",
    ]
    beta = refs[3]
    assert [Path(f).name for f in beta.files] == ["r1.jsonl", "r1.t2.jsonl"]
    assert (beta.turns, beta.group, beta.reader) == (2, "beta", "claude-stream")
    assert all(r.turns == 1 for r in refs if r is not beta)


def test_segments_sort_by_number_not_text(tmp_path):
    for name in ("run.jsonl", "run.t10.jsonl", "run.t2.jsonl", "run.t3.jsonl", "run.t4.jsonl",
                 "run.t5.jsonl", "run.t6.jsonl", "run.t7.jsonl", "run.t8.jsonl", "run.t9.jsonl"):
        shutil.copy(REAL / "stream" / "express-res-send.jsonl", tmp_path / name)
    (ref,), warnings = discover([str(tmp_path)])
    assert [Path(f).name for f in ref.files][-2:] == ["run.t9.jsonl", "run.t10.jsonl"]
    assert ref.turns == 10 and warnings == []


def test_missing_segment_is_reported(tmp_path):
    for name in ("run.jsonl", "run.t3.jsonl"):
        shutil.copy(REAL / "stream" / "express-res-send.jsonl", tmp_path / name)
    (ref,), warnings = discover([str(tmp_path)])
    assert len(ref.files) == 2
    assert len(warnings) == 1 and "t2" in warnings[0].message


def test_interactive_logs_and_their_subagents():
    refs, _ = discover([str(REAL)])
    interactive = [r for r in refs if r.reader == "claude-interactive"]
    assert len(interactive) == 1
    assert interactive[0].group == "interactive/-tmp-proj-express"
    # the subagent log belongs to its session, it is not a session of its own
    assert not any("subagents" in f for r in refs for f in r.files)
    # every stream file but the .tN segments (joined to their run), plus 1 interactive
    runs = [p for p in (REAL / "stream").glob("*.jsonl") if not re.search(r"\.t\d+\.jsonl$", p.name)]
    assert len(runs) >= 12 and len(refs) == len(runs) + 1


def test_interactive_log_without_subagents_is_recognised_by_content(tmp_path):
    source = next((REAL / "interactive" / "-tmp-proj-express").glob("*.jsonl"))
    shutil.copy(source, tmp_path / "abc.jsonl")
    (ref,), _ = discover([str(tmp_path / "abc.jsonl")])
    assert ref.reader == "claude-interactive"


def test_prompts_count_as_turns(tmp_path):
    log = tmp_path / "s.jsonl"
    lines = [
        {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "first question"}},
        {"type": "user", "sessionId": "s", "message": {"content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]}},
        {"type": "user", "sessionId": "s", "message": {"role": "user", "content": [{"type": "text", "text": "second"}]}},
    ]
    log.write_text("".join(json.dumps(e) + "\n" for e in lines))
    (ref,), _ = discover([str(log)])
    assert ref.reader == "claude-interactive" and ref.turns == 0  # counted when read, not before
    (outcome,) = score_corpus([ref], [load_ruleset("default")], jobs=1)
    assert outcome.ref.turns == 2  # the tool_result carrier is no prompt


def test_inputs_that_hold_no_session_are_warned_about(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "empty").mkdir()
    refs, warnings = discover([str(tmp_path / "nope"), str(tmp_path / "notes.txt"), str(tmp_path / "empty")])
    assert refs == []
    assert [w.file for w in warnings] == [str(tmp_path / p) for p in ("nope", "notes.txt", "empty")]


def test_a_session_found_twice_is_counted_once():
    root = str(CORPUS / "base" / "alpha")
    refs, warnings = discover([root, root + "/r1.jsonl"])
    assert len(refs) == 3 and len(warnings) == 1 and "twice" in warnings[0].message


def _effs(outcomes):
    return [(o.ref.key, o.error, tuple(s and (s.status, s.used, s.envelope) for s in o.scores)) for o in outcomes]


def test_outcomes_are_in_discovery_order_and_identical_whatever_the_jobs():
    refs, _ = discover([str(REAL), str(CORPUS)])
    rulesets = [load_ruleset("default")]
    one = _effs(score_corpus(refs, rulesets, jobs=1))
    two = _effs(score_corpus(refs, rulesets, jobs=2, chunk=1))
    assert one == two
    assert [k for k, _, _ in one] == [r.key for r in refs]


def test_unreadable_session_becomes_an_outcome(tmp_path):
    (tmp_path / "bad.jsonl").write_text("this is not json\nnor this\n")
    shutil.copy(CORPUS / "new" / "alpha" / "r1.jsonl", tmp_path / "good.jsonl")
    refs, _ = discover([str(tmp_path)])
    bad, good = score_corpus(refs, [load_ruleset("default")], jobs=1)
    assert bad.scores == (None,) and "bad.jsonl" in bad.error
    assert good.error is None and good.scores[0].efficiency == pytest.approx(0.8)


def test_parse_once_score_many(tmp_path, monkeypatch):
    other = tmp_path / "pathonly.yaml"
    other.write_text("extends: default\nname: pathonly\nchannels:\n  rank: [path]\n")
    elsewhere = tmp_path / "othertool.yaml"
    elsewhere.write_text("extends: default\nname: othertool\nsources:\n  codegraph_explore:\n    tool: nothing_matches\n")
    reads = []
    original = ClaudeStreamReader.read

    def counting(self, paths, options):
        reads.append(options.explore_tool)
        return original(self, paths, options)

    monkeypatch.setattr(ClaudeStreamReader, "read", counting)
    refs, _ = discover([str(CORPUS / "base" / "alpha" / "r3.jsonl")])
    rulesets = [load_ruleset("default"), load_ruleset(str(other)), load_ruleset(str(elsewhere))]
    (outcome,) = score_corpus(refs, rulesets, jobs=1)
    # two reading-option sets, so two reads for three rulesets
    assert reads == ["codegraph_explore", "nothing_matches"]
    default, path_only, none = outcome.scores
    assert default.efficiency == pytest.approx(1.0)  # a.py by path, b.py by the symbol `render`
    assert path_only.efficiency == pytest.approx(0.5)
    assert none.status == "no-explore"


def test_contract_fields():
    assert [f.name for f in corpus.SessionRef.__attrs_attrs__][:5] == ["key", "files", "reader", "group", "turns"]
    # the fields every outcome has, in order; `extra` (score_corpus's per-transcript hook) comes after
    assert [f.name for f in corpus.SessionOutcome.__attrs_attrs__] == ["ref", "scores", "error", "warnings", "extra"]


def test_two_files_for_one_segment_are_both_kept(tmp_path):
    from builders import response, section, session

    text = response(section("lib/a.js", size=100))
    first = session(tmp_path, [text], "lib/a.js", name="run")
    (tmp_path / "run.t1.jsonl").write_bytes(first.read_bytes())
    refs, warnings = discover([str(tmp_path)])
    assert sorted(r.key for r in refs) == ["run.jsonl", "run.t1.jsonl"]
    assert [w.message for w in warnings] == ["same segment (t1) as run.jsonl: scored as a session of its own"]


def test_files_given_by_name_group_together(tmp_path):
    from builders import response, section, session

    text = response(section("lib/a.js", size=100))
    a = session(tmp_path / "base" / "alpha", [text], "lib/a.js")
    b = session(tmp_path / "new" / "alpha", [text], "lib/a.js")
    refs_a, _ = discover([str(a)])
    refs_b, _ = discover([str(b)])
    assert refs_a[0].group == refs_b[0].group == "."


def test_byte_order_mark_warnings_reach_the_outcome_in_file_order(tmp_path):
    from builders import EXPLORE, response, section

    rows = [
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": f"t{i}", "name": EXPLORE}]}}
        for i in range(4)
    ] + [
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": f"t{i}",
                                                  "content": response(section(f"lib/{i}.js", size=100))}]}}
        for i in range(4)
    ]
    lines = [json.dumps(r).encode() for r in rows]
    for n in (6, 2, 7, 4):  # BOM on lines 7, 3, 8, 5 (0-based 6, 2, 7, 4)
        lines[n] = b"\xef\xbb\xbf" + lines[n]
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    refs, _ = discover([str(path)])
    (outcome,) = score_corpus(refs, [load_ruleset("default")], jobs=1)
    bom = [w.line for w in outcome.warnings if "byte order mark" in w.message]
    assert bom == [3, 5, 7, 8]


def test_claims_asked_in_the_workers_find_the_same_sessions(monkeypatch, tmp_path):
    """Discovery with workers (the claims sniffed in other processes) finds exactly what it finds alone,
    warnings included, and the same workers then score those sessions."""
    (tmp_path / "notes.txt").write_text("not a transcript\n")
    (tmp_path / "empty.jsonl").write_text("")
    paths = [str(REAL), str(CORPUS), str(tmp_path), str(CORPUS / "base")]  # the last overlaps the second
    alone = discover(paths)
    monkeypatch.setattr(corpus, "CLAIMS_IN_WORKERS", 2)
    monkeypatch.setattr(corpus, "CLAIM_CHUNK", 3)
    rulesets = [load_ruleset("default")]
    with corpus.Workers(2, rulesets) as workers:
        found = discover(paths, workers=workers)
        assert workers.pool._pool is not None  # the claims went to the workers' processes
        scored = _effs(workers.score(found[0], 2))
    assert found == alone and alone[1]  # the overlap's warnings too
    assert scored == _effs(score_corpus(alone[0], rulesets, jobs=1))


def test_a_shape_runs_where_the_session_is_scored():
    """score_corpus's `shape` turns each outcome where it was scored; the same results whatever the jobs."""
    refs, _ = discover([str(CORPUS)])
    rulesets = [load_ruleset("default")]
    one = list(score_corpus(refs, rulesets, jobs=1, shape=_key_and_status))
    two = list(score_corpus(refs, rulesets, jobs=2, chunk=1, shape=_key_and_status))
    assert one == two == [_key_and_status(o) for o in score_corpus(refs, rulesets, jobs=1)]
    assert all(isinstance(x, tuple) for x in two)


def _key_and_status(outcome):
    return outcome.ref.key, outcome.scores[0].status if outcome.scores[0] else outcome.error


def test_a_file_under_a_linked_ancestor_is_known_by_its_real_path(tmp_path):
    # The link is a few folders up: the file's real path goes through it, as os.path.realpath's does.
    deep = tmp_path / "real" / "a" / "b"
    deep.mkdir(parents=True)
    shutil.copy(CORPUS / "base" / "alpha" / "r1.jsonl", deep / "run-1.jsonl")
    (tmp_path / "link").symlink_to("real")
    through = str(tmp_path / "link" / "a")
    refs, warnings = discover([through, str(deep / "run-1.jsonl"), str(tmp_path / "real")])
    assert [r.files for r in refs] == [(str(tmp_path / "link" / "a" / "b" / "run-1.jsonl"),)]
    twice = "found twice (overlapping paths), counted once"
    assert [(w.file, w.message) for w in warnings] == [
        (str(deep / "run-1.jsonl"), twice),  # given by name
        (str(deep / "run-1.jsonl"), twice),  # met again walking real/
        (str(tmp_path / "real"), "no sessions found here"),
    ]
