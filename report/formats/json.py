"""The json format: score's and explain's one object; the corpus commands' JSON lines."""

from __future__ import annotations

from citeledger.core import hookimpl


class Json:
    name = "json"
    # sweep's JSON lines are made where each session is scored and streamed (cli/commands/sweep.py)
    renders = frozenset({"score", "explain", "compare", "sensitivity"})

    def render(self, result) -> bytes:
        from citeledger.report.jsonreport import json_bytes

        if result.kind in ("score", "explain"):
            return json_bytes(session_data(result), indent=True) + b"\n"
        return b"".join(json_bytes(record) + b"\n" for record in result.records())


def session_data(result) -> dict:
    """The JSON object of one scored session: score's (explain's adds each file's findings)."""
    from citeledger.report.jsonreport import session_dict

    data = session_dict(result.score, explain=result.kind == "explain")
    if result.kind == "explain":  # what each call of a source other than the explore source asked
        from citeledger.report.explain import calls_asked

        for call, asked in zip(data["calls"], calls_asked(result.score, result.transcript)):
            call["asked"] = asked
    if result.session_path is not None:
        data["session_path"] = result.session_path
    if result.json_added:  # the partial-session rule read these too; `inputs` lists every file read
        data["added_inputs"] = list(result.json_added)
    data.update(result.views())
    if result.metrics:
        from citeledger.core import metrics

        known = metrics()
        data.update({name: known[name]().as_json(record) for name, record in result.metrics.items()})
    if result.sufficiency is not None:
        from citeledger.report.sufficiency import sufficiency_dict

        data["sufficiency"] = sufficiency_dict(result.sufficiency)
    data.update(result.extra_data)
    return data


@hookimpl
def citeledger_register_formats(register):
    register(Json)
