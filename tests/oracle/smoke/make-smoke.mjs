#!/usr/bin/env node
// Regenerates the smoke inputs from the real codegraph output in
// /work/shared/examples/express-res-send.md (codegraph 1.6.1 on express 4.21.2):
//   node tests/oracle/smoke/make-smoke.mjs [EXAMPLE.md]
// Writes run.jsonl + run.t2.jsonl (two stream-json segments of one session) and
// interactive.jsonl (a stitched interactive log: no result event).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const example = readFileSync(process.argv[2] ?? '/work/shared/examples/express-res-send.md', 'utf8');
const line = (o) => JSON.stringify(o);
const asst = (id, block, parent = null) =>
  line({ type: 'assistant', message: { id, content: [block] }, parent_tool_use_id: parent });
const user = (block, parent = null) =>
  line({ type: 'user', message: { content: [block] }, parent_tool_use_id: parent });
const explore = (id, query) =>
  ({ type: 'tool_use', id, name: 'mcp__codegraph__codegraph_explore', input: { query } });

// Second response: same text, split in two text items inside the lib/utils.js
// section, with a bare-string item (carrying an astral emoji, 2 UTF-16 units)
// between them; an image-like item without `text` lands after the guidance quote.
const cut = example.indexOf('function createETagGenerator');
const second = [
  { type: 'text', text: example.slice(0, cut) },
  '// 🚀 inserted\n',
  { type: 'text', text: example.slice(cut) },
  { type: 'image', source: { data: 'xx' } },
];

const seg1 = [
  line({ type: 'system', subtype: 'init', tools: ['Read', 'mcp__codegraph__codegraph_explore'] }),
  asst('msg_1', explore('toolu_1', 'how does res.send decide the Content-Type and ETag')),
  user({ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: example }] }),
  asst('msg_2', explore('toolu_2', 'broken')),
  user({ type: 'tool_result', tool_use_id: 'toolu_2', is_error: true, content: example }),
  asst('msg_3', { type: 'tool_use', id: 'toolu_3', name: 'Read', input: { file_path: 'lib/express.js' } }),
  user({ type: 'tool_result', tool_use_id: 'toolu_3', content: '**`lib/express.js`** — createApplication(function)\n' }),
  asst('msg_4', explore('toolu_4', 'nothing')),
  user({ type: 'tool_result', tool_use_id: 'toolu_4', content: 'No symbols found.' }),
  '',
  asst('msg_5', { type: 'text', text: 'Looking at `res.send` now.' }),
  line({
    type: 'result', subtype: 'success',
    result: 'res.send (in lib/response.js) picks the Content-Type from the body type '
      + 'via `this.type(...)`, and mime.contentType is not involved.',
  }),
  '{"type":"assistant","message":{"content":[{"type":"te', // killed run: partial line
].join('\n') + '\n';

const seg2 = [
  asst('msg_6', { type: 'tool_use', id: 'toolu_A', name: 'Agent', input: { prompt: 'dig into etag' } }),
  asst('msg_7', explore('toolu_5', 'etag generation'), 'toolu_A'),
  user({ type: 'tool_result', tool_use_id: 'toolu_5', content: second }, 'toolu_A'),
  asst('msg_8', { type: 'text', text: 'subagent summary' }, 'toolu_A'),
  line({
    type: 'result', subtype: 'success',
    result: 'The ETag comes from `createETagGenerator` (see `generateETag`, `etag` and `Buffer`); '
      + 'the router only forwards to `res.send`.',
  }),
].join('\n') + '\n';

// Interactive (already stitched): no result event; the answer is the last
// main-thread assistant text that is not blank.
const interactive = [
  asst('msg_1', explore('toolu_1', 'how does res.send decide the Content-Type and ETag')),
  user({ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: example }] }),
  asst('msg_2', { type: 'text', text: 'Early note: see lib/router/index.js.' }),
  asst('msg_3', { type: 'text', text: 'Final: `sendOptionsResponse` calls res.send; ETag in utils.js.' }),
  asst('msg_4', { type: 'text', text: 'subagent: lib/response.js' }, 'toolu_X'),
  asst('msg_5', { type: 'text', text: ' \n\u2028 ' }),
].join('\n') + '\n';

writeFileSync(join(here, 'run.jsonl'), seg1);
writeFileSync(join(here, 'run.t2.jsonl'), seg2);
writeFileSync(join(here, 'interactive.jsonl'), interactive);
