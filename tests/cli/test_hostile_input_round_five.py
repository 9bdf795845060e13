"""Hostile input, round five (issue 45): the gate, the harness report, the fleet, the cache and
third-party plugins. Each test is named for what the hostile input does; none may end in an
internal error (exit 3), a hang or a traceback, and each refusal is one line naming what it refuses.
Most run in this process (the CLI's `main`); what needs a process of its own uses test_hostile_input's
`run` (forked, memory-capped, hang-guarded).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import explored, response, section, write_jsonl
from citeledger.cli import main

INTERNAL = 3


def _session(path: Path, *paths: str, answer: str = "see lib/a.js", extra=()) -> Path:
    rows = explored("t1", "q", response(*(section(p, body="x\n") for p in paths)))
    return write_jsonl(path, [*rows, *extra, {"type": "result", "subtype": "success", "result": answer}])


def test_a_second_sweep_into_an_out_folder_inside_the_swept_folder_does_not_read_its_own_report(tmp_path, capsys):
    logs = tmp_path / "logs"
    logs.mkdir()
    _session(logs / "run.jsonl", "lib/a.js")
    for _ in range(2):
        assert main(["sweep", str(logs), "--out", str(logs / "report"), "-q", "-j1"]) == 0
        out, err = capsys.readouterr()
        assert "sweep.jsonl" not in err
    lines = (logs / "report" / "sweep.jsonl").read_text().splitlines()
    sessions = [json.loads(line) for line in lines if json.loads(line)["record"] == "session"]
    assert [s["inputs"] for s in sessions] == [[str(logs / "run.jsonl")]]


# ---------------------------------------------------------------- item 14: check's fixtures x reports


def test_a_spec_of_many_fixtures_over_a_sidecar_of_many_reports_costs_their_sum_not_their_product():
    from types import SimpleNamespace

    from cpu_time import grows_linearly

    from citeledger.cli.commands.check import _fixtures
    from citeledger.harness.check_spec import Assertions, Fixture

    def make(n):
        spec = SimpleNamespace(fixtures=[Fixture(id=f"f{i}", title="", query=f"asked {i}", groups=(),
                                                 assertions=Assertions()) for i in range(n)])
        reports = [SimpleNamespace(query=f"other {i}") for i in range(n)]  # none answers: each scanned all
        return lambda: _fixtures(spec, {}, reports, [], ["explore-new.jsonl"])

    linear, small, large = grows_linearly(make, 5_000, repeat=5)
    assert linear, f"5,000 fixtures and reports: {small:.3f} s; 20,000 each: {large:.3f} s"


# ---------------------------------------------------------------- items 1, 2: numbers from outside

OUT_OF_RANGE = "is out of range (a finite number of magnitude at most 9,007,199,254,740,992): null in JSON and CSV"


def _usage_session(path: Path, usage: str, result: str = "") -> Path:
    """A one-call session whose two requests log `usage` (raw JSON, so 1e400 stays 1e400) and
    whose result event adds `result` (raw JSON members)."""
    explore = "mcp__codegraph__codegraph_explore"
    answer = json.dumps({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": [
        {"type": "text", "text": "**Exploration: q**\n\n**`lib/a.js`**\nx\n"}]}]}})
    rows = [
        '{"type":"system","subtype":"init","tools":["%s"]}' % explore,
        '{"type":"assistant","message":{"id":"m1","usage":%s,"content":[{"type":"tool_use","id":"t1","name":"%s",'
        '"input":{"query":"q"}}]}}' % (usage, explore),
        answer,
        '{"type":"assistant","message":{"id":"m2","usage":%s,"content":[{"type":"text","text":"see lib/a.js"}]}}' % usage,
        '{"type":"result","subtype":"success","result":"see lib/a.js"%s}' % result,
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(rows) + "\n")
    return path


def _usage(input_tokens: str, output_tokens: str = "1") -> str:
    return ('{"input_tokens":%s,"output_tokens":%s,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}'
            % (input_tokens, output_tokens))


@pytest.mark.parametrize("count", ["1e30", "1000000000000000000000000000000", "18446744073709551615"])
def test_a_usage_count_past_2_to_the_53_in_one_transcript_loses_no_sweep(tmp_path, capsys, count):
    logs = tmp_path / "logs"
    _usage_session(logs / "huge.jsonl", _usage(count))
    _session(logs / "plain.jsonl", "lib/a.js")
    status = main(["sweep", str(logs), "--json", "-q", "-j1", "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert status == 1, err
    records = [json.loads(line) for line in out.splitlines()]
    sessions = {r["inputs"][0].rsplit("/", 1)[1]: r for r in records if r["record"] == "session"}
    assert set(sessions) == {"huge.jsonl", "plain.jsonl"} and sessions["huge.jsonl"]["status"] == "scored"
    assert sessions["huge.jsonl"]["run_tokens_processed"] is None
    assert f"huge.jsonl:2: usage.input_tokens: " in err and OUT_OF_RANGE in err
    assert (tmp_path / "out" / "sweep.jsonl").read_bytes() == out.encode()
    header, *rows = (tmp_path / "out" / "sessions.csv").read_text().splitlines()
    column = header.split(",").index("run_tokens_processed")
    assert sorted(row.split(",")[column] for row in rows)[0] == ""  # null, as in JSON


def test_non_finite_usage_and_result_numbers_print_as_node_prints_them(tmp_path, capsys):
    run = _usage_session(tmp_path / "inf.jsonl", _usage("1e400"), ',"duration_ms":-1e400,"total_cost_usd":1e30')
    for argv in (["score", "--harness"], ["score", "--harness", "--session"], ["score"], ["score", "--json"],
                 ["score", "--html", str(tmp_path / "page.html")]):
        status = main([*argv, str(run)])
        out, err = capsys.readouterr()
        assert status in (0, 1), (argv, err)
        assert "inf.jsonl:5: duration_ms: -Infinity " + OUT_OF_RANGE in err
        assert "inf.jsonl:5: total_cost_usd: 1e+30 " + OUT_OF_RANGE in err
        if argv == ["score", "--harness"]:  # what parse-run.mjs prints for these numbers
            assert "Result: success | duration -Infinitys | turns 2\n" in out
            assert "  tokens processed: ∞ | cost $1e+30\n" in out
        if argv == ["score", "--harness", "--session"]:  # parse-session.mjs's
            assert "TOKENS: gen 0.0k | fresh-in Infinityk | cached-in 0.0k | billable≈ Infinityk" in out
        if argv == ["score", "--json"]:
            run_figures = json.loads(out)["run"]
            assert (run_figures["duration_s"], run_figures["tokens_processed"], run_figures["cost_usd"]) == (None,) * 3


def test_a_sidecar_score_and_share_of_1e400_and_1e30_are_judged_and_printed_as_node_prints_them(tmp_path, capsys):
    sidecar_lines = SIDECAR.read_text().splitlines()
    report = json.loads(sidecar_lines[12])
    report["files"][0].update(score="@INF@", share="@INF@", graphScore=1e30)
    sidecar = tmp_path / "explore-new.jsonl"
    sidecar.write_text("\n".join(json.dumps(report).replace('"@INF@"', "1e400") for _ in range(1)) + "\n")
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"fixtures": [{"id": "res-send", "title": "t", "query": report["query"],
                                              "groups": {"answer": ["lib/response.js"]},
                                              "assert": {"answerShareAtLeast": 0.6}}]}))
    for argv in (["check", spec, "--diagnostics", sidecar, RUN], ["score", "--diagnostics", sidecar, RUN],
                 ["score", "--json", "--diagnostics", sidecar, RUN], ["explain", "--diagnostics", sidecar, RUN]):
        status = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        assert status == 1, (argv, err)  # judged, with the numbers warned about: never a silent 0
        assert f"{sidecar.name}:1: files[0].score: Infinity {OUT_OF_RANGE}" in err
        assert f"{sidecar.name}:1: files[0].graphScore: 1e+30 {OUT_OF_RANGE}" in err
        if argv[0] == "check":
            assert "  Infinity    1e+30 " in out and "answer Infinity% delivered" in out


SIDECAR = Path(__file__).resolve().parents[1] / "fixtures" / "pass" / "cg22" / "ab-express" / "explore-new.jsonl"
RUN = SIDECAR.parent / "run-new-1.jsonl"


@pytest.mark.parametrize("value, fixed, whole, rounded", [
    (1e30, "1e+30", "1,000,000,000,000,000,000,000,000,000,000", 1e30),
    (float("inf"), "Infinity", "∞", float("inf")),
    (float("-inf"), "-Infinity", "-∞", float("-inf")),
    (1.2345678901234569e23, "1.2345678901234569e+23", "123,456,789,012,345,690,000,000", 1.2345678901234569e23),
    (2.5, "2.5", "3", 3),
])
def test_javascripts_number_formats_are_total_over_doubles(value, fixed, whole, rounded):
    # node: x.toFixed(1), Math.round(x).toLocaleString('en-US'), Math.round(x)
    from citeledger.infra.jsstr import js_round, thousands, to_fixed

    assert (to_fixed(value, 1), thousands(js_round(value)), js_round(value)) == (fixed, whole, rounded)


def test_compare_arms_harness_over_runs_logging_infinity_and_1e30_prints_their_table(tmp_path, capsys):
    _usage_session(tmp_path / "pass" / "run-new-1.jsonl", _usage("1e400"), ',"duration_ms":1e400,"total_cost_usd":1e30')
    _usage_session(tmp_path / "pass" / "run-base-1.jsonl", _usage("1e30"))
    status = main(["compare", str(tmp_path / "pass"), "--arms", "base", "new", "--harness"])
    out, err = capsys.readouterr()
    assert status in (0, 1) and "run-new-1.jsonl:5: duration_ms: Infinity " + OUT_OF_RANGE in err
    # compare-arms.mjs: 1e30 tokens as toLocaleString writes them; Infinity is no figure (—)
    assert "    final context (tok)                1,000,000,000,000,000,000,000,000,000,000                       —\n" in out


# ---------------------------------------------------------------- item 5: third-party plugins


def _distribution(site: Path, name: str, entry_points: dict, modules: dict) -> Path:
    """A distribution as an installer leaves it (a .dist-info folder, its modules beside it): enough
    for importlib.metadata to find its entry points on PYTHONPATH, without a build."""
    info = site / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[citeledger]\n" + "".join(f"{key} = {value}\n" for key, value in entry_points.items()))
    for module, text in modules.items():
        (site / f"{module}.py").write_text(text)
    return site


def _citeledger(args, site: Path, cache: Path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(site), "XDG_CACHE_HOME": str(cache)}
    return subprocess.run([sys.executable, "-m", "citeledger.cli", *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=120)


def _failing_spec(tmp_path: Path) -> Path:
    report = json.loads(SIDECAR.read_text().splitlines()[12])
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"fixtures": [{"id": "res-send", "title": "t", "query": report["query"],
                                              "groups": {"answer": ["lib/response.js"]},
                                              "assert": {"answerShareAtLeast": 0.99}}]}))
    return spec


HOOK = "from citeledger.core import hookimpl\n\n@hookimpl\ndef citeledger_register_channels(register):\n"


@pytest.mark.parametrize("module, said", [
    ("import sys\nsys.exit(0)\n", "importing it called sys.exit(0)"),
    ("raise RuntimeError('no licence server')\n", "importing it raised RuntimeError: no licence server"),
    ("def broken(:\n", "importing it raised SyntaxError"),
    (HOOK + "    register(42)\n", "citeledger_register_channels registered 42, not a class"),
    (HOOK + "    raise ValueError('hook failed')\n",
     "its citeledger_register_channels hook raised ValueError: hook failed"),
    (HOOK + "    raise SystemExit(0)\n", "its citeledger_register_channels hook called sys.exit(0)"),
])
def test_a_plugin_that_exits_or_raises_on_import_or_in_its_hook_stops_check_in_one_line_naming_it(
        tmp_path, module, said):
    site = _distribution(tmp_path / "site", "hostile", {"hostile_plugin": "hostile_module"},
                         {"hostile_module": module})
    done = _citeledger(["check", _failing_spec(tmp_path), "--diagnostics", SIDECAR, RUN], site, tmp_path / "cache")
    assert done.returncode == 2 and done.stdout == "", done.stderr  # refused: never a silent 0
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("citeledger: error: plugin 'hostile_plugin'") and said in done.stderr


def test_an_entry_point_named_like_a_built_in_does_not_replace_it(tmp_path):
    site = _distribution(tmp_path / "site", "shadow", {"path": "shadow_module"}, {"shadow_module": "X = 1\n"})
    run = _session(tmp_path / "run.jsonl", "lib/a.js")
    for _ in range(2):  # the scan, then the kept index
        done = _citeledger(["score", run], site, tmp_path / "cache")
        assert done.returncode == 0, done.stderr
        assert "efficiency 100.0%" in " ".join(done.stdout.split())
        assert done.stderr == ("citeledger: warning: plugin 'path' (shadow_module, distribution shadow) is named "
                               "like a built-in plugin of citeledger: ignored (rename its entry point)\n")


def test_a_plugin_calling_sys_exit_in_a_channel_is_an_internal_error_not_a_pass(tmp_path, capsys, monkeypatch):
    from citeledger.core import plugins

    channel = plugins.channels()["path"]
    monkeypatch.setattr(channel, "judge", lambda *args: __import__("sys").exit(0))
    run = _session(tmp_path / "run.jsonl", "lib/a.js")
    assert main(["score", str(run)]) == INTERNAL
    assert "sys.exit(0) was called during the run (a plugin?); nothing was judged" in capsys.readouterr().err


# ---------------------------------------------------------------- item 4: --engine dask=ADDRESS

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


@pytest.mark.parametrize("engine, said", [
    ("dask=", "--engine dask=: no address (give dask=tcp://HOST:PORT, or dask alone for a local cluster)"),
    ("dask=foo://h:1", "--engine dask=foo://h:1: unknown scheme 'foo': expected tcp://HOST:PORT"),
    ("dask=tcp://127.0.0.1", "--engine dask=tcp://127.0.0.1: no port: expected tcp://HOST:PORT"),
    ("dask=tcp://127.0.0.1:70000", "--engine dask=tcp://127.0.0.1:70000: port '70000' is not an integer from 1"),
    ("dask=tcp://127.0.0.1:0", "port '0' is not an integer from 1 to 65,535"),
    ("dask=tcp://:8786", "--engine dask=tcp://:8786: no host"),
    ("dask=inproc://10.0.0.1/1/1", "--engine dask=inproc://10.0.0.1/1/1: inproc:// is an address inside one"),
    ("dask=tls://h:8786", "--engine dask=tls://h:8786: tls:// needs certificates"),
    ("dask=ucx://h:8786", "--engine dask=ucx://h:8786: ucx:// needs UCX"),
])
def test_a_dask_address_that_cannot_be_used_is_refused_before_anything_starts(capsys, engine, said):
    assert main(["sweep", str(REAL), "-q", "--engine", engine]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err


def test_a_dask_timeout_outside_1_to_600_seconds_is_refused(capsys):
    assert main(["sweep", str(REAL), "-q", "--engine", "dask=tcp://127.0.0.1:8786", "--dask-timeout", "601"]) == 2
    assert "--dask-timeout 601: out of range (an integer from 1 to 600" in capsys.readouterr().err


def test_a_refused_dask_port_is_one_line_naming_it_at_once(capsys):
    import socket

    with socket.socket() as unused:  # bound, never listening: connecting is refused
        unused.bind(("127.0.0.1", 0))
        address = "tcp://127.0.0.1:%d" % unused.getsockname()[1]
        assert main(["sweep", str(REAL), "-q", "--engine", f"dask={address}"]) == 2
    assert capsys.readouterr().err == f"citeledger: error: --engine dask={address}: cannot connect: Connection refused\n"


def _peer(sends: bytes):
    """A listener of the test's own: it accepts, writes `sends` (nothing: silent) and never answers more."""
    import socket
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    held = []

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            conn.sendall(sends)

    threading.Thread(target=serve, daemon=True).start()
    return server, "tcp://127.0.0.1:%d" % server.getsockname()[1]


