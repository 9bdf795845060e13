"""The explore diagnostic sidecars a command was given or found, and the join per session.

`--diagnostics FILE` (repeatable) names sidecars for every session; without
it, `sweep` and `compare` pick up the harness's `explore-<label>.jsonl`
beside each `run-<label>-N.jsonl` (`--no-diagnostics` turns that off).
Each sidecar is read once; its warnings are reported once.
"""

from __future__ import annotations

import os

import attrs

from citeledger.cli.output import write_file, write_images
from citeledger.core import fs

# The sidecar reader and the join's reports are imported where a sidecar is
# read or joined: a `score` given none starts without them.


class Sidecars:
    """The sidecars a command was given or found, each read once for its warnings.

    `keep_reports`: keep what each holds (score and explain join here); a
    corpus command joins in its workers (SidecarJoin), so its parent keeps
    only the names and the warnings, not every sidecar of the corpus.
    """

    def __init__(self, args, automatic: bool, tool, keep_reports: bool = True):
        self.tool = tool  # the explore tool whose reports count: the ruleset's
        self.given = list(args.diagnostics)
        self.automatic = automatic and not getattr(args, "no_diagnostics", False) and not self.given
        self.out = args.diagnostics_out
        self.keep_reports = keep_reports
        self.warnings: list = []
        self._read: dict[str, tuple] = {}
        for path in self.given:  # an explicit sidecar that cannot be opened is an input error
            self._load(path)

    def _load(self, path: str) -> tuple:
        if path not in self._read:
            from citeledger.harness.diagnostics import read_diagnostics

            reports, warnings = read_diagnostics(path, self.tool)
            self._read[path] = reports if self.keep_reports else ()
            self.warnings.extend(warnings)
        return self._read[path]

    def learned(self, path: str, warnings) -> None:
        """A sidecar a worker read: its warnings, reported once (the parent reads it not again)."""
        if path not in self._read:
            self._read[path] = ()
            self.warnings.extend(warnings)

    def used(self) -> list[str]:
        return list(self._read)

    def for_session(self, files) -> list[str]:
        if self.given:
            return self.given
        if self.automatic:
            from citeledger.harness.diagnostics import sidecar_for

            found = sidecar_for(files)
            return [found] if found else []
        return []

    def diagnose(self, transcript, score, ruleset, files, arm: str = ""):
        """The session's join, or None when it has no sidecar."""
        paths = self.for_session(files)
        if not paths or score is None:
            return None
        from citeledger.report.diagnostics import diagnose  # here: a session without a sidecar needs none of it

        reports = [r for p in paths for r in self._load(p)]
        return diagnose(transcript, score, ruleset, reports, paths, arm)


def write_outputs(folder: str, sessions, summaries: dict, title: str) -> list[str]:
    """diagnostics.csv / .json / .png / .svg in `folder` (made if missing)."""
    from citeledger.report.diagnostics_views import plot, rows_csv, session_dict
    from citeledger.report.jsonreport import json_bytes

    os.makedirs(folder, exist_ok=True)
    data = {"summaries": summaries, "sessions": [session_dict(s) for s in sessions]}
    written = [
        write_file(os.path.join(folder, "diagnostics.csv"), rows_csv(sessions)),
        write_file(os.path.join(folder, "diagnostics.json"), json_bytes(data, indent=True) + b"\n"),
    ]
    written += write_images(os.path.join(folder, "diagnostics"), plot(sessions, title))
    return written


def session_extras(args, transcript, result, ruleset):
    """(text, JSON fields, warnings) that score and explain add after their own output: the
    diagnostic join of the session's sidecar reports (--diagnostics, --sidecar)."""
    sidecars = Sidecars(args, automatic=False, tool=ruleset.explore_tool)
    text, data = "", {}
    diag = sidecars.diagnose(transcript, result, ruleset, list(args.files) or [args.session])
    warnings = list(sidecars.warnings)
    if diag is not None:
        from citeledger.report.allocation import summary
        from citeledger.report.diagnostics import join_warnings
        from citeledger.report.diagnostics_views import render_joins, render_summary, session_dict

        pooled = summary([diag])
        warnings += join_warnings(diag)
        text += "\n" + render_joins(diag) + "\n" + render_summary(pooled, "Diagnostics summary")
        data["diagnostics"] = {"session": session_dict(diag), "summary": pooled,
                               "warnings": [w.as_dict() for w in warnings]}
        if sidecars.out:
            written = write_outputs(sidecars.out, [diag], {"all": pooled}, f"{result.name}: share vs score")
            text += "diagnostics written: " + ", ".join(written) + "\n"
    return text, data, warnings


