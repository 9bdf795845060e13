"""The path channel: the answer names the file."""

from __future__ import annotations

import bisect
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
    colour = "#1f77b4"  # on every page that draws its credits (report.palette)
    Options = PathOptions

    def __init__(self, options: PathOptions):
        self.options = options

    @classmethod
    def evidence_label(cls, verdict) -> str:
        # The reference's text block labels a path credit with the channel alone:
        # the file's own path stands beside it.
        return cls.name

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
        answers = envelope.answers
        inside = _spans(opts.with_directory, answer, answers)  # spans of paths with directories
        for start, end in inside:
            # The pattern cannot start at "/", so an absolute path shows as the
            # character before it; only `match: directories` uses the distinction.
            absolute = start > 0 and answer[start - 1] in "/\\"
            cited.setdefault(answer[start:end], "absolute path" if absolute else "path with directories")
        shipped = None  # the returned files' extensions, once a basename asks
        for start, end in _spans(opts.basename, answer, answers):
            # The reference also reads the last segment of a/b/c.js as a bare
            # c.js; matching by directories must not let it drop them again.
            if opts.match == "directories" and _inside(inside, start):
                continue
            name = answer[start:end]
            if not opts.basename_extension_gate:
                cited.setdefault(name, "bare basename")
                continue
            ext = name.rsplit(".", 1)[-1].lower()
            if shipped is None:
                shipped = {e for e in map(extension, envelope.paths) if e is not None}
            if ext in shipped:
                cited.setdefault(name, f"bare basename, extension .{ext} shipped")
        return cited

    def judge(self, answer: str, envelope: Envelope) -> dict[str, Finding]:
        cited = self.citations(answer, envelope)
        normal = [(c, self.normalise(c), how) for c, how in cited.items()]
        if self.options.match == "directories":
            return self._judge_by_directories(normal, envelope)
        # The first citation (in answer order) that is the file's path, ends
        # with "/" + it, or that it ends with "/" + citation: looked up by
        # segment suffixes instead of comparing every citation with every file.
        first = SuffixIndex([n for _, n, _ in normal]).first_related
        normalise = self.normalise
        # Findings are frozen: one record per citation, one for every file not cited.
        uncited = Finding(self.name, False, None, "no cited path names this file")
        made: dict[int, Finding] = {}
        findings = {}
        for path in envelope.paths:
            i = first(normalise(path))
            if i is None:
                findings[path] = uncited
                continue
            finding = made.get(i)
            if finding is None:
                citation, _, how = normal[i]
                finding = made[i] = Finding(self.name, True, citation, f"path `{citation}`: {how}")
            findings[path] = finding
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
        table: dict[str, int] = {}
        # Returned files under every segment suffix of their path (a/b/c.js
        # under c.js, b/c.js and a/b/c.js) and under their whole path, in
        # returned order: no citation is compared with every file.
        by_suffix: dict[tuple, list[str]] = {}
        by_whole: dict[tuple, list[str]] = {}
        for p, f in files.items():
            keys = suffix_keys(f, table)
            by_whole.setdefault(keys[0][1], []).append(p)
            for _, key in keys:
                by_suffix.setdefault(key, []).append(p)
        credit: dict[str, tuple[str, str]] = {}
        ambiguous: dict[str, str] = {}
        for citation, n, how in normal:
            keys = suffix_keys(n, table)
            if how == "absolute path":
                # The longest returned path that the citation is, or ends with "/" + it.
                matches = []
                for _, key in keys:
                    matches = [p for p in by_whole.get(key, ()) if files[p] == n or n.endswith("/" + files[p])]
                    if matches:
                        break
            else:
                matches = [p for p in by_suffix.get(keys[0][1], ()) if files[p] == n or files[p].endswith("/" + n)]
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


def _inside(spans: list[tuple[int, int]], at: int) -> bool:
    """`at` lies in one of `spans` (finditer's: sorted, disjoint), by bisection."""
    k = bisect.bisect_right(spans, (at, float("inf"))) - 1
    return k >= 0 and spans[k][0] <= at < spans[k][1]


