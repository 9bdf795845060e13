#!/usr/bin/env node
// Test oracle: the team's plain JavaScript transcription of the reference metric
// ("explore allocation efficiency", codegraph agent-eval parse-run.mjs) as written
// in /work/shared/spec/reference-metric.md. It is NOT the original parse-run.mjs
// (whose source we do not have). It is written the most natural JS way on purpose:
// UTF-16 .length, ASCII \w and \b, JS multi-line ^/$, toFixed(1),
// toLocaleString('en-US') and trim() come for free.
//
// Usage: node tests/oracle/reference.mjs [--json] [--envelope] [--sufficiency] [--answer GLOB ...] FILE [FILE ...]
//        node tests/oracle/reference.mjs --pooled RUN_FILE... [-- RUN_FILE... ...]  (sufficiency pooled over runs)
//        node tests/oracle/reference.mjs [...] --interactive SESSION.jsonl
//        node tests/oracle/reference.mjs --batch < sessions.json   (see batch())
//        node tests/oracle/reference.mjs --serve   (one batch per line, see serve())
//   FILEs are stream-json JSONL segments of one session, read in order, under
//   the headless reader's event rules. --interactive reads one interactive
//   session log under the interactive rules, with its subagent files
//   (SESSION/subagents/*.jsonl) appended as transcripts.md says.
//
// No dependencies beyond Node 20 built-ins.

import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

// ---------------------------------------------------------------------------
// Constants taken verbatim from the spec.

// Spec §2: defining kinds. Other kinds (calls, references, imports, ...) never credit.
const DEFINING_KINDS = new Set([
  'module', 'class', 'struct', 'interface', 'trait', 'protocol', 'function',
  'method', 'property', 'field', 'variable', 'constant', 'enum', 'enum_member',
  'type_alias', 'namespace', 'route', 'component',
]);
// Spec §4: names listed with these kinds are "weak" owners.
const WEAK_KINDS = new Set(['variable', 'constant']);

// Spec §3: stopwords for code-span symbol tokens (compared lower-cased).
const STOPWORDS = new Set([
  'function', 'return', 'const', 'this', 'true', 'false', 'null', 'void',
  'undefined', 'string', 'object', 'number', 'boolean', 'array', 'class',
  'import', 'export', 'async', 'await', 'default', 'type', 'value', 'name',
  'data', 'self', 'super', 'else', 'then', 'case', 'from', 'with', 'when',
  'where', 'that', 'they',
]);

