"""Plots (PNG and SVG), rendered to bytes: the command line writes them.

`strip_plot`: runs per group, one column per series side by side (compare's
baseline beside new). `delta_plot`: sensitivity's deltas from the base ruleset.
"""

from __future__ import annotations

from typing import Optional, Sequence

from citeledger.report.tables import SLICES

COLOURS = ("#7f7f7f", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd")


def strip_plot(
    groups: Sequence[tuple[str, Sequence[Sequence[float]]]],
    series: Sequence[str],
    title: str = "",
    ylabel: str = "explore allocation efficiency",
    medians: bool = True,
) -> dict[str, bytes]:
    """The plot as {"png": bytes, "svg": bytes}.

    `groups` is [(label, [values of series 0, values of series 1, ...])]; each
    value is drawn as a dot (percent), each series' median as a short bar.
    Jitter is deterministic (spread by index), so the files are reproducible.
    """
    k = len(series)
    fig, ax = figure(min(max(4.0, 0.6 * k * len(groups) + 1.5), 40.0), 4.2)
    step = 0.8 / k
    for g, (label, per_series) in enumerate(groups):
        for s, values in enumerate(per_series):
            x0 = g - 0.4 + step * (s + 0.5)
            n = len(values)
            xs = [x0 + (step * 0.5) * ((i / (n - 1)) - 0.5) if n > 1 else x0 for i in range(n)]
            ax.scatter(xs, [100 * v for v in values], s=18, color=COLOURS[s % len(COLOURS)],
                       label=series[s] if g == 0 else None, zorder=3)
            if medians and n:
                m = _median(values)
                ax.plot([x0 - step * 0.4, x0 + step * 0.4], [100 * m, 100 * m],
                        color=COLOURS[s % len(COLOURS)], linewidth=2, zorder=2)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([_short(label) for label, _ in groups], rotation=30 if len(groups) > 4 else 0, ha="right" if len(groups) > 4 else "center")
    ax.set_ylabel(ylabel + " (%)")
    ax.set_ylim(-2, 102)
    ax.grid(axis="y", alpha=0.3)
    if title:
        ax.set_title(title)
    ax.legend(loc="best", fontsize="small")
    return images(fig)


def delta_plot(names: list[str], rows: list[dict], deltas: list[list[float]], base: str) -> dict[str, bytes]:
    """Bars: pooled delta per slice; dots: each session's paired delta (all slice). PNG and SVG bytes."""
    others = [i for i, n in enumerate(names) if n != base]
    by = {(r["ruleset"], r["slice"]): r for r in rows}
    colours = {"all": "#1f77b4", "single-question": "#ff7f0e", "multi-turn": "#2ca02c"}
    fig, ax = figure(min(max(5.0, 1.1 * len(others) + 2), 40.0), 4.6)
    step = 0.8 / len(SLICES)
    for x, i in enumerate(others):
        for s, name in enumerate(SLICES):
            value = by[(names[i], name)]["delta_pooled"]
            if value is not None:
                ax.bar(x - 0.4 + step * (s + 0.5), 100 * value, width=step * 0.9, color=colours[name],
                       label=f"pooled Δ, {name}" if x == 0 else None, zorder=2)
        points = deltas[i]
        n = len(points)
        xs = [x + 0.3 * ((k / (n - 1)) - 0.5) if n > 1 else x for k in range(n)]  # deterministic spread
        ax.scatter(xs, [100 * v for v in points], s=10, color="black", alpha=0.5, zorder=3,
                   label="one session (all)" if x == 0 else None)
    ax.axhline(0, color="#444", linewidth=0.8)
    ax.set_xticks(range(len(others)))
    ax.set_xticklabels([names[i] for i in others], rotation=30 if len(others) > 3 else 0,
                       ha="right" if len(others) > 3 else "center", fontsize="small")
    ax.set_ylabel(f"efficiency Δ from {base} (percentage points)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    return images(fig)


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
        fig.savefig(buf, format=ext, dpi=120, metadata={"Date": None} if ext == "svg" else None)
        out[ext] = buf.getvalue()
    plt.close(fig)
    return out


def _median(values) -> Optional[float]:
    from citeledger.report.stats import median

    return median(list(values))


def _short(label: str, limit: int = 28) -> str:
    return label if len(label) <= limit else "…" + label[-(limit - 1):]
