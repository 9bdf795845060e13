"""report/harness.py: the harness report's own lines, from records built by hand."""

from __future__ import annotations

import attrs

from citeledger.metrics.occupancy import Families, Occupancy
from citeledger.metrics.run import CliCalls, RunBasics, ToolCall
from citeledger.report.harness import header_lines, measure_line, occupancy_lines, result_lines

OCC = Occupancy(
    final_context=50_000, fixed=12_000, window_tokens=200_000, chars_per_token=1.005, calibrated=True,
    dispersion=0.0125, requests=7, compactions=0, evicted=0,
    residual=Families(codegraph=10_000, read=2_500, search=0, bash=1_000, other=0),
    contributed=Families(codegraph=10_000, read=2_500, search=0, bash=1_000, other=0),
    chars=Families(codegraph=23_450, read=5_000, search=0, bash=2_000, other=0),
    results=Families(codegraph=1, read=2, search=0, bash=1, other=0),
    residual_file_access=3_500, contributed_file_access=3_500, chars_file_access=7_000, results_file_access=3,
)
RUN = RunBasics(tools_exposed=3, raced=False, cli=CliCalls(attempts=0, returned=0), calls=(ToolCall(name="Read", text="a.js"),),
                segments=("success",), duration_s=12.5, cost_usd=0.0625, turns=7, tokens_processed=1_234_567)


def test_occupancy_rows():
    lines = occupancy_lines(OCC, 7)
    assert lines[0] == "  Residual context occupancy at end of run:"
    assert lines[1] == "    final context       50,000 tok   25.0% of 200k window"
    assert lines[2] == "      of which fixed    12,000 tok  system + tool schemas + question, before any tool answered"
    # 10,000 of 50,000 is 20.0% of context, 5.0% of the window; one result, singular.
    assert lines[3] == "    codegraph           10,000 tok   20.0% of ctx    5.0% of 200k win   (23,450 chars, 1 result)"
    assert lines[7] == "    → file-access        3,500 tok    7.0% of ctx    1.8% of 200k win   (7,000 chars, 3 results)"
    # base: 50,000 - (10,000 + 2,500 + 1,000), with no chars column.
    assert lines[9] == "    base (prompt+prose)  36,500 tok   73.0% of ctx   18.3% of 200k win"
    # toFixed rounds the exact double: 1.005 is 1.00499999999999989... so 1.00 (node: the same); 1.25% is exact, half up: 1.3.
    assert lines[10] == "    measure: 1.00 chars/tok measured ±1.3% · turns 7 · compactions 0"


def test_measure_line_variants():
    fallback = attrs.evolve(OCC, calibrated=False, chars_per_token=3.0, dispersion=None)
    assert measure_line(fallback, 1) == "    measure: 3.00 chars/tok (FALLBACK — no clean gap to calibrate on) · turns 1 · compactions 0"
    # Nothing evicted, but what was contributed exceeds what is left by more than 1 token: the clause shows.
    shed = attrs.evolve(OCC, contributed=attrs.evolve(OCC.contributed, codegraph=10_002))
    assert measure_line(shed, 7).endswith(" · compactions 0 · evicted 0 tok")
    assert measure_line(attrs.evolve(OCC, evicted=4_321, compactions=2), 7).endswith(" · compactions 2 · evicted 4,321 tok")


def test_no_prompt_sizes_logged():
    assert occupancy_lines(None, 0) == ["  Residual context occupancy: not measurable (this transcript's format logs no prompt sizes)"]


def test_header_flags():
    assert header_lines(["/a/b/run-x.jsonl", "run-x.t2.jsonl"], RUN) == [
        "", "=== run-x.jsonl + run-x.t2.jsonl ===", "codegraph tools exposed: 3"]
    raced = attrs.evolve(RUN, tools_exposed=None, raced=True, cli=CliCalls(attempts=3, returned=1))
    assert header_lines(["r.jsonl"], raced)[2:] == [
        'codegraph tools exposed: ?  [MCP COLD-START RACE — tool call hit "No such tool available"]',
        "!! 1 codegraph CLI call RETURNED OUTPUT via Bash — if this is a without-arm, the run is CONTAMINATED"]
    blocked = attrs.evolve(RUN, cli=CliCalls(attempts=1, returned=0))
    assert header_lines(["r.jsonl"], blocked)[3] == "   (1 codegraph CLI attempt blocked — no output entered the window)"


def test_result_lines():
    assert result_lines(RUN) == ["", "Result: success | duration 13s | turns 7",
                                 "  tokens processed: 1,234,567 | cost $0.063"]
    two = attrs.evolve(RUN, segments=("success", None))
    assert result_lines(two)[1] == "Result: undefined | duration 13s | turns 7 | 2 segments (success,)"
    assert result_lines(attrs.evolve(RUN, segments=())) == []
