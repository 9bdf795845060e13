#!/usr/bin/env node
// arm_table.mjs — the team's JavaScript transcription of the harness's arm
// table (docs/harness.md "The arm table"): runs found per label in one pass
// directory, each measured with run_report.mjs (run basics, occupancy) and
// reference.mjs (sufficiency, allocation), then the table. Written from
// docs/harness.md as an oracle for `citeledger compare PASS --arms L... --harness`.
//
//   node tests/oracle/arm_table.mjs DIR LABEL [LABEL ...]      the table (stdout), WARN lines (stderr)
//   node tests/oracle/arm_table.mjs --batch  < [[DIR, LABEL, ...], ...]   [{out, err}, ...]
import { existsSync, readdirSync, readFileSync, realpathSync } from 'fs';
import { join } from 'path';
import { pathToFileURL } from 'url';
import { analyze } from './reference.mjs';
import { report } from './run_report.mjs';

const BUCKET_ROWS = [['explore_again', 'explore again'], ['read_returned', 'Read a file we returned'],
  ['read_missed', 'Read a file we did not return'], ['search', 'Grep/Glob'], ['sufficient', 'moved on / answered']];
const quote = (s) => s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');

function segments(dir, stem, names) {
  if (!existsSync(join(dir, `${stem}.jsonl`))) return null;
  const re = new RegExp(`^${quote(stem)}\\.t(\\d+)\\.jsonl$`);
  const turns = names.map((n) => [re.exec(n), n]).filter(([m]) => m).sort((a, b) => a[0][1] - b[0][1]);
  return [join(dir, `${stem}.jsonl`), ...turns.map(([, n]) => join(dir, n))];
}

function runsOf(dir, label) {
  const names = readdirSync(dir);
  const one = segments(dir, `run-${label}`, names);
  if (one) return [{ name: label, files: one }];
  const re = new RegExp(`^run-${quote(label)}-(\\d+)\\.jsonl$`);
  return names.map((n) => re.exec(n)).filter(Boolean).map((m) => Number(m[1])).sort((a, b) => a - b)
    .map((i) => ({ name: `${label}-${i}`, files: segments(dir, `run-${label}-${i}`, names) }));
}

function figures(run) {
  const { run: b, occupancy: o } = report(run.files).json;
  const a = analyze(run.files, {});
  const withSource = a.calls.length;
  return {
    ok: b.ok, raced: b.raced, dur: b.duration_s, tools: b.tools,
    reads: b.by_name.Read || 0, grep: (b.by_name.Grep || 0) + (b.by_name.Glob || 0), bash: b.by_name.Bash || 0,
    cg: b.codegraph_calls, attempts: b.cli_attempts, returned: b.cli_returned,
    ctx: o.final_context, occCg: o.residual.codegraph, occFile: o.residual_file_access,
    self: o.residual.codegraph + o.residual_file_access,
    share: o.final_context > 0 ? (o.residual.codegraph + o.residual_file_access) / o.final_context * 100 : 0,
    answered: a.sufficiency.answered, counts: a.sufficiency.counts, errors: a.sufficiency.errors,
    calls: withSource, envelope: a.envelope || null, used: a.envelope ? a.used : null,
  };
}

function mid(xs) {
  const s = [...xs].sort((p, q) => p - q);
  const h = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[h] : (s[h - 1] + s[h]) / 2;
}

const whole = (x) => `${Math.round(x)}`;
const tok = (x) => Math.round(x).toLocaleString('en-US');
const pct = (x) => x.toFixed(1) + '%';

function cell(values, fmt = whole) {
  const xs = values.filter((x) => typeof x === 'number' && Number.isFinite(x));
  if (xs.length === 0) return '—';
  const m = fmt(mid(xs));
  if (xs.length === 1) return m;
  const lo = fmt(Math.min(...xs)), hi = fmt(Math.max(...xs));
  return lo === hi ? m : `${m} [${lo}–${hi}]`;
}

const sum = (runs, f) => runs.reduce((s, r) => s + f(r), 0);

