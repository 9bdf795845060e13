"""Where one job's CPU goes, stage by stage, in one process (no profiler overhead).

    .venv/bin/python bench/stages.py DIR [--ruleset NAME]

Every stage is timed (process_time, summed over the corpus) through core's
public API only (`citeledger.core`: discover, calls_of, Envelope, score; the plugin
registry's readers and channels), so the figures survive rewrites of the modules behind it:

- discovery: `discover([DIR])` (walk, sniff, group, stat);
- reading: each session's reader turns its files into a Transcript;
- sections: `calls_of(responses, ruleset)`, the cut the accountant makes;
- channels: each ranked channel judges the answer against the envelope of
  those calls (set-up included: a channel object is made per session, as
  scoring a session does);
- scoring, whole: `score(transcript, ruleset)`, which repeats the two stages
  above and adds verdicts, pooling and records; "the rest" is its time less
  theirs (by difference);
- of the channels, the header lines lark parses (header.lark, the one definition of a
  header: `sources.sectioned.header.read_names`, which every Header's names are read with,
  timed call by call), how many a session and what one costs.

Start-up, the parent's merging and output are not in it (bench/run.py times
whole commands). A stage the current API cannot time is reported as n/a with
the reason, the others still run.
"""

from __future__ import annotations

import argparse
import time

from citeledger import core, corpus
from citeledger.core import channels, readers
from citeledger.rules.loader import load_ruleset


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("--ruleset", default="default")
    args = ap.parse_args()
    ruleset = load_ruleset(args.ruleset)
    clock = time.process_time
    parsed = _time_header_parses(clock)
    t = clock()
    refs, _ = corpus.discover([args.corpus])
    took = {"discovery": clock() - t, "reading": 0.0, "sections": 0.0, "channels": 0.0, "scoring": 0.0}
    missing: dict[str, str] = {}
    known = readers()
    options = ruleset.read_options()
    kinds = channels()
    read = failed = 0
    for ref in refs:  # one session at a time, as a sweep holds them
        t = clock()
        try:
            tr = known[ref.reader]().read(list(ref.files), options)
        except Exception:  # unreadable sessions count in discovery only
            failed += 1
            continue
        took["reading"] += clock() - t
        read += 1
        t = clock()
        parsed["on"] = True  # lark's parses counted in the scoring only (the stages below parse again)
        result = core.score(tr, ruleset)
        parsed["on"] = False
        took["scoring"] += clock() - t
        if "sections" not in missing:
            try:
                t = clock()
                calls = core.calls_of(tr.responses, ruleset)
                took["sections"] += clock() - t
            except Exception as exc:
                missing["sections"] = missing["channels"] = f"{type(exc).__name__}: {exc}"
                continue
        if "channels" not in missing:
            try:
                t = clock()
                paths = tuple(dict.fromkeys(s.path for c in calls for s in c.sections if not s.meta))
                env = core.Envelope(tuple(calls), paths, {}, tr.tool_uses, tr.responses)
                for rule in ruleset.channels:
                    kinds[rule.name](rule.options).judge(result.answer, env)
                took["channels"] += clock() - t
            except Exception as exc:
                missing["channels"] = f"{type(exc).__name__}: {exc}"
    total = took["discovery"] + took["reading"] + took["scoring"]
    print(f"{len(refs)} sessions ({read} read, {failed} unreadable) under {args.corpus}, ruleset {args.ruleset}; "
          f"CPU seconds, one process")

    def line(label, value, indent=2, share=True):
        pct = f"  {100 * value / total:5.1f}%" if share and total else ""
        per = f"  {1e6 * value / max(1, len(refs)):6.0f} µs a session"
        print(f"{' ' * indent}{label:44s} {value:7.3f} s{pct}{per}")

    line("discovery", took["discovery"])
    line("reading (lines, decode, walk)", took["reading"])
    line("scoring (score), of which:", took["scoring"])
    for name, label in (("sections", "sections (cut, headers, sizes)"), ("channels", "channels (set-up, citations, owners)")):
        if name in missing:
            print(f"    {label:42s}     n/a  ({missing[name]})")
        else:
            line(label, took[name], 4, share=False)
    if not missing:
        rest = took["scoring"] - took["sections"] - took["channels"]
        line("the rest (verdicts, pooling, records)", rest, 4, share=False)
        print("    (the rest by difference; timings vary run to run)")
    line("total", total)
    if parsed["lines"]:
        lines, took_lark = parsed["lines"], parsed["seconds"]
        print(f"  of the scoring, lark's header parses: {lines:,} lines, {lines / max(1, read):.1f} a session, "
              f"{1e6 * took_lark / lines:.1f} µs a line, {1e6 * took_lark / max(1, read):.0f} µs a session")


def _time_header_parses(clock) -> dict:
    """Count and time every header line lark parses (read_names is looked up at each call)."""
    from citeledger.sources.sectioned import header

    parsed = {"lines": 0, "seconds": 0.0, "on": False}
    real = header.read_names

    def timed(path, suffix):
        if not parsed["on"]:
            return real(path, suffix)
        t = clock()
        try:
            return real(path, suffix)
        finally:
            parsed["seconds"] += clock() - t
            parsed["lines"] += 1

    header.read_names = timed
    return parsed


if __name__ == "__main__":
    main()