// Regexes exactly as the spec gives them (JS semantics).
const HEADER_RE = /^\*\*`([^`]+)`\*\*(.*)$/gm;                   // §2 section header
const HEADER_SYMBOL_RE = /([A-Za-z_$][\w$.]*)\(([a-z_]+)\)/g;     // §2 header symbols
const PATH_DIR_RE = /(?:[\w@.+-]+\/)+[\w@.+-]+\.[A-Za-z]\w*/g;    // §3 paths (a)
const PATH_BARE_RE = /\b[\w@+-]+\.[A-Za-z]\w*/g;                  // §3 paths (b), ext-gated
const CODE_SPAN_RE = /`([^`\n]+)`/g;                              // §3 code spans
const TOKEN_RE = /[A-Za-z_$][\w$]*/g;                             // §3 tokens in a code span

const TOP_FILES = 12;

// ---------------------------------------------------------------------------
// Reading.
// Decision: split each file's text on "\n"; skip lines that are empty after
// trim() or fail JSON.parse, and count every skipped line in skipped_lines
// (as decided, this includes blank lines — so the empty string after a file's
// final "\n" counts as one skipped line).

function readLines(file, events, tag) {
  let skipped = 0;
  const text = readFileSync(file, 'utf8');
  for (const line of text.split('\n')) {
    if (line.trim() === '') { skipped++; continue; }
    let ev;
    try { ev = JSON.parse(line); } catch { skipped++; continue; }
    // transcripts.md: an appended subagent event gets the meta file's toolUseId.
    if (tag !== undefined && isObj(ev)) ev.parent_tool_use_id = tag;
    events.push(ev);
  }
  return skipped;
}

function readEvents(files) {
  const events = [];
  let skipped = 0;
  for (const file of files) skipped += readLines(file, events);
  return { events, skipped };
}

// transcripts.md "Claude Code interactive session logs": the session file's
// events, then each subagent file's, APPENDED, files in byte order of names
// (dot-prefixed included). Tag: a truthy toolUseId; absent, unreadable, or a
// missing/null toolUseId -> `subagent:<file name>`; a falsy one ("", 0,
// false) leaves the events untagged.
function subagentTag(log) {
  const meta = log.replace(/\.jsonl$/, '.meta.json');
  let id;
  try { id = JSON.parse(readFileSync(meta, 'utf8')).toolUseId; } catch { id = undefined; }
  if (id === undefined || id === null) return `subagent:${basename(log)}`;
  return id ? id : undefined;
}

function byteOrder(a, b) {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export function subagentLogs(session) {
  const dir = join(session.replace(/\.jsonl$/, ''), 'subagents');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((n) => n.endsWith('.jsonl')).sort(byteOrder).map((n) => join(dir, n));
}

function readInteractive(session) {
  const events = [];
  let skipped = readLines(session, events);
  for (const log of subagentLogs(session)) skipped += readLines(log, events, subagentTag(log));
  return { events, skipped };
}

const isObj = (x) => x !== null && typeof x === 'object';

function contentBlocks(ev) {
  return isObj(ev) && isObj(ev.message) && Array.isArray(ev.message.content)
    ? ev.message.content : null;
}

// ---------------------------------------------------------------------------
// Explore responses (spec §1).
// Decision: walk events in order; in every event whose message.content is an
// array, walk blocks in order. tool_use records id -> name. A tool_result whose
// tool_use_id maps (to a name seen so far) to a name that includes
// "codegraph_explore" and whose is_error is not truthy contributes a response.
// Its text: content if a string; if an array, items.map(it => string it.text,
// else the item itself if it is a string, else JSON.stringify(it)).join('')
// (an item whose `text` is not a string counts as "without text");
// any other content is ''.

// Spec §1: content a string -> itself; a list -> each item's contribution
// joined with nothing (an item's `text` when present and not null, through
// String(); else the item if a string, else its JSON); null/absent -> '';
// anything else -> its JSON.
function resultText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((it) => (isObj(it) && it.text !== undefined && it.text !== null)
      ? String(it.text)
      : (typeof it === 'string' ? it : JSON.stringify(it))).join('');
  }
  if (content === undefined || content === null) return '';
  return JSON.stringify(content);
}

// Spec §1 reader rules. Headless: tool_use only from `assistant` events with
// a truthy message, tool_result only from `user` events whose content is a
// list. Interactive: every event whose content is a list, any type.
function exploreResponses(events, interactive) {
  const names = new Map(); // tool_use id -> name
  const out = [];
  for (const ev of events) {
    const blocks = contentBlocks(ev);
    if (!blocks) continue;
    const uses = interactive || (ev.type === 'assistant' && ev.message);
    const results = interactive || ev.type === 'user';
    for (const b of blocks) {
      if (!isObj(b)) continue;
      if (b.type === 'tool_use') {
        if (uses) names.set(b.id, b.name);
      } else if (b.type === 'tool_result' && results) {
        const name = names.get(b.tool_use_id);
        if (typeof name === 'string' && name.includes('codegraph_explore') && !b.is_error) {
          out.push(resultText(b.content));
        }
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Final answer (spec §1).
// Decision: if any event has type "result" with a string `result`, the answer is
// all such strings joined by "\n\n". Otherwise it is the text of the LAST event
// with type "assistant", parent_tool_use_id absent or null, whose message.content
// text blocks (type "text" with a string text) concatenated with '' are not blank
// after trim(); the answer is that concatenation (untrimmed).

function finalAnswer(events) {
  const results = events
    .filter((ev) => isObj(ev) && ev.type === 'result' && typeof ev.result === 'string')
    .map((ev) => ev.result);
  if (results.length > 0) return results.join('\n\n');
  let answer = '';
  for (const ev of events) {
    if (!isObj(ev) || ev.type !== 'assistant') continue;
    if (ev.parent_tool_use_id !== undefined && ev.parent_tool_use_id !== null) continue;
    const blocks = contentBlocks(ev);
    if (!blocks) continue;
    // Spec §1: a text block contributes its text when truthy, through join's String().
    const text = blocks
      .filter((b) => isObj(b) && b.type === 'text')
      .map((b) => b.text || '').join('');
    if (text.trim() !== '') answer = text;
  }
  return answer;
}

// ---------------------------------------------------------------------------
// Sections (spec §2).
// Decision: header regex /^\*\*`([^`]+)`\*\*(.*)$/gm over the response text; a
// section runs from its header's match index to the next header's match index;
// the last ends at text.indexOf('\n> ', start), or text.length if -1.
// chars = end - start (JS length, UTF-16 code units). A response with no header
// is dropped before calls are numbered. Header symbols: every match of
// /([A-Za-z_$][\w$.]*)\(([a-z_]+)\)/g in group 2 whose kind is a defining kind.

function parseSections(text) {
  const headers = [...text.matchAll(HEADER_RE)];
  return headers.map((m, i) => {
    const start = m.index;
    let end;
    if (i + 1 < headers.length) {
      end = headers[i + 1].index;
    } else {
      end = text.indexOf('\n> ', start);
      if (end === -1) end = text.length;
    }
    const symbols = [...m[2].matchAll(HEADER_SYMBOL_RE)]
      .filter((s) => DEFINING_KINDS.has(s[2]))
      .map((s) => ({ name: s[1], kind: s[2] }));
    return { path: m[1], chars: end - start, symbols };
  });
}

// ---------------------------------------------------------------------------
// Citations (spec §3).
// Decision: one insertion-ordered Set of paths: all (a) matches first, then the
// (b) matches whose extension (after the last '.', lower-cased) is the extension
// of some returned path (after its last '.', lower-cased, only when
// lastIndexOf('.') > 0). Symbols: in each code span, every token of length >= 4
// whose lower-case form is not a stopword; insertion-ordered Set.

function extOf(s) {
  return s.slice(s.lastIndexOf('.') + 1).toLowerCase();
}

function citedPaths(answer, returnedPaths) {
  const exts = new Set();
  for (const p of returnedPaths) {
    const i = p.lastIndexOf('.');
    if (i > 0) exts.add(p.slice(i + 1).toLowerCase());
  }
  const cited = new Set();
  for (const m of answer.matchAll(PATH_DIR_RE)) cited.add(m[0]);
  for (const m of answer.matchAll(PATH_BARE_RE)) {
    if (exts.has(extOf(m[0]))) cited.add(m[0]);
  }
  return cited;
}

function citedSymbols(answer) {
  const cited = new Set();
  for (const span of answer.matchAll(CODE_SPAN_RE)) {
    for (const t of span[1].matchAll(TOKEN_RE)) {
      const tok = t[0];
      if (tok.length >= 4 && !STOPWORDS.has(tok.toLowerCase())) cited.add(tok);
    }
  }
  return cited;
}

// ---------------------------------------------------------------------------
// Verdicts (spec §4), decided once per distinct path string.
// Decision: path channel first: the first cited path p (Set order) such that
// norm(p) === norm(file), or norm(file) ends with '/' + norm(p), or norm(p) ends
// with '/' + norm(file); norm replaces every backslash with '/' and then removes
// one leading './'. Evidence = p. Else the symbol channel: owners map built over
// every section of every call, name -> {strong, weak} (weak when the kind is
// variable or constant); owners(name) = strong if strong.size > 0 else weak; the
// first cited symbol s (Set order) whose owners include the file and number
// fewer than 3 credits it. Evidence = s.

function norm(p) {
  const s = p.replace(/\\/g, '/');
  return s.startsWith('./') ? s.slice(2) : s;
}

function buildOwners(calls) {
  const owners = new Map();
  for (const call of calls) {
    for (const sec of call) {
      for (const { name, kind } of sec.symbols) {
        if (!owners.has(name)) owners.set(name, { strong: new Set(), weak: new Set() });
        const o = owners.get(name);
        (WEAK_KINDS.has(kind) ? o.weak : o.strong).add(sec.path);
      }
    }
  }
  return owners;
}

function verdict(file, paths, symbols, owners) {
  const f = norm(file);
  for (const p of paths) {
    const q = norm(p);
    if (q === f || f.endsWith('/' + q) || q.endsWith('/' + f)) {
      return { credited: 'path', evidence: p };
    }
  }
  for (const s of symbols) {
    const o = owners.get(s);
    if (!o) continue;
    const set = o.strong.size > 0 ? o.strong : o.weak;
    if (set.has(file) && set.size < 3) return { credited: 'symbol', evidence: s };
  }
  return { credited: null, evidence: null };
}

// ---------------------------------------------------------------------------
// The accountant (spec §5).
// Decision: per call, envelope = sum of section chars, used = sum over sections
// whose path is credited, used_by_path = same for path credits. Pooled files:
// path -> {chars summed over all sections of all calls, calls = number of such
// sections}, first-seen order, then stable sort by chars descending. Totals are
// sums over calls; files_returned = distinct paths; files_used = distinct
// credited paths. Ratios are x ? a / x : 0.

const ratio = (a, b) => (b ? a / b : 0);

export function analyze(files, { interactive = false } = {}) {
  const { events, skipped } = interactive ? readInteractive(files[0]) : readEvents(files);
  const responses = exploreResponses(events, interactive);
  const calls = responses
    .map(parseSections)
    .filter((secs) => secs.length > 0);
  const answer = finalAnswer(events);

  const pooled = new Map();
  for (const call of calls) {
    for (const sec of call) {
      if (!pooled.has(sec.path)) pooled.set(sec.path, { path: sec.path, chars: 0, calls: 0 });
      const p = pooled.get(sec.path);
      p.chars += sec.chars;
      p.calls += 1;
    }
  }

  const paths = citedPaths(answer, [...pooled.keys()]);
  const symbols = citedSymbols(answer);
  const owners = buildOwners(calls);
  const verdicts = new Map();
  for (const file of pooled.keys()) verdicts.set(file, verdict(file, paths, symbols, owners));

  const callRows = calls.map((call) => {
    let envelope = 0, used = 0, usedByPath = 0, credited = 0;
    for (const sec of call) {
      const v = verdicts.get(sec.path);
      envelope += sec.chars;
      if (v.credited) { used += sec.chars; credited++; }
      if (v.credited === 'path') usedByPath += sec.chars;
    }
    return {
      envelope, used, used_by_path: usedByPath,
      credited_sections: credited,
      sections: call.map(({ path, chars }) => ({ path, chars })),
    };
  });

  const envelope = callRows.reduce((a, c) => a + c.envelope, 0);
  const used = callRows.reduce((a, c) => a + c.used, 0);
  const usedByPath = callRows.reduce((a, c) => a + c.used_by_path, 0);
  const fileRows = [...pooled.values()]
    .sort((a, b) => b.chars - a.chars) // Array.prototype.sort is stable (ES2019+)
    .map((p) => ({ ...p, ...verdicts.get(p.path) }));

  return {
    sufficiency: analyzeSufficiency(events),
    envelope,
    used,
    used_by_path: usedByPath,
    efficiency: ratio(used, envelope),
    path_efficiency: ratio(usedByPath, envelope),
    files_returned: fileRows.length,
    files_used: fileRows.filter((f) => f.credited).length,
    has_answer: answer.trim() !== '',
    answer,
    skipped_lines: skipped,
    responses: responses.length,
    calls: callRows,
    files: fileRows,
    cited_paths: [...paths],
    cited_symbols: [...symbols],
  };
}

// ---------------------------------------------------------------------------
// The text block (spec §6). Lines joined by "\n" with a trailing "\n".
// pct(x) = (x * 100).toFixed(1) + '%' for a ratio x. The heading counts in the
// singular for one (`1 call, 1 file`); the efficiency and call lines stay
// plural. Per-call counts are section counts of that call.

const pct = (x) => (x * 100).toFixed(1) + '%';
const num = (n) => n.toLocaleString('en-US');
const counted = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function render(r) {
  if (r.calls.length === 0) {
    return 'Explore allocation: no codegraph_explore responses with source sections\n';
  }
  const lines = [];
  lines.push(`Explore allocation — share of returned bytes the answer used (${counted(r.calls.length, 'call')}, ${counted(r.files_returned, 'file')}):`);
  lines.push(`  efficiency ${pct(r.efficiency).padStart(6)}  ${num(r.used)} of ${num(r.envelope)} chars   (${r.files_used}/${r.files_returned} files cited; path-cited alone ${pct(r.path_efficiency)})`);
  if (!r.has_answer) {
    lines.push('  !! no final answer text found — efficiency is not meaningful for this run');
  }
  r.calls.forEach((c, i) => {
    lines.push(`  call ${i + 1}: ${pct(ratio(c.used, c.envelope)).padStart(6)}  ${num(c.used)}/${num(c.envelope)} chars  ${c.credited_sections}/${c.sections.length} files`);
  });
  for (const f of r.files.slice(0, TOP_FILES)) {
    const label = f.credited === 'path' ? 'path'
      : f.credited === 'symbol' ? `symbol \`${f.evidence}\`` : '—';
    // r.envelope > 0 here: every section holds at least its header's first char.
    lines.push(`  ${f.credited ? '*' : ' '} ${pct(f.chars / r.envelope).padStart(6)} ${String(f.chars).padStart(6)}  ${f.path}  ${label}`);
  }
  if (r.files.length > TOP_FILES) lines.push(`    … ${r.files.length - TOP_FILES} more files`);
  lines.push('  note: relative metric — attribution is by citation, so compare builds on the same question, not absolutes.');
  return lines.join('\n') + '\n';
}

// ---------------------------------------------------------------------------
// The envelope view (spec §8): printed after the allocation block, a blank
// line between. Every section of every explore response pooled by path (the
// same pooling as r.files), `*` on files an answer glob matches.

export function globRegExp(glob) {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  // `**` -> `.*`, `*` -> `[^/]*`, in one pass so the first's `*` stays put; `?` is left as is.
  const body = escaped.replace(/\*\*|\*/g, (m) => (m === '**' ? '.*' : '[^/]*'));
  return new RegExp('^' + body + '$');
}

export function renderEnvelope(r, globs) {
  const patterns = globs.map(globRegExp);
  const matches = (p) => patterns.some((re) => re.test(p));
  const lines = [`Explore envelope: ${num(r.envelope)} chars over ${r.responses} response(s)`];
  if (globs.length > 0) {
    const chars = r.files.filter((f) => matches(f.path)).reduce((a, f) => a + f.chars, 0);
    const top = r.files.length > 0 && matches(r.files[0].path);
    lines.push(`  answer-set share: ${pct(ratio(chars, r.envelope))} | top file answers: ${top}`);
  }
  for (const f of r.files.slice(0, TOP_FILES)) {
    lines.push(`  ${matches(f.path) ? '*' : ' '} ${pct(ratio(f.chars, r.envelope)).padStart(6)} ${String(f.chars).padStart(6)}  ${f.path}`);
  }
  if (r.files.length > TOP_FILES) lines.push(`    … ${r.files.length - TOP_FILES} more files`);
  return lines.join('\n') + '\n';
}

// JSON view: the documented shape (per-call credited_sections is internal).
export function toJSON(r, { sufficiency = false } = {}) {
  const { sufficiency: judged, ...rest } = r;
  return {
    ...rest,
    ...(sufficiency ? { sufficiency: judged } : {}),
    calls: r.calls.map(({ envelope, used, used_by_path, sections }) => ({ envelope, used, used_by_path, sections })),
  };
}

// ---------------------------------------------------------------------------
// Explore sufficiency (/work/shared/spec/sufficiency.md): every answered
// codegraph_explore call bucketed by the agent's next act in its thread.
// Decisions for the spec's gaps (docs/decisions.md, "Sufficiency"): a name,
// an input field or a parent_tool_use_id that is not a string counts as
// absent ('' / 'main'); the block is written at the allocation block's base
// indent.

const BUCKETS = [
  ['explore_again', 'explore again', 'insufficient: did not answer'],
  ['read_returned', 'Read a file we returned', 'allocation: right file, wrong bytes'],
  ['read_missed', 'Read a file we did not return', 'recall: file never surfaced'],
  ['search', 'Grep/Glob', 'recall (weak): still hunting for the file'],
  ['sufficient', 'moved on / answered', 'sufficient'],
];
const TRANSPARENT = new Set(['ToolSearch', 'TodoWrite']);
const DELEGATING = new Set(['Agent', 'Task']);
const RETURNED_RE = /^\*\*`([^`]+)`\*\*/gm;

const str = (x) => (typeof x === 'string' ? x : '');

// transcripts.md "Reading through the shell" (the harness's bashIntent).
export function bashIntent(cmd) {
  const write = cmd.includes('<<') || />\s*\S/.test(cmd);
  if (!write) {
    const m = cmd.match(/(?:^|[;&|`]|\$\()\s*(?:sudo\s+)?(?:cat|bat|head|tail|less|more|nl|sed|awk)\s+([^\n|;&]*)/);
    if (m) {
      const args = m[1].split(/\s+/).filter((a) => a && !a.startsWith('-') && !/^['"]?\d/.test(a));
      const paths = args.filter((a) => a.includes('/') || a.includes('.'));
      if (paths.length) return { kind: 'read', path: paths[paths.length - 1].replace(/^['"]/, '').replace(/['"]$/, '') };
    }
  }
  if (/(?:^|[;&|`]|\$\()\s*(?:sudo\s+)?(?:grep|egrep|fgrep|rg|ag|ack|find|fd|ls|tree)\b/.test(cmd)) return { kind: 'search' };
  return { kind: null };
}

function sameFile(path, file) {
  if (!path || !file) return false;
  const a = norm(path), b = norm(file);
  return a === b || a.endsWith('/' + b) || b.endsWith('/' + a);
}

function isFileAccess(a) {
  if (['Read', 'NotebookRead', 'Grep', 'Glob'].includes(a.name)) return true;
  return a.name === 'Bash' && bashIntent(str(a.input.command)).kind !== null;
}

function judgeRead(path, ctx) {
  const base = norm(path).split('/').pop() || path;
  if (ctx.returned.some((f) => sameFile(path, f))) return { bucket: 'read_returned', next: `Read ${base}` };
  if (ctx.earlier.some((f) => sameFile(path, f))) return { bucket: 'read_returned', next: `Read ${base} (returned by an earlier explore)` };
  const named = ctx.mentioned.some((m) => sameFile(path, m));
  return { bucket: 'read_missed', next: `Read ${base}${named ? ' (named, not returned)' : ''}` };
}

function judge(b, ctx, threads) {
  if (b.name.includes('codegraph')) return { bucket: 'explore_again', next: b.name.replace(/^mcp__[^_]+__/, '') };
  if (b.name === 'Read' || b.name === 'NotebookRead') return judgeRead(str(b.input.file_path) || str(b.input.notebook_path), ctx);
  if (b.name === 'Grep' || b.name === 'Glob') return { bucket: 'search', next: b.name };
  if (b.name === 'Bash') {
    const intent = bashIntent(str(b.input.command));
    if (intent.kind === 'read') {
      const v = judgeRead(intent.path, ctx);
      return { bucket: v.bucket, next: `Bash ${v.next}` };
    }
    if (intent.kind === 'search') return { bucket: 'search', next: 'Bash search' };
  }
  if (DELEGATING.has(b.name)) {
    const inner = (threads.get(b.id) || []).find((x) => !TRANSPARENT.has(x.name) && !DELEGATING.has(x.name));
    if (!inner) return { bucket: 'sufficient', next: b.name };
    const v = judge(inner, ctx, threads);
    return { bucket: v.bucket, next: `${b.name} → ${v.next}` };
  }
  return { bucket: 'sufficient', next: b.name };
}

export function analyzeSufficiency(events) {
  const threads = new Map(); // thread -> actions, in first-appearance order
  const names = new Map();
  const responses = new Map();
  for (const ev of events) {
    const blocks = contentBlocks(ev);
    if (!blocks) continue;
    const thread = typeof ev.parent_tool_use_id === 'string' ? ev.parent_tool_use_id : 'main';
    if (ev.type === 'assistant') {
      if (!threads.has(thread)) threads.set(thread, []);
      const list = threads.get(thread);
      for (const b of blocks) {
        if (!isObj(b) || b.type !== 'tool_use') continue;
        const name = str(b.name);
        list.push({ id: b.id, name, input: isObj(b.input) ? b.input : {}, key: ev.message.id || `#${thread}-${list.length}` });
        names.set(b.id, name);
      }
    } else if (ev.type === 'user') {
      for (const b of blocks) {
        if (!isObj(b) || b.type !== 'tool_result') continue;
        const name = names.get(b.tool_use_id) || '';
        if (name.includes('codegraph_explore') && !b.is_error) responses.set(b.tool_use_id, resultText(b.content));
      }
    }
  }
  const counts = Object.fromEntries(BUCKETS.map(([k]) => [k, 0]));
  const calls = [];
  let errors = 0, concurrent = 0;
  for (const [thread, acts] of threads) {
    const earlier = [];
    acts.forEach((a, i) => {
      if (!a.name.includes('codegraph_explore')) return;
      if (!responses.has(a.id)) { errors++; return; }
      const text = responses.get(a.id);
      const returned = [...text.matchAll(RETURNED_RE)].map((m) => m[1]);
      const mentioned = [...text.matchAll(PATH_DIR_RE)].map((m) => m[0]);
      let verdict = { bucket: 'sufficient', next: '(final answer)' };
      for (const b of acts.slice(i + 1)) {
        if (b.key === a.key) { if (isFileAccess(b)) concurrent++; continue; }
        if (TRANSPARENT.has(b.name)) continue;
        verdict = judge(b, { returned, mentioned, earlier }, threads);
        break;
      }
      earlier.push(...returned);
      counts[verdict.bucket]++;
      calls.push({ thread, query: str(a.input.query), files: returned.length, chars: text.length, ...verdict });
    });
  }
  return { counts, answered: calls.length, errors, concurrent, calls };
}

export function renderSufficiency(s) {
  if (s.answered === 0) {
    return `Explore sufficiency: no answered codegraph_explore calls${s.errors ? ` (${s.errors} errored or never returned)` : ''}\n`;
  }
  const lines = [`Explore sufficiency — what the agent did NEXT (${counted(s.answered, 'answered call')}):`];
  for (const [k, label, meaning] of BUCKETS) {
    const n = s.counts[k];
    lines.push(`  ${String(n).padStart(3)} ${((n / s.answered * 100).toFixed(0) + '%').padStart(4)}  ${label.padEnd(31)}${meaning}`);
  }
  s.calls.forEach((c, i) => {
    const q = c.query.length > 46 ? c.query.slice(0, 45) + '…' : c.query;
    lines.push(`  ${i + 1}.${c.thread !== 'main' ? ' [subagent]' : ''} "${q}" [${counted(c.files, 'file')}] → ${c.next}`);
  });
  const notes = [];
  if (s.errors) notes.push(`${counted(s.errors, 'errored/unanswered call')} (not bucketed)`);
  if (s.concurrent) notes.push(`${counted(s.concurrent, 'file-access call')} in the SAME message as an explore (not a reaction)`);
  if (notes.length) lines.push(`  note: ${notes.join(' · ')}`);
  return lines.join('\n') + '\n';
}

// A pass pools buckets over every answered call of an arm's runs (not per
// run): one row per bucket with the count and share, answered calls, and the
// errored total when any run has one. `runs`: each run's segment FILEs.
export function poolSufficiency(runs) {
  const counts = Object.fromEntries(BUCKETS.map(([k]) => [k, 0]));
  let answered = 0, errors = 0;
  for (const files of runs) {
    const s = analyze(files, {}).sufficiency;
    for (const [k] of BUCKETS) counts[k] += s.counts[k];
    answered += s.answered;
    errors += s.errors;
  }
  const rows = BUCKETS.map(([k, label]) => ({
    bucket: k, label, count: counts[k],
    share: answered ? (counts[k] / answered * 100).toFixed(0) + '%' : null,
  }));
  return { rows, answered, ...(errors ? { errors } : {}) };
}

// ---------------------------------------------------------------------------
// CLI.

// The text a run prints: the allocation block, then the envelope view when
// --envelope or any --answer GLOB was given.
function printed(r, { envelope = false, answer = [], sufficiency = false } = {}) {
  const block = render(r) + (sufficiency ? '\n' + renderSufficiency(r.sufficiency) : '');
  return envelope || answer.length > 0 ? block + '\n' + renderEnvelope(r, answer) : block;
}

// Batch mode (for differential property tests: one node start for many
// sessions): stdin is a JSON array of sessions, each an array of headless
// segment FILEs or {files, interactive, envelope, answer}; stdout is a JSON
// array of {text, json} in the same order.
function answer(sessions) {
  return sessions.map((s) => {
    const opts = Array.isArray(s) ? { files: s } : s;
    const r = analyze(opts.files, opts);
    return { text: printed(r, opts), json: toJSON(r, opts) };
  });
}

function batch() {
  process.stdout.write(JSON.stringify(answer(JSON.parse(readFileSync(0, 'utf8')))) + '\n');
}

// Serve mode (for property tests, which ask many small batches: one node start
// for all of them): each stdin line is a batch as --batch reads it, each stdout
// line its answer, written as soon as the line is read.
async function serve() {
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    process.stdout.write(JSON.stringify(answer(JSON.parse(line))) + '\n');
  }
}

function main(argv) {
  if (argv.length === 1 && argv[0] === '--batch') return batch();
  if (argv.length === 1 && argv[0] === '--serve') return serve();
  if (argv[0] === '--pooled') {  // --pooled RUN_FILES [-- RUN_FILES ...]: one JSON object
    const runs = [[]];
    for (const a of argv.slice(1)) { if (a === '--') runs.push([]); else runs[runs.length - 1].push(a); }
    process.stdout.write(JSON.stringify(poolSufficiency(runs.filter((r) => r.length))) + '\n');
    return;
  }
  const opts = { json: false, envelope: false, interactive: false, sufficiency: false, answer: [], files: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') opts.json = true;
    else if (a === '--envelope') opts.envelope = true;
    else if (a === '--interactive') opts.interactive = true;
    else if (a === '--sufficiency') opts.sufficiency = true;
    else if (a === '--answer') opts.answer.push(argv[++i]);
    else opts.files.push(a);
  }
  if (opts.files.length === 0 || (opts.interactive && opts.files.length !== 1)) {
    process.stderr.write('usage: node tests/oracle/reference.mjs [--json] [--envelope] [--answer GLOB] FILE [FILE ...] | --interactive SESSION.jsonl\n');
    process.exit(2);
  }
  const r = analyze(opts.files, opts);
  process.stdout.write(opts.json ? JSON.stringify(toJSON(r, opts)) + '\n' : printed(r, opts));
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main(process.argv.slice(2));
}
