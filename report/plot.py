"""Strip plots of runs per group, one column per series side by side (PNG and SVG).

Used by `compare` (baseline beside new) and usable by any command that has,
per group, a few values for each of a few series (e.g. rulesets).
"""

from __future__ import annotations

import os
from typing import Optional, Sequence

COLOURS = ("#7f7f7f", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd")


def strip_plot(
    groups: Sequence[tuple[str, Sequence[Sequence[float]]]],
    series: Sequence[str],
    path: str,
    title: str = "",
    ylabel: str = "explore allocation efficiency",
    medians: bool = True,
) -> list[str]:
    """Write `path`.png and `path`.svg; returns the files written.

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
    return save_figure(fig, path)


def figure(width: float, height: float):
    """A new matplotlib figure and axes on the Agg backend, with stable SVG ids."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams["svg.hashsalt"] = "citeledger"  # stable element ids
    return plt.subplots(figsize=(width, height))


def save_figure(fig, path: str) -> list[str]:
    """Write `path`.png and `path`.svg, close the figure; returns the files written."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    written = []
    for ext in ("png", "svg"):
        out = f"{path}.{ext}"
        # No date in the metadata: the same data gives the same SVG bytes.
        fig.savefig(out, dpi=120, metadata={"Date": None} if ext == "svg" else None)
        written.append(out)
    plt.close(fig)
    return written


def _median(values) -> Optional[float]:
    from citeledger.report.stats import median

    return median(list(values))


def _short(label: str, limit: int = 28) -> str:
    return label if len(label) <= limit else "…" + label[-(limit - 1):]