@pytest.mark.parametrize("sends, said", [
    (b"", "no Dask scheduler answered within 1 s"),
    (__import__("struct").pack("<Q", 2**62), "not a Dask scheduler (it announced a message too large to hold)"),
    (__import__("struct").pack("<Q", 16) + b"\x02\x00\x00\x00\x00\x00\x00\x00junk!!!!", "not a Dask scheduler"),
    (b"HTTP/1.1 200 OK\r\n\r\n<html>", "not a Dask scheduler"),
])
def test_a_dask_peer_that_is_silent_or_answers_junk_is_one_line_within_the_timeout(capsys, sends, said):
    import time

    server, address = _peer(sends)
    started = time.monotonic()
    try:
        status = main(["sweep", str(REAL), "-q", "--engine", f"dask={address}", "--dask-timeout", "1"])
    finally:
        server.close()
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1, err
    assert err.startswith(f"citeledger: error: --engine dask={address}: ") and said in err
    assert time.monotonic() - started < 10  # the timeout, not Dask's 30 s nor forever


# ---------------------------------------------------------------- item 3: --parquet and text that is no UTF-8


def test_a_lone_surrogate_or_a_non_utf8_file_name_is_written_to_parquet_escaped_as_csv_writes_it(tmp_path, capsys):
    import csv
    import os

    pq = pytest.importorskip("pyarrow.parquet")
    logs = tmp_path / "logs"
    rows = explored("t1", "q\ud800uery", response(section("lib/\ud800a.js", body="x\n"), section("lib/b.js", body="y\n")))
    write_jsonl(logs / "lone.jsonl", [*(json.dumps(r) for r in rows),  # ASCII escapes: valid JSON, no UTF-8
                                      {"type": "result", "subtype": "success", "result": "see lib/b.js"}])
    plain = _session(logs / "plain.jsonl", "lib/a.js")
    os.rename(plain, os.path.join(os.fsencode(logs), b"caf\xe9.jsonl"))  # a file name that is not UTF-8
    out = tmp_path / "out"
    assert main(["sweep", str(logs), "--out", str(out), "--parquet", "-q", "-j1"]) == 0, capsys.readouterr().err
    for table in ("calls", "files"):
        with open(out / f"{table}.csv", newline="", encoding="utf-8") as fh:
            header, *cells = list(csv.reader(fh))
        parquet = pq.read_table(out / f"{table}.parquet").to_pylist()
        for column in ("session", "query", "path"):
            if column in header:
                at = header.index(column)
                assert [row[at] for row in cells] == [str(row[column]) for row in parquet]
    files = pq.read_table(out / "files.parquet").to_pylist()
    assert {r["session"] for r in files} == {"caf\\udce9.jsonl", "lone.jsonl"}
    assert "lib/\\ud800a.js" in {r["path"] for r in files}
    assert "q\\ud800uery" in pq.read_table(out / "calls.parquet").column("query").to_pylist()


