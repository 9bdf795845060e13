"""The page shell every HTML report shares: escaping, numbers, CSS, one small script.

A page is one self-contained file: inline CSS and SVG, no network, no external
script. Everything that came from a transcript (paths, answers, reasons,
warnings) goes through `esc`; numbers are written twice, as the text output
prints them (cell text) and as the JSON output holds them (`data-value`, the
repr of the same float), so a reader or a test can check one against the other.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from typing import Iterable, Optional, Sequence

from citeledger.core import __version__, percent, thousands
from citeledger.report.palette import CITED, UNCITED, channel_colour

# Verdict marks: the page reads without colour.
CREDITED = "✓"
NOT_CREDITED = "✗"


def esc(value) -> str:
    """Text or attribute value, escaped (quotes too): transcript text is untrusted."""
    return html.escape("" if value is None else str(value), quote=True)


def value_attr(value) -> str:
    """The JSON value as an attribute: the same number the JSON output holds."""
    return esc(json.dumps(value))


def pct(value: Optional[float]) -> str:
    return "—" if value is None else percent(value)


def num(value: Optional[int]) -> str:
    return "—" if value is None else thousands(value)


def field(name: str, value, shown: str, tag: str = "span", cls: str = "") -> str:
    """An element carrying one number of the model: data-field, data-value and its text."""
    klass = f' class="{cls}"' if cls else ""
    return f'<{tag}{klass} data-field="{esc(name)}" data-value="{value_attr(value)}">{esc(shown)}</{tag}>'


def cell(name: str, value, shown: str, numeric: bool = True) -> str:
    return field(name, value, shown, "td", "num" if numeric else "")


def swatch(channel: str) -> str:
    """The channel's colour as a swatch. Anything of class `ch` with a data-channel is filled by the
    page's one rule for that channel (channel_css), so a channel has one colour on a page and, by
    report.palette, on every page; and a large page does not repeat the colour in every row."""
    return f'<span class="swatch ch" data-channel="{esc(channel)}"></span>'


_DRAWN = re.compile(r'class="(?:[^"]* )?ch(?: [^"]*)?" data-channel="([^"]*)"')


def channel_css(body: str) -> str:
    """One rule per channel drawn in `body` (elements `class="... ch ..." data-channel="NAME"`)."""
    names = sorted({html.unescape(n) for n in _DRAWN.findall(body)})
    return "".join(f".ch[data-channel={_css_string(n)}] {{ background: {channel_colour(n)}; }}\n" for n in names)


def _css_string(text: str) -> str:
    """A CSS string: quotes, backslashes, angle brackets and controls as escapes (a plugin names its channel)."""
    return '"' + "".join(f"\\{ord(c):x} " if c in '"\\<>' or not c.isprintable() else c for c in text) + '"'


def mark(credited: bool, yes: str = "credited", no: str = "not credited") -> str:
    """The verdict symbol, with words for screen readers."""
    if credited:
        return f'<span class="mark yes" title="{yes}">{CREDITED}<span class="sr"> {yes}</span></span>'
    return f'<span class="mark no" title="{no}">{NOT_CREDITED}<span class="sr"> {no}</span></span>'


def table(headers: Sequence[str], rows: Iterable[str], caption: str = "", cls: str = "", numeric=()) -> str:
    """A semantic table; `rows` are ready `<tr>` strings; numeric headers sort as numbers."""
    head = "".join(
        f'<th scope="col"{" class=num" if i in numeric else ""}>{esc(h)}</th>' for i, h in enumerate(headers)
    )
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    klass = f' class="{cls}"' if cls else ""
    # In its own scroll box: a table wider than a narrow window scrolls there, the page does not.
    return f'<div class="scroll"><table{klass}>{cap}<thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


def warnings_list(warnings: Sequence[dict], title: str = "Input warnings") -> str:
    if not warnings:
        return ""
    items = "".join(
        f'<li><code>{esc(w["file"])}:{esc(w["line"])}</code>: {esc(w["message"])}</li>' for w in warnings
    )
    return f'<section id="warnings"><h2>{esc(title)} ({len(warnings)})</h2><ul class="warnings">{items}</ul></section>'


CSS = """
:root { --fg:#1b1b1b; --muted:#5a5a5a; --line:#d6d6d6; --bg:#ffffff; --band:#f4f4f4; --hit:#fff1a8; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: var(--fg); background: var(--bg); margin: 0 auto; padding: 1rem 1.5rem 3rem; max-width: 78rem; }
h1 { font-size: 1.35rem; margin: .2rem 0 .4rem; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .5rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; }
h3 { font-size: 1rem; margin: 1rem 0 .3rem; }
code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .9em; }
.muted { color: var(--muted); }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
table { border-collapse: collapse; margin: .3rem 0 .8rem; }
.scroll { overflow-x: auto; max-width: 100%; }
caption { text-align: left; font-weight: 600; padding: .2rem 0; }
th, td { padding: .18rem .55rem; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: var(--band); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th[aria-sort] { cursor: pointer; }
tr:target, details:target > summary, li:target { background: var(--hit); }
.summary { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .4rem 0; }
.summary dt { color: var(--muted); } .summary dd { margin: 0; }
.big { font-size: 1.5rem; font-weight: 700; }
.mark { font-weight: 700; display: inline-block; width: 1.1em; text-align: center; }
.bar { display: flex; height: 1.6rem; border: 1px solid #777; margin: .3rem 0 .2rem; }
.bar.occupancy { background: #fff; }
.bar > a, .bar > span { display: block; height: 100%; min-width: 1px; border-right: 1px solid #fff; }
.miss { background: repeating-linear-gradient(135deg, #c9c9c9 0 4px, #ececec 4px 8px); }
.meta { background: repeating-linear-gradient(90deg, #999 0 2px, #fff 2px 5px); }
.legend { display: flex; flex-wrap: wrap; gap: .3rem 1.2rem; margin: .3rem 0 .8rem; font-size: .9em; }
.swatch { display: inline-block; width: 1.4em; height: .9em; border: 1px solid #777; vertical-align: middle; margin-right: .3em; }
.answer { white-space: pre-wrap; word-wrap: break-word; background: var(--band); padding: .7rem .9rem;
          border-left: 4px solid var(--line); max-height: 40rem; overflow: auto; }
a.cite { background: var(--hit); color: inherit; text-decoration: underline; text-decoration-thickness: 2px; }
a.cite sup { font-size: .7em; color: var(--muted); }
.why { margin: 0; padding-left: 0; list-style: none; font-size: .9em; }
.why li { margin: 0; }
.warnings code, .paths code { word-break: break-all; }
table.top td:nth-child(2) { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .9em; }
table.top td:nth-child(3), table.top td:nth-child(4) { text-align: right; font-variant-numeric: tabular-nums; }
table.sessions th, td.status { white-space: nowrap; }
details { margin: .2rem 0; } summary { cursor: pointer; }
details.page > summary { font-weight: 600; }
details.session > :not(summary) { margin-left: 1.6rem; }
td.channel { white-space: nowrap; }
table.files { width: 100%; }
table.files td > code, table.files .why { overflow-wrap: anywhere; }
table.files td.path { min-width: 9em; }
table.files th, table.files td { padding-left: .35rem; padding-right: .35rem; }
table.files th.num { white-space: normal; }
td.runs { min-width: 12em; max-width: 22em; }
table.groups thead th { white-space: normal; }
table.groups thead th { vertical-align: bottom; }
table.groups tbody th { white-space: nowrap; }
table.behaviour th.block { background: none; font-weight: 600; padding-top: .6rem; }
table.behaviour tbody th[scope=row] { background: none; font-weight: 400; white-space: nowrap; }
.chart text { font: 11px system-ui, "DejaVu Sans", sans-serif; fill: #333; }
footer { margin-top: 2.5rem; font-size: .85em; color: var(--muted); }
""" + f".mark.yes {{ color: {CITED}; }} .mark.no {{ color: {UNCITED}; }}\n"

# Progressive enhancement only: click a column heading to sort. Without
# JavaScript the tables keep the order the text output uses.
SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("thead th").forEach(function (th, col) {
    th.setAttribute("aria-sort", "none");
    th.title = "sort by this column";
    th.addEventListener("click", function () {
      var up = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("thead th").forEach(function (o) { o.setAttribute("aria-sort", "none"); });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      function key(row) {
        var c = row.cells[col]; if (!c) return "";
        var v = c.getAttribute("data-value");
        if (v !== null && v !== "null" && !isNaN(parseFloat(v))) return parseFloat(v);
        return c.textContent;
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        var r = (typeof x === "number" && typeof y === "number") ? x - y : String(x).localeCompare(String(y));
        return up ? r : -r;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
// A link into collapsed sections opens the sections around its target.
function openTarget() {
  var el = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
  for (; el; el = el.parentElement) { if (el.tagName === "DETAILS") el.open = true; }
}
window.addEventListener("hashchange", openTarget);
openTarget();
"""

SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")


def document(title: str, body: str, kind: str) -> str:
    """The whole page: `kind` (session, sweep, compare) is on <body> for readers and tests."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # No network at all: nothing on the page may load from anywhere.
        # Only the page's own script runs (by its hash), even if some text escaped escaping.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        f"style-src 'unsafe-inline'; script-src '{SCRIPT_HASH}'; img-src data:\">"
        f"<title>{esc(title)}</title><style>{CSS}{channel_css(body)}</style></head>"
        f'<body data-page="{esc(kind)}">{body}'
        f'<footer>citeledger {esc(__version__)} — the same numbers as the text and JSON outputs of this run.</footer>'
        f"<script>{SCRIPT}</script></body></html>\n"
    )
