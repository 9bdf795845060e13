"""Rulesets are untrusted input: safe YAML only, no unknown keys, no pattern
RE2 cannot run in linear time within its budget (docs/robustness.md)."""

from __future__ import annotations

import re

import attrs
import pytest
import re2
from hypothesis import given
from hypothesis import strategies as st

from citeledger.cli import main
from citeledger.infra.re2text import LinearPattern
from citeledger.rules import safety
from citeledger.rules.loader import RulesetError, load_ruleset, shipped_names

FIXTURE = "tests/fixtures/real/stream/express-res-send.jsonl"


def write(tmp_path, body: str, name="r.yaml"):
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return str(path)


def patterns_of(ruleset) -> list[re.Pattern]:
    out = [rule.options.header for rule in ruleset.sources if rule.name == "codegraph_explore"]
    for rule in ruleset.channel_options:
        out += [
            v for f in attrs.fields(type(rule.options))
            if isinstance(v := getattr(rule.options, f.name), (re.Pattern, LinearPattern))
        ]
    return out


# ---------------------------------------------------------------------------
# YAML: safe types only.


@pytest.mark.parametrize("tag", [
    "!!python/object/apply:os.system ['touch {marker}']",
    "!!python/object/new:os.system ['touch {marker}']",
    "!!python/name:os.system",
])
def test_python_tags_are_refused_and_never_run(tmp_path, tag):
    marker = tmp_path / "pwned"
    path = write(tmp_path, f"extends: default\ndescription: {tag.format(marker=marker)}\n")
    with pytest.raises(RulesetError) as err:
        load_ruleset(path)
    assert str(err.value).startswith(f"{path}:2:") and "not valid YAML" in str(err.value)
    assert not marker.exists()


def test_alias_bomb_is_refused_without_expanding(tmp_path):
    lines = ["extends: default", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}]" for i in range(1, 9)]
    lines += ["channels:", "  symbol:", "    stopwords: *a8"]
    path = write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(RulesetError) as err:
        load_ruleset(path)
    # a0 is 11 nodes (a list of 10), a_i is 1 + 10 x a_(i-1): a4 (line 6) is 111,111 > 100,000.
    assert err.value.file == path and err.value.line == 6 and "aliases expand to more than 100,000" in str(err.value)


@pytest.mark.parametrize("body, line, key", [
    ("extends: default\nmystery: 1\n", 2, "mystery"),
    ("extends: default\nreader:\n  bom: strip\n  shell: rm\n", 4, "reader.shell"),
    ("extends: default\nsources:\n  codegraph_explore:\n    trailr: x\n", 4, "sources.codegraph_explore.trailr"),
    ("extends: default\nchannels:\n  symbol:\n    min_lenght: 3\n", 4, "channels.symbol.min_lenght"),
    ("extends: default\nchannels:\n  telepathy: {}\n", 3, "channels.telepathy"),
])
def test_unknown_keys_are_refused_with_file_line_and_key(tmp_path, body, line, key):
    path = write(tmp_path, body)
    with pytest.raises(RulesetError) as err:
        load_ruleset(path)
    assert (err.value.file, err.value.line, err.value.key) == (path, line, key)


# ---------------------------------------------------------------------------
# Regular expressions: what RE2 runs in budget is safe; the rest is refused.

CATASTROPHIC = [
    r"(a+)+$", r"(a*)*b", r"(\w+\s?)+$", r"(a|aa)+$", r"(a|a)+$", r"(x\w+)+y", r"((a+)b?)+c",
    r"(?:a{1,100})+b", r"(?=(a+)+b)", r"(?:[^x]+|y+)*z", r"(.*)*x", r"\w+\w+x", r".*x.*y", r"\d+\s*\d+z",
    # Issue 20 item 6: the old four-rule check passed these; re ran them in quadratic and cubic time.
    r"\B[\w@+-]+\.[A-Za-z]\w*", r"([\w@+-]+)\1\.[A-Za-z]\w*",
]
HARMLESS = [
    r"(?:[\w@.+-]+/)+[\w@.+-]+\.[A-Za-z]\w*", r"\b[\w@+-]+(?:\.[\w@+-]+)*\.[A-Za-z]\w*", r"[^x]*x.*",
    r"(a+b)+", r"(?:\s*,\s*\w+)+", r"(a|b)+", r"(?:\d|\w)+x", r"(?:ab|cd)+", r"`([^`\n]+)`", r"a{2,5}b{1,3}",
]


def token_ruleset(tmp_path, pattern: str) -> str:
    quoted = pattern.replace("'", "''")
    return write(tmp_path, f"extends: default\nchannels:\n  symbol:\n    token: '{quoted}'\n")


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_catastrophic_patterns_run_on_re2_or_are_refused_at_load_time(tmp_path, pattern):
    path = token_ruleset(tmp_path, pattern)
    try:
        token = load_ruleset(path).options_for("symbol").token
    except RulesetError as err:
        assert (err.file, err.line, err.key) == (path, 4, "channels.symbol.token")
        assert "refused" in str(err) and "\n" not in str(err)
    else:
        assert isinstance(token, LinearPattern), pattern


