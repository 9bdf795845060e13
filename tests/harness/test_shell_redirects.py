"""The one shell rule, with its one option: a standard-error redirect is a write for the harness
(sufficiency's buckets stay the reference's) and not for the bash_read source."""

from __future__ import annotations

import pytest

from citeledger.core import shell_intent


@pytest.mark.parametrize("command", [
    "cat lib/a.js 2>/dev/null | tail -50",
    "cat lib/a.js 2>&1",
    "sed -n 1,5p lib/a.js 2> err.log",
    "head -20 lib/a.js 2>>log",
])
def test_a_read_with_stderr_redirected_reads_for_the_source_not_for_the_harness(command):
    assert shell_intent(command).kind is None  # the harness: any `>` then a non-space is a write
    intent = shell_intent(command, stderr_redirect_writes=False)
    assert (intent.kind, intent.path) == ("read", "lib/a.js")


@pytest.mark.parametrize("command", [
    "cat lib/a.js > out.txt",
    "cat lib/a.js 2>/dev/null > copy.js",
    "cat lib/a.js>/dev/null",
    "cat <<EOF > x\nhi\nEOF",
    "echo x12>out",  # "12>" is no fd-2 redirect: still a write
])
def test_a_stdout_redirect_or_heredoc_is_still_a_write(command):
    assert not shell_intent(command, stderr_redirect_writes=False).reads


def test_bash_read_takes_a_silenced_read_and_codex_shell_command(tmp_path):
    from citeledger.core import sources

    options = sources()["bash_read"].Options()
    assert options.stderr_redirect_writes is False
    assert "shell_command" in options.tools
