"""Parse once, score many, keyed by content: every ruleset field is declared by
a scoring stage (core.accountant.STAGES), and rulesets that differ in any one
field, scored together, get exactly what each gets scored alone."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from citeledger.core import accountant
from citeledger.sources.sectioned import CUTS, Cuts, shared_cuts
from citeledger.readers.claude_stream import ClaudeStreamReader
from citeledger.rules.loader import load_ruleset
from citeledger.core.ruleset import Ruleset
from citeledger.rules.variation import variant

REAL = Path(__file__).parent.parent / "fixtures" / "real" / "stream"


def leaf_fields(cls, prefix=""):
    """Dotted paths of every field of an attrs class, nested records expanded (a test's own
    walk of the schema, not the accountant's)."""
    out = []
    for field in attrs.fields(cls):
        path = prefix + field.name
        if path == "channels":  # the ranked rules: the list, and each rule's fields
            out += [path, f"{path}[].name", f"{path}[].options"]
        elif isinstance(field.type, str) and field.type in ("ReaderRules", "AnswerRules"):
            from citeledger.core import ruleset as schema

            out += leaf_fields(getattr(schema, field.type), path + ".")
        else:
            out.append(path)
    return out


def test_every_ruleset_field_is_declared_by_a_stage():
    declared = {f for stage in accountant.STAGES.values() for f in stage.fields}
    fields = leaf_fields(Ruleset)
    assert {"reader.bom", "unit", "sources", "channels", "channels[].options"} <= set(fields)
    missing = [f for f in fields if f not in declared]
    assert not missing, f"ruleset fields no scoring stage declares: {missing}"


def test_every_declared_field_exists():
    fields = set(leaf_fields(Ruleset))
    unknown = [f for stage in accountant.STAGES.values() for f in stage.fields if f not in fields]
    assert not unknown


def test_the_stages_are_read_from_the_schema_not_written_in_the_accountant():
    """No field's dotted name is written in core/accountant.py: each stage's fields come from
    the fields' own `stages` metadata (core/ruleset.py), so a new key is declared on its field."""
    import ast

    source = Path(accountant.__file__).read_text("utf-8")
    strings = {n.value for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    fields = set(leaf_fields(Ruleset)) - {"name", "source", "channels", "sources", "unit"}  # also plain words
    assert not fields & strings, sorted(fields & strings)
    assert "reader.max_line_bytes" in fields and "reader.max_line_bytes" in accountant.STAGES["transcript"].fields


def test_a_field_declares_its_stages_and_the_stages_it_builds_on_follow():
    from citeledger.core import ruleset as schema

    fields = accountant.declared_fields()
    assert fields["reader.bom"] == ("read", "cut") and fields["unit"] == ("envelope",)
    # A stage holds its own fields and those of the stages it builds on.
    envelope = accountant.STAGES["envelope"].fields
    assert set(accountant.STAGES["sections"].fields) < set(envelope) and "unit" in envelope
    assert "unit" not in accountant.STAGES["findings"].fields  # findings never depend on the unit

    @attrs.frozen
    class Extra:
        undeclared: int = 0
        declared: int = attrs.field(default=0, metadata=schema.feeds("cut"))

    assert accountant.declared_fields(Extra) == {"undeclared": (), "declared": ("cut",)}


def test_a_stage_key_is_built_from_its_values_not_identity():
    a, b = load_ruleset("default"), variant("default", {"channels.symbol.min_length": 4}, name="default")
    assert a is not b
    for name in ("read", "cut", "envelope", "layout"):
        assert accountant.stage_key(name, a) == accountant.stage_key(name, b)
    c = variant("default", {"unit": "utf8"})
    assert accountant.stage_key("cut", a) == accountant.stage_key("cut", c)
    assert accountant.stage_key("envelope", a) != accountant.stage_key("envelope", c)


E = "sources.codegraph_explore."  # the explore source's options

# One variant per field the stages declare (each changes that field alone).
VARIANTS = {
    E + "tool": "codegraph",
    "reader.max_line_bytes": 1 << 20,
    E + "block_separator": "\n",
    "reader.bom": "strip",
    "reader.answer": "final-turn-text",
    "answer.scope": "turn",
    "answer.never": ["api-error"],
    E + "header": r"(?<![^\n\r\x{2028}\x{2029}])\*\*`([^`]+)`\*\*([^\n\r\x{2028}\x{2029}]{0,20})",
    E + "trailer": "\n>",
    E + "trailing_block": "meta",
    "unit": "codepoint",
    "channels.rank": ["symbol", "path"],
    "channels.symbol.ambiguity_limit": 2,
    "channels.symbol.min_length": 6,
    "channels.path.basename_extension_gate": False,
    "channels.symbol.weak_owners": "credit",
    "sources.use": ["codegraph_explore", "read"],
    "answer.written": ["**"],
}


def test_variants_cover_every_scored_field():
    scored = {f for s in accountant.STAGES.values() if s.name != "label" for f in s.fields}
    # The lists of rules (channels, sources) are covered by a variant of one of their keys.
    assert scored - {"channels[].name", "channels[].options", "channels", "sources"} <= set(VARIANTS)
    assert any(k.startswith("sources.") for k in VARIANTS) and "channels.rank" in VARIANTS


def test_every_cache_key_score_uses_is_a_declared_stage():
    """Each result scoring leaves in its shared results is keyed by a declared stage's number
    (with extras: the charges' ranking), never by a key of its own."""
    rulesets = [load_ruleset(n) for n in ("default", "corrected", "lines", "path-only", "utf8")]
    plan = accountant.Plan()
    shared = accountant.Shared(plan)
    transcript = ClaudeStreamReader().read([str(REAL / "express-sendfile-2calls.jsonl")], rulesets[0].read_options())
    for r in rulesets:
        accountant.score(transcript, r, shared)
    stage_of = {number: key[0] for key, number in plan._numbers.items() if isinstance(key, tuple)}
    assert len(shared.results) > len(accountant.STAGES)
    for key in shared.results:
        number = key[0] if isinstance(key, tuple) else key
        assert stage_of.get(number) in accountant.STAGES, key


@pytest.mark.parametrize("fixture", sorted(p.name for p in REAL.glob("*.jsonl") if ".t" not in p.name))
def test_scoring_together_equals_scoring_alone(fixture):
    rulesets = [load_ruleset("default")] + [variant("default", {k: v}) for k, v in VARIANTS.items()]
    transcript = ClaudeStreamReader().read([str(REAL / fixture)], rulesets[0].read_options())
    together = accountant.score_many(transcript, rulesets)
    alone = [accountant.score(transcript, r) for r in rulesets]
    for r, t, a in zip(rulesets, together, alone):
        assert t == a, r.name


def test_a_plan_numbers_stage_keys_by_value():
    a, b = load_ruleset("default"), load_ruleset("default")  # equal, distinct objects
    c = variant("default", {"unit": "utf8"})
    plan = accountant.Plan()
    pa, pb, pc = plan.of(a), plan.of(b), plan.of(c)
    assert pa is pb  # looked up by value
    d = variant("default", {"channels.symbol.ambiguity_limit": 2})
    pd = plan.of(d)
    assert pd.channels[0] is pa.channels[0] and pd.channels[1] is not pa.channels[1]
    assert pd.findings[0] == pa.findings[0] and pd.findings[1] != pa.findings[1]
    for name in accountant.STAGES:
        same = accountant.stage_key(name, a) == accountant.stage_key(name, c)
        assert (pa.keys[name] == pc.keys[name]) == same, name
    assert pa.findings == pc.findings  # findings do not depend on the unit


def test_one_plan_for_many_transcripts_equals_each_alone():
    """A Plan outlives one transcript (score_corpus hands it to every session): same scores."""
    rulesets = [load_ruleset(n) for n in ("default", "corrected", "ambiguity-2", "ambiguity-5",
                                          "ambiguity-off", "weak-owners", "prose-symbols", "utf8", "lines")]
    plan = accountant.Plan()
    for path in sorted(p for p in REAL.glob("*.jsonl") if ".t" not in p.name):
        transcript = ClaudeStreamReader().read([str(path)], rulesets[0].read_options())
        together = accountant.score_many(transcript, rulesets, plan)
        for r, t in zip(rulesets, together):
            assert t == accountant.score(transcript, r), (path.name, r.name)


@pytest.mark.parametrize("fixture", sorted(p.name for p in REAL.glob("*.jsonl") if ".t" not in p.name))
def test_symbol_findings_shared_across_cutoffs_and_weak_owners(fixture):
    """The symbol channel shares one findings dict between rulesets whose cutoff no
    name reaches or whose weak_owners no name tells apart: each is still exactly
    what that ruleset alone finds."""
    names = {"ambiguity_limit": (0, 1, 2, 3, 4, 5, 9), "weak_owners": ("lose", "credit")}
    rulesets = [variant("default", {f"channels.symbol.{k}": v}) for k, vs in names.items() for v in vs]
    rulesets += [variant("default", {"channels.symbol.ambiguity_limit": 2, "channels.symbol.weak_owners": "credit"})]
    transcript = ClaudeStreamReader().read([str(REAL / fixture)], rulesets[0].read_options())
    together = accountant.score_many(transcript, rulesets)
    for r, t in zip(rulesets, together):
        alone = accountant.score(transcript, r)
        assert t == alone, r.name
        assert [f.verdict.findings for f in t.files] == [f.verdict.findings for f in alone.files]


def _copy_with_new_ids(path: Path, folder: Path) -> Path:
    """The same run with other session and tool ids: codegraph's responses byte-identical,
    the agent's side not (an A/B pass asking one question again)."""
    text = path.read_text(encoding="utf-8")
    out = folder / path.name
    out.write_text(text.replace('"toolu_', '"toolu_again_').replace('"session_id":"', '"session_id":"again-'),
                   encoding="utf-8")
    return out


def test_a_response_returned_again_in_another_session_is_cut_once_per_call(tmp_path):
    """The call's memo (the explore source's Cuts in Plan.sources) is keyed by the response's content: a second session
    returning the same text reuses the cut, with scores equal to each scored alone."""
    ruleset = load_ruleset("default")
    first = REAL / "express-sendfile-2calls.jsonl"
    again = _copy_with_new_ids(first, tmp_path)
    reader, options = ClaudeStreamReader(), ruleset.read_options()
    a, b = reader.read([str(first)], options), reader.read([str(again)], options)
    assert a.responses[0].origin != b.responses[0].origin or a.files != b.files
    plan = accountant.Plan()
    (sa,) = accountant.score_many(a, [ruleset], plan)
    cut = shared_cuts(plan.sources).count
    (sb,) = accountant.score_many(b, [ruleset], plan)
    assert cut > 0 and shared_cuts(plan.sources).count == cut  # nothing cut again
    assert sa == accountant.score(a, ruleset) and sb == accountant.score(b, ruleset)
    assert shared_cuts(accountant.Plan().sources).count == 0  # the next call starts empty


def test_the_call_memo_is_bounded_least_recently_used_out(monkeypatch, tmp_path):
    ruleset = load_ruleset("default")
    runs = sorted(p for p in REAL.glob("*.jsonl") if ".t" not in p.name)
    reader, options = ClaudeStreamReader(), ruleset.read_options()
    transcripts = [reader.read([str(p)], options) for p in runs]
    plan = accountant.Plan()
    plan.sources[CUTS] = Cuts(limit=1)  # keeps one response text: the last cut
    held = []
    for t in transcripts:
        (s,) = accountant.score_many(t, [ruleset], plan)
        assert s == accountant.score(t, ruleset), t.name
        held.append(shared_cuts(plan.sources).held)
    assert max(held) <= max(sum(len("".join(r.blocks)) for r in t.responses) for t in transcripts)


def test_rulesets_reading_other_tools_share_the_answer_and_equal_each_alone():
    """score_corpus reads a session once per reading option set, all under one Plan: the
    channels' work on the answer (Envelope.answers) carries across those reads of one
    session, never to the next session, and every score is what its ruleset gets alone."""
    names = ("default", "corrected", "retrieval", "lines", "reactions", "path-only", "utf8")
    rulesets = [load_ruleset(n) for n in names]
    groups: dict = {}
    for r in rulesets:
        groups.setdefault(r.read_options(), []).append(r)
    assert len(groups) > 1  # retrieval keeps other tools' results
    plan = accountant.Plan()
    runs = sorted(p for p in REAL.glob("*.jsonl") if ".t" not in p.name)
    for path in runs:
        memos = []
        for options, members in groups.items():
            transcript = ClaudeStreamReader().read([str(path)], options)
            memos.append(plan.answers(transcript))
            for r, t in zip(members, accountant.score_many(transcript, members, plan)):
                assert t == accountant.score(transcript, r), (path.name, r.name)
        assert all(m is memos[0] for m in memos)
        assert any(key[0] == "symbol" for key in memos[0])  # the citations were kept there
    first = ClaudeStreamReader().read([str(runs[0])], rulesets[0].read_options())
    assert plan.answers(first) is not memos[0]  # another session: a fresh memo


def test_citations_are_searched_once_per_answer_across_envelopes(monkeypatch):
    """Rulesets whose envelopes differ (trailing_block, block_separator) but whose symbol
    and path options agree search the answer once."""
    from citeledger.channels.symbol import SymbolChannel

    calls = []
    real = SymbolChannel.citations
    monkeypatch.setattr(SymbolChannel, "citations", lambda self, answer: calls.append(answer) or real(self, answer))
    rulesets = [load_ruleset("default"), variant("default", {E + "trailing_block": "meta"}),
                variant("default", {E + "block_separator": "\n"})]
    transcript = ClaudeStreamReader().read([str(REAL / "express-sendfile-2calls.jsonl")], rulesets[0].read_options())
    together = accountant.score_many(transcript, rulesets, accountant.Plan())
    assert len(calls) == 1
    assert list(together) == [accountant.score(transcript, r) for r in rulesets]
