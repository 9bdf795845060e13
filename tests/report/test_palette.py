"""One colour per channel, on every page and plot (issue 22, item 6).

A person who learns on one page that a colour means `read_after` must not find
it meaning `line_range` on the next, nor a side of a comparison in a plot.
The pages are parsed as written (their CSS rules and markup) and one is
opened in the browser to see that the rule really fills the swatches.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citeledger.cli import main
from citeledger.core import channels

HERE = Path(__file__).parent.parent
PASS = HERE / "fixtures" / "pass"
EXPRESS = PASS / "cg22" / "ab-express"
REAL = HERE / "fixtures" / "real"

RULE = re.compile(r'\.ch\[data-channel="([^"]*)"\] \{ background: (#[0-9a-f]{6}); \}')
DRAWN = re.compile(r'class="(?:[^"]* )?ch(?: [^"]*)?" data-channel="([^"]*)"')
HEX = re.compile(r"#[0-9a-fA-F]{6}\b")


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """Every page kind (sessions under rulesets with different channels in different ranks) and every plot."""
    folder = tmp_path_factory.mktemp("palette")
    runs = {
        "session-default": ["score", EXPRESS / "run-new-10.jsonl"],
        "session-lines": ["score", EXPRESS / "run-new-10.jsonl", "--ruleset", "lines"],
        "session-reactions": ["score", EXPRESS / "run-new-10.jsonl", "--ruleset", "reactions"],
        "sweep": ["sweep", PASS, "-q", "-j", "1"],
        "compare": ["compare", PASS, "--arms", "baseline", "new", "-q", "-j", "1", "--plot", folder / "compare",
                    "--diagnostics-out", folder / "diag"],
        "sensitivity": ["sensitivity", REAL, "--ruleset", "corrected", "--ruleset", "path-only", "-q", "-j", "1",
                        "--plot", folder / "sensitivity"],
    }
    for name, argv in runs.items():
        main([str(a) for a in argv] + ["--html", str(folder / f"{name}.html")])
    pages = {name: (folder / f"{name}.html").read_text() for name in runs}
    plots = {p.name: p.read_text() for p in (folder / "compare.svg", folder / "sensitivity.svg",
                                              folder / "diag" / "diagnostics.svg")}
    return pages, plots


def rules(page: str) -> dict[str, str]:
    style = page[page.index("<style>"):page.index("</style>")]
    found = RULE.findall(style)
    assert len(found) == len(dict(found))  # one rule per channel on a page
    return dict(found)


def test_a_channel_has_one_colour_on_every_page(outputs):
    pages, _ = outputs
    seen: dict[str, set] = {}
    for name, page in pages.items():
        page_rules = rules(page)
        drawn = set(DRAWN.findall(page))
        assert drawn == set(page_rules), name  # every channel drawn has its rule, and no rule is idle
        for channel, colour in page_rules.items():
            seen.setdefault(channel, set()).add(colour)
    # The rulesets rank the channels differently (lines: line_range after path; reactions: read_after),
    # and every built-in channel is drawn somewhere.
    assert set(seen) == set(channels())
    assert all(len(colours) == 1 for colours in seen.values()), seen
    colours = [next(iter(c)) for c in seen.values()]
    assert len(set(colours)) == len(colours)  # and no two channels share one
    # The sweep and compare pages colour channels too (top files; cited-anyway files).
    assert rules(pages["sweep"]) and rules(pages["compare"])


def test_no_colour_that_means_a_channel_means_anything_else(outputs):
    pages, plots = outputs
    channel_colours = {c for page in pages.values() for c in rules(page).values()}
    for name, text in [*pages.items(), *plots.items()]:
        rest = RULE.sub("", text)
        others = {c.lower() for c in HEX.findall(rest)}
        assert not others & channel_colours, (name, others & channel_colours)
    # The plots do draw in colour: what they use is kept apart from the channels by construction.
    assert all(HEX.search(svg) for svg in plots.values())


def test_the_rule_fills_the_swatches_in_a_browser(outputs, tmp_path, browser):
    pages, _ = outputs
    page_file = tmp_path / "reactions.html"
    page_file.write_text(pages["session-reactions"])
    page = browser.open(page_file)
    try:
        drawn = page.eval("""Array.from(document.querySelectorAll('.ch[data-channel]')).map(function (el) {
            return [el.dataset.channel, getComputedStyle(el).backgroundColor]; })""")
    finally:
        page.close()
    expected = {name: "rgb({}, {}, {})".format(*(int(c[i:i + 2], 16) for i in (1, 3, 5)))
                for name, c in rules(pages["session-reactions"]).items()}
    assert {"read_after", "path"} <= {name for name, _ in drawn}
    assert all(colour == expected[name] for name, colour in drawn), drawn


def test_a_channel_that_declares_no_colour_gets_the_same_one_every_time():
    from citeledger.report import palette

    colour = palette.channel_colour("stem")  # the example plugin's channel, not installed here
    assert colour == palette.channel_colour("stem") and colour in palette.UNDECLARED
    assert colour not in palette.other_colours()
    assert palette.channel_colour(None) == palette.NOT_CREDITED
