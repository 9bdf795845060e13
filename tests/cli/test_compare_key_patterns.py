"""compare --key patterns are held to the rules a ruleset's patterns are: they
run on RE2 in linear time, within budget, or are one exit-2 line naming --key."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeledger.cli import main
from citeledger.engine.compare import key_function
from citeledger.core.errors import UserError
from citeledger.infra.re2text import LinearPattern

CORPUS = Path(__file__).parent.parent / "fixtures" / "corpus"
BASE, NEW = str(CORPUS / "base"), str(CORPUS / "new")


@pytest.mark.parametrize("spec, why", [
    ("(" * 5000 + "a" + ")" * 5000, "RE2 program is larger"),  # issue 20 item 5: was a RecursionError
    (r"([\w@+-]+)\1\.[A-Za-z]\w*", "backreference"),  # issue 20 item 6: cubic on re
    ("[a-z]" + "(?:abc)?" * 20_000, "RE2 program is larger"),  # issue 20 item 7
    ("a{1001}", "counted repetition above 1000"),
    ("a{" + "9" * 5000 + "}", "RE2 program is larger"),  # RE2 reads it as the literal text
])
def test_a_key_re2_cannot_run_is_one_exit_2_line(capsys, spec, why):
    assert main(["compare", BASE, NEW, "-q", "-j1", "--key", spec]) == 2
    err = capsys.readouterr().err
    assert "--key" in err and "refused" in err and why in err
    assert err.count("\n") == 1 and len(err) < 1000  # the spec is cut, not echoed whole


def test_a_key_that_is_no_regular_expression_says_so():
    with pytest.raises(UserError, match="not a regular expression"):
        key_function("(alpha")


def test_a_key_runs_on_re2():
    by_pattern = key_function(r"^(alpha|beta)/")
    assert by_pattern({"session": "alpha/r1"}) == "alpha" and by_pattern({"session": "gamma/r1"}) is None
    assert isinstance(by_pattern.__closure__[0].cell_contents, LinearPattern)
