"""The text format: the reference's blocks and every command's summary, as str."""

from __future__ import annotations

from citeledger.core import hookimpl


class Text:
    name = "text"
    renders = frozenset({"score", "explain", "sweep", "compare", "sensitivity", "check"})

    def render(self, result) -> str:
        return RENDER[result.kind](result)


def _score(result) -> str:
    from citeledger.report.text import added_line, render_text

    out = render_text(result.score) + added_line(result.added)
    if result.sufficiency is not None:  # beside allocation: the two are read together
        from citeledger.report.sufficiency import render_sufficiency

        out += "\n" + render_sufficiency(result.sufficiency)
    if result.retrieval_next is not None:
        from citeledger.report.next_acts import render_next_acts

        out += "\n" + render_next_acts(result.retrieval_next)
    if result.view:
        from citeledger.report.envelope import render_envelope

        out += "\n" + render_envelope(result.view)
    return out + reads_text(result) + result.extra_text


def reads_text(result) -> str:
    """The reads placed after each call, or why none could be (a reader that records no tool uses)."""
    if result.reads is None:
        return ""
    transcript = result.transcript
    if transcript.responses and not transcript.tool_uses:
        return (f"\nReads after explore calls (read_after): none to place — the {transcript.reader} reader "
                "records no tool uses (reads, searches), so read_after credits nothing here\n")
    from citeledger.report.reads import render_reads

    return "\n" + render_reads(result.reads)


def _explain(result) -> str:
    from citeledger.report.explain import render_explain
    from citeledger.report.text import added_line

    block = ""
    if result.sufficiency is not None:
        from citeledger.report.sufficiency import render_sufficiency

        block = "\n" + render_sufficiency(result.sufficiency)
    from citeledger.report.explain import calls_asked

    asked = calls_asked(result.score, result.transcript)
    return render_explain(result.score, asked) + added_line(result.added) + block + reads_text(result) + result.extra_text


def _compare(result) -> str:
    from citeledger.report.compare import lines_up, pooled_groups_text, render_text

    pooled = pooled_groups_text(list(result.groups), result.labels) if result.with_sufficiency else ""
    whole = not result.brief and lines_up(list(result.groups))  # else the title and the table, or why not
    return render_text(dict(result.header, added=list(result.added)), list(result.groups), list(result.files),
                       list(result.unscored), list(result.plot_paths), list(result.other_arms),
                       pooled, list(result.behaviour), brief=result.brief) + (result.diagnostics_text if whole else "")


def _sensitivity(result) -> str:
    from citeledger.report.sensitivity import render_text

    return render_text(dict(result.header, added=list(result.added)), list(result.rows), list(result.plot_paths))


def _check(result) -> str:
    from citeledger.report import check as view

    text = "".join(view.render_fixture(r) for r in result.fixtures)
    if result.session_checks:
        text += view.render_session(list(result.session_checks), result.session_title)
    if result.corpus_checks:
        text += view.render_session(list(result.corpus_checks), f"sweep of {', '.join(result.corpus_paths)}",
                                    heading="corpus keys")
    return text + view.render_verdict(list(result.fixtures), list(result.checks), result.expect_fail)


def _sweep(result) -> str:
    from citeledger.report.sweep import render_text

    from citeledger.report.occupancy_pool import render_pooled_occupancy

    pooled = result.sufficiency.text() if result.with_sufficiency else ""
    occupancy = render_pooled_occupancy(list(result.occupancy))
    pooled = pooled + ("\n" + occupancy if pooled and occupancy else occupancy)
    return render_text(dict(result.header, added=list(result.added)), list(result.slices), list(result.unscored),
                       len(result.warnings), result.floors, pooled, result.by, result.by_rows,
                       result.session_rows) + result.diagnostics_text


RENDER = {"score": _score, "explain": _explain, "sweep": _sweep, "compare": _compare, "sensitivity": _sensitivity,
          "check": _check}


@hookimpl
def citeledger_register_formats(register):
    register(Text)
