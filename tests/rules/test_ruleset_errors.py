"""An invalid ruleset is a one-line error naming the file, line and key (exit status 2)."""

from __future__ import annotations

import pytest

from builders import response, section, session
from citeledger.cli import main
from citeledger.rules.variation import one_at_a_time, variant
from citeledger.rules.loader import RulesetError, load_ruleset


def write(tmp_path, text, name="bad.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def error_of(path):
    with pytest.raises(RulesetError) as info:
        load_ruleset(path)
    return str(info.value)


def test_unknown_top_level_key(tmp_path):
    path = write(tmp_path, "name: x\nextends: default\ncolour: blue\n")
    assert error_of(path).startswith(f"{path}:3: colour: unknown key (known: ")


@pytest.mark.parametrize("body, line, old, new", [
    ("splitter:\n  unit: utf8\n", 4, "splitter.unit", "unit"),
    ("splitter:\n  header: 'x(y)(z)'\n", 4, "splitter.header", "sources.codegraph_explore.header"),
    ("splitter:\n  trailer: x\n", 4, "splitter.trailer", "sources.codegraph_explore.trailer"),
    ("splitter:\n  trailing_block: meta\n", 4, "splitter.trailing_block", "sources.codegraph_explore.trailing_block"),
    ("reader:\n  bom: strip\n  explore_tool: x\n", 5, "reader.explore_tool", "sources.codegraph_explore.tool"),
    ("reader:\n  block_separator: x\n", 4, "reader.block_separator", "sources.codegraph_explore.block_separator"),
])
def test_a_moved_key_is_refused_in_one_line_naming_its_new_key(tmp_path, body, line, old, new):
    # A ruleset written for the old keys must not change meaning: refused, at the key's line.
    path = write(tmp_path, "name: x\nextends: default\n" + body)
    assert error_of(path) == f"{path}:{line}: {old}: moved: write it as `{new}`"


def test_the_first_moved_key_of_the_users_own_file_is_named(tmp_path):
    base = tmp_path / "base.yaml"
    base.write_text("extends: default\nsplitter:\n  unit: utf8\n")
    path = write(tmp_path, f"extends: {base}\nreader:\n  block_separator: x\n")
    assert error_of(path) == f"{path}:3: reader.block_separator: moved: write it as `sources.codegraph_explore.block_separator`"


def test_a_moved_key_given_to_vary_is_refused_naming_its_new_key():
    with pytest.raises(RulesetError) as info:
        variant("default", {"splitter.trailing_block": "meta"})
    assert str(info.value) == "--vary: splitter.trailing_block: moved: write it as `sources.codegraph_explore.trailing_block`"


def test_the_moved_keys_work_where_they_live_now(tmp_path):
    path = write(tmp_path, "name: x\nextends: default\nunit: utf8\nsources:\n  codegraph_explore:\n"
                           "    trailing_block: meta\n    block_separator: \"\\n\"\n    tool: my_explore\n")
    ruleset = load_ruleset(path)
    explore = ruleset.sources[0].options
    assert ruleset.unit == "utf8" and explore.trailing_block == "meta" and explore.block_separator == "\n"
    assert ruleset.explore_tool == "my_explore" == ruleset.read_options().explore_tool


def test_the_unit_takes_only_known_units(tmp_path):
    path = write(tmp_path, "extends: default\nunit: bytes\n")
    assert error_of(path) == f"{path}:2: unit: must be one of 'utf16', 'codepoint', 'utf8', not 'bytes'"
    path = write(tmp_path, "extends: default\nunit: [utf8]\n")
    assert error_of(path) == f"{path}:2: unit: must be a string, not list"


def test_unknown_nested_key(tmp_path):
    path = write(tmp_path, "extends: default\nchannels:\n  symbol:\n    min_lenght: 3\n")
    assert error_of(path).startswith(f"{path}:4: channels.symbol.min_lenght: unknown key (known: ambiguity_limit, ")


def test_wrong_type(tmp_path):
    path = write(tmp_path, "extends: default\nchannels:\n  symbol:\n    ambiguity_limit: three\n")
    assert error_of(path) == f"{path}:4: channels.symbol.ambiguity_limit: must be an integer, not str"


def test_boolean_is_not_an_integer(tmp_path):
    path = write(tmp_path, "extends: default\nchannels:\n  symbol:\n    min_length: true\n")
    assert error_of(path) == f"{path}:4: channels.symbol.min_length: must be an integer, not bool"


def test_bad_regular_expression(tmp_path):
    path = write(tmp_path, "extends: default\nchannels:\n  path:\n    basename: '(unclosed'\n")
    message = error_of(path)
    assert message.startswith(f"{path}:4: channels.path.basename: bad regular expression (")


def test_unknown_channel_in_rank(tmp_path):
    path = write(tmp_path, "extends: default\nchannels:\n  rank: [path, telepathy]\n")
    message = error_of(path)
    assert message.startswith(f"{path}:3: channels.telepathy: unknown channel (installed: ")
    assert "path" in message and "symbol" in message


def test_unknown_channel_options(tmp_path):
    path = write(tmp_path, "extends: default\nchannels:\n  grep:\n    x: 1\n")
    assert error_of(path).startswith(f"{path}:3: channels.grep: unknown channel")


def test_value_outside_its_choices(tmp_path):
    path = write(tmp_path, "extends: default\nsources:\n  codegraph_explore:\n    trailing_block: end\n")
    assert error_of(path) == f"{path}:4: sources.codegraph_explore.trailing_block: must be one of 'last-file', 'meta', not 'end'"


def test_negative_ambiguity_limit(tmp_path):
    path = write(tmp_path, "extends: default\nchannels:\n  symbol:\n    ambiguity_limit: -1\n")
    assert error_of(path).startswith(f"{path}:4: channels.symbol.ambiguity_limit: ")


def test_error_in_an_extended_file_names_that_file(tmp_path):
    parent = write(tmp_path, "extends: default\nreader:\n  bom: maybe\n", name="parent.yaml")
    child = write(tmp_path, "extends: parent.yaml\nname: child\n", name="child.yaml")
    assert error_of(child) == f"{parent}:3: reader.bom: must be one of 'unreadable', 'strip', not 'maybe'"


def test_extends_cycle_and_missing_parent(tmp_path):
    a = write(tmp_path, "extends: b.yaml\n", name="a.yaml")
    write(tmp_path, "extends: a.yaml\n", name="b.yaml")
    assert "extends: extends itself (a cycle)" in error_of(a)
    lost = write(tmp_path, "extends: nowhere\n", name="lost.yaml")
    assert error_of(lost).startswith(f"{lost}: no ruleset 'nowhere' (a path, or one of: ")


def test_not_yaml(tmp_path):
    path = write(tmp_path, "extends: default\nreader: [unclosed\n")
    assert error_of(path).startswith(f"{path}:3: not valid YAML (")


def test_cli_exit_status_2_and_one_line(tmp_path, capsys):
    bad = write(tmp_path, "extends: default\nchannels:\n  symbol:\n    ambiguity_limit: three\n")
    run = session(tmp_path, [response(section("lib/a.js", size=100))], "lib/a.js")
    for command in (["score"], ["explain"]):
        assert main(command + ["--ruleset", bad, str(run)]) == 2
        err = capsys.readouterr().err
        assert err == f"citeledger: error: {bad}:4: channels.symbol.ambiguity_limit: must be an integer, not str\n"


def test_vary_errors_name_the_option():
    with pytest.raises(RulesetError) as info:
        one_at_a_time("default", ["channels.symbol.ambiguity_limit=2,x"])
    assert str(info.value) == "--vary: channels.symbol.ambiguity_limit: must be an integer, not str"
    with pytest.raises(RulesetError) as info:
        variant("default", {"channels.path.basename": "(x"})
    assert str(info.value).startswith("--vary: channels.path.basename: bad regular expression (")
    with pytest.raises(RulesetError) as info:
        variant("default", {"reader.colour": 1})
    assert str(info.value).startswith("--vary: reader.colour: unknown key")


def test_patterns_are_compiled_once_per_ruleset(tmp_path, monkeypatch):
    from citeledger.core.accountant import score
    from citeledger.readers.claude_stream import ClaudeStreamReader

    ruleset = load_ruleset("ambiguity-2")
    own = {p.pattern for p in (ruleset.sources[0].options.header, ruleset.options_for("path").basename,
                               ruleset.options_for("path").with_directory, ruleset.options_for("symbol").token)}
    import re2

    compiled = []
    real = re2.compile
    monkeypatch.setattr(re2, "compile", lambda p, *a, **k: compiled.append(p) or real(p, *a, **k))
    run = session(tmp_path, [response(section("lib/a.js", " — a(function)", size=100))], "`alpha` in lib/a.js")
    for _ in range(3):
        assert score(ClaudeStreamReader().read([str(run)]), ruleset).used == 100
    assert not [c for c in compiled if any(o.endswith(c) for o in own)]  # the header's runs without its line start


def test_a_message_is_made_one_line_as_the_backtracking_pattern_did():
    import re

    from hypothesis import given
    from hypothesis import strategies as st

    from citeledger.rules.loader import _one_line

    @given(st.text(alphabet=" \t\r\n\v\x1c\u2028\u3000ab", max_size=30))
    def same(text):
        assert _one_line(text) == re.sub(r"\s*[\r\n]+\s*", " ", text)

    same()
