"""`compare`'s result model and its text: per group, every run of each build, medians, their
difference with a bootstrap interval, the harness's allocation lines, the files whose share moved."""

from __future__ import annotations

import attrs

from citeledger.core import behaviour_of, percent, points, printable, to_fixed
from citeledger.report.arm_table import behaviour_block, behaviour_dict
from citeledger.report.stats import bootstrap_median_difference, median
from citeledger.report.tables import layout, pct
from citeledger.report.text import added_line

GROUP_COLUMNS = (
    "group", "base_n", "new_n", "base_runs", "new_runs", "base_median", "new_median", "difference",
    "ci_low", "ci_high", "confidence", "resamples", "seed", "base_not_scored", "new_not_scored",
    "base_pooled", "new_pooled", "base_sessions", "new_sessions",  # the harness's number; which runs
    "paired", "dropped",  # groups (questions) both sides score; groups one side alone scores
)
FILE_COLUMNS = ("group", "path", "base_share", "new_share", "delta", "base_chars", "new_chars")
SIDES = ("base", "new")


@attrs.define
class Side:
    runs: list = attrs.Factory(list)  # (run number or None, session, efficiency, used, envelope), pass order
    envelope: int = 0
    used: int = 0
    chars: dict = attrs.Factory(dict)  # path -> pooled chars
    not_scored: int = 0

    def in_run_order(self) -> list:
        """Runs by run number (run-new-10 after run-new-2); runs without one keep the pass's order."""
        return sorted(self.runs, key=lambda r: (r[0] is None, r[0] or 0))


