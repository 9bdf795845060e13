"""Hand-written inline SVG: a histogram of efficiencies (no plotting library, a few KB)."""

from __future__ import annotations

from typing import Sequence

from citeledger.report.html.page import esc
from citeledger.report.palette import HISTOGRAM

BINS = 10  # ten bins of ten percentage points: [0, 10%), ..., [90%, 100%]


def bin_counts(values: Sequence[float], bins: int = BINS) -> list[int]:
    """Counts per bin of width 1/bins over [0, 1]; 1.0 falls in the last bin."""
    counts = [0] * bins
    for v in values:
        counts[min(int(v * bins), bins - 1) if v > 0 else 0] += 1
    return counts


def y_ticks(peak: int, most: int = 5) -> list[int]:
    """Counts for the count axis: 0, round steps (1, 2, 5, 10, 20, 50, ...), and the peak itself
    (a round tick too close under it is dropped, so no two labels collide)."""
    step, scale = 1, 1
    while step * (most - 1) < peak:
        for m in (1, 2, 5):
            step = m * scale
            if step * (most - 1) >= peak:
                break
        else:
            scale *= 10
            continue
        break
    ticks = [t for t in range(0, peak, step) if t == 0 or peak - t >= step / 2]
    return ticks + [peak]


def histogram(values: Sequence[float], label: str, ident: str, colour: str = HISTOGRAM["sessions"], bins: int = BINS) -> str:
    """`ident` is unique on the page (the chart's title id)."""
    counts = bin_counts(values, bins)
    width, height, left, bottom, top = 420, 170, 34, 30, 16
    plot_w, plot_h = width - left - 20, height - bottom - top
    peak = max(counts) or 1
    step = plot_w / bins
    parts = [
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-labelledby="{esc(ident)}" data-chart="{esc(ident)}">',
        f'<title id="{esc(ident)}">{esc(label)}: {len(values)} values; counts per 10-point bin from 0%: '
        f'{", ".join(map(str, counts))}</title>',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#444"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#444"/>',
    ]
    for tick in y_ticks(peak)[1:]:  # a count scale, not only the peak (0 is where the x labels stand)
        y = top + plot_h - plot_h * tick / peak
        parts.append(f'<line x1="{left - 3}" y1="{y:.1f}" x2="{left}" y2="{y:.1f}" stroke="#444"/>'
                     f'<text x="{left - 5}" y="{y + 4:.1f}" text-anchor="end" data-tick="{tick}">{tick}</text>')
    for i, count in enumerate(counts):
        h = plot_h * count / peak
        x = left + i * step
        lo, hi = 100 * i // bins, 100 * (i + 1) // bins
        parts.append(
            f'<rect x="{x + 1:.1f}" y="{top + plot_h - h:.1f}" width="{step - 2:.1f}" height="{h:.1f}" '
            f'fill="{colour}" data-bin="{i}" data-count="{count}"><title>{lo}–{hi}%: {count}</title></rect>'
        )
        if count:
            parts.append(f'<text x="{x + step / 2:.1f}" y="{top + plot_h - h - 3:.1f}" text-anchor="middle">{count}</text>')
    for i in range(0, bins + 1, 2):
        x = left + i * step
        parts.append(f'<text x="{x:.1f}" y="{top + plot_h + 14}" text-anchor="middle">{100 * i // bins}%</text>')
    parts.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 2}" text-anchor="middle">{esc(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)

