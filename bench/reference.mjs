#!/usr/bin/env node
// The reference a sweep replaces, as one node process: for every session under
// DIR (stream-json segment groups run-x.jsonl, run-x.t2.jsonl, ...; an
// interactive log with its <id>/subagents/*.jsonl), read, parse, collect the
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

function walk(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name === 'subagents' && existsSync(dirname(p) + '.jsonl')) continue; // read with its log
      walk(p, out);
    } else if (name.endsWith('.jsonl')) {
      out.push(p);
    }
  }
  return out;
}

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
    const sub = join(key, 'subagents');
    if (existsSync(sub)) {
      for (const f of readdirSync(sub).sort()) if (f.endsWith('.jsonl')) files.push(join(sub, f));
    }
    out.push(files);
  }
  return out;
}

let calls = 0, chars = 0, text = 0;
const found = sessions(process.argv[2]);
for (const files of found) {
  const r = analyze(files);
  calls += r.calls.length;
  chars += r.envelope;
  text += render(r).length;
}
process.stdout.write(`${found.length} sessions, ${calls} calls, ${chars} chars, ${text} chars of text\n`);