# ---------------------------------------------------------------- items 6, 7: specs read as rulesets are


def _check(spec: Path, capsys) -> tuple:
    status = main(["check", str(spec), "--diagnostics", str(SIDECAR), str(RUN)])
    out, err = capsys.readouterr()
    return status, out, err


def _spec_yaml(tmp_path: Path, body: str) -> Path:
    spec = tmp_path / "spec.yaml"
    spec.write_text(body)
    return spec


def _fixture_yaml(fixture_id: str, share: str = "0.5", must: str = "[]") -> str:
    query = json.loads(SIDECAR.read_text().splitlines()[12])["query"]
    return (f"  - id: {fixture_id}\n    title: t\n    query: {json.dumps(query)}\n"
            f"    groups: {{answer: [lib/response.js]}}\n    assert: {{answerShareAtLeast: {share}, mustContain: {must}}}\n")


def test_a_spec_whose_aliases_expand_a_100_kb_string_100000_times_is_refused_unexpanded(tmp_path, capsys):
    spec = _spec_yaml(tmp_path, "big: &s " + "x" * 100_000 + "\nfixtures:\n"
                      + _fixture_yaml("f", must="[" + ", ".join(["*s"] * 100_000) + "]"))
    status, out, err = _check(spec, capsys)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"citeledger: error: {spec}:") and "aliases expand to more than 16,777,216 characters" in err


