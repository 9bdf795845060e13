// The team's JavaScript transcription of the CG-6 fixture judge (codegraph's
// probe-allocation.mjs `evaluate`), written from docs/check.md and the
// reference's behaviour, not copied from it. A test oracle for
// citeledger.harness.check: JavaScript gives the reference's `toFixed`,
// `toLocaleString`, `Math.round`, `String.prototype.includes` and object key
// order without any port.
//
//   node tests/oracle/check_evaluate.mjs < cases.json
//
// stdin: a JSON array of {fixture, report, text}: `fixture` as written in a
// spec (id, groups, assert), `report` one decoded diagnostic report, `text`
// the explore response (null: none joined). stdout: a JSON array, one
// {checks: [{name, pass, detail}]} per case.
import { readFileSync } from 'node:fs';

const percentOf = (ratio) => (ratio * 100).toFixed(1) + '%';
const count = (n) => Math.round(n).toLocaleString('en-US');

// Glob: the regex characters escaped except `*` and `?`; `**` any run, `*` one segment.
function globPattern(glob) {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') { out += '.*'; i++; continue; }
    if (c === '*') { out += '[^/]*'; continue; }
    out += '.+^${}()|[]\\'.includes(c) ? '\\' + c : c;
  }
  return new RegExp('^' + out + '$');
}

function grouper(groups) {
  const compiled = Object.keys(groups ?? {}).map((name) => [name, groups[name].map(globPattern)]);
  return (path) => {
    for (const [name, patterns] of compiled) if (patterns.some((p) => p.test(path))) return name;
    return 'other';
  };
}

function judge(fixture, report, text) {
  const want = fixture.assert ?? {};
  const groupOf = grouper(fixture.groups);
  const files = report.files;
  const sums = { delivered: new Map(), allocated: new Map(), source: new Map() };
  let source = 0;
  for (const f of files) {
    const g = groupOf(f.path);
    sums.delivered.set(g, (sums.delivered.get(g) ?? 0) + f.share);
    sums.allocated.set(g, (sums.allocated.get(g) ?? 0) + f.allocatedShare);
    sums.source.set(g, (sums.source.get(g) ?? 0) + f.finalChars);
    source += f.finalChars;
  }
  const of = (map, g) => map.get(g) ?? 0;
  const checks = [];
  const check = (name, pass, detail) => checks.push({ name, pass, detail });

  if ('answerShareAtLeast' in want) {
    const x = want.answerShareAtLeast;
    check(`answer group takes >= ${percentOf(x)} of the envelope`, of(sums.delivered, 'answer') >= x,
      `answer ${percentOf(of(sums.delivered, 'answer'))} delivered (${percentOf(of(sums.allocated, 'answer'))} allocated)`);
  }
  if ('answerShareOfSourceAtLeast' in want) {
    const x = want.answerShareOfSourceAtLeast;
    const share = source > 0 ? of(sums.source, 'answer') / source : 0;
    check(`answer group takes >= ${percentOf(x)} of DELIVERED SOURCE`, share >= x,
      `answer ${count(of(sums.source, 'answer'))} of ${count(source)} source chars (${percentOf(share)})`);
  }
  if ('incidentalShareAtMost' in want) {
    const x = want.incidentalShareAtMost;
    check(`incidental group takes <= ${percentOf(x)} of the envelope`, of(sums.delivered, 'incidental') <= x,
      `incidental ${percentOf(of(sums.delivered, 'incidental'))} delivered (${percentOf(of(sums.allocated, 'incidental'))} allocated)`);
  }
  if (want.topFileGroup) {
    let top = null;
    for (const f of files) if (f.finalChars > 0 && (top === null || f.finalChars > top.finalChars)) top = f;
    const actual = top === null ? '(nothing delivered)' : groupOf(top.path);
    check(`largest delivered file is in "${want.topFileGroup}"`, actual === want.topFileGroup,
      top === null ? 'no file delivered any source' : `${top.path} (${percentOf(top.share)}, group "${actual}")`);
  }
  for (const path of want.mustDeliverBytes ?? []) {
    const rec = files.find((f) => f.path === path);
    if (!rec) { check(`${path} delivers source`, false, 'not among the ranked candidates'); continue; }
    let detail = `${count(rec.finalChars)} delivered of ${count(rec.emittedChars)} allocated`;
    if (rec.finalChars === 0 && rec.emittedChars > 0) detail += ' — hard ceiling dropped the whole section';
    if (rec.emittedChars === 0) detail += ` — never rendered (${rec.skipped ?? 'not reached'}, rank #${rec.rank})`;
    check(`${path} delivers source`, rec.finalChars > 0, detail);
  }
  for (const path of Object.keys(want.spendShareAtLeast ?? {})) {
    const floor = want.spendShareAtLeast[path];
    const rec = files.find((f) => f.path === path);
    const name = `${path} spends >= ${percentOf(floor)} of its reservation`;
    if (!rec) { check(name, false, 'not among the ranked candidates'); continue; }
    const reserved = rec.allowance ?? 0;
    const spent = reserved ? rec.finalChars / reserved : 0;
    check(name, reserved > 0 && spent >= floor,
      `${count(rec.finalChars)} delivered of a ${count(reserved)} reservation (${percentOf(spent)})`);
  }
  for (const needle of want.mustContain ?? []) {
    const found = text !== null && text.includes(needle);
    check(`response contains "${needle}"`, found, found ? 'present' : 'absent');
  }
  return { checks };
}

const cases = JSON.parse(readFileSync(0, 'utf-8'));
process.stdout.write(JSON.stringify(cases.map((c) => judge(c.fixture, c.report, c.text))) + '\n');
