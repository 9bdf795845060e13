"""One scored session as a page, rendered from the dict the JSON output prints.

`data` is report.jsonreport.session_dict(score, explain=True) (plus score's
`answer_set` key when an answer set was given): the numbers on the page are
the JSON output's numbers. The answer text is the one thing JSON leaves out.
"""

from __future__ import annotations

from typing import Optional

from citeledger.core import ratio
from citeledger.report.explain import SOURCES  # the answer's source, as explain says it
from citeledger.report.html.bounded import CALLS, ENVELOPE_FILES, FILES, SECTIONS
from citeledger.report.html.citations import citation_spans
from citeledger.report.html.sufficiency import next_act, session_section
from citeledger.report.text import TOOL_NAME
from citeledger.report.html.page import (
    cell, document, esc, field, mark, num, pct, swatch, table, warnings_list,
)


def session_page(data: dict, answer: str, title: Optional[str] = None, context: str = "") -> str:
    """`data`: score's JSON dict (with `envelope_view` and `answer_set` when --envelope/--answer was given);
    `context` the residual context occupancy section (report/html/occupancy.py), when measured."""
    title = title or f"citeledger — {data['session']}"
    return document(title, session_body(data, answer, heading=title, context=context), "session")


def session_body(data: dict, answer: str, heading: str, level: int = 1, context: str = "") -> str:
    index = {f["path"]: f.get("rank", i + 1) for i, f in enumerate(data["files"])}  # path -> its row (#file-N)
    parts = [
        f"<h{level}>{esc(heading)}</h{level}>",
        _summary(data),
        _legend(data["channels"]),
    ]
    if data["calls"]:
        parts.append(_calls(data, index))
        parts.append(_files(data))
    else:
        parts.append('<p data-field="status" data-value="&quot;no-explore&quot;">'
                     f"No {TOOL_NAME} response with a source section: nothing to charge.</p>")
    parts.append(context)  # residual context occupancy, beside sufficiency and allocation: read together
    if "sufficiency" in data:
        parts.append(session_section(data["sufficiency"]))
    parts.append(answer_html(data, answer))
    if "envelope_view" in data:
        parts.append(_envelope_view(data["envelope_view"]))
    if "answer_set" in data:  # the envelope view's table already marks the set: its sentence only
        parts.append(_answer_set(data, table_too="envelope_view" not in data))
    parts.append(warnings_list(data["warnings"]))
    if data.get("warnings_more"):
        parts.append(f'<p class="muted" data-field="warnings_more" data-value="{data["warnings_more"]}">… and '
                     f'{num(data["warnings_more"])} more input warnings: see score --json.</p>')
    return "".join(parts)


def _row_link(index: dict, path: str) -> str:
    """A file's row on the page, or the line that counts the files the page leaves out."""
    return f"#file-{index[path]}" if path in index else "#files-more"


def _more(what: str, more: dict, credited: str = "credited") -> str:
    """The line that says what a bounded table left out (report/html/bounded.py)."""
    return (f'<p class="muted more" data-more="{esc(what)}" data-count="{more["count"]}" data-chars="{more["chars"]}">'
            f"… and {num(more['count'])} more {esc(what)}, {num(more['chars'])} chars "
            f"({num(more[credited])} {'in the answer set' if credited == 'in_answer_set' else 'credited'}): "
            "see score --json.</p>")


