"""`citeledger explain`: each file, each channel's finding and the guard that decided."""

from __future__ import annotations

import json

from builders import response, section, session
from citeledger.cli import main

REAL = "tests/fixtures/real/stream"


def explain(capsys, *args):
    status = main(["explain", *map(str, args)])
    out = capsys.readouterr().out
    return status, out


def block(out, path):
    """The lines of one file's entry: its title line and its finding lines."""
    lines = out.splitlines()
    start = next(i for i, l in enumerate(lines) if l[4:].startswith(path + "  "))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("      ")), len(lines))
    return lines[start:end]


def test_guards_are_named(tmp_path, capsys):
    text = response(
        section("lib/response.js", " — send(function)", size=400),
        section("lib/a.js", " — render(function)", size=100),
        section("lib/b.js", " — render(function)", size=100),
        section("lib/c.js", " — render(function)", size=100),
        section("lib/utils.js", " — compileETag(function)", size=150),
        section("lib/application.js", " — compileETag(variable)", size=150),
        section("lib/router/index.js", " — next(calls), next(references)", size=100),
    )
    answer = "utils.js:225 builds it; `render` is everywhere; `compileETag` and `next` too."
    status, out = explain(capsys, session(tmp_path, [text], answer))
    assert status == 0
    assert block(out, "lib/utils.js")[1:] == [
        "      path    yes  path `utils.js`: bare basename, extension .js shipped",
        "      symbol  yes  symbol `compileETag`: defined here",
    ]
    assert block(out, "lib/a.js")[1:] == [
        "      path    no   no cited path names this file",
        "      symbol  no   symbol `render`: owned by 3 files, ambiguity cutoff (limit 3)",
    ]
    assert block(out, "lib/application.js")[1] == "      path    no   no cited path names this file"
    assert block(out, "lib/application.js")[2] == (
        "      symbol  no   symbol `compileETag`: weak owner (variable) loses to a strong owner in lib/utils.js"
    )
    assert block(out, "lib/router/index.js")[2] == (
        "      symbol  no   symbol `next`: listed here only as calls, references, not a defining kind"
    )
    # Title lines: pooled chars, share of the 1,100-char envelope, sections, and the decision.
    assert block(out, "lib/utils.js")[0] == "  * lib/utils.js  150 chars (13.6%), 1 section — credited by path"
    assert block(out, "lib/response.js")[0].endswith("— not credited")


def test_header_summarises_answer_and_efficiency(tmp_path, capsys):
    text = response(section("lib/a.js", size=300), section("lib/b.js", size=100))
    status, out = explain(capsys, session(tmp_path, [text], "lib/a.js"))
    lines = out.splitlines()
    assert lines[0] == "Explain — run under ruleset default (channels in rank order: path, symbol)"
    assert lines[1] == "  answer: the result event(s), 8 chars"
    assert lines[2] == "  efficiency 75.0%: 300 of 400 chars, 1/2 files credited"


def test_no_answer_and_no_explore(tmp_path, capsys):
    status, out = explain(capsys, session(tmp_path, [response(section("lib/a.js", size=100))]))
    assert status == 1
    assert "  !! no final answer text: nothing can be credited" in out.splitlines()
    status, out = explain(capsys, f"{REAL}/express-no-explore.jsonl")
    assert (status, out) == (1, "Explore allocation: no codegraph_explore responses with source sections\n")


def test_ruleset_changes_the_explanation(tmp_path, capsys):
    # The real fastify run: `fastify.d.ts` is not a citation under default, is under corrected.
    _, out = explain(capsys, f"{REAL}/fastify-plugins-3calls.jsonl")
    assert block(out, "fastify.d.ts")[0].endswith("— not credited")
    assert block(out, "fastify.d.ts")[1] == "      path    no   no cited path names this file"
    _, out = explain(capsys, "--ruleset", "corrected", f"{REAL}/fastify-plugins-3calls.jsonl")
    assert block(out, "fastify.d.ts")[1] == "      path    yes  path `fastify.d.ts`: bare basename, extension .ts shipped"


def test_real_three_owner_name(capsys):
    _, out = explain(capsys, f"{REAL}/express-debug-3owners.jsonl")
    # EXPECTED.md: `debug` is owned (weakly) by 3 files, so lib/router/route.js is not credited.
    assert block(out, "lib/router/route.js")[2] == (
        "      symbol  no   symbol `debug`: owned by 3 files, ambiguity cutoff (limit 3)"
    )


def test_trailing_meta_line(tmp_path, capsys):
    text = "**`lib/a.js`**\n```\n1\tx\n```\n\n**Not shown above — explore these names for their source**\n\n- x\n\n> q"
    status, out = explain(capsys, "--ruleset", "corrected", session(tmp_path, [text], "lib/a.js"))
    meta = len("\n**Not shown above — explore these names for their source**\n\n- x\n")
    assert out.splitlines()[-1] == (
        f"    (trailing blocks) {meta} chars ({100 * meta / (len(text) - 4):.1f}%) — charged to no file (its source's trailing_block: meta)"
    )


def test_json_has_every_finding(tmp_path, capsys):
    text = response(section("lib/a.js", " — alpha(function)", size=300), section("lib/b.js", size=100))
    status = main(["explain", "--json", str(session(tmp_path, [text], "`alpha` is it"))])
    data = json.loads(capsys.readouterr().out)
    assert status == 0
    files = {f["path"]: f for f in data["files"]}
    assert [x["channel"] for x in files["lib/a.js"]["findings"]] == ["path", "symbol"]
    assert files["lib/a.js"]["findings"][1] == {
        "channel": "symbol", "credited": True, "evidence": "alpha", "reason": "symbol `alpha`: defined here",
    }
    assert files["lib/b.js"]["channel"] is None
