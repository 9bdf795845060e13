#!/usr/bin/env node
// session_report.mjs — the team's JavaScript transcription of the harness's
// interactive session report (docs/harness.md "An interactive session"): the
// session id, the tool tallies of the main log and of its subagents' files,
// the VERDICT and TOKENS lines, then reference.mjs's sufficiency and
// allocation blocks unindented. Written from docs/harness.md as an oracle for
// citeledger's `score --harness --session LOG`.
//
//   node tests/oracle/session_report.mjs SESSION.jsonl
//   node tests/oracle/session_report.mjs --batch   < [SESSION.jsonl, ...]   [text, ...]
import { readFileSync, realpathSync } from 'fs';
import { basename } from 'path';
import { pathToFileURL } from 'url';
import { analyze, render, renderSufficiency, subagentLogs } from './reference.mjs';

const EXPLORE = 'mcp__codegraph__codegraph_explore';

// Every line JSON.parse accepts (a BOM-led or partial line is passed over).
function parsed(file) {
  const out = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    try { out.push(JSON.parse(line)); } catch { /* not an event */ }
  }
  return out;
}

function addTools(file, into) {
  for (const ev of parsed(file)) {
    const blocks = ev && ev.message ? ev.message.content : undefined;
    if (!Array.isArray(blocks)) continue;
    for (const b of blocks) if (b && b.type === 'tool_use') into[b.name] = (into[b.name] || 0) + 1;
  }
}

function addTokens(file, into) {
  for (const ev of parsed(file)) {
    const u = ev && ev.message ? ev.message.usage : undefined;
    if (!u) continue;
    into.gen += u.output_tokens || 0;
    into.fresh += (u.input_tokens || 0) + (u.cache_creation_input_tokens || 0);
    into.cached += u.cache_read_input_tokens || 0;
  }
}

const listed = (counts) => {
  const rows = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  return rows.length ? rows.map(([name, c]) => '    ' + String(c).padStart(3) + '  ' + name).join('\n') : '    (none)';
};
const k = (n) => `${(n / 1000).toFixed(1)}k`;

export function sessionReport(log) {
  const subs = subagentLogs(log);
  const main = {}, sub = {}, tok = { gen: 0, fresh: 0, cached: 0 };
  addTools(log, main);
  addTokens(log, tok);
  for (const f of subs) { addTools(f, sub); addTokens(f, tok); }
  const explore = sub[EXPLORE] || main[EXPLORE] || 0;
  const reads = (sub.Read || 0) + (main.Read || 0);
  const greps = (sub.Grep || 0) + (main.Grep || 0) + (sub.Bash || 0) + (main.Bash || 0);
  const r = analyze([log], { interactive: true });
  const lines = [
    `session: ${basename(log).replace('.jsonl', '')}`, '',
    'MAIN thread tools:', listed(main), '',
    `SUBAGENT tools (${subs.length} subagent transcript${subs.length === 1 ? '' : 's'}):`, listed(sub), '',
    `VERDICT: codegraph_explore used ${explore}x | Read ${reads} | Grep/Bash ${greps}`,
    `TOKENS: gen ${k(tok.gen)} | fresh-in ${k(tok.fresh)} | cached-in ${k(tok.cached)} | billable≈ ${k(tok.gen + tok.fresh)}`,
    '', renderSufficiency(r.sufficiency).replace(/\n$/, ''), '', render(r).replace(/\n$/, ''),
  ];
  return (lines.join('\n') + '\n').toWellFormed();
}

function main(argv) {
  if (argv[0] === '--batch') {
    const logs = JSON.parse(readFileSync(0, 'utf8'));
    process.stdout.write(JSON.stringify(logs.map(sessionReport)) + '\n');
    return;
  }
  if (argv.length !== 1) {
    process.stderr.write('usage: session_report.mjs SESSION.jsonl | --batch\n');
    process.exit(2);
  }
  process.stdout.write(sessionReport(argv[0]));
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main(process.argv.slice(2));
