"""corrected.yaml: each known flaw of the reference, fixed behind its own switch.

For every switch, a hand-built session shows the flaw under `default`, the fix
under default + that one switch, and the same fix under `corrected`.
"""

from __future__ import annotations

import json

import pytest

from builders import EXPLORE, events, response, section, session, write_jsonl
from citeledger.core.accountant import score
from citeledger.readers.claude_interactive import ClaudeInteractiveReader
from citeledger.readers.claude_stream import ClaudeStreamReader
from citeledger.rules.variation import switches, variant
from citeledger.rules.loader import load_ruleset

DEFAULT = load_ruleset("default")
CORRECTED = load_ruleset("corrected")
SWITCHES = dict(switches("default", "corrected"))
E = "sources.codegraph_explore."  # the explore source's options


def one_switch(key):
    return variant("default", {key: SWITCHES[key]}, name=key)


def run(paths, ruleset, reader=ClaudeStreamReader):
    paths = paths if isinstance(paths, list) else [paths]
    return score(reader().read([str(p) for p in paths]), ruleset)


def credited(result):
    return {f.path: f.verdict.channel for f in result.files if f.verdict.credited}


def sizes(result):
    return {p: c for call in result.calls for p, c in call.files}


def test_corrected_is_default_plus_exactly_seven_switches():
    assert sorted(SWITCHES) == sorted([
        E + "block_separator", "reader.bom", "reader.answer", E + "trailing_block",
        "channels.path.basename", "channels.path.match", "channels.symbol.tag_names_define",
    ])
    assert SWITCHES[E + "trailing_block"] == "meta"
    assert SWITCHES[E + "block_separator"] == "\n"


# -- trailing non-source blocks -------------------------------------------------

POINTERS = "\n**Not shown above — explore these names for their source**\n\n- lib/hooks.js: next:281, onSend:278\n"


def trailing_session(tmp_path):
    first = "**`lib/reply.js`** — send(method)\n\n```javascript\n1\tfunction send () {}\n```\n\n"
    last_code = "**`lib/hooks.js`** — hook(function)\n\n```javascript\n7\tfunction hook () {}\n```\n"
    text = "**Exploration: q**\n\n" + first + last_code + POINTERS + "\n> Some file sections were trimmed."
    path = session(tmp_path, [text], "Everything happens in lib/reply.js.")
    return path, len(first), len(last_code), len(POINTERS)


@pytest.mark.parametrize("ruleset", ["switch", "corrected"])
def test_trailing_pointer_list_is_charged_to_no_file(tmp_path, ruleset):
    path, first, last_code, pointers = trailing_session(tmp_path)
    base = run(path, DEFAULT)
    # The reference: the pointer list belongs to the last section (up to "\n> ").
    assert sizes(base) == {"lib/reply.js": first, "lib/hooks.js": last_code + pointers}
    assert base.meta_chars == 0
    fixed = run(path, one_switch(E + "trailing_block") if ruleset == "switch" else CORRECTED)
    assert sizes(fixed) == {"lib/reply.js": first, "lib/hooks.js": last_code}
    assert fixed.meta_chars == pointers
    # The envelope still holds every returned char; only its owner changed.
    assert fixed.envelope == base.envelope == first + last_code + pointers
    assert fixed.used == base.used == first


def test_trailing_block_after_a_header_only_section(tmp_path):
    # A stale "source omitted" last section has no code block: it ends with its header line.
    head = "**`lib/response.js`** — ⚠ changed on disk after the last index sync — source omitted\n"
    text = "**`lib/a.js`**\n```\n1\tx\n```\n" + head + POINTERS + "\n> q"
    path = session(tmp_path, [text], "lib/a.js")
    fixed = run(path, one_switch(E + "trailing_block"))
    assert sizes(fixed)["lib/response.js"] == len(head)
    assert fixed.meta_chars == len(POINTERS)


