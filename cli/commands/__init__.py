"""The subcommands, one module each (`add_parser(sub)` and the command's `run`).

SUMMARY is each command's one line in `citeledger --help`: here, so the
top-level help and the parser of a command not being run need no command
module imported (cli.build_parser).
"""

SUMMARY = {
    "score": "score one session (the reference's text block, or --json)",
    "explain": "why each returned file was or was not credited, channel by channel",
    "sweep": "score every session under files and directories: the baseline slice table",
    "compare": "new build vs baseline on the same questions: per-group runs, medians, bootstrap CI, plot",
    "sensitivity": "how far other rulesets move the numbers from a base ruleset",
    "check": "gate a build: codegraph's CG-6 fixtures and the session's own numbers against a spec (exit 4 on a failure)",
}
