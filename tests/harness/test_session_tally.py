"""harness/session_tally.py: parse-session.mjs's session id and tally order."""

from citeledger.harness.session_tally import printed_order, session_id


def test_session_id_drops_the_first_jsonl_only():
    # String#replace with a string pattern replaces the first occurrence, not the suffix.
    assert session_id("/x/a.jsonl.b.jsonl") == "a.b.jsonl"
    assert session_id("/x/6f1c.jsonl") == "6f1c"


def test_tally_order_is_count_first_then_javascript_key_order():
    counts = {"Read": 1, "Bash": 3, "10": 1, "2": 1, "Grep": 3}
    assert printed_order(counts) == (("Bash", 3), ("Grep", 3), ("2", 1), ("10", 1), ("Read", 1))
