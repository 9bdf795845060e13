"""The html format: one self-contained page per result (report/html/ draws them)."""

from __future__ import annotations

from citeledger.core import hookimpl


class Html:
    name = "html"
    renders = frozenset({"score", "explain", "sweep", "compare", "sensitivity"})

    def render(self, result) -> str:
        return PAGES[result.kind](result)


def _session(result) -> str:
    """The page also says why, as explain does, and each call's next act."""
    from citeledger.report.html import session_page
    from citeledger.report.html.bounded import CALLS, page_dict, views_dict
    from citeledger.report.sufficiency import with_next_acts

    score = result.score
    data = {**page_dict(score), **views_dict(result.view)}  # bounded: the page lists the largest (bounded.py)
    every_call = ({"call": c.number, "source": {"file": c.origin_file, "line": c.origin_line}} for c in score.calls)
    return session_page(with_next_acts(data, result.transcript, result.next_acts, every_call, CALLS), score.answer,
                        context=_context(result))


def _context(result) -> str:
    """The residual context occupancy section, from the occupancy metric's record as score --json prints it."""
    if "occupancy" not in result.metrics:  # not measured (explain)
        return ""
    from citeledger.core import metrics
    from citeledger.report.html.occupancy import occupancy_section

    return occupancy_section(metrics()["occupancy"]().as_json(result.metrics["occupancy"]))


def _svg(result) -> str:
    from citeledger.report.formats.plot import Plot

    return Plot().render(result)["svg"]


def _compare(result) -> str:
    from citeledger.report.compare import pooled_rows
    from citeledger.report.html import compare_page
    from citeledger.report.html.sufficiency import pooled_groups_section

    groups = list(result.groups)
    pooled = pooled_groups_section(pooled_rows(groups), result.labels) if result.with_sufficiency else ""
    return compare_page(result.header, groups, list(result.files), list(result.unscored),
                        [w.as_dict() for w in result.warnings], _svg(result), list(result.other_arms),
                        pooled, list(result.diagnostics), list(result.behaviour))


def _sensitivity(result) -> str:
    from citeledger.report.html import sensitivity_page

    return sensitivity_page(result.header, list(result.rows), [w.as_dict() for w in result.warnings], _svg(result))


def _sweep(result) -> str:
    from citeledger.report.html import sweep_page
    from citeledger.report.html.occupancy import pooled_occupancy_section

    pooled = result.sufficiency.section() if result.with_sufficiency else ""
    return sweep_page(result.header, list(result.slices), result.sessions, list(result.unscored),
                      [w.as_dict() for w in result.warnings], result.floors, pooled,
                      pooled_occupancy_section(list(result.occupancy)))


PAGES = {"score": _session, "explain": _session, "compare": _compare, "sensitivity": _sensitivity, "sweep": _sweep}


@hookimpl
def citeledger_register_formats(register):
    register(Html)
