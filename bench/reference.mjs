#!/usr/bin/env node
// The reference a sweep replaces, as one node process: for every session under
// DIR (stream-json segment groups run-x.jsonl, run-x.t2.jsonl, ...; an
// interactive log with its <id>/subagents/*.jsonl, read under the interactive rules), read, parse, collect the
// explore texts, find the final answer and compute the allocation (the
// spec's computeAllocation), then render its text block. The work is
// tests/oracle/reference.mjs's analyze + render (the spec transcribed).
//
//   node bench/reference.mjs DIR      prints: sessions, calls, chars, bytes of text output

import { readdirSync, statSync, existsSync } from 'node:fs';
import { join, dirname, basename } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const { analyze, render } = await import(join(here, '..', 'tests', 'oracle', 'reference.mjs'));

// What codegraph's harness leaves beside its runs is not read: the
// explore-<label>.jsonl diagnostics sidecars and the t-<label>/ tree copies
// (harness/layout.py), nor node_modules.
function walk(dir, out) {
  const names = readdirSync(dir).sort();
  const harness = names.some((n) => n.startsWith('run-') && n.endsWith('.jsonl'));
  for (const name of names) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name === 'subagents' && existsSync(dirname(p) + '.jsonl')) continue; // read with its log
      if (name === 'node_modules' || (harness && name.startsWith('t-'))) continue;
      walk(p, out);
    } else if (name.endsWith('.jsonl') && !/^explore-.+\.jsonl$/.test(name)) {
      out.push(p);
    }
  }
  return out;
}

// An interactive log is named after its session id (a UUID); it is read under the interactive rules.
const INTERACTIVE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/;

function sessions(root) {
  const groups = new Map();
  for (const file of walk(root, [])) {
    const m = /^(.+?)(?:\.t(\d+))?\.jsonl$/.exec(basename(file));
    const key = join(dirname(file), m[1]);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push([m[2] ? Number(m[2]) : 1, file]);
  }
  const out = [];
  for (const [key, parts] of groups) {
    const files = parts.sort((a, b) => a[0] - b[0]).map((x) => x[1]);
    out.push({ files, interactive: INTERACTIVE.test(basename(files[0])) });
  }
  return out;
}

let calls = 0, chars = 0, text = 0;
const found = sessions(process.argv[2]);
for (const { files, interactive } of found) {
  const r = analyze(files, { interactive }); // interactive: analyze appends <id>/subagents/ itself
  calls += r.calls.length;
  chars += r.envelope;
  text += render(r).length;
}
process.stdout.write(`${found.length} sessions, ${calls} calls, ${chars} chars, ${text} chars of text\n`);
