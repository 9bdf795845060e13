"""Where one job's CPU goes, stage by stage, in one process (no profiler overhead).

    .venv/bin/python bench/stages.py DIR [--ruleset NAME]

Stages, each timed with process_time over the whole corpus: discovery;
reading (open, split lines, decode, walk events -> Transcript); cutting
responses into sections (header parse, sizes); the channels' judgements;
the rest of scoring (verdicts, pooling, records). Scoring runs through the
accountant's own entry points; the stage split comes from timing
the accountant's cutting (`_cuts_of`, `_envelope`) and the channels apart from `score_many` on the same transcripts.
"""

from __future__ import annotations

import argparse
import time

from citeledger.core import kernel_name
from citeledger.core.accountant import Shared, _cuts_of, _envelope, final_answer, score_many
from citeledger.core.corpus import discover
from citeledger.core.plugins import channels as channel_classes, readers
from citeledger.rules.loader import load_ruleset


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("--ruleset", default="default")
    args = ap.parse_args()
    ruleset = load_ruleset(args.ruleset)
    clock = time.process_time
    t = clock()
    refs, _ = discover([args.corpus])
    stages = {"discovery": clock() - t}
    known = readers()
    options = ruleset.reader.read_options()
    kinds = channel_classes()
    chans = [kinds[rule.name](rule.options) for rule in ruleset.channels]
    reading = cutting = judging = whole = 0.0
    for ref in refs:  # one session at a time, as a sweep holds them
        t = clock()
        try:
            tr = known[ref.reader]().read(list(ref.files), options)
        except Exception:
            continue
        reading += clock() - t
        t = clock()
        env = _envelope(_cuts_of(tr.responses, ruleset, Shared()), ruleset.splitter, {})
        cutting += clock() - t
        t = clock()
        answer, _ = final_answer(tr.results, tr.assistant_texts, ruleset.reader.answer)
        for ch in chans:
            ch.judge(answer, env)
        judging += clock() - t
        del env
        t = clock()
        score_many(tr, [ruleset])  # all of scoring again, cutting and judging included
        whole += clock() - t
    stages["reading (lines, decode, walk)"] = reading
    stages["sections (cut, headers, sizes)"] = cutting
    stages["channels (citations, owners)"] = judging
    total = stages["discovery"] + stages["reading (lines, decode, walk)"] + whole
    print(f"{len(refs)} sessions, kernel: {kernel_name()}; CPU seconds, one process")
    for name in ("discovery", "reading (lines, decode, walk)"):
        print(f"  {name:46s} {stages[name]:6.3f} s  {100 * stages[name] / total:5.1f}%")
    print(f"  {'scoring (score_many), of which:':46s} {whole:6.3f} s  {100 * whole / total:5.1f}%")
    for name in ("sections (cut, headers, sizes)", "channels (citations, owners)"):
        print(f"    {name:44s} {stages[name]:6.3f} s")
    rest = whole - stages["sections (cut, headers, sizes)"] - stages["channels (citations, owners)"]
    print(f"    {'the rest (verdicts, pooling, records)':44s} {rest:6.3f} s  (by difference; timings vary run to run)")
    print(f"  {'total':46s} {total:6.3f} s")


if __name__ == "__main__":
    main()
