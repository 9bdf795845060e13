"""A session page is bounded (issue 32 item 4; docs/robustness.md "A session page is bounded"):
one Glob of 20,000 paths or 2,000 explore calls make a page of a few hundred KB, whose numbers are
still score --json's, and nothing the size of the session is built on the way to it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from builders import answer_to, events, response, section, use, write_jsonl
from citeledger.cli import main
from citeledger.report.html.bounded import CALLS, ENVELOPE_FILES, FILES, SECTIONS, WARNINGS, page_dict

PAGE_BYTES = 2_000_000  # docs/robustness.md: under 2 MB while paths and queries are short
DOC = Path(__file__).resolve().parent.parent.parent / "docs" / "robustness.md"


def _glob_session(path: Path, count: int) -> Path:
    listing = "\n".join(f"/repo/src/p{i // 1000}/m{i}.py" for i in range(count))
    rows = [{"type": "system", "subtype": "init", "cwd": "/repo", "tools": ["Glob"]},
            use("g1", "Glob", {"pattern": "**/*.py"}), answer_to("g1", listing),
            {"type": "result", "subtype": "success", "result": "see src/p0/m1.py and src/p19/m19999.py"}]
    return write_jsonl(path, rows)


def _explore_session(path: Path, calls: int, files: int) -> Path:
    texts = [response(*(section(f"lib/c{c}/f{i}.js", body="x\n" * (1 + (c * 7 + i) % 5)) for i in range(files)))
             for c in range(calls)]
    return write_jsonl(path, events(texts, "see lib/c1/f1.js"))


def _run(capsys, *args) -> str:
    main([str(a) for a in args])
    return capsys.readouterr().out


def _section(page: str, name: str) -> str:
    return page.split(f'<section id="{name}">', 1)[1].split("</section>", 1)[0]


def _values(html: str, name: str) -> list:
    return [json.loads(v.replace("&quot;", '"')) for v in re.findall(rf'data-field="{name}" data-value="([^"]*)"', html)]


def _more(html: str, what: str) -> tuple[int, int]:
    found = re.search(rf'data-more="{re.escape(what)}" data-count="(\d+)" data-chars="(\d+)"', html)
    return int(found[1]), int(found[2])


def test_one_glob_of_20000_paths_makes_a_page_under_the_cap_whose_numbers_are_scores(tmp_path, capsys):
    run = _glob_session(tmp_path / "run.jsonl", 20_000)
    data = json.loads(_run(capsys, "score", "--ruleset", "retrieval", "--json", run))
    _run(capsys, "score", "--ruleset", "retrieval", "--html", tmp_path / "p.html", run)
    page = (tmp_path / "p.html").read_text()
    assert len(page.encode()) < PAGE_BYTES  # was 26 MB
    assert _values(page, "envelope")[0] == data["envelope"]  # the summary's
    files = _section(page, "files")
    ranks = [int(r) for r in re.findall(r'<tr id="file-(\d+)"', files)]
    credited = [i + 1 for i, f in enumerate(data["files"]) if f["channel"] is not None]
    assert len(credited) == 2 and ranks == sorted(set(range(1, FILES + 1)) | set(credited))
    assert _values(files, "chars") == [data["files"][r - 1]["chars"] for r in ranks]
    assert _values(files, "share") == [data["files"][r - 1]["share"] for r in ranks]
    count, chars = _more(files, "files")
    assert count == 20_000 - len(ranks) and chars == data["envelope"] - sum(data["files"][r - 1]["chars"] for r in ranks)
    calls = _section(page, "calls")
    listed = re.findall(r"<tr><td class=num>(\d+)</td>", calls)
    assert len(listed) == SECTIONS  # of one call's 20,000 sections
    count, chars = _more(calls, "sections of this call")
    assert count == 20_000 - SECTIONS and chars == data["envelope"] - sum(_values(calls, "chars"))
    for n in listed:  # each listed section is the response's section of that number
        assert data["calls"][0]["files"][int(n) - 1]["path"] in calls
    # The answer's two citations keep their links, the one beyond the 200 largest files included.
    answer = _section(page, "answer")
    rank = {f["path"]: i + 1 for i, f in enumerate(data["files"])}
    cited = [int(r) for r in re.findall(r'class="cite" href="#file-(\d+)"', answer)]
    assert cited == [rank["src/p0/m1.py"], rank["src/p19/m19999.py"]] and max(cited) > FILES


def test_2000_explore_calls_of_10_files_make_a_page_under_the_cap_whose_numbers_are_scores(tmp_path, capsys):
    run = _explore_session(tmp_path / "run.jsonl", 2000, 10)
    data = json.loads(_run(capsys, "score", "--json", run))
    _run(capsys, "score", "--html", tmp_path / "p.html", run)
    page = (tmp_path / "p.html").read_text()
    assert len(page.encode()) < PAGE_BYTES  # was 28 MB
    shown = [int(n) for n in re.findall(r'<div class="call" data-call="(\d+)"', page)]
    assert len(shown) == CALLS and shown == sorted(shown)
    by_number = {c["call"]: c for c in data["calls"]}
    largest = sorted(sorted(by_number, key=lambda n: -by_number[n]["envelope"])[:CALLS])
    assert shown == largest  # the largest calls (the earlier among equals), in call order
    heads = re.findall(r'<h3 id="call-\d+">(.*?)</h3>', page)
    assert [_values(h, "envelope")[0] for h in heads] == [by_number[n]["envelope"] for n in shown]
    assert [_values(h, "used")[0] for h in heads] == [by_number[n]["used"] for n in shown]
    count, chars = _more(page, "calls")
    assert count == 2000 - CALLS and chars == data["envelope"] - sum(by_number[n]["envelope"] for n in shown)


def test_an_envelope_view_of_20000_files_lists_the_largest_and_counts_the_rest(tmp_path, capsys):
    run = _glob_session(tmp_path / "run.jsonl", 20_000)
    args = ("score", "--ruleset", "retrieval", "--envelope", "--answer", "src/p1/*")
    data = json.loads(_run(capsys, *args, "--json", run))
    _run(capsys, *args, "--html", tmp_path / "p.html", run)
    page = (tmp_path / "p.html").read_text()
    assert len(page.encode()) < PAGE_BYTES
    view = _section(page, "envelope-view")
    paths = re.findall(r'<tr data-path="([^"]*)">', view)
    assert paths == [f["path"] for f in data["envelope_view"]["files"][:ENVELOPE_FILES]]
    assert _values(view, "share") == [f["share"] for f in data["envelope_view"]["files"][:ENVELOPE_FILES]]
    count, chars = _more(view, "files of the envelope")
    assert count == 20_000 - ENVELOPE_FILES
    assert chars == sum(f["chars"] for f in data["envelope_view"]["files"][ENVELOPE_FILES:])
    assert f"{len(data['answer_set']['files'])}/20000 files" in _section(page, "answer-set")  # all 1,000 counted


def test_the_page_record_holds_no_more_rows_than_the_page_shows(tmp_path):
    from citeledger import score

    rows = [*events([response(*(section(f"lib/c{c}/f{i}.js", body="x\n") for i in range(50))) for c in range(300)], "done")]
    rows += [f"not json {i}" for i in range(WARNINGS + 7)]  # a warning each
    data = page_dict(score(write_jsonl(tmp_path / "run.jsonl", rows)).score)
    assert len(data["calls"]) == CALLS and data["calls_more"]["count"] == 300 - CALLS
    assert all(len(c["files"]) == SECTIONS and c["files_more"]["count"] == 50 - SECTIONS for c in data["calls"])
    assert len(data["files"]) == FILES and data["files_more"]["count"] == 300 * 50 - FILES
    assert len(data["warnings"]) == WARNINGS and data["warnings_more"] == 7


def test_a_small_session_page_leaves_nothing_out(tmp_path, capsys):
    run = _explore_session(tmp_path / "run.jsonl", 3, 4)
    _run(capsys, "score", "--html", tmp_path / "p.html", run)
    page = (tmp_path / "p.html").read_text()
    assert "data-more=" not in page and "more files" not in page and "see score --json" not in page


@pytest.mark.parametrize("cap, stated", [(CALLS, "the {} largest explore calls"),
                                         (SECTIONS, "the {} largest sections of each"),
                                         (FILES, "the {} largest pooled files"),
                                         (ENVELOPE_FILES, "the {} largest files of the envelope view"),
                                         (WARNINGS, "the first {} input warnings"),
                                         (PAGE_BYTES // 1_000_000, "under {} MB")])
def test_robustness_md_states_the_session_pages_caps_as_the_code_has_them(cap, stated):
    doc = DOC.read_text()
    section = doc[doc.index("### A session page is bounded"):]
    assert stated.format(cap) in section
