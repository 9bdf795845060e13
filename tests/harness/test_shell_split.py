"""A shell script's output split at its markers (harness/shell_split.py). The real cases are
tests/cli/test_retrieval_tools.py (EnterpriseBench's baseline arm, FACTS.md §6),
tests/readers/test_opencode.py (§15) and tests/readers/test_codex.py (code mode, §9); these
hand-made commands are the shapes no real file shows yet: where the rule gives up."""

from __future__ import annotations

from citeledger.harness.shell_split import printf_text, simple_commands, split_output


def reads(simple):
    word = simple.split()[0]
    return simple.split()[-1] if word in ("cat", "sed", "head") else None


def split(command, output):
    found = split_output(command, output, reads)
    return None if found is None else [(tuple(p for p, _ in owners), text) for owners, text in found]


def test_markers_split_a_listing_and_two_files():
    output = "== a ==\nx\ny\n\n1\n\n2\n== b ==\nB\n"
    assert split('echo "== a =="; ls; echo; cat a.txt; echo "== b =="; cat b.txt', output) == [
        ((), "== a ==\n"), ((), "x\ny\n"), ((), "\n"), (("a.txt",), "1\n\n2\n"), ((), "== b ==\n"), (("b.txt",), "B\n")]


def test_a_marker_after_a_file_before_a_listing_is_its_last_place():
    assert split("cat a.md; echo ---; ls", "A\n---\nA2\n---\nlisting\n")[0] == (("a.md",), "A\n---\nA2\n")


def test_ranges_of_one_file_join_with_their_markers_and_the_last_newline_may_be_missing():
    assert split("sed -n 1,2p f.lock\necho ---\nsed -n 9,9p f.lock", "a\nb\n---\nz") == [(("f.lock",), "a\nb\n---\nz")]


def test_files_printed_with_nothing_between_are_one_joint_part():
    assert split("cat a.txt; cat b.txt; git status; printf '\\n--- x ---\\n'; ls", "1\n2\nM x\n\n--- x ---\nl\n") == [
        (("a.txt", "b.txt"), "1\n2\nM x\n"), ((), "\n--- x ---\n"), ((), "l\n")]
    assert printf_text("printf '\\n--- repo ---\\n'") == "\n--- repo ---\n" and printf_text('printf "%s" x') is None


def test_a_compound_command_prints_what_its_reads_print():
    assert split('if [ -f c ]; then cat c.json; fi; cat r.md', "{}\n# r\n") == [(("c.json", "r.md"), "{}\n# r\n")]


def test_no_split_where_it_cannot_be_told():
    for command in ("for f in a b; do cat $f; echo ---; done", "echo $x; cat a.txt", "echo -n x; cat a.txt",
                    "cat a.txt <<EOF\nx\nEOF", "cat a.txt", "(cd d; cat a.txt); echo ---", "if x; then cat a.txt"):
        assert split(command, "1\n---\n") is None, command
    assert split("echo one; cat a.txt", "two\n1\n") is None  # the marker is not there


def test_simple_commands_keep_pipelines_quotes_and_substitutions_whole():
    found = simple_commands("cat a | head -3 && echo 'x; y' # note; not a command\nX=$(ls; pwd) || ls 2>&1")
    assert [t for t, _ in found] == ["cat a | head -3", "echo 'x; y'", "X=$(ls; pwd)", "ls 2>&1"]


def test_a_read_the_callers_rule_does_not_see_is_split_all_the_same():
    # `if ...; then sed ...; fi`: no marker, one file; the harness's rule sees no read after `then`
    command = "if [ -f a ]; then echo x=yes; fi\nif [ -f c.json ]; then sed -n 1,80p c.json; fi"
    assert split(command, "x=yes\n{}\n") is None
    found = split_output(command, "x=yes\n{}\n", reads, unseen=True)
    assert [(tuple(p for p, _ in owners), text) for owners, text in found] == [(("c.json",), "x=yes\n{}\n")]
