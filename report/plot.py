"""Plots (PNG and SVG), rendered to bytes: the command line writes them.

`strip_plot`: runs per group, one column per series side by side (compare's
baseline beside new). `delta_plot`: sensitivity's deltas from the base ruleset.
"""

from __future__ import annotations

from typing import Optional, Sequence

from citeledger.report.palette import SERIES as COLOURS, SLICES as SLICE_COLOURS
from citeledger.report.tables import SLICES


def strip_plot(
    groups: Sequence[tuple[str, Sequence[Sequence[float]]]],
    series: Sequence[str],
    title: str = "",
    ylabel: str = "explore allocation efficiency",
    medians: bool = True,
    intervals: Optional[Sequence[tuple[Optional[float], Optional[float]]]] = None,
    confidence: float = 0.95,
) -> dict[str, bytes]:
    """The plot as {"png": bytes, "svg": bytes}.

    `groups` is [(label, [values of series 0, values of series 1, ...])]; each
    value is drawn as a dot (percent), each series' median as a short bar.
    `intervals` (one (low, high) per group, of series 1's median minus series
    0's) is drawn on series 1's column, from series 0's median: where the new
    median could lie at that confidence, given the baseline's. Jitter is
    deterministic (spread by index), so the files are reproducible.
    """
    k = len(series)
    fig, ax = figure(min(max(7.0, 0.6 * k * len(groups) + 2.5), 40.0), 4.6)
    step = 0.8 / k
    for g, (label, per_series) in enumerate(groups):
        for s, values in enumerate(per_series):
            x0 = g - 0.4 + step * (s + 0.5)
            n = len(values)
            xs = [x0 + (step * 0.5) * ((i / (n - 1)) - 0.5) if n > 1 else x0 for i in range(n)]
            ax.scatter(xs, [100 * v for v in values], s=18, color=COLOURS[s % len(COLOURS)],
                       label=f"{series[s]}: one run" if g == 0 else None, zorder=3)
            if medians and n:
                m = _median(values)
                ax.plot([x0 - step * 0.4, x0 + step * 0.4], [100 * m, 100 * m],
                        color=COLOURS[s % len(COLOURS)], linewidth=2.5, zorder=2,
                        label=f"{series[s]}: median" if g == 0 else None)
        low, high = intervals[g] if intervals and g < len(intervals) else (None, None)
        if low is not None and len(per_series) > 1 and per_series[0]:
            base = 100 * _median(per_series[0])
            x1 = g - 0.4 + step * 1.5 + step * 0.42
            lo, hi = max(0.0, base + 100 * low), min(100.0, base + 100 * high)  # a median lies in [0, 100]
            ax.errorbar([x1], [(lo + hi) / 2], yerr=[[(hi - lo) / 2]], fmt="none",
                        color="black", ecolor="black", elinewidth=1.2, capsize=4, zorder=4,
                        label=(f"{int(round(confidence * 100))}% bootstrap interval of the median\n"
                               f"difference, drawn from {series[0]}'s median") if g == _first_interval(intervals) else None)
    ax.set_xticks(range(len(groups)))
    rotate = len(groups) > 4
    ax.set_xticklabels([_short(label) for label, _ in groups], rotation=30 if rotate else 0,
                       ha="right" if rotate else "center")
    ax.set_ylabel(ylabel + " (%)")
    ax.set_ylim(-2, 102)
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.grid(axis="y", alpha=0.3)
    if title:
        ax.set_title(_wrap(title, fig), fontsize="medium")
    # Below the axes: the legend never hides a run.
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14 if not rotate else -0.3), fontsize="small",
              ncol=3, frameon=False)
    return images(fig)


def _first_interval(intervals) -> int:
    return next((i for i, (low, _) in enumerate(intervals or ()) if low is not None), -1)


def _wrap(title: str, fig) -> str:
    """Wrap a title to the figure's width (about 11 characters an inch at medium size)."""
    import textwrap

    width = max(20, int(fig.get_figwidth() * 11))
    return "\n".join(textwrap.wrap(title, width)) or title


