"""Where the session page puts an answer's crediting citations (report/html/citations.py).

Spans are worked out by hand on short answers: index positions counted from 0.
"""

from citeledger.report.html.citations import Span, citation_spans, occurrences


def test_every_occurrence_of_a_path_is_a_citation():
    answer = "lib/a.js calls lib/a.js"
    assert occurrences(answer, "path", "lib/a.js") == [(0, 8), (15, 23)]


def test_no_word_character_may_touch_the_evidence():
    # utils.js inside myutils.js or utils.jsx is not that citation; after a "/" it is.
    answer = "myutils.js utils.jsx lib/utils.js"
    assert occurrences(answer, "path", "utils.js") == [(25, 33)]


def test_a_symbol_counts_in_backticks_when_it_stands_in_any():
    answer = "etag is computed by `etag(body)`"
    assert occurrences(answer, "symbol", "etag") == [(21, 25)]
    # In prose only (a ruleset reading prose symbols): found there.
    assert occurrences("the etag header", "symbol", "etag") == [(4, 8)]


def test_a_quote_matches_across_white_space_and_a_shortened_one_by_its_prefix():
    answer = "```\nif (a)   {\n  return b\n}\n```"
    assert occurrences(answer, "quote", "if (a) { return b }") == [(4, 27)]
    assert occurrences(answer, "quote", "if (a) { ret…") == [(4, 20)]


def test_overlapping_citations_merge_into_one_span_linking_every_file():
    # lib/utils.js credits file 0 by path; its last segment utils.js credits file 2.
    answer = "see lib/utils.js and `etag`"
    spans = citation_spans(answer, [(0, "path", "lib/utils.js"), (2, "path", "utils.js"), (1, "symbol", "etag")])
    assert spans == [Span(4, 16, (0, 2)), Span(22, 26, (1,))]


def test_evidence_not_in_the_answer_marks_nothing():
    assert citation_spans("nothing here", [(0, "path", "lib/x.js"), (1, "quote", "…")]) == []
