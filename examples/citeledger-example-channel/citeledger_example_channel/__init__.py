"""The `stem` channel: the answer names a returned file by its stem, as a word.

"the layer module" names lib/router/layer.js; "response" names lib/response.js.
Prose is how people refer to files, but a stem is a weak citation (`index`,
`utils`), so a stem shared by several returned files credits none of them, and
short or listed stems never count.
"""

from __future__ import annotations

import re
from collections import defaultdict

import attrs

from citeledger.core import Envelope, Finding, hookimpl


@attrs.frozen
class StemOptions:
    # Stems shorter than this are too generic to be a citation.
    min_length: int = attrs.field(default=5, validator=attrs.validators.ge(1))
    # Stems that are words in every answer (lower case).
    ignore: tuple[str, ...] = ("index", "utils", "types", "main", "test")
    # Match the stem case-sensitively (false: "Layer" names layer.js too).
    case_sensitive: bool = False


def stem(path: str) -> str:
    """The file name up to its first dot: lib/router/layer.js -> layer."""
    return path.rsplit("/", 1)[-1].split(".", 1)[0]


class StemChannel:
    name = "stem"
    Options = StemOptions

    def __init__(self, options: StemOptions):
        self.options = options

    def judge(self, answer: str, envelope: Envelope) -> dict[str, Finding]:
        opts = self.options
        files_by_stem: dict[str, list[str]] = defaultdict(list)
        for path in envelope.paths:
            key = stem(path) if opts.case_sensitive else stem(path).lower()
            files_by_stem[key].append(path)
        flags = 0 if opts.case_sensitive else re.IGNORECASE
        findings = {}
        for path in envelope.paths:
            word = stem(path)
            key = word if opts.case_sensitive else word.lower()
            if len(word) < opts.min_length or key in opts.ignore:
                findings[path] = Finding(self.name, False, None, f"stem `{word}` is too generic")
            elif len(files_by_stem[key]) > 1:
                findings[path] = Finding(self.name, False, None, f"stem `{word}` is shared by {len(files_by_stem[key])} files")
            elif re.search(rf"(?<![\w./-]){re.escape(word)}(?![\w/-])", answer, flags):
                findings[path] = Finding(self.name, True, word, f"stem `{word}` named in the answer")
            else:
                findings[path] = Finding(self.name, False, None, f"stem `{word}` not named")
        return findings


@hookimpl
def citeledger_register_channels(register):
    register(StemChannel)