def test_a_ruleset_whose_aliases_expand_a_long_string_is_refused_as_a_spec_is(tmp_path, capsys):
    ruleset = tmp_path / "r.yaml"
    ruleset.write_text("extends: default\ndescription: &s " + "x" * 100_000 + "\nname: r\n$notes: ["
                       + ", ".join(["*s"] * 200) + "]\n")
    assert main(["score", "--ruleset", str(ruleset), str(RUN)]) == 2
    assert "aliases expand to more than 16,777,216 characters (an alias bomb?)" in capsys.readouterr().err


@pytest.mark.parametrize("digits", [400, 5_000])
@pytest.mark.parametrize("form", ["json", "yaml"])
def test_a_spec_threshold_of_hundreds_or_thousands_of_digits_is_refused_in_one_line(tmp_path, capsys, digits, form):
    if form == "yaml":
        spec = _spec_yaml(tmp_path, "fixtures:\n" + _fixture_yaml("f", share="9" * digits))
    else:
        spec = tmp_path / "spec.json"
        spec.write_text('{"fixtures": [{"id": "f", "title": "t", "query": "q", "groups": {"a": ["x"]},'
                        ' "assert": {"answerShareAtLeast": %s}}]}' % ("9" * digits))
    status, out, err = _check(spec, capsys)
    assert status == 2 and err.count("\n") == 1, err
    assert ("a number too long to read (more than 4,300 digits)" in err if digits > 4_300
            else f"answerShareAtLeast: a number of {digits} digits is out of range (a number from 0 to 1)" in err)