def _summary(data: dict) -> str:
    env = data["envelope"]
    rows = [
        ("efficiency", field("efficiency", data["efficiency"], pct(data["efficiency"]), cls="big")
         + f' — {field("used", data["used"], num(data["used"]))} of {field("envelope", env, num(env))} chars'),
        ("files credited", f'{field("files_used", data["files_used"], str(data["files_used"]))}'
         f'/{field("files_returned", data["files_returned"], str(data["files_returned"]))} files'),
        (f"{data['channels'][0] if data['channels'] else 'path'}-cited alone (lower bound)",
         field("lower_bound", data["lower_bound"], pct(data["lower_bound"]))),
    ]
    if len(data["channels"]) > 2:
        steps = " · ".join(
            ("+" if i else "") + esc(step["channels"][-1]) + " "
            + field("ladder", step["efficiency"], pct(step["efficiency"]))
            for i, step in enumerate(data["ladder"])
        )
        rows.append(("ladder (cumulative lower bounds)", steps))
    if "line_level" in data:
        line = data["line_level"]
        rows.append(("line-level", field("line_efficiency", line["efficiency"], pct(line["efficiency"]))
                     + f' — {field("line_used", line["used"], num(line["used"]))} chars on credited source lines; '
                     f'pinned alone {field("line_pinned_efficiency", line["pinned_efficiency"], pct(line["pinned_efficiency"]))}'))
    if data["meta_chars"]:
        rows.append(("trailing blocks", field("meta_chars", data["meta_chars"], num(data["meta_chars"]))
                     + " chars, charged to no file"))
    rows += [
        ("status", field("status", data["status"], data["status"])),
        ("ruleset", f'<code>{esc(data["ruleset"])}</code> — channels in rank order: '
         + ", ".join(f"<code>{esc(c)}</code>" for c in data["channels"])),
        ("answer", esc(SOURCES.get(data["answer_source"], data["answer_source"]))),
        ("inputs", "<br>".join(f"<code>{esc(p)}</code>" for p in data["inputs"])),
    ]
    out = '<dl class="summary">' + "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in rows) + "</dl>"
    if not data["has_answer"] and data["calls"]:
        out += '<p role="alert"><strong>No final answer text found</strong> — efficiency is not meaningful for this run.</p>'
    out += ('<p class="muted">A relative metric: attribution is by citation, so compare builds on the same '
            "question, not absolutes.</p>")
    return out


def _legend(channels) -> str:
    items = [
        f'<span>{swatch(c)}{mark(True)} credited by <code>{esc(c)}</code></span>'
        for c in channels
    ]
    items.append(f'<span><span class="swatch miss"></span>{mark(False)} not credited (hatched)</span>')
    items.append('<span><span class="swatch meta"></span>trailing block, charged to no file</span>')
    return '<div class="legend" aria-label="legend">' + "".join(items) + "</div>"


def _calls(data: dict, index: dict) -> str:
    out = ["<section id=\"calls\"><h2>Explore calls</h2>"
           "<p class=\"muted\">Each bar is one response: its sections in order, widths by chars.</p>"]
    out.append(_calls_cap(data.get("calls_more")))
    for call in data["calls"]:
        out.append(_call(call, index))
    out.append("</section>")
    return "".join(out)


def _calls_cap(more: Optional[dict]) -> str:
    if not more or not more["count"]:
        return ""
    return (f'<p class="muted more" data-more="calls" data-count="{more["count"]}" data-chars="{more["envelope"]}">'
            f"The page draws the {CALLS} largest calls (by chars), in call order, and at most {SECTIONS} "
            f"sections of each, the largest; … and {num(more['count'])} more calls, {num(more['envelope'])} chars "
            f"({num(more['used'])} used): see score --json.</p>")


def _call(call: dict, index: dict) -> str:
    """One call: its heading, its bar and its sections' table (the largest; the rest counted)."""
    n, env = call["call"], call["envelope"]
    sections = [(s.get("section", k), s) for k, s in enumerate(call["files"], 1)]
    more = call.get("files_more") or {"count": 0, "chars": 0, "credited": 0}
    credited = sum(1 for _, s in sections if s["channel"] is not None) + more["credited"]
    count = len(sections) + more["count"]
    line = (
        f'<h3 id="call-{n}">call {n}: {field("efficiency", call["efficiency"], pct(call["efficiency"]))} '
        f'— {field("used", call["used"], num(call["used"]))}/{field("envelope", env, num(env))} chars, '
        f"{credited}/{count} files credited"
    )
    if "line_efficiency" in call:
        line += f' — lines {field("line_efficiency", call["line_efficiency"], pct(call["line_efficiency"]))}'
    line += next_act(call)  # beside its allocation: what the agent did after this call
    src = call["source"]
    line += f' <span class="muted">({esc(src["file"])}:{esc(src["line"])})</span></h3>'
    rows = [
        f"<tr><td class=num>{k}</td><td>{mark(s['channel'] is not None)}</td>"
        f'<td><a href="{_row_link(index, s["path"])}"><code>{esc(s["path"])}</code></a></td>'
        + cell("chars", s["chars"], num(s["chars"]))
        + cell("share", ratio(s["chars"], env), pct(ratio(s["chars"], env)))
        + f"<td class=channel>{_channel(s['channel'])}</td><td>{_evidence(s['evidence'])}</td></tr>"
        for k, s in sections
    ]
    return (
        f'<div class="call" data-call="{n}">{line}'
        + (f'<p class="query">query: <q>{esc(call["query"])}</q></p>' if call.get("query") is not None else "")
        + f'<div class="bar" role="img" aria-label="call {n}: {count} sections, {credited} credited">'
        + _bar(sections, more, env, index) + "</div>"
        f"<details><summary>sections of call {n}</summary>"
        + table(("#", "verdict", "file", "chars", "share of call", "channel", "evidence"), rows, numeric=(0, 3, 4))
        + (_more("sections of this call", more) if more["count"] else "")
        + "</details></div>"
    )


