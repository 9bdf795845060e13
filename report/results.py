"""The one result record of each command: what every format of it renders.

A command parses its options, computes one of these (frozen, built by
keyword) and hands it to the chosen formats (report/formats/, registered
through `citeledger_register_formats`); the formats render it and the
command writes what they return with cli/output.py. `kind` says which
command made it: a format's `renders` names the kinds it can render.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import attrs

if TYPE_CHECKING:  # the annotations' types; nothing of them is imported at run time
    from citeledger.core import SessionScore, Sufficiency, Transcript
    from citeledger.report.envelope import EnvelopeView
    from citeledger.report.reads import PlacedReads


@attrs.frozen(kw_only=True)
class SessionResult:
    """One session scored (`score`, `explain`, `citeledger.score()`): engine/session.py assembles it.

    `to_dict()` is the object `score --json` (`explain --json`) prints; the score's
    figures are at hand by name (`status`, `efficiency`, `used`, `envelope`, `calls`,
    `files`, `inputs`, `warnings`), an unscored session's efficiency None as in the JSON.
    """

    kind: str  # "score" or "explain"
    score: SessionScore
    added: tuple[str, ...] = ()  # files read beside those given (the text's "also read" line)
    json_added: tuple[str, ...] = ()  # the JSON's `added_inputs` (--session: its subagent logs)
    session_path: Optional[str] = None  # --session: the log scored (score's JSON `session_path`)
    view: Optional[EnvelopeView] = None  # the envelope view (--envelope, --answer)
    sufficiency: Optional[Sufficiency] = None  # the reference's sufficiency block (--sufficiency)
    retrieval_next: object = None  # harness.next_acts.RetrievalNext (--sufficiency, other sources' calls), else None
    next_acts: Optional[Sufficiency] = None  # each explore call's next act, for the page (--html)
    transcript: Optional[Transcript] = attrs.field(default=None, eq=False, repr=False)  # what the score is of
    reads: Optional[PlacedReads] = None  # the reads after each call (a ranked channel places them: read_after)
    extra_text: str = ""  # the diagnostic join, as text (cli/sidecars.py)
    extra_data: dict = attrs.field(factory=dict)  # the same, as JSON fields
    metrics: dict = attrs.field(factory=dict)  # the metric plugins' records by name (score's JSON), else empty

    @property
    def status(self) -> str:
        return self.score.status

    @property
    def efficiency(self) -> Optional[float]:
        """The share of the envelope the answer's files took; None when the session is not scored."""
        return self.score.efficiency if self.score.status == "scored" else None

    @property
    def used(self) -> int:
        return self.score.used

    @property
    def envelope(self) -> int:
        return self.score.envelope

    @property
    def calls(self) -> tuple:
        return self.score.calls

    @property
    def files(self) -> tuple:
        return self.score.files

    @property
    def inputs(self) -> tuple:
        """Every file read, the session's own and the rest of it found beside them."""
        return self.score.inputs

    @property
    def warnings(self) -> tuple:
        return self.score.warnings

    def to_dict(self) -> dict:
        """The JSON object `citeledger score --json` (explain: `explain --json`) prints for this result."""
        from citeledger.report.jsonreport import session_object

        return session_object(self)

    def views(self) -> dict:
        """The envelope view and answer set as JSON and the page show them."""
        from citeledger.report.envelope import answer_set_dict, envelope_dict

        if not self.view:
            return {}
        out = {"envelope_view": envelope_dict(self.view)}
        if self.view.globs:
            out["answer_set"] = answer_set_dict(self.view)
        return out


@attrs.frozen
class CompareResult:
    """`compare`: per group, both builds' runs and their difference, and the files that moved."""

    header: dict  # the compare record (docs/compare.md)
    added: tuple[str, ...]  # files read with a file given by name
    groups: tuple[dict, ...]
    files: tuple[dict, ...]
    unscored: tuple[dict, ...]
    other_arms: tuple[dict, ...]
    warnings: tuple  # InputWarning
    diagnostics: tuple[dict, ...]  # the diagnostic join's records
    diagnostics_text: str  # its text block (cli/sidecars.Diagnosed)
    with_sufficiency: bool  # the group rows carry each side's pooled sufficiency (`*_sufficiency`)
    labels: tuple[str, str]  # the two sides as the user named them
    plot_groups: tuple  # (label, [baseline runs, new runs]) per group but (all)
    intervals: tuple  # (ci_low, ci_high) per plotted group
    plot_paths: tuple[str, ...] = ()  # the images written, once they are (the text names them)
    images: Optional[dict] = None  # the plot's images by suffix, once drawn (the page shows its SVG)
    # per group but (all): (group, [(label, [RunBehaviour, ...]) per side]), the arm table's rows beside the
    # statistics (the groups' `*_behaviour` records hold the same as numbers)
    behaviour: tuple = ()
    brief: bool = False  # the text's title and group table alone (compare --brief)
    kind: str = "compare"

    def records(self) -> list[dict]:
        records = [self.header, *self.groups, *self.files, *({"record": "unscored", **u} for u in self.unscored)]
        records += [{"record": "other-arm", **o} for o in self.other_arms]
        return records + list(self.diagnostics) + [{"record": "warning", **w.as_dict()} for w in self.warnings]

    def tables(self) -> dict:
        """CSV tables by name (the first is what `--csv` prints)."""
        from citeledger.report.arm_table import behaviour_columns, behaviour_flat
        from citeledger.report.compare import FILE_COLUMNS, groups_csv

        columns, rows = groups_csv(list(self.groups), self.with_sufficiency)
        columns = tuple(columns) + behaviour_columns("base_") + behaviour_columns("new_")
        rows = [dict(r, **behaviour_flat("base_", r["base_behaviour"]), **behaviour_flat("new_", r["new_behaviour"]))
                for r in rows]
        return {"groups": (columns, rows), "files": (FILE_COLUMNS, list(self.files))}