class Comparison:
    """Per-group accumulators: numbers and file totals, never whole sessions."""

    def __init__(self, key):
        self.key = key
        self.groups: dict[str, dict[str, Side]] = {}
        self.unscored: list[dict] = []
        self.other_arms: list[dict] = []  # sessions of arms not compared: listed, not counted
        # (group, side) -> every read session's RunBehaviour, scored or not (compare-arms.mjs keeps them all)
        self.behaviour: dict[tuple, list] = {}

    def add(self, side: str, row: dict, key=None) -> None:
        if row["status"] == "other-arm":
            self.other_arms.append({"session": row["session"], "arm": row.get("arm")})
            return
        group = (key or self.key)(row)
        if group is None:
            self.unscored.append({"side": side, "session": row["session"], "status": "ungrouped",
                                  "reason": "--key pattern does not match the session's path"})
            return
        s = self.groups.setdefault(group, {"base": Side(), "new": Side()})[side]
        if row.get("run_tools") is not None:  # read, and measured (a sweep output of before has no columns)
            self.behaviour.setdefault((group, side), []).append(behaviour_of(row["session"], row))
        if row["status"] != "scored":
            s.not_scored += 1
            self.unscored.append({"side": side, "session": row["session"], "status": row["status"], "reason": row["reason"]})
            return
        s.runs.append((row.get("run"), row["session"], row["efficiency"], row["used"], row["envelope"]))
        s.envelope += row["envelope"]
        s.used += row["used"]
        for path, chars, _channel in row["files"]:
            s.chars[path] = s.chars.get(path, 0) + chars

    def group_rows(self, args) -> list[dict]:
        rows = []
        names = sorted(self.groups)
        everything: dict = {side: [] for side in SIDES}  # the runs of the paired groups, for (all)
        not_scored = {side: sum(self.groups[g][side].not_scored for g in names) for side in SIDES}
        pairs = dropped = 0
        for name in names:
            runs, paired, lost = self._paired_runs(self.groups[name])
            if runs["base"] and runs["new"]:  # (all) pools paired groups only: a one-sided
                for side in SIDES:            # group would move a median by itself
                    everything[side].extend(runs[side])
            pairs += paired
            dropped += lost
            counts = {side: self.groups[name][side].not_scored for side in SIDES}
            rows.append(self._row(name, runs, counts, paired, lost, args, sessions=True))
        rows.append(self._row("(all)", everything, not_scored, pairs, dropped, args, sessions=False))
        return rows

    @staticmethod
    def _paired_runs(sides: dict) -> tuple[dict, int, int]:
        """A group's runs per side in run order, and (paired, dropped): a group is a question asked on
        both sides (its runs are repeated runs of it, not pairs run by run; `--key session` makes each
        session a group), paired when both sides score a run of it, dropped when one side alone does."""
        ordered = {side: sides[side].in_run_order() for side in SIDES}
        both = bool(ordered["base"] and ordered["new"])
        return ordered, int(both), int(not both and bool(ordered["base"] or ordered["new"]))

    def _row(self, name: str, runs: dict, not_scored: dict, paired: int, dropped: int, args, sessions: bool) -> dict:
        effs = {side: [r[2] for r in runs[side]] for side in SIDES}
        b, n = median(effs["base"]), median(effs["new"])
        ci = bootstrap_median_difference(effs["base"], effs["new"], seed=args.seed, resamples=args.resamples,
                                         confidence=args.confidence)
        return {
            "record": "group", "group": name,
            "base_n": len(effs["base"]), "new_n": len(effs["new"]),
            "base_runs": effs["base"], "new_runs": effs["new"],
            "base_median": b, "new_median": n,
            "difference": None if b is None or n is None else n - b,
            "ci_low": ci.low if ci else None, "ci_high": ci.high if ci else None,
            "confidence": args.confidence, "resamples": args.resamples, "seed": args.seed,
            "base_not_scored": not_scored["base"], "new_not_scored": not_scored["new"],
            # the harness's allocation lines (compare-arms.mjs): pooled over the group's scored runs
            **{f"{side}_pooled": ratio_or_none(sum(r[3] for r in runs[side]), sum(r[4] for r in runs[side]))
               for side in SIDES},
            "base_sessions": [r[1] for r in runs["base"]] if sessions else [],
            "new_sessions": [r[1] for r in runs["new"]] if sessions else [],
            "paired": paired, "dropped": dropped,
            **{f"{side}_behaviour": behaviour_dict(self.runs_of(name, side)) for side in SIDES},
        }

    def runs_of(self, group: str, side: str) -> list:
        """The RunBehaviour of every session read of `side` in `group` (in `(all)`: of every group)."""
        if group != "(all)":
            return self.behaviour.get((group, side), [])
        return [r for (_, s), runs in sorted(self.behaviour.items()) if s == side for r in runs]

    def behaviour_arms(self, labels) -> list[tuple]:
        """Per group (but `(all)`), its sides' runs as the arm table takes them: (label, runs) pairs."""
        return [(name, [(label, self.runs_of(name, side)) for side, label in zip(SIDES, labels)])
                for name in sorted(self.groups)]

    def file_rows(self, top: int) -> list[dict]:
        rows = []
        for name in sorted(self.groups):
            base, new = self.groups[name]["base"], self.groups[name]["new"]
            if not base.envelope or not new.envelope:
                continue
            moved = []
            for path in dict.fromkeys(list(base.chars) + list(new.chars)):
                bs = base.chars.get(path, 0) / base.envelope
                ns = new.chars.get(path, 0) / new.envelope
                moved.append((-abs(ns - bs), path, bs, ns))
            moved.sort(key=lambda m: (m[0], m[1]))
            for _, path, bs, ns in moved[:top]:
                rows.append({
                    "record": "file", "group": name, "path": path, "base_share": bs, "new_share": ns,
                    "delta": ns - bs, "base_chars": base.chars.get(path, 0), "new_chars": new.chars.get(path, 0),
                })
        return rows


def ratio_or_none(part: int, whole: int):
    return part / whole if whole else None


NOT_COMPARED_LISTED = 20  # text lists this many; JSON and --out list all