_MODULUS = (1 << 61) - 1
_BASE = 0x9E3779B97F4A7C15 % _MODULUS


def suffix_keys(path: str, table: dict[str, int]) -> list[tuple[int, tuple[int, int]]]:
    """(start offset, key) of each "/"-segment suffix of `path`, longest first.

    The suffix starting at segment j is path[start:]; equal suffixes get equal
    keys (segments numbered through the shared `table`, then a polynomial hash
    over them, with the segment count), computed in time linear in the path
    however many "/" it has. Keys can collide, so callers compare strings too.
    """
    segments = path.split("/")
    ids = [table.setdefault(s, len(table)) + 1 for s in segments]
    starts, at = [], 0
    for s in segments:
        starts.append(at)
        at += len(s) + 1
    keys: list[tuple[int, tuple[int, int]]] = [(0, (0, 0))] * len(segments)
    h = 0
    for j in range(len(segments) - 1, -1, -1):
        h = (ids[j] + _BASE * h) % _MODULUS
        keys[j] = (starts[j], (h, len(segments) - j))
    return keys


def _related(n: str, file: str) -> bool:
    """The reference's suffix match: equal, or one ends with "/" + the other."""
    return n == file or file.endswith("/" + n) or n.endswith("/" + file)


# A "/"-suffix of up to this many segments is keyed by its own text (no hashing,
# no collisions); longer ones by suffix_keys' hash, so that a path of
# thousands of segments costs time linear in it, not in segments x length.
# Equal suffixes have equal segment counts, hence keys of the same kind.
_TEXT_KEYS = 16


def _suffix_keys(path: str, table: dict[str, int]) -> list:
    """The key of each "/"-segment suffix of `path`, longest first."""
    count = path.count("/") + 1
    if count <= _TEXT_KEYS:
        keys = [path]
        at = path.find("/")
        while at >= 0:
            keys.append(path[at + 1 :])
            at = path.find("/", at + 1)
        return keys
    hashed = suffix_keys(path, table)
    cut = count - _TEXT_KEYS
    return [key for _, key in hashed[:cut]] + [path[start:] for start, _ in hashed[cut:]]


class SuffixIndex:
    """Cited paths (in order) indexed for the suffix match against one file at a time."""

    def __init__(self, cited: list[str]):
        self.cited = cited
        self.table: dict[str, int] = {}
        self.any_suffix: dict = {}  # a suffix of some citation -> first such citation
        self.whole: dict = {}  # a whole citation -> its first position
        for i, n in enumerate(cited):
            keys = _suffix_keys(n, self.table)
            self.whole.setdefault(keys[0], i)
            for key in keys:
                self.any_suffix.setdefault(key, i)

    def first_related(self, file: str) -> int | None:
        """The first citation `_related` to `file`, or None."""
        if not self.cited:
            return None
        keys = _suffix_keys(file, self.table)
        best = self.any_suffix.get(keys[0])  # the file is (a "/"-suffix of) a citation
        whole = self.whole
        for key in keys[1:]:  # a citation is a "/"-suffix of the file
            i = whole.get(key)
            if i is not None and (best is None or i < best):
                best = i
        if best is None:
            return None
        if _related(self.cited[best], file):
            return best
        # A hash collision (never seen; the keys are 61-bit): compare directly.
        return next((i for i, n in enumerate(self.cited) if _related(n, file)), None)


def _spans(pattern, text: str, memo: dict) -> list[tuple[int, int]]:
    """Every match's span: LinearPattern.spans (no match objects) when it has it.

    Kept in `memo` (the envelope's `answers`) under the pattern and the text:
    rulesets that differ in another path option, or in their envelope, search
    the answer once.
    """
    key = ("path", "spans", pattern, text)
    found = memo.get(key)
    if found is None:
        spans = getattr(pattern, "spans", None)
        found = memo[key] = spans(text) if spans is not None else [m.span() for m in pattern.finditer(text)]
    return found


@hookimpl
def citeledger_register_channels(register):
    register(PathChannel)
