"""Windows shells' reads (PowerShell's Get-Content, cmd's type) are shell reads under the
bash_read source (issue 41). Hand-made: no real transcript of sets A-C runs one."""

from __future__ import annotations

import json

from citeledger.cli import main


def _session(tmp_path, command, output):
    lines = [{"type": "assistant", "message": {"id": "m1", "content": [
                 {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": command}}]}},
             {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": output}]}},
             {"type": "result", "subtype": "success", "result": "It is in src/app.ts."}]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def score(capsys, path):
    main(["score", "--ruleset", "retrieval", "--json", str(path)])
    return json.loads(capsys.readouterr().out)


def test_get_content_and_type_read_the_file_they_name(tmp_path, capsys):
    for command in ("Get-Content -Path src\\app.ts", "powershell -c gc 'src/app.ts'", "type src\\app.ts"):
        data = score(capsys, _session(tmp_path, command, "export const app = 1;\n"))
        assert [(f["path"], f["chars"]) for f in data["files"]] == [("src/app.ts", 22)], command
        assert data["used"] == 22


def test_a_redirect_or_a_name_without_a_path_is_no_read(tmp_path, capsys):
    for command in ("Get-Content a.txt > b.txt", "type ls"):
        main(["score", "--ruleset", "retrieval", "--json", str(_session(tmp_path, command, "x\n"))])
        out, _ = capsys.readouterr()
        assert json.loads(out)["envelope"] == 0, command