def _bar(sections: list, more: dict, env: int, index: dict) -> str:
    """The call's sections drawn in order; the sections left out one hatched segment; then the trailing blocks."""
    segs = []
    for k, s in sections:
        width = 100 * ratio(s["chars"], env)
        verdict = f"credited by {s['channel']}" if s["channel"] else "not credited"
        label = f"section {k}: {s['path']}, {s['chars']:,} chars, {verdict}"
        drawn = f'class="hit ch" data-channel="{esc(s["channel"])}"' if s["channel"] else 'class="miss"'
        segs.append(
            f'<a href="{_row_link(index, s["path"])}" {drawn} '
            f'style="width:{width:.4f}%" title="{esc(label)}" aria-label="{esc(label)}"></a>'
        )
    if more["count"]:
        label = f"{more['count']:,} more sections, {more['chars']:,} chars, {more['credited']:,} credited"
        segs.append(f'<span class="miss" style="width:{100 * ratio(more["chars"], env):.4f}%" '
                    f'title="{label}" aria-label="{label}"></span>')
    meta = env - sum(s["chars"] for _, s in sections) - more["chars"]
    if meta > 0:
        segs.append(f'<span class="meta" style="width:{100 * ratio(meta, env):.4f}%" '
                    f'title="trailing blocks, {meta:,} chars"></span>')
    return "".join(segs)


def _channel(channel: Optional[str]) -> str:
    if channel is None:
        return "—"
    return f'{swatch(channel)}<code>{esc(channel)}</code>'


def _evidence(evidence: Optional[str]) -> str:
    return "—" if evidence is None else f"<code>{breakable(evidence)}</code>"


def breakable(path: str) -> str:
    """`path` escaped, a line may break after each `/` (<wbr>: no character added): a narrow window's
    file table wraps a path at its folders before anywhere else."""
    return "/<wbr>".join(esc(part) for part in path.split("/"))


def _files(data: dict) -> str:
    lines = "line_level" in data
    # The why beside the file, and the whole table in an 800 px window without scrolling sideways:
    # paths wrap at their folders, the why and the evidence anywhere (page.CSS, table.files).
    headers = ["#", "verdict", "file", "why (each channel, in rank order)", "chars", "share", "sections", "channel",
               "evidence"]
    numeric = (0, 4, 5, 6)
    if lines:
        headers.insert(7, "line chars")
        numeric += (7,)
    rows = []
    for i, f in ((f.get("rank", i), f) for i, f in enumerate(data["files"], 1)):
        why = "".join(
            f'<li data-channel="{esc(x["channel"])}" data-credited="{"true" if x["credited"] else "false"}">'
            f'<code>{esc(x["channel"])}</code> {"yes" if x["credited"] else "no"} — {esc(x["reason"])}</li>'
            for x in f.get("findings", [])
        )
        row = (
            f'<tr id="file-{i}" data-path="{esc(f["path"])}"><td class=num>{i}</td><td>{mark(f["channel"] is not None)}</td>'
            f"<td class=path><code>{breakable(f['path'])}</code></td>"
            f'<td><ul class="why">{why}</ul></td>'
            + cell("chars", f["chars"], num(f["chars"]))
            + cell("share", f["share"], pct(f["share"]))
            + cell("calls", f["calls"], str(f["calls"]))
        )
        if lines:
            row += cell("line_used", f["line_used"], num(f["line_used"]))
        row += (
            f"<td class=channel>{_channel(f['channel'])}</td><td>{_evidence(f['evidence'])}</td></tr>"
        )
        rows.append(row)
    more = data.get("files_more")
    cap = ""
    if more and more["count"]:
        cap = (f'<p class="muted" id="files-more">The page lists the {FILES} largest files and up to {FILES} '
               "credited files beyond them.</p>" + _more("files", more))
    return (
        '<section id="files"><h2>Files, pooled over the calls</h2>'
        + table(headers, rows, cls="sortable files", numeric=numeric)
        + cap + "</section>"
    )


