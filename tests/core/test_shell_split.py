"""A shell script's output split at its echo markers (core/shell_split.py). The real case is
tests/cli/test_retrieval_tools.py (EnterpriseBench's baseline arm, FACTS.md §6); these
hand-made commands are the shapes no real file shows yet: where the rule gives up."""

from __future__ import annotations

from citeledger.core.shell_split import simple_commands, split_output


def reads(simple):
    word = simple.split()[0]
    return simple.split()[-1] if word in ("cat", "sed", "head") else None


def test_markers_split_a_listing_and_two_files():
    output = "== a ==\nx\ny\n\n1\n\n2\n== b ==\nB\n"
    pieces = split_output('echo "== a =="; ls; echo; cat a.txt; echo "== b =="; cat b.txt', output, reads)
    assert [(p, t) for p, t, _ in pieces] == [(None, "== a ==\n"), (None, "x\ny\n"), (None, "\n"),
                                              ("a.txt", "1\n\n2\n"), (None, "== b ==\n"), ("b.txt", "B\n")]
    assert "".join(t for _, t, _ in pieces) == output


def test_a_marker_after_a_file_before_a_listing_is_its_last_place():
    output = "A\n---\nA2\n---\nlisting\n"  # the file itself holds a `---` line
    pieces = split_output("cat a.md; echo ---; ls", output, reads)
    assert pieces[0][:2] == ("a.md", "A\n---\nA2\n")


def test_ranges_of_one_file_join_with_their_markers_and_the_last_newline_may_be_missing():
    pieces = split_output("sed -n 1,2p f.lock\necho ---\nsed -n 9,9p f.lock", "a\nb\n---\nz", reads)
    assert [(p, t) for p, t, _ in pieces] == [("f.lock", "a\nb\n---\nz")]


def test_no_split_where_it_cannot_be_told():
    for command in ("for f in a b; do cat $f; echo ---; done", "cat a.txt; cat b.txt; echo ---",
                    "echo $x; cat a.txt", "echo -n x; cat a.txt", "cat a.txt <<EOF\nx\nEOF",
                    "cat a.txt", "(cd d; cat a.txt); echo ---"):
        assert split_output(command, "1\n---\n", reads) is None, command
    assert split_output("echo one; cat a.txt", "two\n1\n", reads) is None  # the marker is not there


def test_simple_commands_keep_pipelines_quotes_and_substitutions_whole():
    found = simple_commands("cat a | head -3 && echo 'x; y' # note; not a command\nX=$(ls; pwd) || ls 2>&1")
    assert [t for t, _ in found] == ["cat a | head -3", "echo 'x; y'", "X=$(ls; pwd)", "ls 2>&1"]
