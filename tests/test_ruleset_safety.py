"""Rulesets are untrusted input: safe YAML only, no unknown keys, no pattern
that can backtrack catastrophically (docs/robustness.md)."""

from __future__ import annotations

import re

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeledger.cli import main
from citeledger.core.patterns import LinearPattern
from citeledger.rules import safety
from citeledger.rules.loader import RulesetError, load_ruleset, shipped_names

FIXTURE = "tests/fixtures/real/stream/express-res-send.jsonl"


def write(tmp_path, body: str, name="r.yaml"):
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return str(path)


def patterns_of(ruleset) -> list[re.Pattern]:
    out = [ruleset.splitter.header]
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
    ("extends: default\nreader:\n  explore_tool: x\n  shell: rm\n", 4, "reader.shell"),
    ("extends: default\nsplitter:\n  trailr: x\n", 3, "splitter.trailr"),
    ("extends: default\nchannels:\n  symbol:\n    min_lenght: 3\n", 4, "channels.symbol.min_lenght"),
    ("extends: default\nchannels:\n  telepathy: {}\n", 3, "channels.telepathy"),
])
def test_unknown_keys_are_refused_with_file_line_and_key(tmp_path, body, line, key):
    path = write(tmp_path, body)
    with pytest.raises(RulesetError) as err:
        load_ruleset(path)
    assert (err.value.file, err.value.line, err.value.key) == (path, line, key)


# ---------------------------------------------------------------------------
# Regular expressions.

CATASTROPHIC = [
    r"(a+)+$", r"(a*)*b", r"(\w+\s?)+$", r"(a|aa)+$", r"(a|a)+$", r"(x\w+)+y", r"((a+)b?)+c",
    r"(?:a{1,100})+b", r"(?=(a+)+b)", r"(?:[^x]+|y+)*z", r"(.*)*x", r"\w+\w+x", r".*x.*y", r"\d+\s*\d+z",
]
HARMLESS = [
    r"(?:[\w@.+-]+/)+[\w@.+-]+\.[A-Za-z]\w*", r"\b[\w@+-]+(?:\.[\w@+-]+)*\.[A-Za-z]\w*", r"[^x]*x.*",
    r"(a+b)+", r"(?:\s*,\s*\w+)*", r"(a|b)+", r"(?:\d|\w)+x", r"(?:ab|cd)+", r"`([^`\n]+)`", r"a{2,5}b{1,3}",
]


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_catastrophic_patterns_run_on_re2_or_are_refused_at_load_time(tmp_path, pattern):
    # A shape RE2 can run is accepted: RE2 matches in linear time.
    path = write(tmp_path, f"extends: default\nchannels:\n  symbol:\n    token: '{pattern}'\n")
    try:
        token = load_ruleset(path).options_for("symbol").token
    except RulesetError as err:
        assert (err.file, err.line, err.key) == (path, 4, "channels.symbol.token")
        assert "backtrack catastrophically" in str(err)
    else:
        assert isinstance(token, LinearPattern), pattern


@pytest.mark.parametrize("pattern", CATASTROPHIC + [r"(?:a(?=\w*!))+x", r"a(?=\w*!)"])
def test_catastrophic_patterns_re_must_run_are_refused_at_load_time(tmp_path, pattern):
    # A lookbehind keeps a pattern off RE2; on re the shape is refused.
    path = write(tmp_path, f"extends: default\nchannels:\n  symbol:\n    token: '(?<=-){pattern}'\n")
    with pytest.raises(RulesetError) as err:
        load_ruleset(path)
    assert (err.value.file, err.value.line, err.value.key) == (path, 4, "channels.symbol.token")
    assert "backtrack catastrophically" in str(err.value)


def test_a_refused_pattern_stops_the_cli_before_any_input_is_read(tmp_path, capsys):
    path = write(tmp_path, "extends: default\nsplitter:\n  header: '(?<=x)\\*\\*`((?:[^`]+)+)`\\*\\*(.*)'\n")
    assert main(["score", "--ruleset", path, FIXTURE]) == 2
    err = capsys.readouterr().err
    assert f"{path}:3: splitter.header:" in err and "catastrophically" in err


@pytest.mark.parametrize("pattern", HARMLESS)
def test_harmless_patterns_are_accepted(tmp_path, pattern):
    path = write(tmp_path, f"extends: default\nchannels:\n  path:\n    with_directory: '{pattern}'\n")
    assert load_ruleset(path).options_for("path").with_directory.pattern == pattern


def test_the_default_patterns_pass_the_check_on_their_own_merits():
    # Not through the shipped-pattern allowance: the reference's own patterns
    # must satisfy the rule a colleague's ruleset is held to.
    for pattern in patterns_of(load_ruleset("default")):
        safety.check(pattern)


def test_every_shipped_ruleset_loads():
    for name in shipped_names():
        assert patterns_of(load_ruleset(name))


def test_a_shipped_pattern_is_allowed_verbatim_only():
    # lines.yaml's quote fence pattern has an ambiguous boundary (`{3,} then [^\n]*)
    # that only a line of thousands of backticks exercises; it is allowed as
    # shipped, and any edit of it is checked like every other user pattern.
    fence = load_ruleset("lines").options_for("quote").fenced_block.pattern
    assert fence in safety.shipped_patterns()
    with pytest.raises(safety.UnsafePattern):
        safety.check(re.compile(fence, re.ASCII))
    safety.check_ruleset_pattern(re.compile(fence, re.ASCII))
    with pytest.raises(safety.UnsafePattern):
        safety.check_ruleset_pattern(re.compile(fence + "x?", re.ASCII))


# Small regular expressions built from the pieces that matter to the check.
regex_atom = st.sampled_from(["a", "b", "\\w", "\\d", "\\s", ".", "[^x]", "[ab]", "x", "(?=a)", "\\b", "^", "$"])
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


@given(regex)
def test_the_check_either_accepts_or_refuses_never_crashes(text):
    pattern = re.compile(text, re.ASCII)
    try:
        safety.check(pattern)
    except safety.UnsafePattern as exc:
        assert "catastrophically" in str(exc)


@given(regex)
def test_nesting_an_accepted_pumping_pattern_under_plus_is_judged_consistently(text):
    # (X)+ where X can match a string both starting and ending with "a" and of
    # varying length is ambiguous; the check must refuse every such X.
    inner = re.compile(text, re.ASCII)
    lengths = {len(m) for m in ("a", "aa", "aaa", "aaaa") if inner.fullmatch(m)}
    if len(lengths) >= 2:
        with pytest.raises(safety.UnsafePattern):
            safety.check(re.compile(f"(?:{text})+$", re.ASCII))