def test_unclosed_code_block_is_all_source(tmp_path):
    text = "**`lib/a.js`**\n```js\n1\tx\n**not a title, still code\n"  # cut short, no closing fence
    path = session(tmp_path, [text], "lib/a.js")
    fixed = run(path, one_switch(E + "trailing_block"))
    assert fixed.meta_chars == 0 and sizes(fixed) == {"lib/a.js": len(text)}


# -- render-tag names -------------------------------------------------------------

FOCUSED = (" — dispatch_request, View, view, MethodView, __init_subclass__ · focused (the methods you named "
           "in full, the rest as signatures — codegraph_explore a signature by name for its body; do NOT Read)")


@pytest.mark.parametrize("ruleset", ["switch", "corrected"])
def test_focused_header_names_define(tmp_path, ruleset):
    # The header shape codegraph 1.6.1 prints (tests/fixtures/real/explore/flask-3.0.3/trace-view-dispatch.md).
    text = response(
        section("src/flask/views.py", FOCUSED, size=400),
        section("src/flask/app.py", " — wsgi_app(method)", size=600),
    )
    path = session(tmp_path, [text], "`MethodView` maps methods; `wsgi_app` calls it. Also `signatures`.")
    assert credited(run(path, DEFAULT)) == {"src/flask/app.py": "symbol"}
    fixed = run(path, one_switch("channels.symbol.tag_names_define") if ruleset == "switch" else CORRECTED)
    assert credited(fixed) == {"src/flask/app.py": "symbol", "src/flask/views.py": "symbol"}
    views = next(f for f in fixed.files if f.path == "src/flask/views.py")
    assert views.verdict.evidence == "MethodView"  # not a word of the tag's prose


def test_tag_prose_words_do_not_define(tmp_path):
    text = response(section("src/flask/views.py", FOCUSED, size=400))
    path = session(tmp_path, [text], "Run `codegraph_explore` on the `signatures`, not `methods`.")
    assert credited(run(path, one_switch("channels.symbol.tag_names_define"))) == {}


def test_skeleton_header_names_define(tmp_path):
    skeleton = " — Reply, send, serialize · skeleton (signatures only — codegraph_explore a name for its full body; do NOT Read)"
    text = response(section("lib/reply.js", skeleton, size=300), section("lib/route.js", size=100))
    path = session(tmp_path, [text], "`serialize` does it.")
    assert credited(run(path, DEFAULT)) == {}
    assert credited(run(path, one_switch("channels.symbol.tag_names_define"))) == {"lib/reply.js": "symbol"}


# -- citations disambiguated by directories ----------------------------------------


@pytest.mark.parametrize("ruleset", ["switch", "corrected"])
def test_bare_basename_shared_by_two_files_credits_neither(tmp_path, ruleset):
    text = response(
        section("src/flask/app.py", size=500),
        section("examples/app.py", size=300),
        section("src/flask/views.py", size=200),
    )
    path = session(tmp_path, [text], "It starts in app.py and dispatches through views.py.")
    assert credited(run(path, DEFAULT)) == {"src/flask/app.py": "path", "examples/app.py": "path", "src/flask/views.py": "path"}
    fixed = run(path, one_switch("channels.path.match") if ruleset == "switch" else CORRECTED)
    assert credited(fixed) == {"src/flask/views.py": "path"}
    reason = next(f for f in fixed.files if f.path == "examples/app.py").verdict.findings[0].reason
    assert reason == "ambiguous: `app.py` fits 2 returned files"


def test_directories_pick_the_file_the_citation_names(tmp_path):
    text = response(
        section("src/flask/app.py", size=500),
        section("examples/app.py", size=300),
        section("src/index.ts", size=200),
    )
    answer = "See src/flask/app.py, not the example; packages/element/src/index.ts is another package."
    path = session(tmp_path, [text], answer)
    # The reference: the directory citation credits src/flask/app.py; its last segment, read
    # again as a bare "app.py", credits examples/app.py; and .../src/index.ts ends with src/index.ts.
    assert credited(run(path, DEFAULT)) == {"src/flask/app.py": "path", "examples/app.py": "path", "src/index.ts": "path"}
    assert credited(run(path, one_switch("channels.path.match"))) == {"src/flask/app.py": "path"}


