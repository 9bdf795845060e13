"""The sweep page's size rule (docs/html.md): every session indexed and given its own
section; sections in collapsed pages of 500; a section lists at most 12 files."""

import re
from html.parser import HTMLParser

from citeledger.report.html import sweep_page, sweep_session
from citeledger.report.tables import SliceTable


def record(i: int, files: int) -> dict:
    return {
        "record": "session", "session": f"g/r{i}.jsonl", "group": "g", "root": ".", "reader": "claude-stream",
        "turns": 1, "ruleset": "default", "status": "scored", "reason": None, "envelope": 100 * files,
        "used": 100, "used_path_only": 100, "efficiency": 1 / files, "path_only": 1 / files, "calls": 1,
        "call_efficiencies": [1 / files], "call_queries": ["how is f0 used " * 20], "files_returned": files, "files_used": 1, "warnings": 0,
        "inputs": [f"g/r{i}.jsonl"],
        "files": [[f"src/f{k}.py", 100, "path" if k == 0 else None] for k in range(files)],
    }


class _Ids(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.pages = [], 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        self.pages += tag == "details" and a.get("class") == "page"


def test_1001_sessions_make_three_collapsed_pages_and_a_section_each():
    rows = [record(i, 20) for i in range(1001)]
    table = SliceTable("default")
    for r in rows:
        table.add(r)
    header = {"paths": ["g"], "rulesets": ["default"], "sessions": 1001, "single_question": 1001, "multi_turn": 0}
    page = sweep_page(header, [table.rows()], [sweep_session(r) for r in rows], [], [], {"default": "path"})
    parsed = _Ids()
    parsed.feed(page)
    assert parsed.pages == 3  # 500 + 500 + 1
    assert len(parsed.ids) == len(set(parsed.ids))  # no id twice
    sections = [i for i in parsed.ids if i.startswith("s-0-")]
    assert sections == [f"s-0-{n}" for n in range(1, 1002)]
    # The index links every session to its section.
    assert re.findall(r'href="#(s-0-\d+)"', page) == sections
    # 20 files returned, 12 listed, and the rest counted.
    assert page.count("… 8 more files") == 1001
    assert "<summary>sessions 1001–1001 of 1001</summary>" in page


def test_a_sweep_past_its_listed_sessions_lists_the_first_and_counts_the_rest_as_the_session_page_does(monkeypatch):
    from citeledger.report.html import sweep as module
    from citeledger.report.html.sweep import CALLS_LISTED, PageSessions

    monkeypatch.setattr(module, "SESSIONS_LISTED", 500)  # 5,000 on a real page: the same code, a tenth the rows
    SESSIONS_LISTED = 500
    rows = [record(i, 3) for i in range(1_200)]
    rows[7]["calls"] = 2_000
    rows[7]["call_efficiencies"] = [0.5] * 2_000
    rows[7]["call_queries"] = ["q"] * 2_000
    table = SliceTable("default")
    kept = PageSessions()
    for r in rows:
        table.add(r)
        kept.add(sweep_session(r))
    assert sum(len(v) for v in kept.kept.values()) < 2 * SESSIONS_LISTED  # memory bounded while adding
    header = {"paths": ["g"], "rulesets": ["default"], "sessions": 1_200, "single_question": 1_200, "multi_turn": 0}
    page = sweep_page(header, [table.rows()], kept, [], [], {"default": "path"})
    parsed = _Ids()
    parsed.feed(page)
    assert len([i for i in parsed.ids if i.startswith("s-0-")]) == SESSIONS_LISTED
    assert "sessions (1200) — click a heading to sort" in page
    assert '… and 700 more sessions, not listed here' in page
    assert f"… {2_000 - CALLS_LISTED:,} more calls" in page  # r7 sorts among the first 500
    assert 'data-session="g/r499.jsonl"' in page and 'data-session="g/r500.jsonl"' not in page  # natural order
    # the histograms still count every scored session and call
    assert len(kept.efficiencies["default"]) == 1_200 and len(kept.call_efficiencies["default"]) == 1_199 + 2_000
