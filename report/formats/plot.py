"""The plot format: compare's strip plot and sensitivity's deltas, as {suffix: bytes} (PNG, SVG)."""

from __future__ import annotations

from citeledger.core import hookimpl


class Plot:
    name = "plot"
    renders = frozenset({"compare", "sensitivity"})

    def render(self, result) -> dict[str, bytes]:
        if result.images is not None:  # drawn once per run: --plot, --out and --html share it
            return result.images
        from citeledger.report.plot import delta_plot, strip_plot

        if result.kind == "sensitivity":
            names = result.header["rulesets"]
            return delta_plot(names, list(result.rows), list(result.deltas), names[0])
        ruleset = result.header["ruleset"]
        return strip_plot(list(result.plot_groups), result.labels, intervals=list(result.intervals),
                          confidence=result.header["confidence"],
                          title=f"explore allocation efficiency per run (ruleset {ruleset})")


@hookimpl
def citeledger_register_formats(register):
    register(Plot)