def answer_html(data: dict, answer: str) -> str:
    """The answer, escaped, each crediting citation a link to its file's row (#file-N)."""
    if not data["has_answer"]:
        return '<section id="answer"><h2>Final answer</h2><p>No final answer text found.</p></section>'
    ranks = [f.get("rank", i + 1) - 1 for i, f in enumerate(data["files"])]  # a bounded page's rows skip ranks
    credits = [(ranks[i], f["channel"], f["evidence"]) for i, f in enumerate(data["files"]) if f["channel"] is not None]
    spans = citation_spans(answer, credits)
    paths = {ranks[i]: f["path"] for i, f in enumerate(data["files"])}
    out, at = [], 0
    for s in spans:
        out.append(esc(answer[at:s.start]))
        first = s.files[0]
        names = ", ".join(paths[i] for i in s.files)
        extra = "".join(f'<sup><a href="#file-{i + 1}">[{i + 1}]</a></sup>' for i in s.files[1:])
        out.append(
            f'<a class="cite" href="#file-{first + 1}" data-files="{esc(" ".join(str(i + 1) for i in s.files))}" '
            f'title="credits {esc(names)}">{esc(answer[s.start:s.end])}<sup>[{first + 1}]</sup></a>{extra}'
        )
        at = s.end
    out.append(esc(answer[at:]))
    return (
        '<section id="answer"><h2>Final answer</h2>'
        f'<p class="muted">{len(spans)} highlighted citation(s); each links to the file it credited.</p>'
        f'<pre class="answer">{"".join(out)}</pre></section>'
    )


def _envelope_view(view: dict) -> str:
    """The envelope view (spec section 8): every section of every response pooled by path."""
    env = view["chars"]
    rows = [
        f'<tr data-path="{esc(f["path"])}"><td>{mark(f["in_answer_set"], "in the answer set", "not in the answer set")}</td>'
        f'<td><code>{esc(f["path"])}</code></td>'
        + cell("share", f["share"], pct(f["share"]))
        + cell("chars", f["chars"], num(f["chars"]))
        + "</tr>"
        for f in view["files"]
    ]
    answers = ""
    if "answer_share" in view:
        answers = (
            f' Answer-set share {field("answer_share", view["answer_share"], pct(view["answer_share"]))};'
            f' top file answers: {field("top_file_answers", view["top_file_answers"], "true" if view["top_file_answers"] else "false")}.'
        )
    return (
        '<section id="envelope-view"><h2>Explore envelope</h2>'
        f'<p>{field("envelope_chars", env, num(env))} chars over '
        f'{field("responses", view["responses"], num(view["responses"]))} response(s).{answers}</p>'
        + table(("in set", "file", "share", "chars"), rows, cls="sortable", numeric=(2, 3))
        + _envelope_cap(view.get("files_more"))
        + "</section>"
    )


def _envelope_cap(more: Optional[dict]) -> str:
    if not more or not more["count"]:
        return ""
    return (f'<p class="muted">The page lists the {ENVELOPE_FILES} largest files of the envelope.</p>'
            + _more("files of the envelope", more, credited="in_answer_set"))


def _answer_set(data: dict, table_too: bool = True) -> str:
    view = data["answer_set"]
    members = set(view["files"])
    env = data["envelope"]
    rows = [
        f'<tr data-path="{esc(f["path"])}"><td>{mark(f["path"] in members, "in the answer set", "not in the answer set")}</td><td><code>{esc(f["path"])}</code></td>'
        + cell("share", ratio(f["chars"], env), pct(ratio(f["chars"], env)))
        + cell("chars", f["chars"], num(f["chars"]))
        + "</tr>"
        for f in data["files"]
    ]
    return (
        '<section id="answer-set"><h2>Envelope view — answer set</h2>'
        f'<p>Globs {", ".join(f"<code>{esc(g)}</code>" for g in view["globs"])}: '
        f'{view.get("count", len(view["files"]))}/{data["files_returned"]} files, '
        f'{field("answer_set_share", view["share"], pct(view["share"]))} of {num(env)} chars '
        f'({field("answer_set_chars", view["chars"], num(view["chars"]))} chars). '
        f"{mark(True, 'in the answer set')} marks a file in the set.</p>"
        + (table(("in set", "file", "share", "chars"), rows, cls="sortable", numeric=(2, 3)) if table_too else "")
        + "</section>"
    )
