"""The session page draws residual context occupancy: each family's residual against the window
(report/html/occupancy.py), with the numbers score --json prints."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from harness_cases import write_case

from citeledger.cli import main
from citeledger.report.palette import FAMILIES, channel_colours

FIXTURES = Path(__file__).parents[1] / "fixtures"
CODEX = next((FIXTURES / "codex").glob("rollout-*.jsonl"))


def page_and_json(capsys, tmp_path, *files, window=None) -> tuple[str, dict]:
    extra = ["--window-tokens", str(window)] if window else []
    page = tmp_path / "session.html"
    main(["score", *map(str, files), *extra, "--html", str(page)])
    capsys.readouterr()  # the text summary
    main(["score", *map(str, files), *extra, "--json"])
    return page.read_text(), json.loads(capsys.readouterr().out)


def section(page: str) -> str:
    return re.search(r'<section id="occupancy">.*?</section>', page, re.S).group(0)


def segments(drawn: str) -> dict:
    """family -> (width %, colour) of each segment the bar draws."""
    bar = re.search(r'<div class="bar occupancy".*?</div>', drawn).group(0)
    return {m.group(1): (float(m.group(2)), m.group(3))
            for m in re.finditer(r'data-family="(\w+)" style="width:([\d.]+)%;background:(#[0-9a-f]{6})"', bar)}


def test_each_family_is_a_segment_of_the_window_in_its_colour(capsys, tmp_path):
    # basic (tests/harness_cases.py, worked in test_occupancy.py): codegraph 4,000 tokens, Read 2,000,
    # base 10,000 of a 16,000-token final context in the 200k window: 2%, 1% and 5% of the bar.
    (log,) = write_case(tmp_path, "basic")
    page, data = page_and_json(capsys, tmp_path, log)
    drawn = segments(section(page))
    assert drawn == {"codegraph": (2.0, FAMILIES["codegraph"]), "read": (1.0, FAMILIES["read"]),
                     "base": (5.0, FAMILIES["base"])}  # a family with no residual draws nothing
    o = data["occupancy"]
    assert (o["families"]["codegraph"]["residual"], o["families"]["read"]["residual"], o["base"]) == (4000, 2000, 10000)
    # the segments add up to the final context: the rest of the bar is the free window
    assert sum(w for w, _ in drawn.values()) == pytest.approx(100 * o["final_context"] / o["window_tokens"])


def test_the_numbers_are_in_the_text_too(capsys, tmp_path):
    (log,) = write_case(tmp_path, "basic")
    page, data = page_and_json(capsys, tmp_path, log)
    o, drawn = data["occupancy"], section(page)
    values = {m.group(1): json.loads(html.unescape(m.group(2)))
              for m in re.finditer(r'data-field="(final_context|window_tokens|fixed)" data-value="([^"]*)"', drawn)}
    assert values == {"final_context": o["final_context"], "window_tokens": 200_000, "fixed": o["fixed"]}
    rows = dict(re.findall(r'<tr data-family="(\w+)"><th scope="row">[^<]*</th><td class="num" data-field="residual" '
                           r'data-value="(\d+)"', drawn))
    assert rows == {**{k: str(v["residual"]) for k, v in o["families"].items()}, "base": str(o["base"])}


def test_a_1m_window_draws_the_same_residuals_five_times_narrower(capsys, tmp_path):
    (log,) = write_case(tmp_path, "basic")
    narrow = segments(section(page_and_json(capsys, tmp_path, log)[0]))
    wide = segments(section(page_and_json(capsys, tmp_path, log, window=1_000_000)[0]))
    assert (narrow["codegraph"][0], wide["codegraph"][0]) == (2.0, 0.4)
    assert '<span data-field="window_tokens" data-value="1000000">1000k</span> window' in \
        section(page_and_json(capsys, tmp_path, log, window=1_000_000)[0])


def test_a_session_that_logs_no_prompt_sizes_says_so(capsys, tmp_path):
    page, data = page_and_json(capsys, tmp_path, CODEX)
    assert data["occupancy"] is None
    assert "Not measurable: this transcript's format logs no prompt sizes." in section(page)


def test_the_family_colours_mean_no_channel():
    assert not set(FAMILIES.values()) & channel_colours()
    assert len(set(FAMILIES.values())) == len(FAMILIES)