class SidecarJoin:
    """The diagnostic join of one session, made where its transcript is read (citeledger.corpus `extra`).

    Picklable: a worker gets one and keeps the reports of the sidecars it read
    last (KEPT of them, or every given one): sessions come in directory order,
    and a harness folder's runs share its few sidecars, so the same reads are
    saved as when every sidecar was kept for the whole run, and what a worker
    holds does not grow with the corpus. `label` is compare's side label (None
    in a sweep), `by_arm` whether the side is each session's harness arm.
    """

    KEPT = 4  # a harness folder has one sidecar an arm, and two arms
    LOOKED_UP = 4096  # candidate sidecar paths whose answer is kept; past that the answers start afresh

    def __init__(self, given, automatic: bool, ruleset, label=None, by_arm: bool = False, line: bool = False):
        self.given, self.automatic, self.ruleset = tuple(given), automatic, ruleset
        self.tool = ruleset.explore_tool  # whose reports count
        self.label, self.by_arm = label, by_arm
        self.line = line  # make the session's JSON record here (Diagnosed's spool)
        self._reports: dict[str, tuple] = {}  # path -> (reports, warnings), least recently used first
        self._there: dict[str, bool] = {}  # candidate sidecar path -> whether it is a file, asked once

    def sidecars(self, files) -> list[str]:
        from citeledger.harness.diagnostics import sidecar_for

        if self.given:
            return list(self.given)
        found = sidecar_for(files, self._isfile) if self.automatic else None
        return [found] if found else []

    def _isfile(self, path: str) -> bool:
        # A worker scores a folder's runs one after another: their sidecar is looked for once,
        # not with a stat per run (a sweep reads the corpus as it was when each folder was met).
        there = self._there.get(path)
        if there is None:
            if len(self._there) >= self.LOOKED_UP:
                self._there.clear()
            there = self._there[path] = fs.isfile(path)
        return there

    def arm(self, ref, paths) -> str:
        if self.label is not None:  # compare: its side, or the session's harness arm
            arm = (ref.arm or "") if self.by_arm else self.label
            if arm:
                return arm
        # else (a sweep, or a run without an arm label): the harness's label, from explore-<label>.jsonl
        names = {os.path.basename(p) for p in paths}
        labels = {n[len("explore-"):-len(".jsonl")] for n in names if n.startswith("explore-") and n.endswith(".jsonl")}
        return labels.pop() if len(labels) == 1 and len(names) == 1 else ""

    def __call__(self, ref, transcript, score):
        from citeledger.harness.diagnostics import read_diagnostics
        from citeledger.report.diagnostics import diagnose

        paths = self.sidecars(ref.files)
        if score is None or not paths:
            return None
        for path in paths:
            read = self._reports.pop(path) if path in self._reports else read_diagnostics(path, self.tool)
            self._reports[path] = read  # now the most recently used
        while len(self._reports) > max(self.KEPT, len(paths)):
            del self._reports[next(iter(self._reports))]
        reports = [r for p in paths for r in self._reports[p][0]]
        diag = diagnose(transcript, score, self.ruleset, reports, paths, self.arm(ref, paths))
        # Named as the corpus names it, rows too: diagnostics.csv joins sessions.csv on `session`.
        # The joins go back without the reports they matched: nothing after the join reads them,
        # and each would be pickled to the parent with every session that matched it.
        diag = attrs.evolve(diag, session=ref.key, rows=tuple(attrs.evolve(r, session=ref.key) for r in diag.rows),
                            joins=tuple(attrs.evolve(j, report=None) for j in diag.joins))
        line = None
        if self.line:
            from citeledger.report.diagnostics_views import session_dict
            from citeledger.report.jsonreport import json_bytes

            line = json_bytes({"record": "diagnostics-session", **session_dict(diag)}) + b"\n"
        # Each sidecar's warnings go back with every session that names it: the parent
        # reports them where it first meets the sidecar, and never reads it itself.
        return Joined(diag, tuple((p, self._reports[p][1]) for p in paths), line)


@attrs.frozen
class Joined:
    """What a worker's join of one session sends back (SidecarJoin)."""

    diag: object  # report.diagnostics.SessionDiagnostics
    said: tuple  # (sidecar path, its warnings) for each sidecar the session names
    line: bytes | None = None  # the session's diagnostics-session JSON line, when spooled


