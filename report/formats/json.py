"""The json format: score's and explain's one object; the corpus commands' JSON lines."""

from __future__ import annotations

from citeledger.core import hookimpl


class Json:
    name = "json"
    # sweep's JSON lines are made where each session is scored and streamed (engine/sweep.py, cli/commands/sweep.py)
    renders = frozenset({"score", "explain", "compare", "sensitivity", "check"})

    def render(self, result) -> bytes:
        from citeledger.report.jsonreport import json_bytes, session_object

        if result.kind in ("score", "explain"):
            return json_bytes(session_object(result), indent=True) + b"\n"
        if result.kind == "check":
            return json_bytes(result.as_dict(), indent=True) + b"\n"
        return b"".join(json_bytes(record) + b"\n" for record in result.records())


@hookimpl
def citeledger_register_formats(register):
    register(Json)