def delta_plot(names: list[str], rows: list[dict], deltas: list[list[float]], base: str) -> dict[str, bytes]:
    """Bars: pooled delta per slice; dots: each session's paired delta (all slice). PNG and SVG bytes."""
    return images(delta_figure(names, rows, deltas, base))


def delta_figure(names: list[str], rows: list[dict], deltas: list[list[float]], base: str):
    others = [i for i, n in enumerate(names) if n != base]
    by = {(r["ruleset"], r["slice"]): r for r in rows}
    fig, ax = figure(min(max(5.0, 1.1 * len(others) + 2), 40.0), 4.6)
    step = 0.8 / len(SLICES)
    for x, i in enumerate(others):
        for s, name in enumerate(SLICES):
            value = by[(names[i], name)]["delta_pooled"]
            if value is not None:
                xc = x - 0.4 + step * (s + 0.5)
                ax.bar(xc, 100 * value, width=step * 0.9, color=SLICE_COLOURS[name],
                       label=f"pooled Δ, {name}" if x == 0 else None, zorder=2)
                if abs(100 * value) < 0.25:  # a zero bar is still drawn: a thick tick at 0
                    ax.plot([xc - step * 0.45, xc + step * 0.45], [0, 0], color=SLICE_COLOURS[name],
                            linewidth=4, solid_capstyle="butt", zorder=4)
        points = deltas[i]
        n = len(points)
        xs = [x + 0.3 * ((k / (n - 1)) - 0.5) if n > 1 else x for k in range(n)]  # deterministic spread
        ax.scatter(xs, [100 * v for v in points], s=10, color="black", alpha=0.5, zorder=3,
                   label="one session (all)" if x == 0 else None)
    ax.axhline(0, color="#444", linewidth=0.8)
    # Room on both sides of 0, so a zero bar's tick is never on the frame.
    drawn = [0.0] + [100 * v for i in others for v in deltas[i]] + [
        100 * by[(names[i], name)]["delta_pooled"] for i in others for name in SLICES
        if by[(names[i], name)]["delta_pooled"] is not None]
    low, high = min(drawn), max(drawn)
    pad = max(2.0, 0.08 * (high - low))
    ax.set_ylim(low - pad, high + pad)
    ax.set_xticks(range(len(others)))
    ax.set_xticklabels([names[i] for i in others], rotation=30 if len(others) > 3 else 0,
                       ha="right" if len(others) > 3 else "center", fontsize="small")
    ax.set_ylabel(f"efficiency Δ from {base} (percentage points)")
    ax.set_title(_wrap(f"pooled efficiency per ruleset, minus {base}'s", fig), fontsize="medium")
    ax.grid(axis="y", alpha=0.3)
    # Right of the axes, not under them: rotated ruleset names of any length never reach it.
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False)
    return fig


def figure(width: float, height: float):
    """A new matplotlib figure and axes on the Agg backend, with stable SVG ids."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams["svg.hashsalt"] = "citeledger"  # stable element ids
    return plt.subplots(figsize=(width, height))


def images(fig) -> dict[str, bytes]:
    """The figure as PNG and SVG bytes (closed afterwards)."""
    import io

    import matplotlib.pyplot as plt

    fig.tight_layout()
    out = {}
    for ext in ("png", "svg"):
        buf = io.BytesIO()
        # No date in the metadata: the same data gives the same SVG bytes.
        fig.savefig(buf, format=ext, dpi=120, bbox_inches="tight", pad_inches=0.15,
                    metadata={"Date": None} if ext == "svg" else None)
        out[ext] = buf.getvalue()
    plt.close(fig)
    return out


def _median(values) -> Optional[float]:
    from citeledger.report.stats import median

    return median(list(values))


def _short(label: str, limit: int = 28) -> str:
    return label if len(label) <= limit else "…" + label[-(limit - 1):]