function table(arms) {
  const lines = [];
  const row = (label, cells) => lines.push('  ' + label.padEnd(36) + cells.map((c) => ' ' + `${c}`.padStart(23)).join(''));
  const each = (f) => arms.map((a) => f(a.runs));
  const spanned = (label, pick, fmt) => row(label, each((runs) => cell(runs.map(pick), fmt)));
  row('', arms.map((a) => a.label));
  row('runs', each((runs) => runs.length));
  if (arms.some((a) => a.runs.some((r) => !r.ok))) row('  of which non-success', each((runs) => runs.filter((r) => !r.ok).length));
  if (arms.some((a) => a.runs.some((r) => r.raced))) row('  MCP cold-start race', each((runs) => runs.filter((r) => r.raced).length));
  lines.push('', '  behavior');
  spanned('  duration (s)', (r) => r.dur); spanned('  tool calls', (r) => r.tools);
  spanned('  Read', (r) => r.reads); spanned('  Grep/Glob', (r) => r.grep);
  spanned('  Bash', (r) => r.bash); spanned('  codegraph calls', (r) => r.cg);
  lines.push('', '  residual context occupancy (CG-7) — tokens still resident at end of run');
  spanned('  final context (tok)', (r) => r.ctx, tok);
  spanned('  codegraph residual (tok)', (r) => r.occCg, tok);
  spanned('  file-access residual (tok)', (r) => r.occFile, tok);
  spanned('  → retrieval residual (tok)', (r) => r.self, tok);
  spanned('  → share of final context', (r) => r.share, pct);
  lines.push('', '  explore sufficiency (CG-8) — pooled over every answered explore call');
  row('  answered explore calls', each((runs) => sum(runs, (r) => r.answered)));
  for (const [key, label] of BUCKET_ROWS) {
    row(`  ${label}`, each((runs) => {
      const total = sum(runs, (r) => r.answered);
      const n = sum(runs, (r) => r.counts[key]);
      return total ? `${n}  ${(n / total * 100).toFixed(0)}%` : '—';
    }));
  }
  if (arms.some((a) => a.runs.some((r) => r.errors))) row('  errored/unanswered (not bucketed)', each((runs) => sum(runs, (r) => r.errors)));
  lines.push('', '  explore allocation efficiency (CG-9) — share of returned bytes the answer cited');
  row('  explore calls with source', each((runs) => sum(runs, (r) => r.calls)));
  row('  pooled efficiency', each((runs) => {
    const env = sum(runs, (r) => r.envelope || 0);
    return env ? pct(sum(runs, (r) => r.used || 0) / env * 100) : '—';
  }));
  spanned('  per-run efficiency', (r) => (r.envelope ? r.used / r.envelope * 100 : null), pct);
  row('  envelope (chars)', each((runs) => tok(sum(runs, (r) => r.envelope || 0))));
  lines.push('', '  contamination — the CLI must never be how codegraph is reached');
  row('  CLI calls that RETURNED output', each((runs) => sum(runs, (r) => r.returned)));
  row('  CLI attempts blocked', each((runs) => sum(runs, (r) => r.attempts)));
  const dirty = arms.filter((a) => a.runs.some((r) => r.returned)).map((a) => a.label);
  if (dirty.length) {
    lines.push(`  !! ${dirty.join(', ')} reached codegraph through Bash — those runs are CONTAMINATED`,
      '     (a without-arm was not without codegraph; a with-arm has bytes attributed to Bash, not codegraph)');
  }
  lines.push('', '  how to read this',
    "    occupancy  compare each arm's RETRIEVAL residual (codegraph in a with-arm,",
    '               file-access in a without-arm). Shares are Claude Code on a 200k',
    '               window and do NOT transfer to another host; the ratio does.',
    '    sufficiency  pooled across runs because it is per-CALL. "explore again" is',
    '               ambiguous by construction; "Read a file we returned" is an',
    '               allocation miss, the two recall rows are recall misses.',
    '    allocation  RELATIVE, not absolute — attribution is by citation, and an agent',
    '               can use a file without naming it. Compare builds on the SAME',
    '               question; never quote it as "codegraph wastes N% of what it returns."',
    '    all three  small-n. Runs make 1–5 explore calls, so read the range, not the',
    '               median of one run. RUNS>=2, and the 7-repo campaign for a verdict.');
  return lines.join('\n');
}

export function armTable(dir, labels) {
  const found = labels.map((label) => ({ label, runs: runsOf(dir, label) }));
  const err = found.filter((a) => !a.runs.length).map((a) => `  WARN: no run logs for arm '${a.label}' in ${dir}\n`).join('');
  const arms = found.filter((a) => a.runs.length).map((a) => ({ label: a.label, runs: a.runs.map(figures) }));
  return { out: `\n====== ARM COMPARISON — ${dir} ======\n` + table(arms) + '\n', err };
}

function main(argv) {
  if (argv[0] === '--batch') {
    const asked = JSON.parse(readFileSync(0, 'utf8'));
    process.stdout.write(JSON.stringify(asked.map(([dir, ...labels]) => armTable(dir, labels))) + '\n');
    return;
  }
  const [dir, ...labels] = argv;
  const { out, err } = armTable(dir, labels);
  process.stderr.write(err);
  process.stdout.write(out);
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main(process.argv.slice(2));
