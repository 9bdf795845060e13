"""The path channel: the answer names the file."""

from __future__ import annotations

import re

import attrs

from citeledger.core import Envelope, Finding, hookimpl



@attrs.frozen
class PathOptions:
    # A path with at least one directory, e.g. lib/router/index.js
    with_directory: re.Pattern
    # A bare basename, e.g. utils.js
    basename: re.Pattern
    # A bare basename counts only if its extension is some returned file's
    # (this keeps `res.send` and `mime.contentType` from reading as files).
    basename_extension_gate: bool
    # Normalisation of both sides before comparing.
    backslashes_to_slashes: bool
    strip_dot_slash: bool
    # "suffix": equal, or one ends with "/" + the other (the reference).
    # "directories": the citation's directories must agree with the file's,
    # and a bare basename shared by several returned files credits none.
    match: str = attrs.field(validator=attrs.validators.in_(("suffix", "directories")))


def extension(path: str) -> str | None:
    """After the last '.', lower-cased; none when that dot is at index 0."""
    dot = path.rfind(".")
    return path[dot + 1 :].lower() if dot > 0 else None


class PathChannel:
    name = "path"
    Options = PathOptions

    def __init__(self, options: PathOptions):
        self.options = options

    def normalise(self, path: str) -> str:
        if self.options.backslashes_to_slashes:
            path = path.replace("\\", "/")
        if self.options.strip_dot_slash and path.startswith("./"):
            path = path[2:]
        return path

    def citations(self, answer: str, envelope: Envelope) -> dict[str, str]:
        """Cited paths in order (directory paths first) -> how each was found."""
        opts = self.options
        cited: dict[str, str] = {}
        inside: list[tuple[int, int]] = []  # spans of paths with directories
        for m in opts.with_directory.finditer(answer):
            inside.append(m.span())
            # The pattern cannot start at "/", so an absolute path shows as the
            # character before it; only `match: directories` uses the distinction.
            absolute = m.start() > 0 and answer[m.start() - 1] in "/\\"
            cited.setdefault(m.group(), "absolute path" if absolute else "path with directories")
        shipped = {e for e in map(extension, envelope.paths) if e is not None}
        for m in opts.basename.finditer(answer):
            # The reference also reads the last segment of a/b/c.js as a bare
            # c.js; matching by directories must not let it drop them again.
            if opts.match == "directories" and any(a <= m.start() < b for a, b in inside):
                continue
            ext = m.group().rsplit(".", 1)[-1].lower()
            if not opts.basename_extension_gate:
                cited.setdefault(m.group(), "bare basename")
            elif ext in shipped:
                cited.setdefault(m.group(), f"bare basename, extension .{ext} shipped")
        return cited

    def judge(self, answer: str, envelope: Envelope) -> dict[str, Finding]:
        cited = self.citations(answer, envelope)
        normal = [(c, self.normalise(c), how) for c, how in cited.items()]
        if self.options.match == "directories":
            return self._judge_by_directories(normal, envelope)
        findings = {}
        for path in envelope.paths:
            file = self.normalise(path)
            hit = next(
                ((c, how) for c, n, how in normal if n == file or file.endswith("/" + n) or n.endswith("/" + file)),
                None,
            )
            findings[path] = (
                Finding(self.name, True, hit[0], f"path `{hit[0]}`: {hit[1]}")
                if hit
                else Finding(self.name, False, None, "no cited path names this file")
            )
        return findings

    def _judge_by_directories(self, normal, envelope: Envelope) -> dict[str, Finding]:
        """A citation credits the returned files it names most specifically.

        Only returned files ending with the citation are candidates (a longer
        relative citation such as packages/a/src/index.ts does not name
        src/index.ts); a citation that fits several candidates credits none of
        them. An absolute citation carries the project root in front, so it
        names the longest returned path it ends with.
        """
        files = {path: self.normalise(path) for path in envelope.paths}
        credit: dict[str, tuple[str, str]] = {}
        ambiguous: dict[str, str] = {}
        for citation, n, how in normal:
            if how == "absolute path":
                inside = [(len(f), p) for p, f in files.items() if f == n or n.endswith("/" + f)]
                longest = max(inside)[0] if inside else 0
                matches = [p for size, p in inside if size == longest]
            else:
                matches = [p for p, f in files.items() if f == n or f.endswith("/" + n)]
            if len(matches) == 1:
                credit.setdefault(matches[0], (citation, how))
            else:
                for p in matches:
                    ambiguous.setdefault(p, f"`{citation}` fits {len(matches)} returned files")
        findings = {}
        for path in envelope.paths:
            if path in credit:
                citation, how = credit[path]
                findings[path] = Finding(self.name, True, citation, f"path `{citation}`: {how}")
            elif path in ambiguous:
                findings[path] = Finding(self.name, False, None, f"ambiguous: {ambiguous[path]}")
            else:
                findings[path] = Finding(self.name, False, None, "no cited path names this file")
        return findings


@hookimpl
def citeledger_register_channels(register):
    register(PathChannel)
