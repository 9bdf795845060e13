#!/usr/bin/env node
// run_report.mjs — the team's JavaScript transcription of the harness's
// per-run report (docs/harness.md): the run basics (tools exposed, the MCP
// cold-start race, codegraph CLI contamination, tool calls, result, tokens,
// cost) and residual context occupancy, followed by the sufficiency,
// allocation and envelope blocks of reference.mjs at the harness's two-space
// indent. Written from docs/harness.md and /work/shared/spec/harness.md as an
// oracle for citeledger's `score --harness` and its `occupancy`/`run` JSON.
//
//   node tests/oracle/run_report.mjs FILE [FILE ...] [--brief] [--envelope] [--answer GLOB]...
//   node tests/oracle/run_report.mjs --json FILE [FILE ...]     {occupancy, run}
//   node tests/oracle/run_report.mjs --batch   < [[files, flags...], ...]   [{text, json}]
//
// The window is 200,000 tokens unless CG_WINDOW_TOKENS (or --window-tokens N) says otherwise.
import { readFileSync, realpathSync } from 'fs';
import { pathToFileURL } from 'url';
import { analyze, render, renderEnvelope, renderSufficiency } from './reference.mjs';

const FAMILY_NAMES = ['codegraph', 'read', 'search', 'bash', 'other'];
const FILE_ACCESS_FAMILIES = ['read', 'search', 'bash'];
const UNCALIBRATED_RATIO = 3.0;
const CLI_INVOCATION = /(^|[;&|(]|&&|\|\||\$\(|`)\s*(?:[A-Za-z_]\w*=\S*\s+)*[\w./~-]*codegraph(\s|$)/;
const RACE_MARK = /No such tool available/;

function family(name) {
  if (/codegraph/.test(name)) return 'codegraph';
  switch (name) {
    case 'Read': case 'NotebookRead': return 'read';
    case 'Grep': case 'Glob': return 'search';
    case 'Bash': case 'BashOutput': return 'bash';
    default: return 'other';
  }
}

// Each line JSON.parse'd; what fails (a partial line, a BOM-led line) is skipped.
export function readRun(files) {
  const events = [];
  for (const file of files) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line === '') continue;
      let ev;
      try { ev = JSON.parse(line); } catch { continue; }
      events.push(ev);
    }
  }
  return events;
}

function resultText(content) {
  if (Array.isArray(content)) {
    let s = '';
    for (const item of content) s += item.text ?? (typeof item === 'string' ? item : JSON.stringify(item));
    return s;
  }
  if (typeof content === 'string') return content;
  return content == null ? '' : JSON.stringify(content);
}

function blockChars(block) {
  switch (block.type) {
    case 'text': return (block.text || '').length;
    case 'thinking': return (block.thinking || '').length;
    case 'tool_use': return JSON.stringify(block.input ?? {}).length + (block.name || '').length;
    default: return JSON.stringify(block).length;
  }
}

function callDetail(block) {
  const input = block.input;
  if (block.name === 'Task') return ` [subagent_type=${input?.subagent_type ?? '?'}] ${(input?.description ?? '').slice(0, 40)}`;
  if (/codegraph/.test(block.name)) return ' ' + JSON.stringify(input?.query ?? input?.task ?? input?.symbol ?? '').slice(0, 60);
  if (block.name === 'Bash') return ' ' + (input?.command ?? '').slice(0, 50);
  if (block.name === 'Read') return ' ' + (input?.file_path ?? '').split('/').pop();
  return '';
}

// One pass over the events: the context steps (request, added chars, tool
// output, compaction) in order, and the run basics.
function walk(events) {
  const steps = [];
  const run = {
    exposed: null, raced: false, cliAttempts: 0, cliReturned: 0,
    calls: [], byName: {}, results: [], requestUsage: [],
  };
  const toolName = new Map();
  const cliIds = new Set();
  const requestIds = new Set();
  for (const ev of events) {
    if (ev.type === 'system' && ev.subtype === 'init') run.exposed = (ev.tools || []).filter((t) => /codegraph/.test(t));
    if (ev.type === 'system' && (ev.subtype === 'compact_boundary' || ev.subtype === 'compaction')) steps.push({ step: 'compaction' });
    if (ev.type === 'assistant' && ev.message) {
      const id = ev.message.id;
      if (id && !requestIds.has(id)) {
        requestIds.add(id);
        const u = ev.message.usage || {};
        const usage = [u.input_tokens || 0, u.cache_read_input_tokens || 0, u.cache_creation_input_tokens || 0, u.output_tokens || 0];
        run.requestUsage.push(usage);
        steps.push({ step: 'request', prompt: usage[0] + usage[1] + usage[2] });
      }
      for (const block of ev.message.content || []) {
        steps.push({ step: 'added', chars: blockChars(block) });
        if (block.type !== 'tool_use') continue;
        toolName.set(block.id, block.name);
        run.byName[block.name] = (run.byName[block.name] || 0) + 1;
        if (block.name === 'Bash' && CLI_INVOCATION.test(block.input?.command ?? '')) { run.cliAttempts++; cliIds.add(block.id); }
        run.calls.push(block.name + callDetail(block));
      }
    }
    if (ev.type === 'user' && ev.message) {
      const content = ev.message.content;
      if (typeof content === 'string') steps.push({ step: 'added', chars: content.length });
      else if (Array.isArray(content)) {
        for (const block of content) {
          if (block.type !== 'tool_result') { steps.push({ step: 'added', chars: resultText([block]).length }); continue; }
          const text = resultText(block.content);
          if (RACE_MARK.test(text)) run.raced = true;
          if (cliIds.has(block.tool_use_id) && !block.is_error) run.cliReturned++;
          steps.push({ step: 'output', family: family(toolName.get(block.tool_use_id) || ''), chars: text.length });
        }
      }
    }
    if (ev.type === 'result') run.results.push(ev);
  }
  return { steps, run };
}

// The gaps between consecutive requests: what was appended, by family, and whether a compaction fell inside.
function gapsOf(steps) {
  const gaps = [];
  let open = null;
  for (const s of steps) {
    if (s.step === 'request') {
      if (open) { open.delta = s.prompt - open.from; gaps.push(open); }
      open = { from: s.prompt, chars: 0, toolChars: 0, families: new Map(), compacted: false };
    } else if (open) {
      if (s.step === 'compaction') open.compacted = true;
      else {
        open.chars += s.chars;
        if (s.step === 'output') {
          open.toolChars += s.chars;
          open.families.set(s.family, (open.families.get(s.family) || 0) + s.chars);
        }
      }
    }
  }
  return gaps;
}

function calibrate(gaps) {
  const clean = gaps.filter((g) => !g.compacted && g.delta > 0 && g.chars > 500 && g.toolChars / g.chars >= 0.8);
  const sorted = clean.map((g) => g.toolChars / g.delta).sort((a, b) => a - b);
  const centre = sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : 0;
  let tokens = 0, chars = 0;
  for (const g of clean) {
    if (centre > 0 && g.toolChars / g.delta > centre * 1.5) continue;
    tokens += g.delta; chars += g.toolChars;
  }
  if (tokens === 0) {
    for (const g of gaps) {
      if (g.compacted || g.delta <= 0 || g.chars <= 0) continue;
      tokens += g.delta; chars += g.chars;
    }
  }
  return tokens > 0 ? { ratio: chars / tokens, calibrated: true } : { ratio: UNCALIBRATED_RATIO, calibrated: false };
}

function dispersionOf(gaps, ratio) {
  const errors = [];
  for (const g of gaps) {
    if (g.compacted || g.delta <= 0 || g.chars <= 500 || g.toolChars / g.chars < 0.95) continue;
    errors.push(Math.abs(g.toolChars / ratio - g.delta) / g.delta);
  }
  errors.sort((a, b) => a - b);
  return errors.length ? errors[Math.floor((errors.length - 1) / 2)] : null;
}

const zeros = () => Object.fromEntries(FAMILY_NAMES.map((f) => [f, 0]));
const fileAccess = (byFamily) => FILE_ACCESS_FAMILIES.reduce((s, f) => s + byFamily[f], 0);

export function occupancy(steps, windowTokens) {
  const gaps = gapsOf(steps);
  const prompts = steps.filter((s) => s.step === 'request').map((s) => s.prompt);
  const { ratio, calibrated } = calibrate(gaps);
  const contributed = zeros(), chars = zeros(), results = zeros();
  for (const s of steps) if (s.step === 'output') { chars[s.family] += s.chars; results[s.family] += 1; }
  let resident = [];
  let evicted = 0;
  const shed = (amount) => {
    while (amount > 0 && resident.length) {
      const oldest = resident[0];
      if (oldest.tokens <= amount) { amount -= oldest.tokens; evicted += oldest.tokens; resident.shift(); }
      else { oldest.tokens -= amount; evicted += amount; amount = 0; }
    }
  };
  for (const g of gaps) {
    if (g.compacted) { let gone = 0; for (const r of resident) gone += r.tokens; evicted += gone; resident = []; }
    let toolTokens = 0;
    for (const [fam, c] of g.families) {
      const tokens = c / ratio;
      toolTokens += tokens; contributed[fam] += tokens;
      resident.push({ family: fam, tokens });
    }
    const shortfall = toolTokens - g.delta;
    if (!g.compacted && shortfall > Math.max(200, toolTokens * 0.05)) shed(shortfall);
  }
  const residual = zeros();
  for (const r of resident) residual[r.family] += r.tokens;
  const rounded = (o) => Object.fromEntries(FAMILY_NAMES.map((f) => [f, Math.round(o[f])]));
  return {
    final_context: prompts.length ? prompts[prompts.length - 1] : 0,
    fixed: prompts.length ? prompts[0] : 0,
    window_tokens: windowTokens,
    chars_per_token: ratio, calibrated,
    dispersion: dispersionOf(gaps, ratio),
    compactions: steps.filter((s) => s.step === 'compaction').length,
    evicted: Math.round(evicted),
    residual: rounded(residual), contributed: rounded(contributed), chars, results,
    residual_file_access: Math.round(fileAccess(residual)),
    contributed_file_access: Math.round(fileAccess(contributed)),
    chars_file_access: fileAccess(chars),
    results_file_access: fileAccess(results),
    requests: prompts.length,
  };
}

export function basics(run) {
  let processed = 0;
  for (const u of run.requestUsage) processed += u[0] + u[1] + u[2] + u[3];
  const rs = run.results;
  const codegraphCalls = Object.entries(run.byName).filter(([n]) => /codegraph/.test(n)).reduce((s, [, v]) => s + v, 0);
  return {
    tools_exposed: run.exposed === null ? null : run.exposed.length,
    raced: run.raced,
    cli_attempts: run.cliAttempts, cli_returned: run.cliReturned,
    tool_calls: run.calls.length,
    by_name: run.byName,
    calls: run.calls,
    tools: run.calls.filter((c) => !c.startsWith('ToolSearch')).length,
    codegraph_calls: codegraphCalls,
    turns: run.requestUsage.length,
    segments: rs.map((r) => r.subtype),
    subtype: rs.length ? rs[rs.length - 1].subtype : null,
    ok: rs.length > 0 && rs.every((r) => r.subtype === 'success'),
    duration_s: rs.reduce((s, r) => s + (r.duration_ms || 0), 0) / 1000,
    cost_usd: rs.reduce((s, r) => s + (r.total_cost_usd || 0), 0),
    tokens_processed: processed,
  };
}

const n = (x) => x.toLocaleString('en-US');
const plural = (k, word) => `${k} ${word}${k === 1 ? '' : 's'}`;

function occupancyLines(o, turns) {
  const win = `${Math.round(o.window_tokens / 1000)}k`;
  const ofCtx = (t) => (o.final_context > 0 ? (t / o.final_context * 100).toFixed(1) : '0.0') + '%';
  const ofWin = (t) => (t / o.window_tokens * 100).toFixed(1) + '%';
  const tok = (t) => (n(t) + ' tok').padStart(12);
  const row = (label, t, c, k) => `    ${label.padEnd(18)}${tok(t)}  ${ofCtx(t).padStart(6)} of ctx  ${ofWin(t).padStart(6)} of ${win} win`
    + (c === undefined ? '' : `   (${n(c)} chars, ${k} result${k === 1 ? '' : 's'})`);
  const r = o.residual;
  const allTools = FAMILY_NAMES.reduce((s, f) => s + r[f], 0);
  const lost = o.contributed.codegraph + o.contributed_file_access + o.contributed.other
    - (r.codegraph + o.residual_file_access + r.other);
  let measure = `    measure: ${o.chars_per_token.toFixed(2)} chars/tok ${o.calibrated ? 'measured' : '(FALLBACK — no clean gap to calibrate on)'}`;
  if (o.dispersion !== null) measure += ` ±${(o.dispersion * 100).toFixed(1)}%`;
  measure += ` · turns ${turns} · compactions ${o.compactions}`;
  if (o.evicted > 0 || lost > 1) measure += ` · evicted ${n(o.evicted)} tok`;
  return [
    '  Residual context occupancy at end of run:',
    `    ${'final context'.padEnd(18)}${tok(o.final_context)}  ${ofWin(o.final_context).padStart(6)} of ${win} window`,
    `    ${'  of which fixed'.padEnd(18)}${tok(o.fixed)}  system + tool schemas + question, before any tool answered`,
    row('codegraph', r.codegraph, o.chars.codegraph, o.results.codegraph),
    row('Read', r.read, o.chars.read, o.results.read),
    row('Grep/Glob', r.search, o.chars.search, o.results.search),
    row('Bash', r.bash, o.chars.bash, o.results.bash),
    row('→ file-access', o.residual_file_access, o.chars_file_access, o.results_file_access),
    row('other tools', r.other, o.chars.other, o.results.other),
    row('base (prompt+prose)', Math.max(0, o.final_context - allTools)),
    measure,
  ];
}

const indented = (block) => block.replace(/\n$/, '').split('\n').map((l) => '  ' + l).join('\n');

export function report(files, { brief = false, envelope = false, answer = [], windowTokens = 200000 } = {}) {
  const { steps, run } = walk(readRun(files));
  const b = basics(run);
  const o = occupancy(steps, windowTokens);
  const out = [''];
  out.push(`=== ${files.map((f) => f.split('/').pop()).join(' + ')} ===`);
  out.push(`codegraph tools exposed: ${b.tools_exposed === null ? '?' : b.tools_exposed}`
    + (b.raced ? '  [MCP COLD-START RACE — tool call hit "No such tool available"]' : ''));
  if (b.cli_returned) out.push(`!! ${plural(b.cli_returned, 'codegraph CLI call')} RETURNED OUTPUT via Bash — if this is a without-arm, the run is CONTAMINATED`);
  else if (b.cli_attempts) out.push(`   (${plural(b.cli_attempts, 'codegraph CLI attempt')} blocked — no output entered the window)`);
  out.push('', `Tool calls (${b.tool_calls}):`, `  by type: ${JSON.stringify(b.by_name)}`);
  if (!brief) b.calls.forEach((c, i) => out.push(`  ${i + 1}. ${c}`));
  if (run.results.length) {
    const segs = b.segments.length > 1 ? ` | ${b.segments.length} segments (${b.segments.join(',')})` : '';
    out.push('', `Result: ${b.subtype} | duration ${b.duration_s.toFixed(0)}s | turns ${b.turns}${segs}`);
    out.push(`  tokens processed: ${n(b.tokens_processed)} | cost $${b.cost_usd.toFixed(3)}`);
  }
  const r = analyze(files, {});
  out.push('', ...occupancyLines(o, b.turns), '', indented(renderSufficiency(r.sufficiency)), '', indented(render(r)));
  if (envelope || answer.length) out.push('', indented(renderEnvelope(r, answer)));
  // toWellFormed: what node writes to UTF-8 for a lone surrogate (U+FFFD), so --batch carries the printed text.
  return { text: (out.join('\n') + '\n').toWellFormed(), json: { occupancy: o, run: b } };
}

function options(argv) {
  const opts = { files: [], brief: false, envelope: false, answer: [], json: false,
    windowTokens: Number(process.env.CG_WINDOW_TOKENS || 200000) };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--brief') opts.brief = true;
    else if (a === '--envelope') opts.envelope = true;
    else if (a === '--json') opts.json = true;
    else if (a === '--answer') { opts.answer.push(argv[++i]); opts.envelope = true; }
    else if (a === '--window-tokens') opts.windowTokens = Number(argv[++i]);
    else if (!a.startsWith('--')) opts.files.push(a);
  }
  return opts;
}

function main(argv) {
  if (argv[0] === '--batch') {
    const asked = JSON.parse(readFileSync(0, 'utf8'));
    process.stdout.write(JSON.stringify(asked.map((args) => report(options(args).files, options(args)))) + '\n');
    return;
  }
  const opts = options(argv);
  if (!opts.files.length) {
    process.stderr.write('usage: run_report.mjs FILE [FILE ...] [--brief] [--envelope] [--answer GLOB]... [--json]\n');
    process.exit(2);
  }
  const r = report(opts.files, opts);
  process.stdout.write(opts.json ? JSON.stringify(r.json) + '\n' : r.text);
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main(process.argv.slice(2));
