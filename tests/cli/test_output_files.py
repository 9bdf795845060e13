"""Files a command writes get the permissions open() would give them (not mkstemp's owner-only)."""

from __future__ import annotations

import os
import stat

from citeledger.cli.output import write_file


def test_written_files_follow_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        path = write_file(str(tmp_path / "report.html"), "<p>x</p>")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