@pytest.mark.parametrize("form", ["json", "yaml"])
@pytest.mark.parametrize("twice", ["fixtures", "session"])
def test_a_spec_writing_a_key_twice_is_refused_rather_than_the_last_winning(tmp_path, capsys, form, twice):
    failing = _fixture_yaml("fails", share="0.99")
    if form == "yaml":
        blocks = {"fixtures": f"fixtures:\n{failing}fixtures:\n{_fixture_yaml('holds')}",
                  "session": f"fixtures:\n{failing}session: {{noRace: true}}\nsession: {{noContamination: true}}\n"}
        spec = _spec_yaml(tmp_path, blocks[twice])
    else:
        one = '{"id": "f", "title": "t", "query": "q", "groups": {"a": ["x"]}, "assert": {}}'
        spec = tmp_path / "spec.json"
        spec.write_text({"fixtures": '{"fixtures": [%s], "fixtures": []}' % one,
                         "session": '{"session": {"noRace": true}, "session": {}}'}[twice])
    status, out, err = _check(spec, capsys)
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert f"{twice}: duplicate key" in err


def test_a_spec_nested_past_64_levels_is_refused(tmp_path, capsys):
    spec = tmp_path / "spec.json"
    spec.write_text('{"fixtures": [], "$deep": ' + "[" * 200 + "]" * 200 + "}")
    status, out, err = _check(spec, capsys)
    assert status == 2 and "nested deeper than 64 levels" in err


