"""Where one job's CPU goes, stage by stage, in one process (no profiler overhead).

    .venv/bin/python bench/stages.py DIR [--ruleset NAME]

Stages, each timed with process_time over the whole corpus: discovery;
reading (open, split lines, decode, walk events -> Transcript); cutting
responses into sections (header parse, sizes); the channels' judgements;
the rest of scoring (verdicts, pooling, records). Scoring runs through the
accountant's own entry points; the stage split comes from timing
`calls_of` and the channels apart from `score_many` on the same transcripts.
"""

from __future__ import annotations

import argparse
import time

from citeledger.core import kernel_name
from citeledger.core.accountant import calls_of, final_answer, score_many
from citeledger.core.channel import Envelope
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
    t = clock()
    transcripts = []
    for ref in refs:
        try:
            transcripts.append(known[ref.reader]().read(list(ref.files), options))
        except Exception:
            continue
    stages["reading (lines, decode, walk)"] = clock() - t
    t = clock()
    envelopes = []
    for tr in transcripts:
        calls = calls_of(tr.responses, ruleset)
        paths = tuple(dict.fromkeys(s.path for c in calls for s in c.sections if not s.meta))
        envelopes.append((tr, Envelope(calls, paths, {})))
    stages["sections (cut, headers, sizes)"] = clock() - t
    kinds = channel_classes()
    chans = [kinds[rule.name](rule.options) for rule in ruleset.channels]
    t = clock()
    for tr, env in envelopes:
        answer, _ = final_answer(tr.results, tr.assistant_texts, ruleset.reader.answer)
        for ch in chans:
            ch.judge(answer, env)
    stages["channels (citations, owners)"] = clock() - t
    t = clock()
    for tr in transcripts:
        score_many(tr, [ruleset])
    whole = clock() - t
    stages["rest of scoring (verdicts, pooling, records)"] = max(
        whole - stages["sections (cut, headers, sizes)"] - stages["channels (citations, owners)"], 0.0)
    total = sum(stages.values())
    print(f"{len(refs)} sessions, kernel: {kernel_name()}")
    for name, sec in stages.items():
        print(f"  {name:46s} {sec:6.3f} s  {100 * sec / total:5.1f}%")
    print(f"  {'total':46s} {total:6.3f} s")


if __name__ == "__main__":
    main()
