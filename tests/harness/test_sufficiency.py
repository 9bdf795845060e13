"""The explore sufficiency block (sufficiency.md) on hand-built sessions.

Each case's buckets and lines are derived by hand from the spec (the comments
say why), and every case is also compared with the JavaScript oracle's
sufficiency half (tests/oracle/reference.mjs), text and JSON.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from builders import EXPLORE, answer_to, explored, response, section, use, write_jsonl

from citeledger.cli import main
from citeledger.harness.shell import same_file, shell_intent

ORACLE = Path(__file__).parent.parent / "oracle" / "reference.mjs"
MENTIONS = "**Exploration: q**\n\nsee src/named.py\n\n"


def r(*paths, preamble="**Exploration: q**\n\n"):
    return response(*(section(p, body="x\n") for p in paths), preamble=preamble)


def buckets_case():
    # One call per bucket (and two more): 8 answered calls, so 1/8 = 12.5% prints 13% as toFixed(0) rounds.
    return [
        *explored("t1", "first", r("lib/a.js", "lib/b.js"), message="m1"),
        *explored("t2", "second", r("lib/d.js"), message="m2"),  # t1: explore again
        use("r1", "Read", {"file_path": "/repo/lib/d.js"}, message="m3"),  # t2: read, returned
        *explored("t3", "third", r("lib/e.js"), message="m4"),
        use("r2", "Read", {"file_path": "./lib/a.js"}, message="m5"),  # t3: returned by t1
        *explored("t4", "fourth", r("lib/f.js", preamble=MENTIONS), message="m6"),
        use("r3", "Read", {"file_path": "src/named.py"}, message="m7"),  # t4: missed, named
        *explored("t5", "fifth", r("lib/g.js"), message="m8"),
        use("r4", "Grep", {"pattern": "x"}, message="m9"),  # t5: search
        *explored("t6", "sixth", r("lib/g.js"), message="m10"),
        use("r5", "Bash", {"command": "sed -n '1,20p' lib/g.js"}, message="m11"),  # t6: a shell read
        *explored("t7", "seventh", r("lib/h.js"), message="m12"),
        use("r6", "Bash", {"command": "cd /repo && grep -rn foo lib"}, message="m13"),  # t7: a shell search
        *explored("t8", "eighth", r("lib/i.js"), message="m14"),  # t8: nothing follows
        {"type": "result", "subtype": "success", "result": "see lib/a.js"},
    ]


BUCKETS_BLOCK = """\
Explore sufficiency — what the agent did NEXT (8 answered calls):
    1  13%  explore again                  insufficient: did not answer
    3  38%  Read a file we returned        allocation: right file, wrong bytes
    1  13%  Read a file we did not return  recall: file never surfaced
    2  25%  Grep/Glob                      recall (weak): still hunting for the file
    1  13%  moved on / answered            sufficient
  1. "first" [2 files] → codegraph_explore
  2. "second" [1 file] → Read d.js
  3. "third" [1 file] → Read a.js (returned by an earlier explore)
  4. "fourth" [1 file] → Read named.py (named, not returned)
  5. "fifth" [1 file] → Grep
  6. "sixth" [1 file] → Bash Read g.js
  7. "seventh" [1 file] → Bash search
  8. "eighth" [1 file] → (final answer)