def test_an_escape_sequence_and_a_newline_in_a_spec_key_or_an_arms_label_reach_stderr_escaped(tmp_path, capsys):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"fixtures": [{"id": "f", "title": "t", "query": "q", "groups": {"a": ["x"]},
                                              "assert": {"\x1b]52;c;ZXZpbA==\x07\nPASS  f": 1}}]}))
    status, out, err = _check(spec, capsys)
    assert status == 2 and err.count("\n") == 1 and "\x1b" not in err and "\x07" not in err
    assert "\\x1b]52;c;ZXZpbA==\\x07\\nPASS  f" in err
    (tmp_path / "pass").mkdir()
    (tmp_path / "pass" / "run-new-1.jsonl").write_bytes(RUN.read_bytes())
    assert main(["compare", str(tmp_path / "pass"), "--arms", "x\x1b]0;title\x07\ny", "new"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err and "--arms x\\x1b]0;title\\x07\\ny" in err


# ---------------------------------------------------------------- item 9: the files kept in the user's cache

EXPRESS = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "stream" / "express-sendfile-2calls.jsonl"


def _score_with_cache(cache: Path):
    """`score` in a fresh interpreter (the kept files are read at start-up), capped at 512 MB of
    address space and 60 s: /dev/zero read whole or a FIFO waited on fails the test, not the machine."""
    import os
    import resource
    import subprocess
    import sys

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))

    return subprocess.run([sys.executable, "-m", "citeledger.cli", "score", str(EXPRESS)], capture_output=True,
                          text=True, env={**os.environ, "XDG_CACHE_HOME": str(cache)}, preexec_fn=cap, timeout=60)


@pytest.mark.parametrize("replacement", ["fifo", "dev-zero", "oversized"])
def test_a_fifo_or_a_link_to_dev_zero_in_place_of_a_kept_file_is_replaced_not_read(tmp_path, replacement):
    import os

    first = _score_with_cache(tmp_path)
    assert first.returncode == 0, first.stderr
    kept = sorted((tmp_path / "citeledger").iterdir())
    assert {p.name.rsplit("-", 1)[0] for p in kept} == {"header-grammar", "header-terminals", "plugins", "ruleset"}
    for path in kept:
        path.unlink()
        if replacement == "fifo":
            os.mkfifo(path)
        elif replacement == "dev-zero":
            path.symlink_to("/dev/zero")
        else:
            with open(path, "wb") as fh:
                fh.truncate(17 << 20)  # past MAX_KEPT_BYTES (sparse: no disk)
    again = _score_with_cache(tmp_path)
    assert again.returncode == 0 and again.stdout == first.stdout and again.stderr == "", again.stderr
    assert all(path.is_file() and not path.is_symlink() and path.stat().st_size < 1 << 20 for path in kept)


def test_a_kept_plugin_index_without_digests_naming_a_missing_module_is_not_trusted(tmp_path, monkeypatch):
    import marshal

    from citeledger import __version__
    from citeledger.core import plugins
    from citeledger.infra import plugin_index

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = plugin_index.index_file(__version__)
    entries = [("path", "citeledger_no_such_module", (("channels", (("path", "citeledger_no_such_module.P"),)),))]
    for sources in ([], [("citeledger_no_such_module", "/nonexistent.py", None)]):
        open(path, "wb").write(marshal.dumps((entries, sources, [])))
        assert plugin_index.kept(path) is None  # built again: the real index
    plugins.index.cache_clear()
    try:
        rebuilt = plugins.index()
        assert [e.module for e in rebuilt.providers("channels")["path"]] == ["citeledger.channels.path"]
        assert plugin_index.kept(path) == rebuilt  # the rebuilt index, kept, proves itself
    finally:
        plugins.index.cache_clear()


# ---------------------------------------------------------------- item 10: a full /tmp mid-sweep

PASS = Path(__file__).resolve().parents[1] / "fixtures" / "pass"


class _FullAfter:
    """A temporary file on a disk that fills after `room` bytes: writes fail with ENOSPC, and so does
    flushing on close when `close_fails` (as a buffered file's last flush does)."""

    def __init__(self, room: int, close_fails: bool = False):
        import io

        self.data, self.room, self.close_fails = io.BytesIO(), room, close_fails

    def write(self, data):
        import errno

        if self.data.tell() + len(data) > self.room:
            raise OSError(errno.ENOSPC, "No space left on device")
        return self.data.write(data)

    def seek(self, *args):
        return self.data.seek(*args)

    def read(self, *args):
        return self.data.read(*args)

    def close(self):
        import errno

        if self.close_fails:
            raise OSError(errno.EFBIG, "File too large")


@pytest.mark.parametrize("close_fails", [False, True])
@pytest.mark.parametrize("argv", [["--json"], ["--out", "OUT"]])
def test_a_full_tmp_mid_sweep_is_the_documented_line(tmp_path, capsys, monkeypatch, argv, close_fails):
    import tempfile

    from citeledger.cli import spool

    monkeypatch.setattr(spool.tempfile, "TemporaryFile", lambda: _FullAfter(20_000, close_fails))
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    assert main(["sweep", str(REAL), str(PASS), "-q", "-j2", *argv]) == 2
    out, err = capsys.readouterr()
    assert err == f"citeledger: error: {tempfile.gettempdir()}: cannot write a temporary file: No space left on device\n"
    assert not (tmp_path / "out").exists()  # nothing half-written


