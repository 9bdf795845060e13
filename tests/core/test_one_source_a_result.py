"""A tool result claimed by two sources of one ruleset is charged once, by the first in
`sources.use`, and the overlap is said (issue 32 item 6: it was charged twice silently)."""

from __future__ import annotations

import json

from builders import answer_to, use, write_jsonl
from citeledger.cli import main


def test_a_read_result_claimed_by_read_and_mcp_is_charged_once(tmp_path, capsys):
    body = "".join(f"{i:>6}\u2192line {i}\n" for i in range(1, 21))
    run = write_jsonl(tmp_path / "run.jsonl", [
        {"type": "system", "subtype": "init", "tools": ["Read"]},
        use("toolu_1", "Read", {"file_path": "lib/a.js"}, message="msg_1"), answer_to("toolu_1", body),
        {"type": "result", "subtype": "success", "result": "It is in `lib/a.js`."},
    ])
    both = tmp_path / "both.yaml"
    both.write_text("extends: default\nname: both\nsources:\n  use: [read, mcp]\n"
                    "  mcp:\n    tool: '^Read$'\n    header: '(?m)^## File: (\\S+)([^\\n]*)'\n")
    alone = tmp_path / "alone.yaml"
    alone.write_text("extends: default\nname: alone\nsources:\n  use: [read]\n")
    status = main(["score", "--json", "--ruleset", str(both), str(run)])
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    main(["score", "--json", "--ruleset", str(alone), str(run)])
    single = json.loads(capsys.readouterr().out)
    assert status == 1
    assert (len(data["calls"]), data["envelope"]) == (1, single["envelope"]) == (1, len(body))
    assert "sources read and mcp both read 1 tool result(s); each is charged once, by read" in captured.err
