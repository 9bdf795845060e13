"""Each shipped alternative ruleset changes exactly what its comment claims.

Every session is built by hand here; expected verdicts and sizes are worked
out from the strings in the test, and compared against `default` on the same
session so that what must NOT change is checked too.
"""

from __future__ import annotations


import pytest

from builders import response, section, session
from citeledger.infra.re2text import LinearPattern
from citeledger.core.accountant import score
from citeledger.readers.claude_stream import ClaudeStreamReader
from citeledger.rules.loader import load_ruleset, locate, shipped_names

DEFAULT = load_ruleset("default")
ALTERNATIVES = ["path-only", "prose-symbols", "ambiguity-off", "ambiguity-2", "ambiguity-5",
                "all-kinds", "weak-owners", "codepoint", "utf8", "corrected", "reactions"]


def run(path, ruleset):
    return score(ClaudeStreamReader().read([str(path)]), ruleset)


def credited(result):
    return {f.path: f.verdict.channel for f in result.files if f.verdict.credited}


def test_every_alternative_is_shipped_and_says_what_question_it_answers():
    assert set(ALTERNATIVES) <= set(shipped_names())
    for name in ALTERNATIVES:
        text = open(locate(name), encoding="utf-8").read()
        head = text.split("\nname:", 1)[0]
        assert head.startswith(f"# {name} — "), name
        assert "Question:" in head, name  # the comment says which question it answers
        assert load_ruleset(name).name == name


def test_path_only_drops_symbol_credit_and_nothing_else(tmp_path):
    text = response(
        section("lib/response.js", " — send(function)", size=300),
        section("lib/utils.js", " — etag(function)", size=200),
        section("lib/view.js", " — render(function)", size=100),
    )
    path = session(tmp_path, [text], "See lib/response.js; the tag comes from `etag`.")
    base, alt = run(path, DEFAULT), run(path, load_ruleset("path-only"))
    assert credited(base) == {"lib/response.js": "path", "lib/utils.js": "symbol"}
    assert credited(alt) == {"lib/response.js": "path"}
    assert alt.channels == ("path",)
    assert (alt.envelope, alt.used) == (600, 300)
    # Its efficiency is the default's path-only floor.
    assert alt.efficiency == base.lower_bound == 0.5


def test_prose_symbols_counts_names_outside_backticks(tmp_path):
    text = response(
        section("lib/response.js", " — sendFile(function)", size=300),
        section("lib/utils.js", " — etag(function)", size=200),
    )
    # sendFile only in prose; `etag` in a code span; "function" is a stopword either way.
    path = session(tmp_path, [text], "The function sendFile streams it, `etag` tags it.")
    assert credited(run(path, DEFAULT)) == {"lib/utils.js": "symbol"}
    alt = run(path, load_ruleset("prose-symbols"))
    assert credited(alt) == {"lib/utils.js": "symbol", "lib/response.js": "symbol"}
    assert alt.used == 500


def ambiguity_session(tmp_path):
    """`twoway` is defined in 2 files, `threeway` in 3, `fiveway` in 5; all three are cited."""
    sections = [section(f"a/two{i}.js", " — twoway(function)", size=100) for i in range(2)]
    sections += [section(f"b/three{i}.js", " — threeway(function)", size=100) for i in range(3)]
    sections += [section(f"c/five{i}.js", " — fiveway(function)", size=100) for i in range(5)]
    return session(tmp_path, [response(*sections)], "`twoway`, `threeway` and `fiveway`.")


@pytest.mark.parametrize(
    "name, owners_credited",
    [
        # limit L credits a name owned by fewer than L files; 0 turns the cutoff off
        ("default", {2}),
        ("ambiguity-2", set()),
        ("ambiguity-5", {2, 3}),
        ("ambiguity-off", {2, 3, 5}),
    ],
)
def test_ambiguity_cutoff(tmp_path, name, owners_credited):
    result = run(ambiguity_session(tmp_path), load_ruleset(name))
    prefixes = {2: "a/two", 3: "b/three", 5: "c/five"}
    expected = {f"{prefixes[n]}{i}.js" for n in owners_credited for i in range(n)}
    assert set(credited(result)) == expected
    assert result.used == 100 * len(expected)
    assert result.envelope == 1000


