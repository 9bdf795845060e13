"""What the sources that read kept tool results share: which results are
theirs, their text, and the pieces they make of it (core/source.py)."""

from __future__ import annotations

from typing import Optional

from citeledger.core import KeptTools, Pieces, Pulled, ToolResult, UNKNOWN, by_file, result_key, unknown_warning, within


def lines_of(text: str) -> list[str]:
    """The lines of `text`, each with its newline: they add up to the text."""
    return text.splitlines(keepends=True) if text else []


class ResultSource:
    """A source reading the results of the tools its `tools` option names.

    Subclasses give `name`, `Options` (with `tools: tuple[str, ...]`) and
    `pieces(text, result) -> (pieces, why)`: (path or None for meta, text)
    pairs that add up to the result's text, and why a piece went to UNKNOWN
    ("" when none did).
    """

    name = ""

    def __init__(self, options):
        self.options = options

    def tools(self) -> Optional[KeptTools]:
        return KeptTools(frozenset(self.options.tools))

    def wants(self, result: ToolResult) -> bool:
        return result.name in self.options.tools

    def pieces(self, text: str, result: ToolResult) -> tuple[list, str]:
        raise NotImplementedError

    def cuts(self, given, ruleset, memo: dict):
        join = "".join  # a result's content items joined with nothing, as the reference joins an explore's
        pulled, warnings = [], []
        for result in given.results:
            if not self.wants(result):
                continue
            pieces, why = self.pieces(join(result.blocks), result)
            if pieces is None:  # not this source's to charge (a bash command that reads nothing)
                continue
            pieces = by_file([(within(path, result.cwd), part) for path, part in pieces])
            if why and any(path == UNKNOWN for path, _ in pieces):
                warnings.append(unknown_warning(self.name, result, why))
            pulled.append(Pulled(Pieces(pieces), result.origin, self.name, result=result_key(result)))
        return pulled, warnings
