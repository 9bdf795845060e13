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