def render_text(header: dict, groups: list[dict], files: list[dict], unscored: list[dict], plot: list[str],
                other_arms: list[dict] = (), sufficiency: str = "", behaviour=(), brief: bool = False) -> str:
    """`sufficiency`: the pooled sufficiency block (compare --sufficiency), after the harness view;
    `behaviour`: per group, its arms' runs (Comparison.behaviour_arms), before it; `brief`: the title
    and the group table alone. Groups that do not line up (no group scored on both sides): one line why."""
    labels = header.get("arms") or ["baseline", "new"]
    out = title_line(header, labels) + added_line(header.get("added", ()))
    reason = unpaired_reason(header, groups, labels)
    if reason:
        return out + reason
    out += group_table(header, groups, labels)
    if brief:
        return out
    out += "\n" + harness_lines(groups, labels)
    if behaviour:
        out += "\n" + behaviour_lines(behaviour)
    if sufficiency:
        out += "\n" + sufficiency
    if files:
        out += "\nfiles whose envelope share moved most (pooled over the group's scored runs):\n"
        body = [(f["group"], f["path"], percent(f["base_share"]), percent(f["new_share"]), points(f["delta"])) for f in files]
        out += layout(("group", "file", labels[0],
                       labels[1] if header.get("arms") else "new", "moved (pp)"), body, (False, False, True, True, True))
    if unscored:
        out += f"\nnot compared ({len(unscored)}):\n"
        for u in unscored[:NOT_COMPARED_LISTED]:
            out += f"  {u['side']:<4}  {u['status']:<10}  {printable(u['session'])}  — {u['reason']}\n"
        if len(unscored) > NOT_COMPARED_LISTED:
            out += f"  … and {len(unscored) - NOT_COMPARED_LISTED} more (all in --json and --out)\n"
    if other_arms:
        counts: dict = {}
        for o in other_arms:
            counts[o["arm"]] = counts.get(o["arm"], 0) + 1
        named = ", ".join(f"{'(no arm label)' if a is None else a} {n}" for a, n in counts.items())
        out += f"\nsessions of other arms, not compared ({len(other_arms)}): {named}\n"
    out += ("\nplot: " + ", ".join(plot) + "\n") if plot else "\nno plot written (give --out DIR or --plot PATH)\n"
    return out


def title_line(header: dict, labels) -> str:
    if header.get("arms"):
        return (f"citeledger compare — {arm_role(labels[0], 'baseline')} vs {arm_role(labels[1], 'new')} under "
                f"{', '.join(header['passes'])} (ruleset {header['ruleset']}, grouped by {header['key']})\n")
    return (f"citeledger compare — baseline {header['baseline']} vs new {header['new']} "
            f"(ruleset {header['ruleset']}, grouped by {header['key']})\n")


def group_table(header: dict, groups: list[dict], labels) -> str:
    """The arm and group rows: each group's runs, medians, difference and interval; the bootstrap
    and pairing lines under them."""
    conf = int(round(header["confidence"] * 100))
    heads = (f"{labels[0]} runs", f"{labels[1]} runs", f"{labels[0]} med", f"{labels[1]} med") if header.get("arms") \
        else ("baseline runs", "new runs", "baseline med", "new med")
    headers = ("group", *heads, "diff (pp)", f"{conf}% CI (pp)")
    body = []
    for g in groups:
        ci = "—" if g["ci_low"] is None else f"[{points(g['ci_low'])}, {points(g['ci_high'])}]"
        body.append((
            g["group"], runs_text(g["base_runs"]), runs_text(g["new_runs"]),
            pct(g["base_median"]), pct(g["new_median"]), points(g["difference"]), ci,
        ))
    out = layout(headers, body, (False, False, False, True, True, True, False))
    out += (
        f"  bootstrap: {header['resamples']} percentile resamples of each side's median, "
        f"seed {header['seed']} (numpy PCG64 seeded with the seed and the runs' values)\n"
    )
    out += paired_lines(groups, labels)
    return out


def lines_up(groups: list[dict]) -> bool:
    """False when some group is scored and none is scored on both sides: nothing can be compared."""
    every = next((g for g in groups if g["group"] == "(all)"), None)
    return every is None or bool(every["paired"]) or not every["dropped"]


def unpaired_reason(header: dict, groups: list[dict], labels) -> str:
    """One line when each side scores some group and no group is scored on both (the folders' groups do
    not line up: a table of dashes would say nothing), else ""."""
    if lines_up(groups):
        return ""
    named = {}
    for side in SIDES:
        mine = [printable(g["group"]) for g in groups if g["group"] != "(all)" and g[f"{side}_n"]]
        named[side] = ", ".join(mine[:3]) + (f" …+{len(mine) - 3}" if len(mine) > 3 else "")
    if not all(named.values()):  # one side scored nothing: the not-compared list says why
        return ""
    how = {"parent": "its folder under each pass", "session": "its path"}.get(header["key"], "the --key pattern's match")
    return (f"  nothing compared: no group lines up — {labels[0]} has {named['base']}; {labels[1]} has {named['new']} "
            f"(a session's group is {how}: give passes laid out alike, or --key to pair them)\n")