"""


def delegation_case():
    return [
        *explored("t1", "delegate", r("lib/a.js"), message="m1"),
        use("ag1", "Agent", {"prompt": "look"}, message="m2"),
        use("s0", "TodoWrite", {}, thread="ag1", message="s1"),  # transparent
        use("s1", "Read", {"file_path": "lib/a.js"}, thread="ag1", message="s2"),  # decides t1
        *explored("t2", "no subagent", r("lib/b.js"), message="m3"),
        use("ag2", "Task", {}, message="m4"),  # no thread of its own: sufficient, next "Task"
        *explored("t3", "nested", r("lib/c.js"), message="m5"),
        use("ag3", "Agent", {}, message="m6"),
        use("s2", "Task", {}, thread="ag3", message="s3"),  # a delegation inside: skipped
        *explored("s3", "inner", r("lib/c.js"), thread="ag3", message="s4"),  # decides t3: explore again
    ]


DELEGATION_CALLS = [
    ("main", "delegate", "read_returned", "Agent → Read a.js"),
    ("main", "no subagent", "sufficient", "Task"),
    ("main", "nested", "explore_again", "Agent → codegraph_explore"),
    ("ag3", "inner", "sufficient", "(final answer)"),
]


def concurrent_case():
    return [
        use("t1", EXPLORE, {"query": "together"}, message="m1"),
        use("c1", "Read", {"file_path": "lib/z.js"}, message="m1"),  # same message: concurrent
        use("c2", "Bash", {"command": "ls lib"}, message="m1"),  # a shell search, same message: concurrent
        use("c3", "TodoWrite", {}, message="m1"),  # same message, no file access
        answer_to("t1", r("lib/a.js")),
        use("g1", "Glob", {"pattern": "*.js"}, message="m2"),  # decides t1: search
        use("t2", EXPLORE, {"query": "no ids"}),  # no message.id: keys #main-5 and #main-6 differ
        answer_to("t2", r("lib/a.js")),
        use("c4", "Read", {"file_path": "lib/a.js"}),  # so this Read decides t2
    ]


def errors_case():
    return [
        answer_to("t0", r("lib/a.js")),  # a result before its call: no tool known yet, not an answer
        use("t0", EXPLORE, {"query": "too early"}, message="m1"),
        use("t1", EXPLORE, {"query": "failed"}, message="m2"),
        answer_to("t1", "boom", is_error=True),
        use("t2", EXPLORE, {"query": "never answered"}, message="m3"),
    ]


def hostile_lines():
    """Raw lines: a lone surrogate needs its JSON escape as written."""
    rows = [
        use("h1", EXPLORE, "not an object", message="m1"),  # input not an object: query ""
        answer_to("h1", r("lib/a.js")),
        use("h2", "Read", {}, message="m2"),  # a Read with no path: missed, "Read "
        use("h3", EXPLORE, {"query": "a" * 44 + "\U0001F600tail"}, message="m3"),  # the cut splits the pair
        answer_to("h3", r("lib/a.js")),
        use("h4", 5, {}, message="m4"),  # a name that is no string: next ""
        {"type": "assistant", "parent_tool_use_id": 7, "message": {"id": {"o": 1}, "content": [
            {"type": "tool_use", "id": "h5", "name": EXPLORE, "input": {"query": ["x"]}}]}},  # thread main; query ""
        answer_to("h5", r("lib/q.js"), thread=7),
        {"type": "assistant", "message": {"id": {"o": 1}, "content": [  # an equal object, another message
            {"type": "tool_use", "id": "h6", "name": "Read", "input": {"file_path": "lib/q.js"}}]}},
    ]
    lines = [json.dumps(row, ensure_ascii=False) for row in rows]
    lines.append('{"type":"assistant","message":{"id":"m9","content":[{"type":"tool_use","id":"h7","name":"'
                 + EXPLORE + '","input":{"query":"lone \\ud800 half"}}]}}')
    lines.append(json.dumps(answer_to("h7", r("lib/a.js"))))
    return lines


CASES = {
    "buckets": buckets_case(),
    "delegation": delegation_case(),
    "concurrent": concurrent_case(),
    "errors": errors_case(),
    "errors-and-one": errors_case() + explored("t9", "fine", r("lib/a.js"), message="m9"),
    "hostile": hostile_lines(),
}


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    root = tmp_path_factory.mktemp("sufficiency")
    files = {name: str(write_jsonl(root / f"{name}.jsonl", rows)) for name, rows in CASES.items()}
    batch = [{"files": [f], "sufficiency": True} for f in files.values()]
    done = subprocess.run(["node", str(ORACLE), "--batch"], input=json.dumps(batch), capture_output=True,
                          text=True, check=True)
    return {name: (files[name], out) for name, out in zip(files, json.loads(done.stdout))}


def block_of(text: str) -> str:
    return text[text.index("Explore sufficiency"):]


def ours(file, capsys, *flags):
    main(["score", "--sufficiency", *flags, file])
    return capsys.readouterr().out


@pytest.mark.parametrize("name", CASES)
def test_equals_the_oracle(name, cases, capsys):
    file, want = cases[name]
    # Node's own stdout (a lone surrogate written as U+FFFD), not the batch's JSON string.
    printed = subprocess.run(["node", str(ORACLE), "--sufficiency", file], capture_output=True, text=True, check=True)
    assert ours(file, capsys) == printed.stdout
    assert json.loads(ours(file, capsys, "--json"))["sufficiency"] == want["json"]["sufficiency"]


def test_one_call_per_bucket_rounds_as_javascript(cases, capsys):
    file, _ = cases["buckets"]
    assert block_of(ours(file, capsys)) == BUCKETS_BLOCK
    data = json.loads(ours(file, capsys, "--json"))["sufficiency"]
    assert data["counts"] == {"explore_again": 1, "read_returned": 3, "read_missed": 1, "search": 2, "sufficient": 1}
    assert (data["answered"], data["errors"], data["concurrent"]) == (8, 0, 0)
    first = data["calls"][0]
    assert (first["thread"], first["query"], first["files"]) == ("main", "first", 2)
    assert first["chars"] == len(r("lib/a.js", "lib/b.js"))


def test_delegation_is_judged_by_the_subagents_first_real_act(cases, capsys):
    file, _ = cases["delegation"]
    calls = json.loads(ours(file, capsys, "--json"))["sufficiency"]["calls"]
    assert [(c["thread"], c["query"], c["bucket"], c["next"]) for c in calls] == DELEGATION_CALLS
    assert '  4. [subagent] "inner" [1 file] → (final answer)\n' in ours(file, capsys)


def test_accesses_in_the_explores_message_are_concurrent_not_reactions(cases, capsys):
    file, _ = cases["concurrent"]
    data = json.loads(ours(file, capsys, "--json"))["sufficiency"]
    assert [(c["bucket"], c["next"]) for c in data["calls"]] == [("search", "Glob"), ("read_returned", "Read a.js")]
    assert data["concurrent"] == 2
    assert ours(file, capsys).endswith(
        "  note: 2 file-access calls in the SAME message as an explore (not a reaction)\n")


def test_errored_unanswered_and_early_results_are_counted_not_bucketed(cases, capsys):
    file, _ = cases["errors"]
    assert block_of(ours(file, capsys)) == "Explore sufficiency: no answered codegraph_explore calls (3 errored or never returned)\n"
    file, _ = cases["errors-and-one"]
    text = ours(file, capsys)
    assert "(1 answered call):" in text
    assert text.endswith("  note: 3 errored/unanswered calls (not bucketed)\n")


def test_hostile_input_has_a_defined_outcome(cases, capsys):
    file, _ = cases["hostile"]
    data = json.loads(ours(file, capsys, "--json"))["sufficiency"]
    assert [(c["thread"], c["query"], c["bucket"], c["next"]) for c in data["calls"]] == [
        ("main", "", "read_missed", "Read "),
        ("main", "a" * 44 + "\U0001F600tail", "sufficient", ""),
        ("main", "", "read_returned", "Read q.js"),  # h5 returned it; an equal object id is another message
        ("main", "lone \ud800 half", "sufficient", "(final answer)"),
    ]
    text = ours(file, capsys)
    assert f'  2. "{"a" * 44}\ufffd…" [1 file] → \n' in text  # a cut pair prints as Node writes it
    assert '  4. "lone \ufffd half" [1 file] → (final answer)\n' in text


def test_without_the_flag_nothing_changes(cases, capsys):
    file, _ = cases["buckets"]
    main(["score", file])
    plain = capsys.readouterr().out
    assert "sufficiency" not in plain
    assert ours(file, capsys) == plain + "\n" + BUCKETS_BLOCK
    main(["score", "--json", file])
    assert "sufficiency" not in json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("command, kind, path", [
    ("sed -n 100,200p lib/x.js", "read", "lib/x.js"),
    ("cat 'lib/a b.js'", "read", "b.js"),  # split at spaces: `'lib/a` and `b.js'`; the last, unquoted
    ('cd /r && sudo  head -n 5 "src/app.py" | wc -l', "read", "src/app.py"),
    ("cat <<EOF > lib/x.js", None, ""),  # a heredoc is a write
    ("cat lib/x.js > out.txt", None, ""),
    ("grep -r foo lib 2>/dev/null", "search", ""),  # a redirect: no read, still a search
    ("tail -f 100", None, ""),  # no argument with / or .: not a read
    ("echo x; ls", "search", ""),
    ("lsof", None, ""),
    ("$(cat VERSION.txt)", "read", "VERSION.txt)"),  # the arguments stop only at a newline, | ; or &
    ("cat README\ncat lib/x.js", None, ""),  # a newline is no command position
])
def test_shell_rule(command, kind, path):
    intent = shell_intent(command)
    assert (intent.kind, intent.path) == (kind, path)


def test_same_file():
    assert same_file("/repo/lib/a.js", "lib/a.js") and same_file("lib\\a.js", "./lib/a.js")
    assert not same_file("", "a.js") and not same_file("xlib/a.js", "lib/a.js")


SHELL_COMMANDS = [
    "sed -n 100,200p lib/x.js", "cat 'lib/a b.js'", 'cd /r && sudo  head -n 5 "src/app.py" | wc -l',
    "cat <<EOF > lib/x.js", "cat lib/x.js > out.txt", "grep -r foo lib 2>/dev/null", "tail -f 100",
    "echo x; ls", "lsof", "$(cat VERSION.txt)", "cat README\ncat lib/x.js", "`nl -ba ./lib/y.py`",
    "awk '{print $1}' data/x.csv", "ls -la\u00a0src", "cat\u3000lib/z.js", "x=1 >\u00a0y", "find . -name '*.py'",
    "bat --style=plain '100' lib/q.ts", "egrep -n 'a|b' lib/x.js", "less +G lib/x.js; cat lib/y.js",
]


def test_shell_rule_equals_the_oracles_bash_intent():
    script = ("import { bashIntent } from " + json.dumps(ORACLE.as_uri()) + ";"
              "const cmds = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "process.stdout.write(JSON.stringify(cmds.map(bashIntent)));")
    done = subprocess.run(["node", "--input-type=module", "-e", script.replace("require('fs')", "(await import('node:fs'))")],
                          input=json.dumps(SHELL_COMMANDS), capture_output=True, text=True, check=True)
    for command, want in zip(SHELL_COMMANDS, json.loads(done.stdout)):
        got = shell_intent(command)
        assert (got.kind, got.path if got.kind == "read" else None) == (want["kind"], want.get("path")), command


def test_explore_calls_are_the_rulesets_explore_tools(tmp_path, capsys):
    """A ruleset naming another explore tool (its explore source's `tool`) scores and judges
    that tool's calls; the default ruleset finds none of them."""
    acme = "mcp__acme__acme_explore"
    path = write_jsonl(tmp_path / "run.jsonl", [
        use("t1", acme, {"query": "q"}), answer_to("t1", response(section("lib/a.js", size=40))),
        use("t2", "Read", {"file_path": "lib/a.js"}), answer_to("t2", "1\tx\n"),
        {"type": "result", "subtype": "success", "result": "See `lib/a.js`."},
    ])
    ruleset = tmp_path / "acme.yaml"
    ruleset.write_text("extends: default\nsources:\n  codegraph_explore:\n    tool: acme_explore\n")

    def scored(*options):
        main(["score", "--json", "--sufficiency", *options, str(path)])
        return json.loads(capsys.readouterr().out)

    mine = scored("--ruleset", str(ruleset))
    assert (mine["envelope"], mine["used"]) == (40, 40)
    assert mine["sufficiency"]["answered"] == 1 and mine["sufficiency"]["counts"]["read_returned"] == 1
    default = scored()
    assert default["status"] == "no-explore" and default["sufficiency"]["answered"] == 0
