"""Build real-sized benchmark corpora from the real fixtures (tests/fixtures/real, tests/fixtures/pass).

Two shapes, both deterministic for a given --seed:

distinct  Every session is one real transcript (a template), sized as real runs
          are (the templates' own sizes, 1 to 5 explore calls: an extra call is
          a copy of one of the template's explore exchanges), in the real mix of
          shapes: single-question runs, multi-turn runs (run-x.jsonl,
          run-x.t2.jsonl, ...), killed runs (cut after an explore result, a
          partial last line), runs with no explore call, interactive logs with
          a subagent. Every text is made distinct per session (and per copy):
          tool, message and session ids are remapped, every top-level directory
          the explore responses name is renamed (in headers, code, Read inputs
          and the answer alike, so citations still meet their files), and the
          response title, each section header, each code block's end and the
          answer carry a tag. No cache of work across sessions can help.
          Layout: g0000/run-<arm>-<i>[.tN].jsonl (48 runs a group, arms new and
          baseline), projects/<dir>/<uuid>.jsonl + <uuid>/subagents/.

distinct-dirs  The same sessions, one a directory, as `run1/`, `run2/` output
          folders lie: run00001/run-<arm>-1[.tN].jsonl (and the same projects/).

abpass    An A/B pass the way codegraph's harness leaves it (tests/fixtures/pass,
          harness/layout.py): p000/cg22/ab-express/run-new-1.jsonl ... with .err
          files, mcp-<arm>.json, hook files, t-new/ and t-base/ tree copies and
          the explore-<arm>.jsonl diagnostics sidecars, and the same questions
          asked over and over: run i of an arm repeats the source pass's run
          ((i-1) mod n)+1, so codegraph's responses are byte-identical across
          repeats (as codegraph's are for one question on one index); only the
          agent side (ids, the answer's wording) differs per run.

    python bench/make_corpus.py distinct OUT [--sessions 7800]
    python bench/make_corpus.py distinct-dirs OUT [--sessions 7800]
    python bench/make_corpus.py abpass OUT [--passes 30 --runs 24]
    python bench/make_corpus.py check       # the rewrite changes no verdict of any template
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import re
import shutil
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "tests" / "fixtures" / "real"
PASS = ROOT / "tests" / "fixtures" / "pass"
EXPLORE = "codegraph_explore"
GENERATOR = 3  # bump when the output of a given seed changes (bench/run.py rebuilds)

# Shares of sessions by shape (the rest are single-question runs with an explore call).
# The real A/B passes have 2 multi-turn runs in 24 and 1 killed in 24; the
# harness's "without" arm and agents that answer from Grep give no-explore runs.
SHAPES = {"multi": 0.05, "killed": 0.02, "no-explore": 0.05, "interactive": 0.02}
# Explore calls per run (1-5): most runs make one call, a few make several.
CALLS = {1: 0.50, 2: 0.25, 3: 0.13, 4: 0.08, 5: 0.04}
GROUP = 48  # runs per group directory

UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
IDS = re.compile(rb"(?:toolu|msg|req)_[A-Za-z0-9]{8,}")
HEADER_DIR = re.compile(rb"\*\*`([A-Za-z0-9_.@-]+)/")
EM_DASH_HEADER = "`** \u2014 ".encode()  # a header's path closes, its suffix opens


# ---------------------------------------------------------------- templates


def _events(lines):
    for raw in lines:
        try:
            event = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(event, dict):
            yield event


def explore_uses(lines: list[bytes]) -> list[tuple[str, str]]:
    """(tool_use id, query) of every explore call in the lines, in order."""
    out = []
    for event in _events(lines):
        content = (event.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_use" and EXPLORE in str(block.get("name")):
                out.append((block.get("id"), (block.get("input") or {}).get("query")))
    return out


def _killed(lines: list[bytes]) -> bool:
    last = lines[-1] if lines else b""
    if not last.strip():
        return False
    try:
        orjson.loads(last)
        return False
    except orjson.JSONDecodeError:
        return True


class Run:
    """A stream-json run: its segments' lines, its explore calls."""

    def __init__(self, name: str, files: list[Path]):
        self.name = name
        self.files = files
        self.segments = [p.read_bytes().split(b"\n") for p in files]
        self.uses = [u for s in self.segments for u in explore_uses(s)]
        self.killed = _killed(self.segments[-1])

    @property
    def shape(self) -> str:
        if self.killed:
            return "killed"
        if not self.uses:
            return "no-explore"
        return "multi" if len(self.segments) > 1 else "single"


def _group_runs(files: list[Path]) -> list[tuple[str, list[Path]]]:
    runs: dict[str, list[Path]] = {}
    for p in files:
        runs.setdefault(re.sub(r"(\.t\d+)?\.jsonl$", "", p.name), []).append(p)
    return [(base, sorted(fs, key=lambda p: (len(p.name), p.name))) for base, fs in sorted(runs.items())]