def test_absolute_citation_names_the_longest_returned_path(tmp_path):
    text = response(section("src/index.ts", size=200), section("packages/element/src/index.ts", size=300))
    path = session(tmp_path, [text], "Open /home/me/repo/packages/element/src/index.ts.")
    assert credited(run(path, one_switch("channels.path.match"))) == {"packages/element/src/index.ts": "path"}


# -- bare basenames with two dots -------------------------------------------------


@pytest.mark.parametrize("ruleset", ["switch", "corrected"])
def test_two_dot_basenames(tmp_path, ruleset):
    text = response(
        section("fastify.d.ts", size=400),
        section("context_1.16_test.go", size=300),
        section("lib/reply.js", size=300),
    )
    path = session(tmp_path, [text], "Types live in fastify.d.ts and the test in context_1.16_test.go; res.send is a call.")
    assert credited(run(path, DEFAULT)) == {}
    fixed = run(path, one_switch("channels.path.basename") if ruleset == "switch" else CORRECTED)
    # res.send: extension "send" was not returned, so still no path.
    assert credited(fixed) == {"fastify.d.ts": "path", "context_1.16_test.go": "path"}
    assert fixed.used == 700


# -- the interactive answer ---------------------------------------------------------


def interactive(tmp_path, tail):
    text = response(section("lib/a.js", size=100), section("lib/b.js", size=300))
    rows = [
        {"type": "user", "message": {"content": "How does it work?"}},
        {"type": "assistant", "message": {"id": "m1", "content": [{"type": "text", "text": "Looking at lib/b.js first."}]}},
        {"type": "assistant", "message": {"id": "m1", "content": [{"type": "tool_use", "id": "t1", "name": EXPLORE}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": text}]}},
    ] + tail
    return write_jsonl(tmp_path / "6f1c2a0e.jsonl", rows)


@pytest.mark.parametrize("ruleset", ["switch", "corrected"])
def test_final_message_of_two_text_blocks(tmp_path, ruleset):
    path = interactive(tmp_path, [
        {"type": "assistant", "message": {"id": "m2", "content": [{"type": "text", "text": "It is done in lib/a.js."}]}},
        {"type": "assistant", "message": {"id": "m2", "content": [{"type": "text", "text": "Hope this helps."}]}},
    ])
    base = run(path, DEFAULT, ClaudeInteractiveReader)
    assert base.answer == "Hope this helps." and credited(base) == {}
    fixed = run(path, one_switch("reader.answer") if ruleset == "switch" else CORRECTED, ClaudeInteractiveReader)
    # Both blocks after the last tool call; the preamble before it ("Looking at lib/b.js") is not the answer.
    assert fixed.answer == "It is done in lib/a.js.\n\nHope this helps."
    assert credited(fixed) == {"lib/a.js": "path"}


def test_closing_pleasantry_does_not_replace_the_answer(tmp_path):
    path = interactive(tmp_path, [
        {"type": "assistant", "message": {"id": "m2", "content": [{"type": "text", "text": "It is done in lib/a.js."}]}},
        {"type": "user", "message": {"content": "thanks!"}},
        {"type": "assistant", "message": {"id": "m3", "content": [{"type": "text", "text": "You're welcome!"}]}},
    ])
    assert run(path, DEFAULT, ClaudeInteractiveReader).answer == "You're welcome!"
    fixed = run(path, one_switch("reader.answer"), ClaudeInteractiveReader)
    # Every turn's final text, joined like result events: the pleasantry is kept but cites nothing.
    assert fixed.answer == "It is done in lib/a.js.\n\nYou're welcome!"
    assert credited(fixed) == {"lib/a.js": "path"}


def test_text_and_tool_use_in_one_event_is_preamble(tmp_path):
    path = interactive(tmp_path, [
        {"type": "assistant", "message": {"id": "m2", "content": [
            {"type": "text", "text": "Let me also check lib/b.js."},
            {"type": "tool_use", "id": "t2", "name": "Read"}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t2", "content": "..."}]}},
        {"type": "assistant", "message": {"id": "m3", "content": [{"type": "text", "text": "Answer: lib/a.js."}]}},
    ])
    fixed = run(path, one_switch("reader.answer"), ClaudeInteractiveReader)
    assert fixed.answer == "Answer: lib/a.js." and credited(fixed) == {"lib/a.js": "path"}


def test_answer_switch_leaves_result_events_alone(tmp_path):
    text = response(section("lib/a.js", size=100))
    path = session(tmp_path, [text], "lib/a.js")
    assert run(path, one_switch("reader.answer")).answer == "lib/a.js"


# -- tool_result blocks joined with nothing -------------------------------------------


@pytest.mark.parametrize("ruleset", ["switch", "corrected"])
def test_block_separator_keeps_a_header_at_a_line_start(tmp_path, ruleset):
    block1 = "**Exploration: q**\n\n**`lib/a.js`** — a(function)\n```\n1\ta\n```"  # no final newline
    block2 = "**`lib/b.js`** — b(function)\n```\n1\tb\n```\n"
    rows = events([block1])  # one call, then replace its content with two text items
    rows[-1]["message"]["content"][0]["content"] = [{"type": "text", "text": block1}, {"type": "text", "text": block2}]
    rows.append({"type": "result", "result": "See lib/b.js."})
    path = write_jsonl(tmp_path / "run.jsonl", rows)
    base = run(path, DEFAULT)
    a_start = block1.index("**`lib/a.js`")
    # Glued: "```**`lib/b.js`**" is no header, so lib/b.js is lost inside lib/a.js's section.
    assert sizes(base) == {"lib/a.js": len(block1) - a_start + len(block2)}
    assert base.used == 0
    fixed = run(path, one_switch(E + "block_separator") if ruleset == "switch" else CORRECTED)
    assert sizes(fixed) == {"lib/a.js": len(block1) - a_start + 1, "lib/b.js": len(block2)}
    assert credited(fixed) == {"lib/b.js": "path"}


# -- byte order marks -----------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ["switch", "corrected"])
def test_bom_line_is_read_when_stripped(tmp_path, ruleset):
    text = response(section("lib/a.js", size=100), section("lib/b.js", size=100))
    rows = [json.dumps(r) for r in events([text])]
    rows[0] = "\ufeff" + rows[0]  # the first line (system init) carries the mark
    rows.append("\ufeff" + json.dumps({"type": "result", "result": "lib/a.js"}))
    path = write_jsonl(tmp_path / "run.jsonl", rows)
    base = run(path, DEFAULT)
    assert base.answer == "" and base.status == "no-answer"
    assert sum("byte order mark" in w.message for w in base.warnings) == 2
    fixed = run(path, one_switch("reader.bom") if ruleset == "switch" else CORRECTED)
    assert fixed.answer == "lib/a.js" and credited(fixed) == {"lib/a.js": "path"}
    assert not any("byte order mark" in w.message for w in fixed.warnings)


def test_each_switch_alone_leaves_an_ordinary_session_unchanged(tmp_path):
    # A session none of the flaws touches scores the same under every switch and under corrected.
    text = response(
        section("lib/response.js", " — send(function)", size=300),
        section("lib/utils.js", " — etag(function)", size=200),
        section("lib/router/index.js", " — next(calls)", size=100),
    )
    path = session(tmp_path, [text], "lib/response.js sends; `etag` tags.")
    base = run(path, DEFAULT)
    assert (base.used, base.envelope) == (500, 600)
    for key in SWITCHES:
        other = run(path, one_switch(key))
        assert (other.used, other.envelope, credited(other)) == (500, 600, credited(base)), key
    assert (run(path, CORRECTED).used, run(path, CORRECTED).envelope) == (500, 600)
