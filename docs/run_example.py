"""Run the Nth ```python block of a Markdown document: the docs' examples are their own test.

    python docs/run_example.py docs/api.md 2

docs/make_outputs.py runs this for each `<!-- output: python docs/run_example.py DOC N -->`
marker, so the output block under an example is what that example prints, and
tests/docs checks both stay true. Blocks run in order in one namespace (a later
example may use an earlier one's names), in the current directory.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

BLOCK = re.compile(r"^```python\n(.*?)^```$", re.M | re.S)


def main(doc: str, upto: int) -> None:
    here = Path(__file__).resolve().parent.parent
    blocks = BLOCK.findall((here / doc).read_text(encoding="utf-8"))
    if not 1 <= upto <= len(blocks):
        raise SystemExit(f"{doc}: no python block {upto} (it has {len(blocks)})")
    namespace: dict = {"__name__": "__main__"}
    for i, code in enumerate(blocks[:upto], 1):
        if i < upto:  # earlier blocks run for their names; only block N prints
            import contextlib
            import io

            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(code, f"{doc} block {i}", "exec"), namespace)
        else:
            exec(compile(code, f"{doc} block {i}", "exec"), namespace)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