def test_ambiguity_reason_names_the_limit(tmp_path):
    result = run(ambiguity_session(tmp_path), load_ruleset("ambiguity-2"))
    finding = next(f for f in result.files if f.path == "a/two0.js").verdict.findings[1]
    assert finding.reason == "symbol `twoway`: owned by 2 files, ambiguity cutoff (limit 2)"


def test_all_kinds_lets_call_sites_credit(tmp_path):
    text = response(
        section("lib/router/index.js", " — next(calls), next(references)", size=300),
        section("lib/response.js", " — send(function)", size=100),
        section("lib/view.js", " — lookup(imports)", size=100),
    )
    path = session(tmp_path, [text], "It calls `next` and `send`.")
    assert credited(run(path, DEFAULT)) == {"lib/response.js": "symbol"}
    alt = run(path, load_ruleset("all-kinds"))
    # next: calls and references now own; lookup (imports) would too but is not cited.
    assert credited(alt) == {"lib/response.js": "symbol", "lib/router/index.js": "symbol"}


def test_weak_owners_credited_beside_strong(tmp_path):
    text = response(
        section("lib/utils.js", " — compileETag(function)", size=150),
        section("lib/application.js", " — compileETag(variable)", size=250),
        section("lib/other.js", " — compileETag(calls)", size=100),
    )
    path = session(tmp_path, [text], "`compileETag` picks the generator.")
    assert credited(run(path, DEFAULT)) == {"lib/utils.js": "symbol"}
    alt = run(path, load_ruleset("weak-owners"))
    assert credited(alt) == {"lib/utils.js": "symbol", "lib/application.js": "symbol"}
    assert alt.used == 400


def test_weak_owners_still_meet_the_ambiguity_cutoff(tmp_path):
    # 1 strong + 2 weak owners = 3 owners once weak ones count: the cutoff drops all.
    text = response(
        section("lib/utils.js", " — debug(function)", size=100),
        section("lib/a.js", " — debug(variable)", size=100),
        section("lib/b.js", " — debug(constant)", size=100),
    )
    path = session(tmp_path, [text], "`debug` logs it.")
    assert credited(run(path, DEFAULT)) == {"lib/utils.js": "symbol"}
    assert credited(run(path, load_ruleset("weak-owners"))) == {}


@pytest.mark.parametrize(
    "name, units",
    [
        # per character of "é😀": UTF-16 units 1 + 2, code points 1 + 1, UTF-8 bytes 2 + 4
        ("default", 3),
        ("codepoint", 2),
        ("utf8", 6),
    ],
)
def test_units(tmp_path, name, units):
    body = "// é😀\n"
    ascii_part = len("**`lib/a.js`**\n") + len("// \n")  # the header line and the body's ASCII
    text = response(section("lib/a.js", body=body), section("lib/b.js", size=100))
    result = run(session(tmp_path, [text], "lib/a.js"), load_ruleset(name))
    sizes = dict((p, c) for p, c in result.calls[0].files)
    assert sizes == {"lib/a.js": ascii_part + units, "lib/b.js": 100}
    assert credited(result) == {"lib/a.js": "path"}


def test_alternatives_only_change_their_own_keys():
    # Each alternative differs from default in the keys it names, nothing else.
    from citeledger.rules.variation import switches

    expected = {
        "path-only": {"channels.rank"},
        "prose-symbols": {"channels.symbol.code_spans_only"},
        "ambiguity-off": {"channels.symbol.ambiguity_limit"},
        "ambiguity-2": {"channels.symbol.ambiguity_limit"},
        "ambiguity-5": {"channels.symbol.ambiguity_limit"},
        "all-kinds": {"channels.symbol.defining_kinds_only"},
        "weak-owners": {"channels.symbol.weak_owners"},
        "codepoint": {"unit"},
        "utf8": {"unit"},
    }
    for name, keys in expected.items():
        assert {k for k, _ in switches("default", name)} == keys, name


def test_default_yaml_is_the_reference_constants():
    # Spot checks of the reference's numbers, written from the spec.
    sym = DEFAULT.options_for("symbol")
    assert sym.ambiguity_limit == 3 and sym.min_length == 4 and sym.code_spans_only
    assert DEFAULT.channel_names == ("path", "symbol")
    assert DEFAULT.unit == "utf16" and DEFAULT.sources[0].options.trailer == "\n> "
    assert isinstance(DEFAULT.options_for("path").basename, LinearPattern)  # runs on RE2
