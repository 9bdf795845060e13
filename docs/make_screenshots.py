"""Regenerate the screenshots of the four HTML page types in docs/img/.

    .venv/bin/python docs/make_screenshots.py

Writes each page with the command line (as a user would), opens it in
headless chromium (tests/browser.py) and captures the whole page.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from browser import Browser  # noqa: E402

from citeledger.cli import main  # noqa: E402

PAGES = {
    "html-session.png": ["score", "tests/fixtures/real/stream/express-sendfile-2calls.jsonl", "--answer", "lib/*.js"],
    "html-sweep.png": ["sweep", "tests/fixtures/corpus/base", "-q", "-j1"],
    "html-compare.png": ["compare", "tests/fixtures/pass", "--arms", "baseline", "new", "-q", "-j1"],
    "html-sensitivity.png": ["sensitivity", "tests/fixtures/real", "--ruleset", "corrected", "--ruleset", "path-only",
                             "-q", "-j1"],
}
WIDTH = 1400  # as the fit test's wide case (tests/cli/test_commands_as_typed.py also checks 800 px)
OPEN = {"html-sweep.png": "#s-0-4"}  # show one session's section opened


def run() -> None:
    out = REPO / "docs" / "img"
    out.mkdir(exist_ok=True)
    browser = Browser()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name, argv in PAGES.items():
                page_file = Path(tmp) / (name[:-4] + ".html")
                main(argv + ["--html", str(page_file)])
                page = browser.open(page_file, width=WIDTH, height=800)
                if name in OPEN:
                    page.eval(f"location.hash = '{OPEN[name]}'; window.scrollTo(0, 0)")
                problems = page.problems()
                if problems:
                    raise SystemExit(f"{name}: {problems}")
                page.screenshot(out / name)
                page.close()
                print(out / name)
    finally:
        browser.close()


if __name__ == "__main__":
    import os

    os.chdir(REPO)  # the inputs are named relative to the repository, as in the README
    run()