@pytest.mark.parametrize("pattern", [r"(?<=-)\w+", r"(?:a(?=\w*!))+x", r"a(?=\w*!)", r"(\w+)\1", r"(?P<a>x)(?P=a)", r"a{1001}"])
def test_what_re2_cannot_run_is_refused_at_load_time(tmp_path, pattern):
    path = token_ruleset(tmp_path, pattern)
    with pytest.raises(RulesetError) as err:
        load_ruleset(path)
    assert (err.value.file, err.value.line, err.value.key) == (path, 4, "channels.symbol.token")
    assert "RE2 cannot run it" in str(err.value)


@pytest.mark.parametrize("pattern", [r"(?>a+)b", r"a*+b"])
def test_atomic_and_possessive_forms_are_refused(tmp_path, pattern):
    with pytest.raises(RulesetError) as err:
        load_ruleset(token_ruleset(tmp_path, pattern))
    assert err.value.key == "channels.symbol.token"
    assert "RE2 cannot run it" in str(err.value) and ("atomic" in str(err.value) or "possessive" in str(err.value))


def test_a_refused_pattern_stops_the_cli_before_any_input_is_read(tmp_path, capsys):
    path = write(tmp_path, "extends: default\nsources:\n  codegraph_explore:\n    header: '(?<=x)\\*\\*`((?:[^`]+)+)`\\*\\*(.*)'\n")
    assert main(["score", "--ruleset", path, FIXTURE]) == 2
    err = capsys.readouterr().err
    assert f"{path}:4: sources.codegraph_explore.header:" in err and "refused" in err and err.count("\n") == 1


@pytest.mark.parametrize("pattern", HARMLESS)
def test_harmless_patterns_are_accepted(tmp_path, pattern):
    path = write(tmp_path, f"extends: default\nchannels:\n  path:\n    with_directory: '{pattern}'\n")
    compiled = load_ruleset(path).options_for("path").with_directory
    assert compiled.pattern == pattern and isinstance(compiled, LinearPattern)


def test_every_shipped_pattern_runs_on_re2():
    # No exception: the quote channel's fence (a backreference) is found in Python.
    for name in shipped_names():
        for pattern in patterns_of(load_ruleset(name)):
            assert isinstance(pattern, LinearPattern), (name, pattern)


def test_the_default_patterns_run_on_re2():
    assert all(isinstance(p, LinearPattern) for p in patterns_of(load_ruleset("default")))


OLD_FENCE = r"(?ms)^[ \t]*(?P<fence>`{3,}|~{3,})[^\n]*\n(?P<code>.*?)^[ \t]*(?P=fence)[ \t]*$"


def test_the_pattern_lines_once_shipped_is_refused_like_any_other(tmp_path, capsys):
    # It ran on re as the one shipped exception; now nothing RE2 cannot run is allowed.
    with pytest.raises(safety.UnsafePattern, match="backreference"):
        safety.compile_ruleset_pattern(OLD_FENCE)
    path = token_ruleset(tmp_path, OLD_FENCE)
    assert main(["score", "--ruleset", path, FIXTURE]) == 2
    err = capsys.readouterr().err
    assert f"{path}:4: channels.symbol.token: refused" in err and "backreference" in err and err.count("\n") == 1


def quote_ruleset(tmp_path, body: str) -> str:
    return write(tmp_path, "extends: lines\nchannels:\n  quote:\n" + body)


def test_the_old_fenced_block_key_is_an_unknown_key_naming_the_new_ones(tmp_path):
    path = quote_ruleset(tmp_path, f"    fenced_block: '{OLD_FENCE}'\n")
    with pytest.raises(RulesetError) as err:
        load_ruleset(path)
    assert (err.value.line, err.value.key) == (4, "channels.quote.fenced_block")
    assert "fence_chars" in str(err.value) and "fence_min" in str(err.value)


@pytest.mark.parametrize("value, message", [
    ("['``', '~']", "fence_chars items must be single characters other than space, tab or newline, not '``'"),
    ("[' ']", "not ' '"),
    ("['\t']", "not '\\t'"),
    ("['', '~']", "not ''"),
    ("['~', '~']", "fence_chars lists a character twice"),
    ("'`~'", "must be a list, not str"),
    ("[3]", "items must be str"),
])
def test_fence_chars_are_checked_at_load_time(tmp_path, value, message):
    path = quote_ruleset(tmp_path, f"    fence_chars: {value}\n")
    with pytest.raises(RulesetError) as err:
        load_ruleset(path)
    assert (err.value.line, err.value.key) == (4, "channels.quote.fence_chars")
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("value, loads", [(0, False), (1, True), (1000, True), (1001, False), (-3, False)])
def test_fence_min_has_a_range(tmp_path, value, loads):
    path = quote_ruleset(tmp_path, f"    fence_min: {value}\n")
    if loads:
        assert load_ruleset(path).options_for("quote").fence_min == value
        return
    with pytest.raises(RulesetError) as err:
        load_ruleset(path)
    assert (err.value.line, err.value.key) == (4, "channels.quote.fence_min")
    assert "out of range" in str(err.value) and "an integer from 1 to 1,000" in str(err.value)