def test_a_file_size_limit_hit_mid_sweep_on_two_jobs_exits_with_the_line_and_does_not_hang(tmp_path):
    import resource
    import subprocess
    import sys
    import tempfile

    def limited():  # every file this process writes stops at 32 KB: EFBIG (Python ignores SIGXFSZ)
        resource.setrlimit(resource.RLIMIT_FSIZE, (32 << 10, 32 << 10))

    for _ in range(3):
        done = subprocess.run([sys.executable, "-m", "citeledger.cli", "sweep", str(REAL), str(PASS), "--json", "-q",
                               "-j2"], capture_output=True, preexec_fn=limited, timeout=60)
        assert done.returncode == 2, done.stderr
        assert done.stderr.decode() == (f"citeledger: error: {tempfile.gettempdir()}: cannot write a temporary "
                                        "file: File too large\n")


# ---------------------------------------------------------------- item 13: no forged lines in check and --harness

FORGED_VERDICT = "check: PASS — 9 of 9 check(s) hold"


def test_newlines_in_fixture_ids_titles_needles_and_sidecar_fields_forge_no_pass_line_in_check(tmp_path, capsys):
    report = json.loads(SIDECAR.read_text().splitlines()[12])
    report["query"] += "\nPASS  forged-query"
    report["projectRoot"] = "/p\n" + FORGED_VERDICT
    report["files"][0]["path"] = "lib/response.js\n   PASS  forged-path"
    sidecar = tmp_path / "explore-new.jsonl"
    sidecar.write_text(json.dumps(report) + "\n")
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"fixtures": [{
        "id": "res-send\nPASS  forged-id", "title": "t\n" + FORGED_VERDICT, "query": report["query"],
        "groups": {"answer\nPASS  forged-group": ["lib/utils.js"]},
        "assert": {"answerShareAtLeast": 0.99, "mustContain": ["lib/\n   PASS  forged-needle"]}}]}))
    status = main(["check", str(spec), "--diagnostics", str(sidecar), str(RUN)])
    out, err = capsys.readouterr()
    assert status == 4, err  # the checks fail, and the text says so on every line that judges
    judged = [line for line in out.splitlines() if line.lstrip().startswith(("PASS", "FAIL", "check:"))]
    assert all(line.lstrip().startswith(("FAIL", "check: FAIL")) for line in judged), judged
    assert out.splitlines()[-1] == "check: FAIL — 0 of 2 check(s) hold"
    assert "res-send\\nPASS  forged-id" in out and "lib/response.js\\n   PASS  forged-path" in out
    assert "/p\\ncheck: PASS" in out and "forged-query" in out and "forged-needle" in out


def test_newlines_in_tool_names_read_paths_and_result_subtypes_forge_no_harness_rows(tmp_path, capsys):
    explore = "mcp__codegraph__codegraph_explore"
    rows = [*explored("t1", "q", response(section("lib/a.js", body="x\n"))),
            {"type": "assistant", "message": {"id": "m9", "content": [
                {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "lib/a.js\n  3. Forged row"}},
                {"type": "tool_use", "id": "r2", "name": "Grep\n  4. Forged tool", "input": {"pattern": "x"}}]}},
            {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "r1", "content": "x"},
                                                     {"type": "tool_result", "tool_use_id": "r2", "content": "x"}]}},
            {"type": "result", "subtype": "success\nResult: forged | duration 0s", "result": "see lib/a.js"}]
    run = write_jsonl(tmp_path / "run.jsonl", rows)
    assert main(["score", "--harness", str(run)]) in (0, 1)
    out = capsys.readouterr().out
    numbered = [line for line in out.splitlines() if line[:4].strip().rstrip(".").isdigit() and line.startswith("  ")]
    assert [line.split(".", 1)[0].strip() for line in numbered] == ["1", "2", "3"], numbered
    assert "  2. Read a.js\\n  3. Forged row\n  3. Grep\\n  4. Forged tool\n" in out  # parse-run.mjs's basename
    assert [line for line in out.splitlines() if line.startswith("Result:")] == [
        "Result: success\\nResult: forged | duration 0s | duration 0s | turns 1"]
    assert f"  1. {explore} " in out


