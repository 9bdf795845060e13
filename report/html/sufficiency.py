"""The explore sufficiency on the pages: pooled tables (sweep, compare) and each call's next act
(the session page). Rendered from the JSON output's dicts: counts as `data-value`, text as the
text output prints them."""

from __future__ import annotations

from citeledger.core import BUCKETS, MAIN
from citeledger.report.html.page import cell, esc, table, value_attr
from citeledger.report.sufficiency import COMPARE_TITLE, ERRORED_LABEL, LABELS, SWEEP_TITLE, count_cell


def _cells(prefix: str, data: dict) -> dict[str, str]:
    """Per row of the pooled table, the cell of one column (`data`: a pooled dict)."""
    answered = data["answered"]
    out = {b: cell(f"{prefix}{b}", data["counts"][b], count_cell(data["counts"][b], answered)) for b in BUCKETS}
    out["answered"] = cell(f"{prefix}answered", answered, str(answered))
    out["errors"] = cell(f"{prefix}errors", data["errors"], str(data["errors"]))
    out["sessions"] = cell(f"{prefix}sessions", data["sessions"], str(data["sessions"]))
    return out


def _rows(columns: list[tuple[str, dict]], lead: str = "", sessions: bool = False) -> list[str]:
    """Rows per bucket, then answered and (when any) errored; `columns`: (data-field prefix, pooled dict)."""
    cells = [_cells(prefix, data) for prefix, data in columns]
    names = [("sessions", "sessions")] if sessions else []
    names += [(b, LABELS[b][0]) for b in BUCKETS] + [("answered", "answered calls")]
    if any(data["errors"] for _, data in columns):
        names.append(("errors", ERRORED_LABEL))
    rows = []
    for i, (key, label) in enumerate(names):
        first = lead if i == 0 or not lead else "<td></td>"  # the group is named on its first row only
        rows.append(f'<tr data-row="{key}">{first}<th scope="row">{esc(label)}</th>'
                    + "".join(c[key] for c in cells) + "</tr>")
    return rows


def _meanings() -> str:
    return "".join(f"<li><strong>{esc(LABELS[b][0])}</strong>: {esc(LABELS[b][1])}</li>" for b in BUCKETS)


def pooled_slices_section(slices: dict) -> str:
    """A sweep's pooled sufficiency: `slices` = {slice name: pooled dict}."""
    names = list(slices)
    rows = _rows([(f"{name}.", slices[name]) for name in names], sessions=True)
    return (
        f'<section id="sufficiency"><h2>{esc(SWEEP_TITLE)}</h2>'
        + table(("next act", *names), rows, numeric=tuple(range(1, len(names) + 1)))
        + f'<ul class="muted">{_meanings()}</ul></section>'
    )


def pooled_groups_section(groups: list[tuple[str, dict, dict]], labels) -> str:
    """compare's pooled sufficiency: per group, (name, baseline pooled dict, new pooled dict)."""
    rows = []
    for name, base, new in groups:
        rows += _rows([("base_", base), ("new_", new)], lead=f'<td data-group="{esc(name)}">{esc(name)}</td>')
    return (
        f'<section id="sufficiency"><h2>{esc(COMPARE_TITLE)}</h2>'
        "<p class=\"muted\">As compare-arms.mjs pools it: every answered call of an arm's runs, per group.</p>"
        + table(("group", "next act", *labels), rows, numeric=(2, 3))
        + f'<ul class="muted">{_meanings()}</ul></section>'
    )


def next_act(call: dict) -> str:
    """A session page's call heading: the next act its explore call led to, and its bucket."""
    judged = call.get("sufficiency")
    if judged is None:
        return ""
    label = LABELS[judged["bucket"]][0]
    return (f' — next: <span data-field="next" data-value="{value_attr(judged["bucket"])}" title="{esc(label)}">'
            f"{esc(judged['next'])}</span> <span class=\"muted\">({esc(label)})</span>")


def session_section(data: dict) -> str:
    """A session page's sufficiency: the buckets and every answered call's next act (`data`: sufficiency_dict)."""
    answered = data["answered"]
    counts = data["counts"]
    rows = [
        f'<tr data-bucket="{b}"><th scope="row">{esc(LABELS[b][0])}</th>'
        + cell(b, counts[b], count_cell(counts[b], answered)) + f"<td>{esc(LABELS[b][1])}</td></tr>"
        for b in BUCKETS
    ]
    calls = [
        f'<tr><td class=num>{i}</td><td>{"" if c["thread"] == MAIN else "subagent"}</td><td>{esc(c["query"])}</td>'
        + cell("files", c["files"], str(c["files"])) + f"<td>{esc(c['next'])}</td><td>{esc(LABELS[c['bucket']][0])}</td></tr>"
        for i, c in enumerate(data["calls"], 1)
    ]
    notes = []
    if data["errors"]:
        notes.append(f"{data['errors']} errored/unanswered explore call(s), not bucketed")
    if data["concurrent"]:
        notes.append(f"{data['concurrent']} file access(es) in the same message as an explore, not a reaction")
    return (
        '<section id="sufficiency"><h2>Explore sufficiency — what the agent did next</h2>'
        f'<p class="muted">{answered} answered call(s), each judged by the agent\'s next act in its thread. '
        "Read beside allocation: a file cited at 100% may still have been Read again for bytes the response "
        "clipped.</p>"
        + table(("next act", "calls", "meaning"), rows, numeric=(1,))
        + (table(("#", "thread", "query", "files", "next", "bucket"), calls, numeric=(0, 3)) if calls else "")
        + (f'<p class="muted">… and {data["calls_more"]:,} more answered calls: see score --sufficiency --json.</p>'
           if data.get("calls_more") else "")
        + (f'<p class="muted">{esc("; ".join(notes))}.</p>' if notes else "")
        + "</section>"
    )