@attrs.frozen
class SensitivityResult:
    """`sensitivity`: per ruleset and slice, the numbers and their deltas from the base."""

    header: dict  # the sensitivity record (its `plot` added when written)
    added: tuple[str, ...]
    rows: tuple[dict, ...]
    deltas: tuple  # per ruleset, per slice (report.sensitivity.Sensitivity.deltas)
    warnings: tuple
    plot_paths: tuple[str, ...] = ()
    images: Optional[dict] = None
    internal: int = 0  # sessions whose scoring met an internal error (the exit status; no output shows it)
    kind: str = "sensitivity"

    def records(self) -> list[dict]:
        records = [{**self.header, "plot": list(self.plot_paths)}] + [{"record": "row", **r} for r in self.rows]
        return records + [{"record": "warning", **w.as_dict()} for w in self.warnings]

    def tables(self) -> dict:
        from citeledger.report.sensitivity import COLUMNS

        return {"rows": (COLUMNS, list(self.rows))}


@attrs.frozen
class SweepResult:
    """`sweep`: per ruleset, the slice table; the sessions not scored. Its JSON lines are made
    where each session is scored (engine/sweep.Rows) and streamed, never held whole."""

    header: dict
    added: tuple[str, ...]
    slices: tuple  # per ruleset, its slice rows
    sessions: object  # what the page keeps of the sessions (--html, --out): report/html/sweep.PageSessions
    unscored: tuple[dict, ...]
    warnings: tuple
    floors: dict  # ruleset name -> its first-ranked channel
    diagnostics_text: str
    sufficiency: object  # engine/sufficiency.SlicePool
    with_sufficiency: bool
    occupancy: tuple = ()  # the `occupancy` records per slice and arm (report/occupancy_pool.py)
    kind: str = "sweep"
    by: str = ""  # --by: day, project or model ("" without)
    by_rows: tuple = ()  # --by: per ruleset, its `group` records (engine/sweep.grouped_rows)
    session_rows: tuple = ()  # --sessions: each session's row, by start time
    arms: tuple = ()  # check --corpus (SweepRequest.arm_tables): (harness arm, its slice rows per ruleset), by arm
    internal: bool = False  # scoring some session met a bug (listed as not scored; exit status 3)

    def tables(self) -> dict:
        """The slices table: each row's columns, its pooled sufficiency (--sufficiency), its slice's
        pooled occupancy (the `(all)` arm's, report/occupancy_pool.py)."""
        from citeledger.report.occupancy_pool import SLICE_COLUMNS, slice_cells

        flat = [r for rows in self.slices for r in rows]
        columns, rows = self.sufficiency.csv(flat, self.with_sufficiency)
        records = list(self.occupancy)
        rows = [dict(r, **slice_cells(records, r["slice"])) for r in rows]
        return {"slices": (tuple(columns) + SLICE_COLUMNS, rows)}


@attrs.frozen
class CheckResult:
    """`check`: every fixture judged and every session and corpus key, as the CI forms render them
    (report/check_ci.py: JUnit XML, a GitHub step summary)."""

    spec: str  # the spec's path as given
    fixtures: tuple  # harness.check.FixtureResult, in the spec's order
    checks: tuple  # harness.check_session.SessionCheck: the session keys, then the corpus keys
    passed: bool  # every check holds
    expect_fail: bool  # --expect-fail: the exit status inverts (the checks as judged)
    kind: str = "check"
    session_title: str = ""  # what the session keys judged: "session NAME", "the arms of PASS, ..."
    sidecars: tuple = ()  # the --diagnostics files the fixtures were judged on
    inputs: Optional[tuple] = None  # every file of the session judged (None: no session given)
    corpus_paths: tuple = ()  # the --corpus paths the corpus keys were judged on

    @property
    def session_checks(self) -> tuple:
        return tuple(c for c in self.checks if c.block != "corpus")

    @property
    def corpus_checks(self) -> tuple:
        return tuple(c for c in self.checks if c.block == "corpus")

    def as_dict(self) -> dict:
        """`check --json`'s object."""
        from citeledger.report import check as view

        data = view.check_dict(list(self.fixtures), list(self.session_checks), self.passed)
        data.update(spec=self.spec, sidecars=list(self.sidecars), expect_fail=self.expect_fail)
        if self.corpus_paths:
            data.update(corpus=view.checks_list(self.corpus_checks), corpus_paths=list(self.corpus_paths))
        if self.inputs is not None:
            data["inputs"] = list(self.inputs)
        return data

    def cases(self) -> list[tuple[str, str, bool, str]]:
        """(suite, name, passed, detail) of every check, in the order the text prints them."""
        cases = [(f"fixture {r.fixture.id}", c.name, c.passed, c.detail) for r in self.fixtures for c in r.checks]
        return cases + [(c.block, c.name, c.passed, c.detail) for c in self.checks]
