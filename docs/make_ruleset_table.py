"""The default-vs-corrected-vs-each-switch table of docs/rulesets.md, on the real fixtures.

    .venv/bin/python docs/make_ruleset_table.py           # print the Markdown
    .venv/bin/python docs/make_ruleset_table.py --write   # replace it in docs/rulesets.md

Each "switch" is default plus ONE key that corrected.yaml changes (found by
comparing the two rulesets' merged YAML), so each flaw's effect shows alone.
The corpus is parsed once and scored under all the rulesets.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from citeledger.core.corpus import discover, score_corpus
from citeledger.core.jsstr import percent
from citeledger.report.sensitivity import Sensitivity
from citeledger.rules.variation import switches, variant
from citeledger.rules.loader import load_ruleset

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "tests", "fixtures", "real")
DOC = os.path.join(HERE, "rulesets.md")
BEGIN, END = "<!-- table:begin (docs/make_ruleset_table.py) -->", "<!-- table:end -->"


def rulesets():
    out = [load_ruleset("default"), load_ruleset("corrected")]
    for key, value in switches("default", "corrected"):
        out.append(variant("default", {key: value}, name=f"+ {key}"))
    return out


def _pt(value) -> str:
    return "—" if value is None else f"{round(100 * value, 1) + 0.0:+.1f}"


def table() -> str:
    sets = rulesets()
    names = [r.name for r in sets]
    refs, _ = discover([FIXTURES])
    result = Sensitivity(names)
    per_session = []
    for outcome in score_corpus(refs, sets, jobs=1):
        result.add(outcome.ref.turns, outcome.scores)
        per_session.append((outcome.ref.key, outcome.scores))
    rows = {(r["ruleset"], r["slice"]): r for r in result.rows()}
    lines = [
        f"{len(refs)} sessions under `tests/fixtures/real` ({sum(r.turns <= 1 for r in refs)} single-question, "
        f"{sum(r.turns > 1 for r in refs)} multi-turn); n = sessions scored (an explore section and an answer).",
        "",
        "| ruleset | n | pooled | Δ pt | median | Δ pt | p25 | Δ pt | sessions changed |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in names:
        r = rows[(name, "all")]
        base = name == "default"
        changed = "" if base else f"{r['changed']}/{r['compared']}"
        lines.append(
            f"| {'`' + name + '`'} | {r['n']} | {percent(r['pooled'])} | {'' if base else _pt(r['delta_pooled'])} "
            f"| {percent(r['median'])} | {'' if base else _pt(r['delta_median'])} | {percent(r['p25'])} "
            f"| {'' if base else _pt(r['delta_p25'])} | {changed} |"
        )
    lines += ["", "Per session (efficiency; `·` where it equals default's, `n/s` where the session is not scored):", ""]
    short = ["default", "corrected"] + [f"S{i}" for i in range(1, len(names) - 1)]
    lines.append("| session | " + " | ".join(short) + " |")
    lines.append("| --- |" + " ---: |" * len(short))
    for key, scores in per_session:
        base = scores[0]
        cells = []
        for i, s in enumerate(scores):
            value = "n/s" if s is None or s.status != "scored" else percent(s.efficiency)
            same = i > 0 and base is not None and s is not None and s.status == base.status and (
                s.status != "scored" or percent(s.efficiency) == percent(base.efficiency)
            )
            cells.append("·" if same else value)
        lines.append(f"| `{key}` | " + " | ".join(cells) + " |")
    lines += ["", "Switches: " + "; ".join(f"S{i} = `{n[2:]}`" for i, n in enumerate(names[2:], 1)) + "."]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true", help=f"replace the table between the markers in {DOC}")
    args = ap.parse_args()
    text = table()
    if not args.write:
        sys.stdout.write(text)
        return 0
    with open(DOC, encoding="utf-8") as fh:
        doc = fh.read()
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(doc):
        print(f"{DOC}: no table markers", file=sys.stderr)
        return 2
    with open(DOC, "w", encoding="utf-8") as fh:
        fh.write(pattern.sub(lambda _: f"{BEGIN}\n{text}{END}", doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