class Diagnosed:
    """A corpus command's diagnostic joins, per arm (compare) or pooled (sweep).

    The join itself runs where each session is scored (`join()`, handed to
    score_corpus as its `extra`); this side reads each sidecar once for its
    warnings and pools the joins as they arrive (report.allocation.Pooled):
    per session it keeps numbers, not the join. The joins themselves are kept
    only with `keep` or a --diagnostics-out (the files written from every
    session's rows); with `spool`, each session's record is written at once to
    a temporary file as the JSON line it is printed as (`spooled()`).
    """

    def __init__(self, args, ruleset, pooled: bool, keep: bool = True, spool: bool = False):
        self.pooled = pooled  # a sweep pools everything; compare reports its two sides
        self.sidecars = Sidecars(args, automatic=True, tool=ruleset.explore_tool, keep_reports=False)
        self.ruleset = ruleset
        self.keep = keep or bool(self.sidecars.out)
        self.sessions: list = []  # every join, with `keep`
        self.count = 0  # sessions joined
        self._pools: dict = {}  # "all" (pooled) and each arm label -> report.allocation.Pooled
        self._unmatched = 0  # responses joined to no report
        self._unmatched_listed: list = []  # the first LISTED of them: (session, response, reason)
        self._spool = None
        if spool:
            from citeledger.cli.spool import Spool

            self._spool = Spool()
        self.join_warnings: list = []
        self.without: dict[str, int] = {}  # arm label -> sessions with no sidecar beside them

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()

    def join(self, label=None, by_arm: bool = False) -> SidecarJoin:
        return SidecarJoin(self.sidecars.given, self.sidecars.automatic, self.ruleset, label, by_arm,
                           line=self._spool is not None)

    def add(self, outcome, arm: str = "") -> None:
        self.add_joined(outcome.ref, outcome.scores[0] is not None, outcome.extra, arm)

    def add_joined(self, ref, scored: bool, joined, arm: str = "") -> None:
        """One session's join as its worker made it (`join()`, a Joined or None): `scored` under the first ruleset."""
        from citeledger.report.allocation import Pooled
        from citeledger.report.diagnostics import MATCHED, join_warnings
        from citeledger.report.tables import LISTED

        if not scored:
            return
        # The worker that scored the session looked for its sidecars (join()):
        # a scored session without a join had none.
        if joined is None:
            label = arm or getattr(ref, "arm", None) or ""
            self.without[label] = self.without.get(label, 0) + 1
            return
        diag = joined.diag
        for path, warnings in joined.said:
            self.sidecars.learned(path, warnings)  # the list of sidecars used, each one's warnings once
        self.count += 1
        if self.pooled:
            self._pools.setdefault("all", Pooled()).add(diag)
        if diag.arm:
            self._pools.setdefault(("arm", diag.arm), Pooled()).add(diag)
        for j in diag.joins:
            if j.status != MATCHED:
                self._unmatched += 1
                if len(self._unmatched_listed) < LISTED:
                    self._unmatched_listed.append((diag.session, j.response, j.reason))
        if self._spool is not None:
            self._spool.write(joined.line)
        if self.keep:
            self.sessions.append(diag)
        self.join_warnings += join_warnings(diag)

    def warnings(self) -> list:
        return [*self.sidecars.warnings, *self.join_warnings]

    def arms(self) -> list[str]:
        """The arm labels joined, in the order first met (a session without one not among them)."""
        return [key[1] for key in self._pools if key != "all"]

    def summaries(self) -> dict:
        """Pooled over every session (`all`, a sweep), and per arm when there are several."""
        out = {}
        if not self.count:
            return out
        if self.pooled:
            out["all"] = self._pools["all"].dict()
        arms = self.arms()
        if len(arms) > 1 or not self.pooled:
            for arm in arms:
                out[arm] = self._pools[("arm", arm)].dict()
        return out

    def spooled(self):
        """The sessions' records, as JSON lines in blocks (`spool`)."""
        return self._spool.blocks()

    def session_records(self) -> list[dict]:
        from citeledger.report.diagnostics_views import session_dict

        return [{"record": "diagnostics-session", **session_dict(s)} for s in self.sessions]

    def summary_records(self) -> list[dict]:
        return [{"record": "diagnostics", "arm": arm, "sidecars": self.sidecars.used(),
                 "sessions_without_sidecar": dict(self.without), **summary}
                for arm, summary in self.summaries().items()]

    def records(self) -> list[dict]:
        """Every record (`keep`): one a session, then the summaries."""
        return self.session_records() + self.summary_records()

    def text(self, title: str) -> str:
        from citeledger.report.diagnostics_views import render_summary
        from citeledger.report.tables import capped, more

        if not self.count:
            return ""
        out = ""
        for arm, summary in self.summaries().items():
            label = title if arm == "all" else f"Diagnostics — arm {arm}"
            out += "\n" + render_summary(summary, label)
        if self._unmatched:
            out += f"  responses joined to no report ({self._unmatched}):\n"
            for session, response, reason in self._unmatched_listed:
                out += f"    {session} response {response}: {reason}\n"
            out += more(self._unmatched - len(self._unmatched_listed), "    ")
        if self.without:
            counts = ", ".join(f"{n} of arm {a}" if a else str(n) for a, n in self.without.items())
            out += f"  sessions without a diagnostic sidecar (not joined): {counts}\n"
        out += "  sidecars: " + capped(self.sidecars.used(), 3) + "\n"
        return out

    def write(self, out_dir) -> list[str]:
        written = []
        for folder in dict.fromkeys(f for f in (out_dir, self.sidecars.out) if f):
            if self.count:
                written += write_outputs(folder, self.sessions, self.summaries(), "explore files: envelope share vs score share")
        return written