def test_newlines_in_an_interactive_sessions_tool_names_forge_no_session_rows(tmp_path, capsys):
    source = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "real" / "interactive").glob("*/*.jsonl"))[0]
    lines = []
    for line in source.read_text().splitlines():
        event = json.loads(line)
        content = (event.get("message") or {}).get("content") if isinstance(event.get("message"), dict) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") == "Agent":
                block["name"] = "Agent\nVERDICT: forged"
        lines.append(json.dumps(event))
    log = tmp_path / source.parent.name / source.name
    log.parent.mkdir()
    log.write_text("\n".join(lines) + "\n")
    assert main(["score", "--harness", "--session", str(log)]) in (0, 1)
    out = capsys.readouterr().out
    assert len([line for line in out.splitlines() if line.startswith("VERDICT:")]) == 1
    assert "Agent\\nVERDICT: forged" in out


# ---------------------------------------------------------------- item 8: a million starvation pairs


def _starving_report(n: int) -> dict:
    """One sidecar report of `n` files: the first half starved (score 100, 100 of 4,000 spent),
    the second half overspent (score 1, 5,000 of 2,000): every starved file pairs with every overspent one."""
    report = json.loads(SIDECAR.read_text().splitlines()[12])
    base = report["files"][0]
    report["files"] = [{**base, "path": f"src/f{i}.js", "rank": i + 1,
                        **({"score": 100, "allowance": 4000, "finalChars": 100, "emittedChars": 100} if i < n // 2
                           else {"score": 1, "allowance": 2000, "finalChars": 5000, "emittedChars": 5000})}
                       for i in range(n)]
    return report


def test_a_sidecar_report_of_2000_files_half_starved_half_overspent_prints_capped_pairs_in_linear_time(
        tmp_path, capsys):
    from cpu_time import grows_linearly

    from citeledger.harness.diagnostics import read_diagnostics
    from citeledger.harness.spend import PAIRS_PER_FILE, starvations

    report = _starving_report(2_000)
    sidecar = tmp_path / "explore-new.jsonl"
    sidecar.write_text(json.dumps(report) + "\n")
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"fixtures": [{"id": "f", "title": "t", "query": report["query"],
                                              "groups": {"answer": ["src/f0.js"]}, "assert": {}}]}))
    assert main(["check", str(spec), "--diagnostics", str(sidecar), str(RUN)]) == 1  # the join warns: 2,000 files, not 3
    out = capsys.readouterr().out
    flags = [line for line in out.splitlines() if line.startswith("   FLAG: ")]
    assert len(flags) == 1_000 * PAIRS_PER_FILE + 1_000  # 20 pairs listed per starved file, then one count
    assert "   FLAG: … and 980 more pair(s) starving src/f0.js (not listed)" in flags
    assert main(["check", "--json", str(spec), "--diagnostics", str(sidecar), str(RUN)]) == 1
    fixture = json.loads(capsys.readouterr().out)["fixtures"][0]
    assert len(fixture["starvation"]) == 20_000 and fixture["starvation_unlisted"][0] == {"starved": "src/f0.js",
                                                                                         "pairs": 980}

    def make(n):
        (read,) = read_diagnostics(_write(tmp_path / f"s{n}.jsonl", report := _starving_report(n)), report["tool"])[0]
        return lambda: starvations(read.files)

    linear, small, large = grows_linearly(make, 1_000)
    assert linear, f"1,000 files: {small:.3f} s; 4,000: {large:.3f} s"


def _write(path: Path, report: dict) -> str:
    path.write_text(json.dumps(report) + "\n")
    return str(path)


# ---------------------------------------------------------------- item 11: odd fsspec URLs


def _refused_port() -> int:
    import socket

    with socket.socket() as probe:  # bound and closed: nothing listens there
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("url, said", [
    ("zip://x.jsonl::file://{na}", "BadZipFile: File is not a zip file"),
    ("tar://x.jsonl::file://{na}", "ReadError: "),
    ("reference://", "TypeError: "),
    ("ftp://127.0.0.1:{port}/x.jsonl", "Connection refused"),
    ("hdfs://127.0.0.1:{port}/x", ""),  # no JVM here, or no server: one line either way
])
@pytest.mark.parametrize("command", ["sweep", "score"])
def test_an_odd_fsspec_url_is_one_line_naming_it(tmp_path, capsys, url, said, command):
    pytest.importorskip("fsspec")
    not_archive = tmp_path / "na.txt"
    not_archive.write_text("hello\n")
    url = url.format(na=not_archive, port=_refused_port())
    status = main([command, url, *(["-q"] if command == "sweep" else [])])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1, err
    assert err.startswith(f"citeledger: error: {url}: ") and said in err and len(err) < 400


def test_a_transcript_behind_blockcache_is_scored_as_the_file_is(capsys):
    pytest.importorskip("fsspec")
    assert main(["score", str(EXPRESS)]) == 0
    plain = capsys.readouterr().out
    assert main(["score", f"blockcache::file://{EXPRESS}"]) == 0
    assert capsys.readouterr().out == plain
