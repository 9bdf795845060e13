"""The shapes real retrieval tools print, by name: header patterns the mcp source cuts with.

A shape is a header pattern with named groups (splitter.ROLES): `path`, and
where the tool names files by repository, `repo` (the path charged is then
`repo/path`, as `github.com/org/repo/lib/x.js`, which the path rule matches
to an answer's `lib/x.js`). A declaration (sources/mcp.py) names one shape or
several; several are joined into one pattern, each alternative's groups
numbered apart (`path_1`, `repo_1`, ...), so one output mixing them (a shell
loop running a search and a read) is cut at every header of any of them.

codegraph's explore headers are not here: they are the explore source's
`header` option (rulesets/default.yaml), their one definition.
"""

from __future__ import annotations

import re

SHAPES = {
    # Sourcegraph's search results (MCP keyword_search, nls_search, find_references,
    # commit_search; `sgx search`): `# github.com/org/repo – path/to/file` then `NN:` lines.
    "repo-sections": r"^# (?P<repo>[^\s–]+) – (?P<path>\S(?:[^\n]*\S)?)",
    # Sourcegraph's file reads (MCP read_file; `sgx read`): a line holding
    # `URL: https://host/<repo>@<rev>/-/blob/<path>[?L1-30]`, then `NN:` lines.
    "blob-url": r"URL: https?://[^\s/]+/(?P<repo>[^\s@?#]+?)(?:@[^\s/]*)?/-/blob/(?P<path>[^\s?#]+)",
    # grep-style lines (`rg -n`, `git grep -n`, a search tool's matches): `path:12:text`,
    # each line its file's (context lines `path-13-` join the line before).
    "path-line": r"^(?P<path>[^\s:][^:\n]*):\d+:",
    # opencode's grep: a `/abs/path/file:` line alone, then its `  Line N: text` lines.
    "path-colon": r"^(?P<path>[^\s][^\n]*):$",
    # opencode's read: `<path>/abs/file</path>`, then `<type>`, `<content>` with `N:` lines.
    "path-wrapper": r"^<path>(?P<path>[^<\n]+)</path>",
}

_NAMED = re.compile(r"\(\?P<(path|repo|rest)>")


def joined(names, own: str = "", breaks: str = "") -> str:
    """One header pattern of the named shapes (and a declaration's own `header`, which then names
    its groups, and its `breaks`, last): each an alternative, its groups renamed `<role>_<n>`,
    `^` a line start. An own header alone is used as written. A `breaks` match starts a
    section of no file (a query banner, a separator a script printed)."""
    if own and not names and not breaks:
        return own  # as written (its groups 1 and 2, or its named groups)
    parts = [SHAPES[name] for name in names] + ([own] if own else [])
    renamed = [_NAMED.sub(lambda m, n=n: f"(?P<{m.group(1)}_{n}>", part) for n, part in enumerate(parts, 1)]
    if breaks:  # names no file: a section of no file from here to the next header
        renamed.append(breaks)
    return "(?m)(?:" + "|".join(f"(?:{part})" for part in renamed) + ")"