def pass_groups() -> list[Path]:
    """The harness directories of tests/fixtures/pass (those holding run-*.jsonl files)."""
    return sorted({p.parent for p in PASS.rglob("run-*.jsonl") if not any(x.startswith("t-") for x in p.parts)})


def stream_templates() -> list[Run]:
    out = [Run(base, fs) for base, fs in _group_runs(sorted((REAL / "stream").glob("*.jsonl")))]
    for group in pass_groups():
        out += [Run(f"{group.name}/{base}", fs) for base, fs in _group_runs(sorted(group.glob("run-*.jsonl")))]
        for folder in sorted(group.glob("run*/")):  # bench-readme's run<i>/ folders, if any
            out += [Run(f"{group.name}/{base}", fs) for base, fs in _group_runs(sorted(folder.glob("run-*.jsonl")))]
    return out


def interactive_templates() -> list[tuple[Path, list[Path]]]:
    """(session log, [its subagent logs and meta files]) of every interactive fixture."""
    logs = sorted(REAL.glob("interactive/*/*.jsonl")) + sorted(PASS.glob("interactive-home/.claude/projects/*/*.jsonl"))
    return [(log, sorted((log.parent / log.stem / "subagents").glob("*"))) for log in logs]


# ---------------------------------------------------------------- making texts distinct


class Mutator:
    """Per-session rewrites: ids remapped, directories renamed, texts tagged."""

    def __init__(self, seed: int, session: int, dirs=()):
        self.key = f"{seed}:{session}".encode()
        self.session = session
        self.mark = b"v%x" % session  # short, word characters only: a valid path part and symbol
        self._ids: dict[bytes, bytes] = {}
        self.dirs = None
        if dirs:
            alt = b"|".join(re.escape(d) for d in sorted(dirs, key=len, reverse=True))
            self.dirs = re.compile(rb"(?<![A-Za-z0-9_.@-])(" + alt + rb")/")

    def _digest(self, raw: bytes) -> str:
        return hashlib.blake2b(raw, key=self.key[:64], digest_size=16).hexdigest()

    def _uuid(self, m) -> bytes:
        raw = m.group(0)
        if raw not in self._ids:
            h = self._digest(raw)
            self._ids[raw] = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}".encode()
        return self._ids[raw]

    def _id(self, m) -> bytes:
        raw = m.group(0)
        if raw not in self._ids:
            prefix, _, rest = raw.partition(b"_")
            self._ids[raw] = prefix + b"_" + self._digest(raw).encode()[: len(rest)]
        return self._ids[raw]

    def ids(self, data: bytes) -> bytes:
        return IDS.sub(self._id, UUID.sub(self._uuid, data))

    def rename(self, data: bytes) -> bytes:
        return self.dirs.sub(rb"\1_" + self.mark + b"/", data) if self.dirs else data

    def tag(self, raw: bytes, k: int, explore: bool = True) -> bytes:
        """Tag one line's texts with (session, copy k).

        The response title, every section header's suffix (a bare word first,
        of no defining kind: it changes no verdict), the comment closing every
        code block, and the answer (result and assistant texts). With explore
        False only the answer is tagged (the A/B pass: codegraph's output stays
        byte-identical)."""
        t = self.mark + b"k%d" % k
        if explore:
            raw = raw.replace(b"**Exploration: ", b"**Exploration: (" + t + b") ")
            raw = raw.replace(EM_DASH_HEADER, EM_DASH_HEADER + t + b", ")
            raw = raw.replace(b"\\n```\\n", b"\\n// " + t + b"\\n```\\n")
        raw = raw.replace(b'"result":"', b'"result":"(' + t + b') ')
        if b'"tool_result"' in raw:  # a tool's output, not the agent's text
            return raw
        return raw.replace(b'"type":"text","text":"', b'"type":"text","text":"(' + t + b') ')

    def whole(self, data: bytes, k: int = 0) -> bytes:
        """A whole file's lines tagged with copy k, renamed, ids remapped."""
        return self.ids(self.rename(b"\n".join(self.tag(x, k) for x in data.split(b"\n"))))


def header_dirs(lines) -> set[bytes]:
    return {m.group(1) for raw in lines for m in HEADER_DIR.finditer(raw)}


# ---------------------------------------------------------------- the distinct corpus