def paired_lines(groups: list[dict], labels) -> str:
    """How many groups (all) pools (both sides score them) and how many it drops; one warning line
    when a side scores fewer groups than the other, or they score different ones."""
    every = next((g for g in groups if g["group"] == "(all)"), None)
    if every is None:
        return ""
    out = f"  paired: (all) is over the {every['paired']} group(s) both sides score; {every['dropped']} dropped\n"
    if every["dropped"]:
        scored = {side: sum(1 for g in groups if g["group"] != "(all)" and g[f"{side}_n"]) for side in SIDES}
        dropped = [g["group"] for g in groups if g["group"] != "(all)" and g["dropped"]]
        shown = ", ".join(printable(name) for name in dropped[:5]) + (" …" if len(dropped) > 5 else "")
        if scored["base"] == scored["new"]:
            who = f"{labels[0]} and {labels[1]} score different groups"
        else:
            fewer = min(SIDES, key=lambda side: scored[side])
            who = f"{labels[SIDES.index(fewer)]} scores fewer groups ({scored[fewer]} against " \
                  f"{max(scored.values())})"
        out += f"  warning: {who}: (all) leaves out {every['dropped']} ({shown})\n"
    return out


def arm_role(label: str, role: str) -> str:
    """`arm new`, or `arm b (new)` when the label does not already say which side it is."""
    return f"arm {label}" if label == role else f"arm {label} ({role})"


def harness_lines(groups: list[dict], labels) -> str:
    """The allocation lines of the harness's ARM COMPARISON table (compare-arms.mjs), per group:
    pooled efficiency, and per-run efficiency as median [min–max]."""
    out = "harness view (as compare-arms.mjs prints allocation), per group:\n"
    width = max(len(label) for label in labels)
    for g in groups:
        if g["group"] == "(all)":
            continue
        out += f"  {printable(g['group'])}\n"
        for side, label in zip(SIDES, labels):
            runs = g[f"{side}_runs"]
            spread = f"{pct(g[f'{side}_median'])} [{pct(min(runs))}–{pct(max(runs))}]" if runs else "—"
            out += f"    {label:<{width}}  pooled efficiency  {pct(g[f'{side}_pooled']):>6}   per-run efficiency  {spread}\n"
    return out


BEHAVIOUR_HEADING = ("behavior, occupancy and contamination as compare-arms.mjs prints them (median [min–max] "
                     "over every session read, scored or not; a session of a format that ends none with a result "
                     "event, an interactive log, without one: n/a, not a failure), per group:")


def behaviour_lines(behaviour) -> str:
    """The arm table's runs, behaviour, occupancy and contamination rows of each group's sides."""
    out = BEHAVIOUR_HEADING + "\n"
    for index, (name, arms) in enumerate(behaviour):
        out += ("\n" if index else "") + f"  {printable(name)}\n" + "".join(f"  {line}" if line.strip() else line
                                                  for line in behaviour_block(arms).splitlines(True))
    return out


def runs_text(values) -> str:
    """Every run, in percent with one decimal, in the pass's order: the spread, not only the median."""
    if not values:
        return "—"
    shown = [to_fixed(v * 100, 1) for v in values[:8]]
    return " ".join(shown) + (f" …+{len(values) - 8}" if len(values) > 8 else "")


def pooled_rows(groups: list[dict]) -> list[tuple]:
    """(group, baseline's pooled sufficiency, new's) of each group row (`*_sufficiency`, compare --sufficiency)."""
    return [(g["group"], g["base_sufficiency"], g["new_sufficiency"]) for g in groups]


def pooled_groups_text(groups: list[dict], labels) -> str:
    """compare --sufficiency's text block: each group's pooled numbers per side."""
    from citeledger.report.sufficiency import from_counted, render_pooled_groups

    return render_pooled_groups([(name, from_counted(b), from_counted(n)) for name, b, n in pooled_rows(groups)],
                                labels)


def groups_csv(rows: list[dict], on: bool) -> tuple[tuple, list[dict]]:
    """(columns, rows) of the group CSV: with `on`, each side's pooled numbers as flat columns."""
    from citeledger.report.sufficiency import csv_columns, flat

    if not on:
        return GROUP_COLUMNS, rows
    columns = GROUP_COLUMNS + csv_columns("base_") + csv_columns("new_")
    return columns, [dict(r, **flat("base_", r["base_sufficiency"]), **flat("new_", r["new_sufficiency"]))
                     for r in rows]