def nested(depth: int) -> str:
    return "(" * depth + "a" + ")" * depth


def test_deeply_nested_groups_are_refused_in_one_line_not_a_recursion_error(tmp_path, capsys):
    # Issue 20 item 5: 300 nested groups (601 bytes) were a RecursionError, exit 3.
    # RE2 parses with its own stack; 1,000 groups make a program above the budget.
    for depth in (1000, 5000, 100_000):
        path = token_ruleset(tmp_path, nested(depth))
        assert main(["score", "--ruleset", path, FIXTURE]) == 2
        err = capsys.readouterr().err
        assert f"{path}:4: channels.symbol.token: refused" in err and "RE2 program is larger" in err
        assert err.count("\n") == 1 and "Traceback" not in err


def test_nesting_within_the_budget_runs(tmp_path):
    path = token_ruleset(tmp_path, nested(300))
    assert isinstance(load_ruleset(path).options_for("symbol").token, LinearPattern)


def test_a_huge_count_is_refused_without_reading_it_as_a_number(tmp_path):
    # re's own parser would int() the digits: past Python's 4,300-digit limit, a ValueError.
    # RE2 reads a count it cannot hold as the literal text, which is above the budget.
    path = token_ruleset(tmp_path, "a{" + "9" * 5000 + "}")
    with pytest.raises(RulesetError) as err:
        load_ruleset(path)
    assert "RE2 program is larger" in str(err.value) and len(str(err.value)) < 400


def test_a_quadratic_pattern_on_re_runs_in_linear_time_on_re2(tmp_path):
    # Issue 20 item 6: on re, a 100 KB answer took about 80 s; a limit far above RE2's time.
    import time

    token = load_ruleset(token_ruleset(tmp_path, r"\B[\w@+-]+\.[A-Za-z]\w*")).options_for("symbol").token
    answer = "a" * 100_000
    began = time.perf_counter()
    assert token.findall(answer) == []
    assert time.perf_counter() - began < 5


def test_a_cubic_backreference_pattern_is_refused(tmp_path, capsys):
    path = token_ruleset(tmp_path, r"([\w@+-]+)\1\.[A-Za-z]\w*")
    assert main(["score", "--ruleset", path, FIXTURE]) == 2
    err = capsys.readouterr().err
    assert f"{path}:4: channels.symbol.token: refused" in err and "backreference" in err and err.count("\n") == 1


def test_a_pattern_too_large_for_the_budget_is_refused(tmp_path, capfd):
    # Issue 20 item 7: 20,000 optional groups (about 160 KB). RE2's DFA ran out
    # of memory on every call, and absl logged to stderr.
    path = token_ruleset(tmp_path, "[a-z]" + "(?:abc)?" * 20_000)
    assert main(["score", "--ruleset", path, FIXTURE]) == 2
    err = capfd.readouterr().err
    assert f"{path}:4: channels.symbol.token: refused" in err and "RE2 program is larger" in err
    assert err.count("\n") == 1


def test_a_large_pattern_within_the_budget_runs_without_a_word_on_stderr(tmp_path, capfd):
    # Below the limit, RE2 keeps to its budget: an exit-0 run prints nothing on
    # stderr (no absl "DFA out of memory" line), even over a long answer.
    pattern = "[a-z]" + "(?:abc)?" * 300
    token = load_ruleset(token_ruleset(tmp_path, pattern)).options_for("symbol").token
    assert isinstance(token, LinearPattern)
    assert len(token.findall("xabcabc " * 20_000)) == 20_000
    assert main(["score", "--ruleset", token_ruleset(tmp_path, pattern), FIXTURE]) == 0
    assert capfd.readouterr().err == ""


# Small regular expressions built from the pieces that matter.
regex_atom = st.sampled_from(["a", "b", "\\w", "\\d", "\\s", ".", "[^x]", "[ab]", "x", "(?=a)", "\\b", "^", "$", "\\1", "(?<=a)"])
regex = st.recursive(
    regex_atom,
    lambda inner: st.one_of(
        st.builds(lambda a, q: f"(?:{a}){q}", inner, st.sampled_from(["*", "+", "?", "{2,}", "{1,20}", "{3}", "*?", "++"])),
        st.builds(lambda a, b: a + b, inner, inner),
        st.builds(lambda a, b: f"(?:{a}|{b})", inner, inner),
        st.builds(lambda a: f"({a})", inner),
    ),
    max_leaves=8,
)


OPTIONS = re2.Options()
OPTIONS.log_errors = False


@given(regex)
def test_a_pattern_runs_on_re2_or_is_refused_never_crashes(text):
    try:
        compiled = safety.compile_ruleset_pattern(text)
    except safety.UnsafePattern as exc:
        assert "RE2 cannot run it" in str(exc)
    except re.error as exc:
        assert str(exc).startswith("not RE2 syntax: ") and "\n" not in str(exc)
        with pytest.raises(re2.error):
            re2.compile(text, OPTIONS)
    else:
        assert isinstance(compiled, LinearPattern)