def _pick(rng: random.Random, weights: dict):
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def _amplify(segments: list[list[bytes]], uses: list, extra: int, m: Mutator) -> list[list[bytes]]:
    """Write every line naming an explore id once more for each extra copy of
    that call (extra copies dealt round-robin over the calls), each copy with
    its own id and its own tag."""
    ids = [u[0] for u in uses if u[0]]
    copies = {i: 0 for i in ids}
    for n in range(extra):
        copies[ids[n % len(ids)]] += 1
    out = []
    for lines in segments:
        seg = []
        for raw in lines:
            hit = next((i for i in ids if f'"{i}"'.encode() in raw), None)
            seg.append(m.tag(raw, 0))
            for k in range(1, 1 + (copies[hit] if hit else 0)):
                seg.append(m.tag(raw.replace(f'"{hit}"'.encode(), f'"{hit}_r{k}"'.encode()), k))
        out.append(seg)
    return out


def _kill(segment: list[bytes], uses: list, rng: random.Random) -> list[bytes]:
    """Cut a run after its last explore result; the next line is left half written."""
    marks = [f'"tool_use_id":"{i}'.encode() for i, _ in uses if i]
    last = max((n for n, raw in enumerate(segment) if any(x in raw for x in marks)), default=len(segment) - 2)
    nxt = segment[last + 1] if last + 1 < len(segment) and segment[last + 1] else segment[0]
    return segment[: last + 1] + [nxt[: max(20, int(len(nxt) * rng.uniform(0.2, 0.8)))]]


def build_distinct(out: Path, sessions: int, seed: int = 1, per_group: int = GROUP) -> dict:
    """`per_group` runs a directory (g0000/run-<arm>-<i>.jsonl); 1: one session a directory
    (run00001/run-<arm>-1.jsonl, as `run1/`, `run2/` output folders lie). The same sessions either way."""
    rng = random.Random(seed)
    runs = stream_templates()
    pools = {shape: [r for r in runs if r.shape == shape] for shape in ("single", "multi", "killed", "no-explore")}
    pools["killable"] = [r for r in runs if r.shape == "single"]
    interactive = interactive_templates()
    files = written = 0
    runs_in_group = 0
    group = -1
    for s in range(sessions):
        shape = _pick(rng, {**SHAPES, "single": 1 - sum(SHAPES.values())})
        if shape == "interactive":
            log, subs = interactive[rng.randrange(len(interactive))]
            m = Mutator(seed, s, {d for p in [log, *subs] if p.suffix == ".jsonl" for d in header_dirs(p.read_bytes().split(b"\n"))})
            stem = m.ids(log.stem.encode()).decode()
            folder = out / "projects" / f"{log.parent.name}-{m.mark.decode()}"
            (folder / stem / "subagents").mkdir(parents=True, exist_ok=True)
            data = m.whole(log.read_bytes())
            (folder / f"{stem}.jsonl").write_bytes(data)
            written += len(data)
            files += 1
            for k, sub in enumerate(subs, 1):
                data = m.ids(sub.read_bytes()) if sub.suffix != ".jsonl" else m.whole(sub.read_bytes(), k)
                (folder / stem / "subagents" / sub.name).write_bytes(data)
                if sub.suffix == ".jsonl":
                    written += len(data)
                    files += 1
            continue
        if runs_in_group % per_group == 0:
            group += 1
            runs_in_group = 0
        runs_in_group += 1
        folder = out / (f"g{group:04d}" if per_group > 1 else f"run{group + 1:05d}")
        folder.mkdir(parents=True, exist_ok=True)
        template = rng.choice(pools["killable" if shape == "killed" and rng.random() < 0.5 else shape])
        m = Mutator(seed, s, {d for seg in template.segments for d in header_dirs(seg)})
        segments = template.segments
        if template.uses and not template.killed:
            segments = _amplify(segments, template.uses, max(0, _pick(rng, CALLS) - len(template.uses)), m)
        else:
            segments = [[m.tag(raw, 0) for raw in seg] for seg in segments]
        if shape == "killed" and not template.killed:
            segments = [_kill(segments[0], template.uses, rng)]
        arm = ("new", "baseline")[(runs_in_group if per_group > 1 else s) % 2]
        base = f"run-{arm}-{(runs_in_group + 1) // 2}"
        for n, lines in enumerate(segments, 1):
            data = m.ids(m.rename(b"\n".join(lines)))
            (folder / f"{base}{'' if n == 1 else f'.t{n}'}.jsonl").write_bytes(data)
            written += len(data)
            files += 1
    return {"sessions": sessions, "files": files, "bytes": written}


# ---------------------------------------------------------------- the A/B pass


def _sidecar_lines(path: Path) -> dict[str, bytes]:
    """query -> its report line (a repeated question gives an identical line)."""
    out: dict[str, bytes] = {}
    if path.exists():
        for raw in path.read_bytes().split(b"\n"):
            if raw.strip():
                out.setdefault(orjson.loads(raw).get("query"), raw)
    return out


