"""The default ruleset off the beaten path (issue 12): heading counts, the two
readers' event rules, JavaScript text coercion, subagent stitching order.

Every expected block below is worked out by hand from reference-metric.md
(sections 1 and 6) and transcripts.md; the section sizes come from
builders.section, which pads a section to exactly the size asked for.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from builders import EXPLORE, events, response, section, write_jsonl

from citeledger.cli import main
from citeledger.core.accountant import score
from citeledger.readers.claude_interactive import ClaudeInteractiveReader
from citeledger.readers.claude_stream import ClaudeStreamReader
from citeledger.report.text import render_text
from citeledger.rules.loader import load_ruleset
from citeledger.readers.claude_interactive import escape_project

DEFAULT = load_ruleset("default")
NOTE = "  note: relative metric — attribution is by citation, so compare builds on the same question, not absolutes.\n"
HEAD = "Explore allocation — share of returned bytes the answer used "


def text_of(path_or_paths, interactive=False):
    paths = [str(p) for p in (path_or_paths if isinstance(path_or_paths, list) else [path_or_paths])]
    reader = ClaudeInteractiveReader() if interactive else ClaudeStreamReader()
    result = score(reader.read(paths), DEFAULT)
    return render_text(result), result


def use(tid, name=EXPLORE, kind="assistant", **extra):
    return {"type": kind, "message": {"content": [{"type": "tool_use", "id": tid, "name": name, "input": {}}]}, **extra}


def result_of(tid, content, kind="user", **extra):
    return {"type": kind, "message": {"content": [{"type": "tool_result", "tool_use_id": tid, "content": content}]}, **extra}


def said(text, **extra):
    return {"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}, **extra}


# ---------------------------------------------------------------------------
# 1. Heading counts: singular for one, in the heading only (spec section 6).


def test_one_call_one_file_heading_is_singular_and_the_other_lines_stay_plural(tmp_path):
    path = write_jsonl(tmp_path / "run.jsonl", events([response(section("lib/a.js", size=100))], "see lib/a.js"))
    text, _ = text_of(path)
    assert text == (
        HEAD + "(1 call, 1 file):\n"
        "  efficiency 100.0%  100 of 100 chars   (1/1 files cited; path-cited alone 100.0%)\n"
        "  call 1: 100.0%  100/100 chars  1/1 files\n"
        "  * 100.0%    100  lib/a.js  path\n" + NOTE
    )


@pytest.mark.parametrize("calls, files, heading", [
    (1, 3, "(1 call, 3 files):"),
    (2, 1, "(2 calls, 1 file):"),
    (2, 3, "(2 calls, 3 files):"),
])
def test_heading_counts(tmp_path, calls, files, heading):
    names = ["lib/a.js", "lib/b.js", "lib/c.js"][:files]
    texts = [response(*(section(n, size=50) for n in names)) for _ in range(calls)]
    text, _ = text_of(write_jsonl(tmp_path / "run.jsonl", events(texts, "nothing cited")))
    assert text.splitlines()[0] == HEAD + heading


# ---------------------------------------------------------------------------
# 2. The readers' event rules (spec section 1).

ONE = response(section("lib/one.js", size=100))
STRAY = response(section("lib/stray.js", size=300))


def stray_shapes():
    """A proper call, then tool_use / tool_result blocks in events the headless reader ignores."""
    return [
        {"type": "system", "subtype": "init"},
        use("t1"), result_of("t1", ONE),
        use("t2"), result_of("t2", STRAY, kind="assistant"),   # a tool_result inside an assistant event
        use("t3"), result_of("t3", STRAY, kind="system"),      # ... a system event
        use("t4"), result_of("t4", STRAY, kind="progress"),    # ... a progress event
        use("t5", kind="user"), result_of("t5", STRAY),        # a tool_use inside a user event
    ]


def test_headless_takes_tool_use_from_assistant_and_tool_result_from_user_events_only(tmp_path):
    path = write_jsonl(tmp_path / "run.jsonl", stray_shapes() + [{"type": "result", "result": "lib/stray.js lib/one.js"}])
    text, result = text_of(path)
    # Only t1 is an explore response: 100 chars, lib/one.js, cited by path.
    assert text == (
        HEAD + "(1 call, 1 file):\n"
        "  efficiency 100.0%  100 of 100 chars   (1/1 files cited; path-cited alone 100.0%)\n"
        "  call 1: 100.0%  100/100 chars  1/1 files\n"
        "  * 100.0%    100  lib/one.js  path\n" + NOTE
    )
    lines = {w.line: w.message for w in result.warnings}
    assert "tool_result in a 'assistant' event, ignored" in lines[5]
    assert "tool_result in a 'system' event, ignored" in lines[7]
    assert "tool_result in a 'progress' event, ignored" in lines[9]
    assert "tool_use in a 'user' event, ignored" in lines[10]
    assert "unknown tool_use id 't5'" in lines[11]


def test_interactive_logs_walk_every_event_whose_content_is_a_list(tmp_path):
    log = write_jsonl(tmp_path / "s.jsonl", stray_shapes() + [said("lib/stray.js lib/one.js")])
    text, result = text_of(log, interactive=True)
    # t1..t5 all count: 100 + 4 x 300 = 1,300 chars; both files cited by path.
    assert text == (
        HEAD + "(5 calls, 2 files):\n"
        "  efficiency 100.0%  1,300 of 1,300 chars   (2/2 files cited; path-cited alone 100.0%)\n"
        "  call 1: 100.0%  100/100 chars  1/1 files\n"
        "  call 2: 100.0%  300/300 chars  1/1 files\n"
        "  call 3: 100.0%  300/300 chars  1/1 files\n"
        "  call 4: 100.0%  300/300 chars  1/1 files\n"
        "  call 5: 100.0%  300/300 chars  1/1 files\n"
        "  *  92.3%   1200  lib/stray.js  path\n"
        "  *   7.7%    100  lib/one.js  path\n" + NOTE
    )
    assert result.warnings == ()


# ---------------------------------------------------------------------------
# 3. Text as JavaScript's String() and Array.join make it (spec section 1).


def test_content_items_text_goes_through_String(tmp_path):
    head = "**`lib/a.js`** — run(function)\n"  # 2 + 1 + 8 + 1 + 2 = 14, + 16 for " — run(function)", + 1: 31 chars
    assert len(head) == 31
    content = [
        {"type": "text", "text": head},
        {"type": "text", "text": 12345},          # "12345": 5
        {"type": "text", "text": ["a", "b"]},     # "a,b": 3
        {"type": "text", "text": {"k": 1}},       # "[object Object]": 15
        {"type": "text", "text": True},           # "true": 4
        {"type": "text", "text": None},           # null text: the item's JSON, {"type":"text","text":null}: 27
        {"type": "text"},                         # no text: {"type":"text"}: 15
    ]
    rows = [use("t1"), result_of("t1", content), {"type": "result", "result": "no citation"}]
    _, result = text_of(write_jsonl(tmp_path / "run.jsonl", rows))
    assert [c.envelope for c in result.calls] == [31 + 5 + 3 + 15 + 4 + 27 + 15]


def test_content_that_is_neither_text_nor_list_counts_as_its_json(tmp_path):
    # {"a":"**`x.js`**"} has no header at a line start: a response without sections.
    rows = [use("t1"), result_of("t1", 42), use("t2"), result_of("t2", response(section("lib/a.js", size=60))),
            {"type": "result", "result": "lib/a.js"}]
    _, result = text_of(write_jsonl(tmp_path / "run.jsonl", rows))
    assert [r.blocks for r in ClaudeStreamReader().read([str(tmp_path / "run.jsonl")]).responses][0] == ("42",)
    assert [c.envelope for c in result.calls] == [60]


def test_answer_text_blocks_contribute_when_truthy_through_String(tmp_path):
    sec = response(section("lib/a.js", size=80), section("lib/b.js", size=20))
    rows = [
        use("t1"), result_of("t1", sec),
        {"type": "assistant", "message": {"content": [{"type": "text", "text": ["see lib/a.js"]}]}},
        # Later texts whose blocks contribute "" (0, false, "", null): blank, so not the answer.
        {"type": "assistant", "message": {"content": [{"type": "text", "text": 0}, {"type": "text", "text": False}]}},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": ""}, {"type": "text", "text": None}]}},
    ]
    text, result = text_of(write_jsonl(tmp_path / "s.jsonl", rows), interactive=True)
    assert result.answer == "see lib/a.js"
    assert text.splitlines()[1] == "  efficiency  80.0%  80 of 100 chars   (1/2 files cited; path-cited alone 80.0%)"


def test_a_number_text_block_is_its_digits(tmp_path):
    rows = [use("t1"), result_of("t1", response(section("lib/a.js", size=50))),
            {"type": "assistant", "message": {"content": [{"type": "text", "text": "lib/a."}, {"type": "text", "text": 12}]}}]
    # "lib/a." + "12" is not a path to lib/a.js; the answer is that text, not blank.
    _, result = text_of(write_jsonl(tmp_path / "s.jsonl", rows), interactive=True)
    assert result.answer == "lib/a.12" and result.has_answer and result.used == 0


def test_a_result_that_is_not_a_string_is_a_warning_and_no_answer(tmp_path, capsys):
    rows = events([response(section("lib/a.js", size=50))]) + [
        {"type": "result", "result": 5},
        {"type": "result", "result": None},
        {"type": "result", "result": "lib/a.js"},
        {"type": "result", "result": {"text": "x"}},
    ]
    path = write_jsonl(tmp_path / "run.jsonl", rows)
    assert main(["score", str(path)]) == 1
    err = capsys.readouterr().err
    # events(): system, assistant, user, then the four results at lines 4-7.
    assert f"{path}:4: result event's result is a number, not a string: not an answer" in err
    assert f"{path}:5: result event's result is null, not a string" in err
    assert f"{path}:7: result event's result is an object, not a string" in err
    _, result = text_of(path)
    assert result.answer == "lib/a.js" and result.used == 50


# ---------------------------------------------------------------------------
# 4. Subagent stitching (transcripts.md): appended after the whole session,
# files in byte order of names, falsy toolUseId leaves events untagged.


def interactive_session(tmp_path, meta_c):
    root = tmp_path / "log"
    main_log = write_jsonl(root / "s.jsonl", [
        {"type": "user", "message": {"content": "where?"}},
        use("t_main"), result_of("t_main", response(section("lib/main.js", size=100))),
        use("toolu_agent", name="Task"),
        result_of("toolu_agent", "the subagent's report"),
        said("final: lib/main.js"),
    ])
    sub = root / "s" / "subagents"
    write_jsonl(sub / "b.jsonl", [use("tb"), result_of("tb", response(section("lib/b.js", size=400)))])
    (sub / "b.meta.json").write_text('{"toolUseId": "toolu_agent"}')
    write_jsonl(sub / ".a.jsonl", [use("ta"), result_of("ta", response(section("lib/dot.js", size=200)))])
    write_jsonl(sub / "agent-c.jsonl", [use("tc"), result_of("tc", response(section("lib/c.js", size=300))),
                                        said("sub says lib/c.js")])
    if meta_c is not None:
        (sub / "agent-c.meta.json").write_text(meta_c)
    return main_log


@pytest.mark.parametrize("falsy", ['""', "0", "false"])
def test_subagents_are_appended_in_byte_order_and_a_falsy_tool_use_id_leaves_them_untagged(tmp_path, falsy):
    log = interactive_session(tmp_path, '{"toolUseId": %s}' % falsy)
    text, result = text_of(log, interactive=True)
    # Calls: main (100), .a.jsonl (200), agent-c.jsonl (300), b.jsonl (400): '.' < 'a' < 'b'.
    # agent-c's events are untagged, so its text is the last main-thread text: the answer.
    assert result.answer == "sub says lib/c.js"
    assert text == (
        HEAD + "(4 calls, 4 files):\n"
        "  efficiency  30.0%  300 of 1,000 chars   (1/4 files cited; path-cited alone 30.0%)\n"
        "  call 1:   0.0%  0/100 chars  0/1 files\n"
        "  call 2:   0.0%  0/200 chars  0/1 files\n"
        "  call 3: 100.0%  300/300 chars  1/1 files\n"
        "  call 4:   0.0%  0/400 chars  0/1 files\n"
        "     40.0%    400  lib/b.js  —\n"
        "  *  30.0%    300  lib/c.js  path\n"
        "     20.0%    200  lib/dot.js  —\n"
        "     10.0%    100  lib/main.js  —\n" + NOTE
    )
    transcript = ClaudeInteractiveReader().read([str(log)])
    assert [Path(f).name for f in transcript.files] == ["s.jsonl", ".a.jsonl", "agent-c.jsonl", "b.jsonl"]
    assert [r.parent_tool_use_id for r in transcript.responses] == [None, "subagent:.a.jsonl", None, "toolu_agent"]


@pytest.mark.parametrize("meta", [None, '{"toolUseId": null}', "{}", "not json", "[1]"])
def test_a_missing_or_null_tool_use_id_tags_the_subagent_by_file_name(tmp_path, meta):
    log = interactive_session(tmp_path, meta)
    text, result = text_of(log, interactive=True)
    # agent-c is tagged subagent:agent-c.jsonl: its text is not the answer; main.js is cited.
    assert result.answer == "final: lib/main.js"
    assert text.splitlines()[1] == "  efficiency  10.0%  100 of 1,000 chars   (1/4 files cited; path-cited alone 10.0%)"
    transcript = ClaudeInteractiveReader().read([str(log)])
    assert transcript.responses[2].parent_tool_use_id == "subagent:agent-c.jsonl"
    unreadable = [w for w in transcript.warnings if "unreadable meta file" in w.message]
    assert len(unreadable) == (meta == "not json")


# ---------------------------------------------------------------------------
# 5. The session of a project directory (transcripts.md): the real path, the
# newest *.jsonl (dot-prefixed too), equal times -> first name in byte order.


def project_logs(home: Path, project: Path) -> Path:
    return home / ".claude" / "projects" / escape_project(str(project.resolve()))


def small_log(path: Path, cited: str, mtime: int) -> Path:
    write_jsonl(path, [use("t1"), result_of("t1", response(section(cited, size=40))), said(cited)])
    os.utime(path, (mtime, mtime))
    return path


def score_session(project, capsys):
    code = main(["score", "--json", "--session", str(project)])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_project_path_is_resolved_through_symlinks_and_the_newest_log_wins(tmp_path, capsys, monkeypatch):
    real = tmp_path / "real" / "proj"
    real.mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    logs = project_logs(home, real)
    small_log(logs / "a.jsonl", "lib/a.js", 1_000)
    newest = small_log(logs / ".z.jsonl", "lib/z.js", 2_000)  # dot-prefixed, and newest
    code, data, err = score_session(tmp_path / "link" / "proj", capsys)
    assert code == 0
    assert data["session_path"] == str(newest) and data["inputs"] == [str(newest)]
    assert err == f"citeledger: note: --session {tmp_path / 'link' / 'proj'}: scoring {newest} (the newest session log)\n"


def test_equal_modification_times_choose_the_first_name_in_byte_order(tmp_path, capsys, monkeypatch):
    project = tmp_path / "proj"
    project.mkdir()
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    logs = project_logs(home, project)
    for name in ("b.jsonl", "A.jsonl", ".a.jsonl", "a.jsonl"):  # bytes: '.' 0x2e < 'A' 0x41 < 'a' 0x61 < 'b'
        small_log(logs / name, "lib/x.js", 5_000)
    small_log(logs / "old.jsonl", "lib/x.js", 4_000)
    code, data, _ = score_session(project, capsys)
    assert data["session_path"] == str(logs / ".a.jsonl")
    os.remove(logs / ".a.jsonl")
    code, data, _ = score_session(project, capsys)
    assert data["session_path"] == str(logs / "A.jsonl")


def test_a_session_file_gets_no_note(tmp_path, capsys):
    log = small_log(tmp_path / "s.jsonl", "lib/a.js", 1_000)
    (tmp_path / "s").mkdir()  # a session directory: read as an interactive log
    code, data, err = score_session(log, capsys)
    assert code == 0 and err == "" and data["session_path"] == str(log)


# ---------------------------------------------------------------------------
# 6. The envelope view (spec section 8).


def envelope_run(tmp_path):
    """14 files in one call (sizes 300, 280, ..., 40), a call with no section, lib/f13.js again (40)."""
    names = [f"lib/f{i:02}.js" for i in range(14)]
    first = response(*(section(n, size=300 - 20 * i) for i, n in enumerate(names)))
    rows = events([first, "No relevant code found", response(section("lib/f13.js", size=40))], "lib/f00.js")
    return write_jsonl(tmp_path / "run.jsonl", rows)


def printed(*args, capsys):
    code = main(["score", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_envelope_alone_lists_files_without_an_answer_set_line(tmp_path, capsys):
    path = envelope_run(tmp_path)
    code, out, _ = printed(path, "--envelope", capsys=capsys)
    block, view = out.split("\n\n")
    assert block.startswith(HEAD + "(2 calls, 14 files):")
    # Pooled: 300 + 280 + ... + 40 = 2,380, plus lib/f13.js again: 2,420, over 3 responses (the
    # header-less "No relevant code found" counts). f13 pools to 80 like f11: the stable sort keeps
    # f11 (first seen) in the top 12; f13 and f12 (60) are the 2 more.
    assert view == (
        "Explore envelope: 2,420 chars over 3 response(s)\n"
        "     12.4%    300  lib/f00.js\n"
        "     11.6%    280  lib/f01.js\n"
        "     10.7%    260  lib/f02.js\n"
        "      9.9%    240  lib/f03.js\n"
        "      9.1%    220  lib/f04.js\n"
        "      8.3%    200  lib/f05.js\n"
        "      7.4%    180  lib/f06.js\n"
        "      6.6%    160  lib/f07.js\n"
        "      5.8%    140  lib/f08.js\n"
        "      5.0%    120  lib/f09.js\n"
        "      4.1%    100  lib/f10.js\n"
        "      3.3%     80  lib/f11.js\n"
        "    … 2 more files\n"
    )


def test_answer_globs_mark_files_and_give_the_set_share(tmp_path, capsys):
    path = envelope_run(tmp_path)
    code, out, _ = printed(path, "--answer", "lib/f0?.js", "--answer", "**/f13.js", capsys=capsys)
    view = out.split("\n\n")[1].splitlines()
    # `?` is a quantifier: lib/f0?.js is /^lib\/f0?\.js$/, matching lib/f0.js and lib/f.js only.
    # **/f13.js matches lib/f13.js (80 of 2,420 = 3.3%), outside the top 12; the top file is f00.
    assert view[:2] == ["Explore envelope: 2,420 chars over 3 response(s)", "  answer-set share: 3.3% | top file answers: false"]
    assert not any(line.startswith("  *") for line in view)
    code, out, _ = printed(path, "--answer", "lib/f0*", capsys=capsys)
    view = out.split("\n\n")[1].splitlines()
    # f00..f09: 300 + ... + 120 = 2,100 of 2,420 = 86.8%; f00 is the largest file.
    assert view[1] == "  answer-set share: 86.8% | top file answers: true"
    assert view[2] == "  *  12.4%    300  lib/f00.js"
    assert view[11] == "  *   5.0%    120  lib/f09.js" and view[12] == "      4.1%    100  lib/f10.js"


@pytest.mark.parametrize("glob, path, matches", [
    ("lib/request?.js", "lib/request.js", True),
    ("lib/request?.js", "lib/reques.js", True),     # the `t` is optional
    ("lib/request?.js", "lib/requestjs", False),    # `.` is escaped: a literal dot
    ("lib/*", "lib/\nx.js", True),                  # [^/]* crosses a line end
    ("lib/**", "lib/\nx.js", False),                # JavaScript's . does not
    ("lib/**", "lib/a/b.js", True),
    ("lib/*", "lib/a/b.js", False),
    ("a+b(c).js", "a+b(c).js", True),               # escaped characters are literal
    ("lib/x.js", "lib/x.js\n", False),              # anchored at the very end
])
def test_glob_rules(glob, path, matches):
    from citeledger.report.envelope import glob_matcher

    assert glob_matcher(glob)(path) is matches


@pytest.mark.parametrize("glob", ["?lib", "lib/a???", "**??"])
def test_a_glob_that_does_not_compile_is_a_usage_error_naming_it(tmp_path, capsys, glob):
    code, out, err = printed(envelope_run(tmp_path), "--answer", "lib/**", "--answer", glob, capsys=capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"citeledger: error: --answer {glob!r}: not a valid glob") and err.count("\n") == 1


def test_envelope_view_in_json(tmp_path, capsys):
    code = main(["score", "--json", "--answer", "lib/f00.js", str(envelope_run(tmp_path))])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    view = data["envelope_view"]
    assert (view["chars"], view["responses"], view["answer_share"], view["top_file_answers"]) == (2420, 3, 300 / 2420, True)
    assert len(view["files"]) == 14 and view["files"][0] == {"path": "lib/f00.js", "chars": 300, "share": 300 / 2420, "in_answer_set": True}
    assert data["answer_set"] == {"globs": ["lib/f00.js"], "chars": 300, "share": 300 / 2420, "files": ["lib/f00.js"]}


# ---------------------------------------------------------------------------
# 7. A Claude transcript stays a Claude transcript (docs/codex.md).


def test_a_claude_run_with_codex_looking_events_is_read_as_claude(tmp_path, capsys):
    from citeledger.readers.codex import CodexReader

    rows = events([response(section("lib/a.js", size=70))], "lib/a.js")
    rows.insert(1, {"type": "message", "role": "user", "content": "hi"})  # Codex-looking, line 2
    rows.insert(2, {"type": "response_item", "payload": {"type": "message"}})
    path = write_jsonl(tmp_path / "run.jsonl", rows)
    assert not CodexReader().claims(str(path))
    code, out, _ = printed(path, capsys=capsys)
    assert out.splitlines()[1] == "  efficiency 100.0%  70 of 70 chars   (1/1 files cited; path-cited alone 100.0%)"


def test_codex_claims_a_file_by_its_first_record(tmp_path):
    from citeledger.readers.codex import CodexReader

    meta = {"timestamp": "t", "type": "session_meta", "payload": {"id": "s"}}
    item = {"timestamp": "t", "type": "response_item", "payload": {"type": "message", "role": "user", "content": []}}
    assert CodexReader().claims(str(write_jsonl(tmp_path / "a.jsonl", ["", meta, item])))  # blank lines skipped
    assert not CodexReader().claims(str(write_jsonl(tmp_path / "b.jsonl", [item, meta])))  # no session record first
    assert not CodexReader().claims(str(write_jsonl(tmp_path / "c.jsonl", [{"type": "system"}, meta])))
    assert not CodexReader().claims(str(write_jsonl(tmp_path / "d.jsonl", [{"type": "session_meta", "payload": 5}])))
