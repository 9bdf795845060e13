"""Every command over the hostile corpus (tests/fixtures/hostile): no internal
error, every input accounted for, each run within a time and memory bound.

Each command runs in a process of its own with its address space capped by
resource.setrlimit(RLIMIT_AS) (MEMORY; workers inherit the cap) and a
timeout (TIME). The timeouts are hang guards for a loaded 2-core machine,
not speed assertions: before this corpus's fixes several of these inputs
took minutes or never finished (docs/robustness.md). The process is forked
from one that has imported citeledger (tests/forked_python.py), so no
command pays an interpreter's start-up; what needs a fresh interpreter (a
signal, a closed stdout, a run killed outright, a second run's lock) starts
one. Refusals of a ruleset value or --jobs before any work runs are checked
in this process (run_here).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import forked_python

sys.path.insert(0, str(Path(__file__).parent.parent / "fixtures" / "hostile"))
import make  # noqa: E402  (tests/fixtures/hostile/make.py)

MEMORY = 768 << 20  # bytes of address space per process
TIME = 120  # seconds per command
RULESETS = Path(__file__).parent.parent / "fixtures" / "hostile" / "rulesets"
INTERNAL = 3
SID = "11111111-2222-3333-4444-555555555555"


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run(*args, stdout=subprocess.PIPE, stdin=None, timeout=TIME) -> subprocess.CompletedProcess:
    """`python -m citeledger.cli ARGS` in a forked process, under the memory cap and the hang guard."""
    return forked_python.run(
        [sys.executable, "-m", "citeledger.cli", *map(str, args)],
        stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, memory=MEMORY, timeout=timeout,
    )


def err(result) -> str:
    return result.stderr.decode("utf-8", "replace")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = make.build(tmp_path_factory.mktemp("hostile"))
    yield root
    os.chmod(root / "locked", 0o755)  # so the temporary directory can be removed


SESSION_FILES = [
    "sessions/letters.jsonl", "sessions/many-paths.jsonl", "sessions/surrogate.jsonl",
    "sessions/nested-tags.jsonl", "names/new\nline.jsonl", "codex/rollout-2025-01-01T00-00-00-hostile.jsonl",
]


def test_the_memory_cap_is_real():
    # The cap must be able to fail a run, or the bounds below prove nothing: in a
    # fresh interpreter and in a forked process (`run`) alike.
    probe = [sys.executable, "-c", f"b = bytearray({MEMORY})"]
    fresh = subprocess.run(probe, preexec_fn=_limit_memory, capture_output=True, timeout=TIME)
    assert fresh.returncode != 0 and b"MemoryError" in fresh.stderr
    forked = forked_python.run(probe, stderr=subprocess.PIPE, memory=MEMORY, timeout=TIME)
    assert forked.returncode != 0 and b"MemoryError" in forked.stderr


@pytest.mark.parametrize("fmt", [[], ["--json"], ["--csv"], ["--out", "OUT"]])
def test_sweep_accounts_for_every_input(corpus, tmp_path, fmt):
    fmt = [str(tmp_path / "out") if f == "OUT" else f for f in fmt]
    result = run("sweep", "-q", "--jobs", "2", *fmt, corpus)
    stderr = err(result)
    assert result.returncode == 1, stderr  # scored, with inputs listed as not read
    assert "internal error" not in stderr
    # Listed on stderr, each with why it was not read (written from make.py's tree).
    for path, why in [
        ("fifo/session.jsonl", "not a regular file (a FIFO), not read"),
        (f"interactive/{SID}/subagents/agent-a.jsonl", "not a regular file (a FIFO), not read"),
        (f"interactive/{SID}/subagents/agent-b.meta.json", "unreadable meta file (not a regular file (a FIFO)"),
        (f"interactive/{SID}/subagents/agent-c.meta.json", "unreadable meta file"),
        ("links/loop", f"the same directory as {corpus / 'links'} (a symlink), not read again"),
        ("real", f"the same directory as {corpus / 'links/to-real'} (a symlink)"),  # already read through links/to-real, which sorts first
    ]:
        assert f"{corpus / path}:0: {why}" in stderr, path
    if fmt == ["--json"] or fmt[:1] == ["--out"]:
        lines = (Path(fmt[1]) / "sweep.jsonl").read_bytes() if fmt[:1] == ["--out"] else result.stdout
        records = [json.loads(line) for line in lines.splitlines()]
        sessions = {r["session"]: r for r in records if r["record"] == "session"}
        for key in SESSION_FILES + ["links/to-real/run.jsonl", "links/self.jsonl", f"interactive/{SID}.jsonl"]:
            assert key in sessions, key
        assert sessions["sessions/surrogate.jsonl"]["status"] == "scored"
        assert sessions["links/self.jsonl"]["status"] == "unreadable"
        assert any("\udce9" in key for key in sessions)  # the non-UTF-8 name, as JSON's \udce9
    if fmt[:1] == ["--out"]:
        names = os.listdir(fmt[1])
        assert not [n for n in names if n.endswith(".tmp") or n.startswith(".citeledger")], names


@pytest.mark.parametrize("name", SESSION_FILES)
@pytest.mark.parametrize("command", [["score"], ["score", "--json"], ["explain", "--json"]])
def test_score_and_explain_on_each_hostile_session(corpus, name, command):
    result = run(*command, corpus / name)
    assert result.returncode in (0, 1, 2), err(result)
    assert "internal error" not in err(result)
    if "--json" in command and result.returncode != 2:
        json.loads(result.stdout)  # valid JSON, lone surrogates escaped


def test_a_lone_surrogate_is_written_as_javascript_writes_it(corpus):
    result = run("score", "--json", corpus / "sessions/surrogate.jsonl")
    assert result.returncode == 0, err(result)
    assert b'"src/a\\ud800b.js"' in result.stdout  # JSON.stringify's escape
    text = run("score", corpus / "sessions/surrogate.jsonl")
    assert text.returncode == 0 and b"\\ud800" in text.stdout


def test_exploding_answer_globs_finish(corpus):
    glob = "**a" * 40 + "**b"
    result = run("score", "--answer", glob, "--answer", "*" * 40 + "/x", corpus / "sessions/letters.jsonl")
    assert result.returncode == 1, err(result)  # finished; both globs matched nothing, each said
    assert b"Explore envelope:" in result.stdout
    assert result.stderr.count(b"matched no returned file") == 2


def test_exploding_exclude_globs_finish(corpus, tmp_path):
    deep = tmp_path / ("a" * 200) / ("a" * 200)
    make.write(deep / "run.jsonl", make.stream([make.response([make.section("x.js")])], "x.js"))
    result = run("sweep", "-q", "--json", "--exclude", "**a" * 40 + "**b", "--exclude", "*a" * 40 + "b", tmp_path)
    assert result.returncode == 0, err(result)
    assert b'"record":"session"' in result.stdout  # nothing matched the globs: the session is swept


def test_a_fifo_given_by_name_is_an_input_error_not_a_hang(corpus):
    result = run("score", corpus / "fifo/session.jsonl")
    assert result.returncode == 2
    assert err(result).strip() == f"citeledger: error: {corpus / 'fifo/session.jsonl'}: not a regular file (a FIFO), not read"


def test_an_interactive_session_with_fifo_subagents_is_scored_with_warnings(corpus):
    result = run("score", "--session", corpus / f"interactive/{SID}.jsonl")
    assert result.returncode == 1
    assert "agent-a.jsonl:0: not a regular file (a FIFO), not read" in err(result)


@pytest.mark.parametrize("ruleset, where, message", [
    # a0 (line 3) is 11 nodes, a_i = 1 + 10 a_(i-1): a4 on line 7 is 111,111, refused before the key is built.
    ("alias-key-bomb.yaml", ":7:", "aliases expand to more than 100,000 YAML nodes"),
    ("lookahead-in-repeat.yaml", ":5: channels.symbol.token:", "a lookaround, which RE2 does not run"),
    ("header-one-group.yaml", ":5: sources.codegraph_explore.header:", "header needs 2 capture groups (1 capture group)"),
    ("code-span-no-group.yaml", ":5: channels.symbol.code_span:", "code_span needs 1 capture group (0 capture groups)"),
])
def test_hostile_rulesets_are_refused_in_one_line(corpus, ruleset, where, message):
    result = run("score", "--ruleset", RULESETS / ruleset, corpus / "sessions/letters.jsonl")
    lines = err(result).splitlines()
    assert result.returncode == 2 and len(lines) == 1, lines
    assert f"{RULESETS / ruleset}{where}" in lines[0] and message in lines[0]
    assert len(lines[0]) < 400  # an excerpt at most, never the expanded value


def test_a_merge_key_with_an_override_loads(corpus):
    result = run("explain", "--json", "--ruleset", RULESETS / "merge-override.yaml", corpus / "sessions/surrogate.jsonl")
    assert result.returncode == 0, err(result)


def test_the_default_path_patterns_copied_run_linear(corpus):
    # A colleague's copy of the default's patterns is not exempt from anything:
    # it runs on RE2, and the 1 MB answer of letters scores as the default does.
    mine = run("score", "--json", "--ruleset", RULESETS / "quadratic-path.yaml", corpus / "sessions/letters.jsonl")
    default = run("score", "--json", corpus / "sessions/letters.jsonl")
    assert mine.returncode == default.returncode == 0
    assert json.loads(mine.stdout)["efficiency"] == json.loads(default.stdout)["efficiency"] == 1.0


def test_a_file_that_is_not_a_ruleset_is_not_echoed(corpus, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("password: hunter2\n")
    ruleset = tmp_path / "r.yaml"
    ruleset.write_text(f"extends: {secret}\n")
    result = run("score", "--ruleset", ruleset, corpus / "sessions/surrogate.jsonl")
    assert result.returncode == 2 and "hunter2" not in err(result) and "password" not in err(result)
    assert f"{secret}: not a ruleset" in err(result)
    shadow = run("score", "--ruleset", RULESETS / "shadow.yaml", corpus / "sessions/surrogate.jsonl")
    assert shadow.returncode == 2 and len(err(shadow).splitlines()) == 1


def test_an_extends_chain_1000_deep_and_a_4_mb_ruleset_are_refused(corpus):
    chain = run("score", "--ruleset", corpus / "rulesets/chain/c0.yaml", corpus / "sessions/surrogate.jsonl")
    assert chain.returncode == 2 and "a chain of more than 32 rulesets" in err(chain)
    big = run("score", "--ruleset", corpus / "rulesets/big.yaml", corpus / "sessions/surrogate.jsonl")
    assert big.returncode == 2 and "larger than the ruleset limit of 1,048,576 bytes" in err(big)


def test_a_vary_alias_bomb_is_refused(corpus):
    levels = ["&a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 7)]
    value = "[" + ", ".join(levels) + "]"
    result = run("sensitivity", "--vary", f"channels.symbol.stopwords={value}", corpus / "sessions/surrogate.jsonl")
    assert result.returncode == 2 and "aliases expand to more than 100,000" in err(result)
    assert len(err(result)) < 400


def test_compare_and_sensitivity_over_the_corpus(corpus, tmp_path):
    compare = run("compare", corpus, corpus, "--plot", tmp_path / "p", "--resamples", 200)
    assert compare.returncode == 1 and "internal error" not in err(compare), err(compare)
    sensitivity = run("sensitivity", "--jobs", "2", "--rulesets", "corrected", "lines", "--json", corpus)
    assert sensitivity.returncode == 1 and "internal error" not in err(sensitivity), err(sensitivity)


# ---------------------------------------------------------------- output failures


def test_a_full_disk_is_one_line_exit_2(corpus):
    with open("/dev/full", "wb") as full:
        result = run("score", corpus / "sessions/surrogate.jsonl", stdout=full)
    assert result.returncode == 2
    assert err(result) == "citeledger: error: <stdout>: cannot write: No space left on device\n"


def test_a_closed_stdout_is_one_line_exit_2(corpus):
    result = subprocess.run(
        [sys.executable, "-m", "citeledger.cli", "score", str(corpus / "sessions/surrogate.jsonl")],
        stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=lambda: (_limit_memory(), os.close(1)), timeout=TIME,
    )
    assert result.returncode == 2
    assert err(result) == "citeledger: error: <stdout>: cannot write: standard output is closed\n"


def test_an_unwritable_out_directory_is_one_line_exit_2(corpus, tmp_path):
    if os.geteuid() == 0:
        target = "/sys/citeledger-out"  # root writes into a chmod 555 directory; sysfs refuses it
    else:
        locked = tmp_path / "ro"
        locked.mkdir(mode=0o555)
        target = str(locked / "out")
    result = run("sweep", "-q", "--out", target, corpus / "sessions/surrogate.jsonl")
    lines = err(result).splitlines()
    assert result.returncode == 2 and len(lines) == 1 and lines[0].startswith(f"citeledger: error: {target}: cannot write")


# ---------------------------------------------------------------- signals


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(p) for p in fh.read().split()]
    except OSError:
        return []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_ends_the_workers_and_leaves_no_partial_output(tmp_path, signum):
    many = tmp_path / "many"
    for i in range(16):  # each of these takes about a second to score
        make.many_paths(many / f"q{i}", sections=8_000, cited=2_000)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "citeledger.cli", "sweep", "-q", "--jobs", "2", "--out", str(out), str(many)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=_limit_memory,
    )
    deadline = time.monotonic() + TIME
    while len(_children(proc.pid)) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    workers = _children(proc.pid)
    assert proc.poll() is None and workers, "the sweep ended before it could be signalled"
    proc.send_signal(signum)
    assert proc.wait(timeout=TIME) == 128 + signum
    assert f"terminated by {signal.Signals(signum).name}" in proc.stderr.read().decode()
    time.sleep(0.2)
    alive = [w for w in workers if os.path.exists(f"/proc/{w}") and "zombie" not in open(f"/proc/{w}/status").read()]
    assert not alive
    assert not out.exists()  # made by the run, removed with everything else of it


def test_an_unlistable_directory_is_listed_with_why(tmp_path, monkeypatch):
    # Root lists a chmod 000 directory, so the failure is injected.
    from citeledger import corpus as corpus_module

    make.write(tmp_path / "ok/run.jsonl", make.stream([make.response([make.section("a.js")])], "a.js"))
    (tmp_path / "locked").mkdir()
    real_scandir = os.scandir

    def scandir(path):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(corpus_module.os, "scandir", scandir)
    refs, warnings = corpus_module.discover([str(tmp_path)])
    assert [r.key for r in refs] == ["ok/run.jsonl"]
    assert [(w.file, w.message) for w in warnings] == [(str(tmp_path / "locked"), "cannot read directory: Permission denied")]


def test_a_second_sweep_into_a_busy_out_directory_refuses_and_the_first_stays_whole(tmp_path):
    many = tmp_path / "many"
    for i in range(8):
        make.many_paths(many / f"q{i}", sections=8_000, cited=2_000)
    out = tmp_path / "out"
    first = subprocess.Popen(
        [sys.executable, "-m", "citeledger.cli", "sweep", "-q", "--jobs", "1", "--out", str(out), str(many)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=_limit_memory,
    )
    deadline = time.monotonic() + TIME
    while not (out / ".citeledger.lock").exists() and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.02)
    assert first.poll() is None, "the first sweep ended before the second started"
    second = run("sweep", "-q", "--out", out, many)
    assert second.returncode == 2
    assert err(second).startswith(f"citeledger: error: {out}: another citeledger run is writing into this directory")
    assert first.wait(timeout=TIME) == 0, first.stderr.read()
    records = [json.loads(line) for line in (out / "sweep.jsonl").read_bytes().splitlines()]
    assert sum(r["record"] == "session" for r in records) == 8
    assert not (out / ".citeledger.lock").exists()


def test_render_tags_nested_past_the_recursion_limit_read_as_symbols():
    # lark's LALR parse keeps its own stack, and the Header is read from the
    # transformed parts without recursion: any depth parses.
    from citeledger.sources.sectioned import header

    suffix = " — " + "focused (" * 20_000 + "run(function), x(method)" + ")" * 20_000
    parsed = header.parse_header("src/deep.js", suffix)
    assert [(s.name, s.kind) for s in parsed.symbols] == [("run", "function"), ("x", "method")]
    assert len(parsed.tags) == 20_000


# ---------------------------------------------------------------- round three (issue 20): numbers, --out, errors

from citeledger import cli  # noqa: E402
from citeledger.engine import limits  # noqa: E402
from citeledger.rules import loader  # noqa: E402
from citeledger.core import channels as installed_channels  # noqa: E402
from citeledger.core.ruleset import integer_ranges  # noqa: E402

RANGES = integer_ranges({name: cls.Options for name, cls in installed_channels().items()})


def one_line(result) -> str:
    lines = err(result).splitlines()
    assert len(lines) == 1, err(result)
    return lines[0]


def run_here(*args) -> subprocess.CompletedProcess:
    """`run` in this process, for a refusal no cap or timeout is needed to see: what main
    returns and prints (a subprocess each costs the suite a start-up of the CLI)."""
    out, errors = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(errors):
        code = cli.main([str(a) for a in args])
    return subprocess.CompletedProcess(args, code, out.getvalue().encode(), errors.getvalue().encode())


def small_corpus(root: Path, sessions: int = 2) -> Path:
    for i in range(sessions):
        make.write(root / f"q{i}/run.jsonl", make.stream([make.response([make.section("src/a.js")])], "see src/a.js"))
    return root


@pytest.mark.parametrize("value", ["10000", "99999999999999999999", "-1", "9" * 5000])
def test_sweep_with_an_out_of_range_jobs_is_one_line_exit_2(tmp_path, value):
    result = run_here("sweep", "-q", "--jobs", value, small_corpus(tmp_path))
    line = one_line(result)
    assert result.returncode == 2
    assert line.startswith("citeledger: error: --jobs ") and f"to {limits.max_jobs()}" in line
    assert len(line) < 200  # a 5,000-digit value is not echoed


def test_a_sweep_never_starts_more_workers_than_sessions(tmp_path, monkeypatch, capsys):
    from citeledger.infra import pool

    asked = []
    real = pool.Pool.started

    def started(self, size):
        asked.append(size)
        return real(self, size)

    monkeypatch.setattr(pool.Pool, "started", started)
    assert cli.main(["sweep", "-q", "--jobs", str(limits.max_jobs()), str(small_corpus(tmp_path, 2))]) == 0
    assert asked == [2]


@pytest.mark.parametrize("option, value, shown", [
    ("--seed", "-1", "from 0 to 18,446,744,073,709,551,615"),
    ("--seed", "18446744073709551616", "from 0 to 18,446,744,073,709,551,615"),
    ("--resamples", "1000000000", "from 1 to 1,000,000"),
    ("--resamples", "0", "from 1 to 1,000,000"),
    ("--top", "-1", "from 0 to 10,000"),
    ("--top", "1" + "0" * 40, "from 0 to 10,000"),
    ("--confidence", "1", "between 0 and 1"),
    ("--confidence", "nan", "between 0 and 1"),
    ("--confidence", "-inf", "between 0 and 1"),
])
def test_compare_with_an_out_of_range_number_is_one_line_exit_2(tmp_path, option, value, shown):
    corpus = small_corpus(tmp_path)
    result = run("compare", "-q", f"{option}={value}", corpus, corpus)
    line = one_line(result)
    assert result.returncode == 2 and line.startswith(f"citeledger: error: {option} ") and shown in line


def test_compare_at_the_resamples_limit_stays_within_the_memory_cap(tmp_path):
    # Before: every resample's indices at once (1e7 on the pass fixture: 3.8 GB).
    base, new = tmp_path / "base", tmp_path / "new"
    for side, cited in ((base, "src/a.js"), (new, "src/b.js")):
        for i in range(40):
            make.write(side / f"g/run-{i}.jsonl", make.stream(
                [make.response([make.section("src/a.js"), make.section("src/b.js")])], f"see {cited}"))
    result = run("compare", "-q", "--resamples", str(limits.MAX_RESAMPLES), "--json", base, new)
    assert result.returncode == 0, err(result)
    group = next(json.loads(line) for line in result.stdout.splitlines() if b'"record":"group"' in line)
    assert group["resamples"] == limits.MAX_RESAMPLES


def test_the_bootstrap_does_not_depend_on_its_block_size(monkeypatch):
    from citeledger.report import stats

    base, new = [0.1, 0.5, 0.3, 0.9, 0.2, 0.4, 0.8], [0.6, 0.7, 0.2, 0.95, 0.5]
    whole = stats.bootstrap_median_difference(base, new, seed=7, resamples=3001)
    monkeypatch.setattr(stats, "DRAWS_PER_BLOCK", 11)  # blocks of one or two resamples
    assert stats.bootstrap_median_difference(base, new, seed=7, resamples=3001) == whole


def _ruleset_setting(path: Path, key: str, value) -> Path:
    *parents, leaf = key.split(".")
    lines, indent = ["extends: lines"], ""
    for part in parents:
        lines.append(f"{indent}{part}:")
        indent += "  "
    lines.append(f"{indent}{leaf}: {value}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("key", sorted(RANGES))
def test_a_ruleset_key_past_its_range_is_refused_naming_key_and_range(tmp_path, key):
    low, high = RANGES[key]
    corpus = small_corpus(tmp_path / "c", 1)
    for bad in (high + 1, low - 1, 2**63, 10**4000):
        result = run_here("sweep", "-q", "--ruleset", _ruleset_setting(tmp_path / "r.yaml", key, bad), corpus)
        line = one_line(result)
        assert result.returncode == 2, line
        assert f"r.yaml:{key.count('.') + 2}: {key}: out of range" in line and f"from {low:,} to {high:,}" in line
    ok = run_here("sweep", "-q", "--ruleset", _ruleset_setting(tmp_path / "r.yaml", key, high), corpus)
    assert ok.returncode == 0, err(ok)


def test_max_line_bytes_of_2_to_the_63_is_refused_cleanly(tmp_path):
    rs = tmp_path / "r.yaml"
    rs.write_text("extends: default\nreader:\n  max_line_bytes: 9223372036854775808\n")
    result = run("sweep", "-q", "--ruleset", rs, small_corpus(tmp_path / "c", 1))
    assert result.returncode == 2
    assert one_line(result) == (f"citeledger: error: {rs}:3: reader.max_line_bytes: out of range: "
                                "9,223,372,036,854,775,808 (an integer from 1 to 1,073,741,824)")


def test_a_ruleset_number_of_5000_digits_is_one_line(tmp_path):
    rs = tmp_path / "r.yaml"
    rs.write_text("extends: default\nreader:\n  max_line_bytes: " + "7" * 5000 + "\n")
    result = run("sweep", "-q", "--ruleset", rs, small_corpus(tmp_path / "c", 1))
    assert result.returncode == 2
    assert one_line(result) == f"citeledger: error: {rs}:3: max_line_bytes: a number too long to read (more than 4,300 digits)"


@pytest.mark.parametrize("what", ["/dev/zero", "/dev/stdin", "a directory", "a FIFO"])
def test_extends_naming_something_that_is_not_a_file_is_refused_as_such(tmp_path, what):
    target = {"a directory": tmp_path / "dir", "a FIFO": tmp_path / "fifo"}.get(what, what)
    if what == "a directory":
        target.mkdir()
    elif what == "a FIFO":
        os.mkfifo(target)
    rs = tmp_path / "r.yaml"
    rs.write_text(f"extends: {target}\n")
    result = run("sweep", "-q", "--ruleset", rs, small_corpus(tmp_path / "c", 1), stdin=subprocess.DEVNULL)
    kind = {"a directory": "a directory", "a FIFO": "a FIFO"}.get(what, "a character device")
    assert result.returncode == 2
    assert one_line(result) == f"citeledger: error: {target}: not a regular file ({kind}), not read as a ruleset"


@pytest.mark.parametrize("text, where", [
    ("name: x\x00\nextends: default\n", "r.yaml:1"),
    ("extends: /proc/self/environ\n", "/proc/self/environ:1"),
])
def test_a_yaml_error_is_one_line(tmp_path, text, where):
    rs = tmp_path / "r.yaml"
    rs.write_text(text)
    result = run("sweep", "-q", "--ruleset", rs, small_corpus(tmp_path / "c", 1))
    line = one_line(result)
    assert result.returncode == 2 and where in line and "not valid YAML (character #x0000" in line
    assert "=" not in line.split("not valid YAML")[1]  # nothing of the environment echoed


def test_an_extends_chain_counts_its_bytes_together_before_reading_the_next(tmp_path):
    # Three files of 400 KB: each within the limit, together not. The last one
    # is not YAML at all: refused for the total before it is parsed.
    filler = "# " + "x" * 1000 + "\n"
    (tmp_path / "c.yaml").write_text(": : not yaml [\n" + filler * 400)
    (tmp_path / "b.yaml").write_text("extends: c.yaml\n" + filler * 400)
    (tmp_path / "a.yaml").write_text("extends: b.yaml\n" + filler * 400)
    result = run("sweep", "-q", "--ruleset", tmp_path / "a.yaml", small_corpus(tmp_path / "corpus", 1))
    assert result.returncode == 2
    assert one_line(result) == (f"citeledger: error: {tmp_path / 'c.yaml'}: larger than the ruleset limit of "
                                "1,048,576 bytes (the files of its extends: chain together)")


def test_an_extends_chain_counts_its_nodes_together(tmp_path):
    # Each file expands to about 60,000 nodes (aliases of a 1,000-item list): each within the limit, together not.
    def nodes(key):
        items = "".join(f"    - {i}\n" for i in range(1_000))
        return f"{key}:\n  base: &b\n{items}  copies: [" + ", ".join(["*b"] * 59) + "]\n"

    (tmp_path / "b.yaml").write_text("name: b\n" + nodes("x"))
    (tmp_path / "a.yaml").write_text("extends: b.yaml\n" + nodes("y"))
    assert loader.check_shape((tmp_path / "a.yaml").read_text(), "a") < loader.MAX_NODES
    with pytest.raises(loader.RulesetError, match=r"b\.yaml:\d+: its extends: chain has more than 100,000 YAML nodes"):
        loader.load_tree(str(tmp_path / "a.yaml"))


# --out: all or nothing


def _previous_run(tmp_path) -> tuple[Path, Path, dict]:
    corpus = small_corpus(tmp_path / "corpus")
    out = tmp_path / "out"
    assert run("sweep", "-q", "--out", out, corpus).returncode == 0
    return corpus, out, {p.name: p.read_bytes() for p in out.iterdir()}


def _same_set(out: Path, before: dict) -> None:
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]  # no lock, staging or .tmp


def test_a_sweep_that_finds_a_directory_where_report_html_goes_keeps_the_previous_set(tmp_path):
    corpus, out, before = _previous_run(tmp_path)
    (out / "report.html").unlink()
    (out / "report.html").mkdir()
    del before["report.html"]
    result = run("sweep", "-q", "--ruleset", "corrected", "--out", out, corpus)
    assert result.returncode == 2
    assert one_line(result) == f"citeledger: error: {out / 'report.html'}: cannot write: Is a directory"
    (out / "report.html").rmdir()
    _same_set(out, before)


def test_a_sweep_that_runs_out_of_disk_writing_summary_keeps_the_previous_set(tmp_path, monkeypatch, capsys):
    corpus, out, before = _previous_run(tmp_path)
    from citeledger.cli import output

    real = os.fdopen

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, data):
            raise OSError(28, "No space left on device")

    def fdopen(fd, *args, **kwargs):
        fh = real(fd, *args, **kwargs)
        return Full(fh) if ".summary.txt." in os.readlink(f"/proc/self/fd/{fd}") else fh

    monkeypatch.setattr(output.os, "fdopen", fdopen)
    assert cli.main(["sweep", "-q", "--ruleset", "corrected", "--out", str(out), str(corpus)]) == 2
    assert capsys.readouterr().err == f"citeledger: error: {out / 'summary.txt'}: cannot write: No space left on device\n"
    _same_set(out, before)


def test_a_full_disk_when_taking_the_out_lock_names_the_lock(tmp_path, monkeypatch, capsys):
    from citeledger.cli import output

    def write(fd, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(output.os, "write", write)
    out = tmp_path / "out"
    assert cli.main(["sweep", "-q", "--out", str(out), str(small_corpus(tmp_path / "c"))]) == 2
    assert capsys.readouterr().err == f"citeledger: error: {out / '.citeledger.lock'}: cannot write: No space left on device\n"
    assert not out.exists()


def test_a_sweep_terminated_while_rendering_html_keeps_the_previous_set(tmp_path, monkeypatch, capsys):
    corpus, out, before = _previous_run(tmp_path)
    import citeledger.report.html as pages  # the html format draws the page with it

    def render(*args, **kwargs):
        raise cli.Terminated(signal.SIGTERM)

    monkeypatch.setattr(pages, "sweep_page", render)
    assert cli.main(["sweep", "-q", "--ruleset", "corrected", "--out", str(out), str(corpus)]) == 128 + signal.SIGTERM
    _same_set(out, before)


def test_a_sweep_into_a_directory_a_dead_run_left_takes_it_over_and_cleans_up(tmp_path):
    corpus, out, before = _previous_run(tmp_path)
    (out / ".citeledger.lock").write_text("2147483646\n")  # no such process
    (out / ".sweep.jsonl.ab12_xyz.tmp").write_text("half")
    (out / ".citeledger.new.q1w2e3").mkdir()
    (out / ".citeledger.new.q1w2e3" / "summary.txt").write_text("half")
    result = run("sweep", "-q", "--out", out, corpus)
    assert result.returncode == 0
    assert err(result).splitlines() == [
        f"citeledger: note: {out}: taking over from a run that ended without finishing "
        "(process 2147483646 held .citeledger.lock)",
        f"citeledger: note: {out}: removed 2 temporary files left by a run that did not finish",
    ]
    _same_set(out, before)


@pytest.mark.slow
def test_a_sweep_after_a_kill_9_of_the_previous_one_runs_and_leaves_no_tmp(tmp_path):
    many = tmp_path / "many"
    for i in range(6):
        make.many_paths(many / f"q{i}", sections=8_000, cited=2_000)
    out = tmp_path / "out"
    first = subprocess.Popen(
        [sys.executable, "-m", "citeledger.cli", "sweep", "-q", "--jobs", "1", "--out", str(out), str(many)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=_limit_memory,
    )
    deadline = time.monotonic() + TIME
    while not any(n.startswith(".citeledger.new.") for n in (os.listdir(out) if out.exists() else [])):
        assert time.monotonic() < deadline and first.poll() is None, "the first sweep ended before it was killed"
        time.sleep(0.02)
    time.sleep(0.3)
    first.kill()
    first.wait()
    assert (out / ".citeledger.lock").exists()  # what a kill -9 leaves
    second = run("sweep", "-q", "--out", out, many)
    assert second.returncode == 0, err(second)
    assert "taking over from a run that ended without finishing" in err(second)
    assert not [n for n in os.listdir(out) if n.startswith(".")]  # no lock, staging or .tmp
    records = [json.loads(line) for line in (out / "sweep.jsonl").read_bytes().splitlines()]
    assert sum(r["record"] == "session" for r in records) == 6


def test_score_session_on_a_directory_that_cannot_be_listed_says_permission_denied(tmp_path, monkeypatch, capsys):
    # Root lists a chmod 000 directory, so the failure is injected.
    locked = tmp_path / "project"
    locked.mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    real_listdir, real_scandir = os.listdir, os.scandir

    def denied(real):
        def call(path="."):
            if os.fspath(path) == str(locked):
                raise PermissionError(13, "Permission denied", str(path))
            return real(path)
        return call

    monkeypatch.setattr(os, "listdir", denied(real_listdir))
    monkeypatch.setattr(os, "scandir", denied(real_scandir))
    assert cli.main(["score", "--session", str(locked)]) == 2
    assert capsys.readouterr().err == f"citeledger: error: {locked}: cannot read directory: Permission denied\n"


def test_every_integer_ruleset_key_has_a_declared_range_and_robustness_md_states_it():
    doc = (Path(__file__).resolve().parent.parent.parent / "docs" / "robustness.md").read_text()
    assert {"reader.max_line_bytes", "channels.quote.context", "channels.symbol.ambiguity_limit"} <= set(RANGES)
    for key, (low, high) in RANGES.items():
        row = next((line for line in doc.splitlines() if line.startswith(f"| `{key}`") or f", `{key}` |" in line), None)
        assert row is not None and f"{low:,} to {high:,}" in row, key