def build_abpass(out: Path, passes: int, runs_per_arm: int, seed: int = 1) -> dict:
    """`passes` copies of every A/B group of tests/fixtures/pass, each arm with
    `runs_per_arm` runs cycling through the source arm's runs."""
    files = written = sessions = 0
    groups = [g for g in pass_groups() if any(g.glob("run-*-*.jsonl")) and "headless" not in g.name]
    for p in range(passes):
        for source in groups:
            dest = out / f"p{p:03d}" / source.relative_to(PASS)
            dest.mkdir(parents=True, exist_ok=True)
            for item in sorted(source.iterdir()):  # what the harness leaves beside the runs
                if item.is_dir():
                    shutil.copytree(item, dest / item.name, copy_function=os.link, dirs_exist_ok=True)
                elif not (item.name.startswith(("run-", "explore-"))):
                    shutil.copy2(item, dest / item.name)
            by_arm: dict[str, list[tuple[int, str, list[Path]]]] = {}
            for base, fs in _group_runs(sorted(source.glob("run-*.jsonl"))):
                arm, _, i = base[4:].rpartition("-")
                by_arm.setdefault(arm, []).append((int(i), base, fs))
            for arm, runs in sorted(by_arm.items()):
                runs.sort()
                reports = _sidecar_lines(source / f"explore-{arm}.jsonl")
                sidecar = []
                for i in range(1, runs_per_arm + 1):
                    _, base, fs = runs[(i - 1) % len(runs)]
                    run = Run(base, fs)
                    m = Mutator(seed, sessions)
                    sessions += 1
                    for n, lines in enumerate(run.segments, 1):
                        data = m.ids(b"\n".join(m.tag(raw, 0, explore=False) for raw in lines))
                        (dest / f"run-{arm}-{i}{'' if n == 1 else f'.t{n}'}.jsonl").write_bytes(data)
                        written += len(data)
                        files += 1
                    err = source / f"{base}.err"
                    if err.exists():
                        shutil.copy2(err, dest / f"run-{arm}-{i}.err")
                    sidecar += [reports[q] for _, q in run.uses if q in reports]
                if reports:
                    (dest / f"explore-{arm}.jsonl").write_bytes(b"".join(x + b"\n" for x in sidecar))
    return {"sessions": sessions, "files": files, "bytes": written}


def check(seed: int = 1) -> int:
    """Score every explore template and its distinct rewrite (`citeledger score --json`):
    the rewrite must give every returned file the same verdict. Returns the mismatches."""
    import json
    import subprocess
    import sys
    import tempfile

    def verdicts(files):
        cmd = [sys.executable, "-m", "citeledger.cli", "score", "--json", *map(str, files)]
        out = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=False).stdout)
        return sorted(str(f["channel"]) for f in out["files"]), out["efficiency"]

    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, run in enumerate(stream_templates()):
            if not run.uses or run.killed:
                continue
            m = Mutator(seed, n, {d for seg in run.segments for d in header_dirs(seg)})
            made = []
            for k, seg in enumerate(run.segments, 1):
                made.append(Path(tmp) / f"run-x-{n}{'' if k == 1 else f'.t{k}'}.jsonl")
                made[-1].write_bytes(m.ids(m.rename(b"\n".join(m.tag(x, 0) for x in seg))))
            (before, e0), (after, e1) = verdicts(run.files), verdicts(made)
            bad += before != after
            print(f"{'ok ' if before == after else 'BAD'} {run.name:40s} efficiency {e0:.3f} -> {e1:.3f}")
    print(f"{bad} template(s) whose rewrite changed a verdict")
    return bad


def build(shape: str, out: Path, size: int, runs: int = 24, seed: int = 1) -> dict:
    """Build one corpus afresh; `size` is sessions (distinct) or passes (abpass)."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    if shape == "distinct":
        return build_distinct(out, size, seed)
    if shape == "distinct-dirs":
        return build_distinct(out, size, seed, per_group=1)
    return build_abpass(out, size, runs, seed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("shape", choices=("distinct", "distinct-dirs", "abpass", "check"))
    ap.add_argument("out", nargs="?")
    ap.add_argument("--sessions", type=int, default=7800, help="distinct: sessions (default 7800)")
    ap.add_argument("--passes", type=int, default=30, help="abpass: copies of the pass's groups (default 30)")
    ap.add_argument("--runs", type=int, default=24, help="abpass: runs per arm and group (default 24)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.shape == "check":
        raise SystemExit(1 if check(args.seed) else 0)
    if not args.out:
        ap.error("OUT is required")
    size = args.passes if args.shape == "abpass" else args.sessions
    info = build(args.shape, Path(args.out), size, args.runs, args.seed)
    print(f"{info['sessions']} sessions, {info['files']} transcript files, {info['bytes'] / 1e6:.1f} MB in {args.out}")


if __name__ == "__main__":
    main()
