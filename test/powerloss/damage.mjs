#!/usr/bin/env node
// Damaged and inconsistent checkpoint-mode logs given to `upq recover` (in
// place, to another file, and to an OUT that names the input) and to
// appending (`upq write --append`, `sensor_logger --resume`).
//
//   node test/powerloss/damage.mjs [--upq PATH] [--logger PATH] [--work DIR] [--seed N] [--per N]
//
// The logs: the sensor logger's (a dictionary column, checkpoints every 25
// rows in 100-row row groups; closed, cut, and resumed once) and `upq
// write`'s (dictionary strings that keep growing, a list column whose v1
// pages take their rows from the records, data page v1 and v2; closed and
// cut). Each is damaged in copies, one way per copy:
//   bit flips in journal records (FILE included), in page headers (the
//   dictionary pages' too) and in page bodies;
//   replayed records (an earlier checkpoint of the file written again where
//   a later one was, with the later one's sequence number and a valid CRC);
//   foreign records (of another file with another file id, and of another
//   file with the same file id and nonce) where this file's were;
//   edited records: one field of a checkpoint, RG_START or RESUME changed
//   (rows, fills, page counts, dictionary counts and lengths, blob places,
//   region layout, histograms...) and the CRC made valid again;
//   edited totals: one field of an RG_SUM changed, its CRC valid again (a
//   recovery that keeps every row must give the undamaged one's footer and
//   page indexes: the totals are never taken over the pages), among them
//   the ColumnIndex's list sizes that place its lists before a page is read.
// Also a table of journal version 2 (table-journal-v2.parquet, from the build
// before version 3, the same rows and options as upq write's table here).
// For each copy:
//   - `upq recover D OUT` exits 0 with OUT holding an exact prefix of the
//     log's rows (never more than recovery keeps of the undamaged copy), or
//     exits 1 with no OUT; D is byte-identical afterwards either way;
//   - `upq recover D` in place: the same rows as OUT, or exit 1 and D
//     byte-identical; on every 6th copy also `upq recover D D`, `upq recover
//     D ./D` and `upq recover D LINK` (a symbolic link to D) must do exactly
//     what the in-place run did; a hard link as OUT is refused, D unchanged;
//   - appending: `upq write --append` (upq write's logs) or `sensor_logger
//     --resume` (the logger's) keeps exactly the rows recovery keeps and
//     adds the new ones after them, or fails leaving the file byte-identical
//     (and never succeeds where recovery refuses);
//   - every command finishes within TIMEOUT_S seconds;
//   - DuckDB reads a sample of the results (every file whose row count was
//     not seen yet for its log, and every 10th other) with exactly the rows
//     `upq cat --json` gives, which are the expected ones.
// Prints `ok` lines per kind of damage, `FAIL ...` for each failure (the
// first few of each kind in full), and `N passed, N failed` (one check per
// command on a copy).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { walk, pages, nonceSeed, putRecord, encodedLength } from './journal.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const argv = process.argv.slice(2);
const opt = (name, def) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : def; };
const UPQ = path.resolve(opt('--upq', path.join(root, 'build/host/upq')));
const LOGGER = path.resolve(opt('--logger', path.join(root, 'build/host/sensor_logger')));
const WORK = path.resolve(opt('--work', path.join(root, 'build/check/damage')));
const SEED = Number(opt('--seed', process.env.UPQ_TEST_SEED || 20261126));
const PER = Number(opt('--per', 1)); // copies of each kind of damage, times this
const TIMEOUT_S = 60;

// ---- small things ---------------------------------------------------------------

let rng = (SEED >>> 0) || 1;
const rand = (n) => { rng ^= rng << 13; rng >>>= 0; rng ^= rng >>> 17; rng ^= rng << 5; rng >>>= 0; return rng % n; };
const pick = (a) => a[rand(a.length)];

let passed = 0, failed = 0;
const fails = new Map(); // kind -> count (the first few printed in full)
function fail(kind, msg) {
  failed++;
  const n = (fails.get(kind) || 0) + 1;
  fails.set(kind, n);
  if (n <= 5) console.log(`FAIL ${kind}: ${msg}`);
}

function run(cmd, args, cwd = WORK) {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: TIMEOUT_S * 1000, maxBuffer: 1 << 28 });
  return { status: r.status, out: r.stdout || '', err: (r.stderr || '').trim(), ms: Date.now() - t0,
           timedOut: !!(r.error && r.error.code === 'ETIMEDOUT') || r.signal === 'SIGTERM', signal: r.signal };
}

// `upq cat --json FILE` as lines, or null when it fails.
function catLines(file) {
  const r = run(UPQ, ['cat', '--json', file]);
  if (r.status !== 0) return null;
  return r.out.split('\n').filter((l) => l.length);
}

// A file's bytes, or an empty buffer when it is gone (which no check takes
// for the file it should be).
const readMaybe = (f) => { try { return fs.readFileSync(f); } catch { return Buffer.alloc(0); } };
const isPrefix = (lines, of) => lines.length <= of.length && lines.every((l, i) => l === of[i]);
const same = (a, b) => a.length > 0 && a.length === b.length && a.equals(b);
const tail = (s) => s.split('\n').slice(-2).join(' | ').slice(0, 300);

// ---- the logs ----------------------------------------------------------------------

const LOGGER_OPTS = ['--row-group-rows', '100', '--checkpoint-rows', '25', '--seed', '5', '--device', 'dev-a'];

function mustRun(cmd, args, what) {
  const r = run(cmd, args);
  if (r.status !== 0) throw new Error(`${what}: ${cmd} ${args.join(' ')}: ${tail(r.err || r.out)}`);
  return r;
}

// A table written by `upq write`: ids, a name from a set that grows with
// the rows (so checkpoints keep adding dictionary entries), a list of tags
// (a repeated column: its v1 pages' rows are in the records), a double.
function tableRows(n, from, salt) {
  const out = [];
  for (let i = from; i < from + n; i++) {
    const names = 4 + Math.floor(i / 25);
    const tags = [];
    for (let k = 0; k < (i * 7 + salt) % 4; k++) tags.push(`t${(i + k * salt) % 9}`);
    out.push(JSON.stringify({ id: i, name: i % 11 === 3 ? null : `name-${(i * 13 + salt) % names}`, tags,
                              x: i % 5 === 0 ? null : (i * 0.25 + salt) }));
  }
  return out;
}

const TABLE_SCHEMA = `message t {
  required int64 id;
  optional binary name (STRING);
  required group tags (LIST) {
    repeated group list {
      required binary element (STRING);
    }
  }
  optional double x;
}
`;

function tableArgs(v2) {
  return ['--schema', 'table.schema', '--checkpoint-rows', '20', '--row-group-rows', '100', '--page-size', '256',
          '--file-id', '77', ...(v2 ? ['--data-page-v2'] : [])];
}

// Every log: its states (closed, cut copies) and how to append to it.
function makeLogs() {
  fs.rmSync(WORK, { recursive: true, force: true });
  fs.mkdirSync(WORK, { recursive: true });
  const logs = [];
  // the sensor logger's log, and its readings continued (what resuming adds)
  mustRun(LOGGER, ['--rows', '400', ...LOGGER_OPTS, 'logger.parquet'], 'logger');
  mustRun(LOGGER, ['--rows', '700', ...LOGGER_OPTS, 'stream.parquet'], 'logger stream');
  const stream = catLines(path.join(WORK, 'stream.parquet'));
  // ... and one resumed once (a RESUME record inside a row group)
  mustRun(LOGGER, ['--rows', '230', ...LOGGER_OPTS, 'resumed.parquet'], 'logger, first session');
  mustRun(LOGGER, ['--rows', '170', '--resume', ...LOGGER_OPTS, 'resumed.parquet'], 'logger, resumed');
  const lg = (name) => ({ name, file: path.join(WORK, `${name}.parquet`), rows: stream.slice(0, 400), kind: 'logger', stream });
  logs.push(lg('logger'), lg('resumed'));
  // upq write's tables: data page v1 and v2; one more of other rows and the
  // same file id (its records are "foreign" ones that pass the id check)
  fs.writeFileSync(path.join(WORK, 'table.schema'), TABLE_SCHEMA);
  const rows = tableRows(300, 0, 1), more = tableRows(40, 300, 1), other = tableRows(300, 0, 2);
  fs.writeFileSync(path.join(WORK, 'table.jsonl'), rows.join('\n') + '\n');
  fs.writeFileSync(path.join(WORK, 'more.jsonl'), more.join('\n') + '\n');
  fs.writeFileSync(path.join(WORK, 'other.jsonl'), other.join('\n') + '\n');
  for (const v2 of [false, true]) {
    const name = v2 ? 'table-v2' : 'table';
    mustRun(UPQ, ['write', ...tableArgs(v2), 'table.jsonl', `${name}.parquet`], name);
    mustRun(UPQ, ['write', ...tableArgs(v2), 'other.jsonl', `${name}-other.parquet`], `${name}, other rows`);
    const got = catLines(path.join(WORK, `${name}.parquet`));
    if (!got || got.length !== 300) throw new Error(`${name}: upq cat reads ${got && got.length} rows`);
    logs.push({ name, file: path.join(WORK, `${name}.parquet`), rows: got, kind: 'table', v2, more,
                sameId: fs.readFileSync(path.join(WORK, `${name}-other.parquet`)) });
  }
  // journal version 2, written by the build before RG_SUM from the same rows
  // and options (table-journal-v2.parquet): recovered, damaged and resumed
  // as then (resume continues it at version 2)
  {
    const name = 'table-journal-v2', file = path.join(WORK, `${name}.parquet`);
    fs.copyFileSync(path.join(here, 'table-journal-v2.parquet'), file);
    const got = catLines(file);
    if (!got || got.join('\n') !== logs.find((l) => l.name === 'table').rows.join('\n'))
      throw new Error(`${name}: upq cat does not read the table's rows`);
    logs.push({ name, file, rows: got, kind: 'table', v2: false, more,
                sameId: fs.readFileSync(path.join(WORK, 'table-other.parquet')) });
  }
  // another file id altogether: the first table's records under the logger's
  const foreignOtherId = fs.readFileSync(path.join(WORK, 'logger.parquet'));
  for (const l of logs) {
    l.bytes = fs.readFileSync(l.file);
    l.foreign = l.kind === 'table' ? [l.sameId, foreignOtherId] : [fs.readFileSync(path.join(WORK, 'table.parquet'))];
  }
  return logs;
}

// The states of a log damage is applied to: closed, and cut at two places
// past its first row groups.
function states(log) {
  const n = log.bytes.length;
  return [
    { name: `${log.name}`, bytes: log.bytes },
    { name: `${log.name}-cut65`, bytes: log.bytes.subarray(0, Math.floor(n * 0.65)) },
    { name: `${log.name}-cut88`, bytes: log.bytes.subarray(0, Math.floor(n * 0.88)) },
  ];
}

// ---- damage ------------------------------------------------------------------------------

const flip = (b, at, bit) => { const c = Buffer.from(b); c[at] ^= 1 << bit; return c; };

function damages(st, log) {
  const b = st.bytes, out = [];
  const recs = walk(b).filter((r) => r.off + r.len <= b.length);
  const seed = nonceSeed(b);
  const pgs = pages(b, recs).filter((p) => p.off + p.len <= b.length);
  const ckpts = recs.filter((r) => (r.type === 3 || r.type === 4) && r.body);
  const add = (kind, what, bytes) => { if (bytes) out.push({ kind, what, bytes }); };
  for (let k = 0; k < 22 * PER && recs.length > 1; k++) {
    const r = recs[1 + rand(recs.length - 1)], bit = rand(r.len * 8);
    add('record bit', `bit ${bit} of the ${r.type} record at ${r.off}`, flip(b, r.off + (bit >> 3), bit & 7));
  }
  for (let k = 0; k < 2 * PER && recs.length; k++) {
    const r = recs[0], bit = rand(r.len * 8);
    add('record bit', `bit ${bit} of FILE`, flip(b, r.off + (bit >> 3), bit & 7));
  }
  for (let k = 0; k < 24 * PER && pgs.length; k++) {
    const p = pick(pgs), bit = rand(p.hl * 8);
    add('page header bit', `bit ${bit} of ${p.dict ? 'the dictionary' : 'a'} page header at ${p.off} (rg ${p.rg} col ${p.col})`,
        flip(b, p.off + (bit >> 3), bit & 7));
  }
  for (let k = 0; k < 8 * PER && pgs.length; k++) {
    const p = pick(pgs.filter((q) => q.len > q.hl)), bit = rand((p.len - p.hl) * 8);
    add('page body bit', `bit ${bit} of the body of the page at ${p.off}`, flip(b, p.off + p.hl + (bit >> 3), bit & 7));
  }
  // replayed: an earlier checkpoint where a later one was
  for (let k = 0; k < 8 * PER && ckpts.length > 1; k++) {
    const i = 1 + rand(ckpts.length - 1), later = ckpts[i], earlier = ckpts[rand(i)];
    const c = Buffer.from(b);
    const len = putRecord(c, later.off, { ...earlier, seq: later.seq, session: later.session }, earlier.body, seed);
    add('replayed record', `the checkpoint at ${earlier.off} written again over the one at ${later.off}`, len && c);
  }
  // foreign: another file's record (of the same type) where this one's is
  for (let k = 0; k < 6 * PER && recs.length > 1; k++) {
    const fb = pick(log.foreign), frecs = walk(fb).filter((r) => r.type !== 1 && r.off + r.len <= fb.length);
    const r = recs[1 + rand(recs.length - 1)];
    const fr = frecs.find((x) => x.type === r.type && x.len === r.len) || frecs.find((x) => x.type === r.type);
    if (!fr) continue;
    const c = Buffer.from(b);
    const src = Buffer.from(fb.subarray(fr.off, fr.off + fr.len));
    src.writeUInt32LE(r.seq, 12); // in sequence; its CRC then fails unless re-made
    if (rand(2) && fr.body) {
      const len = putRecord(c, r.off, { ...fr, seq: r.seq, session: r.session }, fr.body, nonceSeed(fb));
      add('foreign record', `another file's ${fr.type} record (its own nonce) over the one at ${r.off}`, len && c);
    } else if (r.off + src.length <= c.length) {
      src.copy(c, r.off);
      add('foreign record', `another file's ${fr.type} record over the one at ${r.off}`, c);
    }
  }
  // edited: a field changed, the CRC made valid again
  for (let k = 0; k < 26 * PER && recs.length > 1; k++) {
    const e = editOne(b, recs, seed);
    if (e) add('edited record', e.what, e.bytes);
  }
  // a row group's totals (RG_SUM) edited, its CRC valid: the finisher must
  // not take them over the pages (the rows and statistics stay exact)
  for (let k = 0; k < 8 * PER && recs.length > 1; k++) {
    const e = editOne(b, recs, seed, [9]);
    if (e) add('edited totals', e.what, e.bytes);
  }
  // ... and the byte sizes of its ColumnIndex's min and max lists (fields
  // 15 and 16), which place the lists before close reads a page: lists
  // written where they said must be written again where the pages say
  for (let k = 0; k < 4 * PER && recs.length > 1; k++) {
    const e = editOne(b, recs, seed, [9], [15, 16]);
    if (e) add('edited totals', e.what, e.bytes);
  }
  return out;
}

// The integer fields of a record's payload an edit may change: [path, field].
function intFields(s, pathName, out) {
  for (const f of s.fields) {
    if (f.t >= 4 && f.t <= 6) out.push({ name: `${pathName}.${f.id}`, f });
    else if (f.t === 12) intFields(f.v, `${pathName}.${f.id}`, out);
    else if ((f.t === 9 || f.t === 10) && f.v.list === 12) f.v.items.forEach((it, i) => intFields(it, `${pathName}.${f.id}[${i}]`, out));
    else if ((f.t === 9 || f.t === 10) && f.v.list >= 4 && f.v.list <= 6)
      f.v.items.forEach((x, i) => out.push({ name: `${pathName}.${f.id}[${i}]`, list: f.v, i }));
  }
  return out;
}

const clone = (s) => ({ fields: s.fields.map((f) => ({ ...f, v: cloneV(f.v) })) });
function cloneV(v) {
  if (v && v.fields) return clone(v);
  if (v && v.items) return { list: v.list, items: v.items.map(cloneV) };
  return v;
}

function editOne(b, recs, seed, types = [2, 3, 4, 5, 8], ids = null) {
  const cands = recs.filter((r) => r.body && types.includes(r.type));
  if (!cands.length) return null;
  const r = pick(cands);
  for (let tries = 0; tries < 8; tries++) {
    const body = clone(r.body);
    const ints = intFields(body, '', []).filter((x) => !ids || (x.f && ids.includes(x.f.id)));
    if (!ints.length) return null;
    const t = pick(ints);
    const old = t.list ? t.list.items[t.i] : t.f.v;
    const delta = pick([1n, -1n, 2n, -2n, 7n, -7n, 64n]);
    const nv = old + delta;
    if (t.list) t.list.items[t.i] = nv; else t.f.v = nv;
    if (encodedLength(body) !== r.len) continue;
    const c = Buffer.from(b);
    putRecord(c, r.off, r, body, seed);
    return { what: `field ${t.name} of the ${r.type} record at ${r.off}: ${old} -> ${nv}`, bytes: c };
  }
  return null;
}

// ---- the checks ------------------------------------------------------------------------------

// Recovery of the undamaged state: the rows it keeps (an upper bound for
// every damaged copy).
function baseline(st, log) {
  const f = path.join(WORK, 'base.parquet'), o = path.join(WORK, 'base.out.parquet');
  fs.writeFileSync(f, st.bytes);
  fs.rmSync(o, { force: true });
  const r = run(UPQ, ['recover', f, o]);
  const lines = r.status === 0 ? catLines(o) : null;
  if (!lines || !isPrefix(lines, log.rows)) throw new Error(`${st.name}: the undamaged file does not recover: ${tail(r.err)}`);
  return lines.length;
}

const duckQueue = [];

// `upq meta --page-index` of f as of the undamaged copy's recovery
// (base.out.parquet, the state's baseline), the file's name aside.
function sameMeta(f) {
  const meta = (g) => run(UPQ, ['meta', '--page-index', g]).out.split('\n').filter((l) => !l.startsWith('file:')).join('\n');
  return meta(f) === meta(path.join(WORK, 'base.out.parquet'));
}

function checkTimed(kind, what, r) {
  if (r.timedOut || r.signal) {
    fail(kind, `${what}: did not finish within ${TIMEOUT_S} s (${r.signal || 'timeout'})`);
    return false;
  }
  if (r.status !== 0 && r.status !== 1) {
    fail(kind, `${what}: exit status ${r.status}: ${tail(r.err)}`);
    return false;
  }
  return true;
}

function oneCopy(d, st, log, n, seen) {
  const tag = `${st.name}: ${d.what}`;
  const f = path.join(WORK, 'd.parquet'), o = path.join(WORK, 'd.out.parquet');
  fs.writeFileSync(f, d.bytes);
  fs.rmSync(o, { force: true });
  // 1. to another file
  let r = run(UPQ, ['recover', f, o]);
  let kept = null;
  if (checkTimed(d.kind, `${tag}: upq recover D OUT`, r)) {
    const after = readMaybe(f);
    if (!same(after, d.bytes)) fail(d.kind, `${tag}: upq recover D OUT changed D (exit ${r.status})`);
    else if (r.status === 1 && fs.existsSync(o)) fail(d.kind, `${tag}: upq recover D OUT failed but left OUT`);
    else if (r.status === 0) {
      const lines = catLines(o);
      if (!lines) fail(d.kind, `${tag}: upq recover D OUT said "${r.out.trim()}" but upq cat cannot read OUT`);
      else if (!isPrefix(lines, log.rows)) fail(d.kind, `${tag}: OUT's ${lines.length} rows are not a prefix of the log's`);
      else if (lines.length > n) fail(d.kind, `${tag}: OUT keeps ${lines.length} rows, the undamaged file ${n}`);
      else if (d.kind === 'edited totals' && lines.length === n && !sameMeta(o)) {
        fail(d.kind, `${tag}: OUT's footer or page indexes differ from the undamaged file's recovery`);
      } else {
        kept = lines.length;
        passed++;
        queueDuck(o, lines, log, seen, `${tag} (OUT)`);
      }
    } else passed++;
  }
  // 2. in place
  const g = path.join(WORK, 'g.parquet');
  fs.writeFileSync(g, d.bytes);
  r = run(UPQ, ['recover', g]);
  let inPlace = null;
  if (checkTimed(d.kind, `${tag}: upq recover D`, r)) {
    const after = readMaybe(g);
    if (r.status === 1) {
      if (!same(after, d.bytes)) fail(d.kind, `${tag}: a failing in-place recovery changed D (${d.bytes.length} -> ${after.length} bytes)`);
      else if (kept !== null) fail(d.kind, `${tag}: recovery to OUT kept ${kept} rows, in place it failed: ${tail(r.err)}`);
      else passed++;
    } else {
      const lines = catLines(g);
      if (!lines || !isPrefix(lines, log.rows)) fail(d.kind, `${tag}: recovered in place, not a prefix that reads`);
      else if (kept !== null && lines.length !== kept) fail(d.kind, `${tag}: in place ${lines.length} rows, to OUT ${kept}`);
      else {
        passed++;
        inPlace = after;
        if (kept === null) kept = lines.length; /* "closed already" to OUT is a copy */
      }
    }
  }
  // 3. an OUT that names D: as in place (every 6th copy)
  if (seen.count++ % 6 === 0) namesInput(d, tag, inPlace);
  // 4. appending
  append(d, tag, log, kept, seen);
}

function namesInput(d, tag, inPlace) {
  const h = path.join(WORK, 'h.parquet'), link = path.join(WORK, 'h-link.parquet');
  for (const [how, args] of [['D D', [h, h]], ['D ./D', ['h.parquet', './h.parquet']], ['D LINK', [h, link]]]) {
    fs.writeFileSync(h, d.bytes);
    fs.rmSync(link, { force: true });
    fs.symlinkSync('h.parquet', link);
    const r = run(UPQ, ['recover', ...args]);
    if (!checkTimed(d.kind, `${tag}: upq recover ${how}`, r)) continue;
    const after = readMaybe(h);
    const want = r.status === 0 ? inPlace : d.bytes;
    if (!want || !same(after, want))
      fail(d.kind, `${tag}: upq recover ${how} (exit ${r.status}) left D other than the in-place run did`);
    else if (!fs.existsSync(link) || !fs.lstatSync(link).isSymbolicLink()) fail(d.kind, `${tag}: upq recover ${how} replaced the link`);
    else passed++;
  }
}

function append(d, tag, log, kept, seen) {
  const a = path.join(WORK, 'a.parquet');
  fs.writeFileSync(a, d.bytes);
  let r, want;
  if (log.kind === 'table') {
    r = run(UPQ, ['write', ...tableArgs(log.v2), '--append', 'more.jsonl', 'a.parquet']);
    want = kept === null ? null : [...log.rows.slice(0, kept), ...log.more];
  } else {
    r = run(LOGGER, ['--rows', '50', '--resume', ...LOGGER_OPTS, 'a.parquet']);
    want = kept === null ? null : log.stream.slice(0, kept + 50);
  }
  const how = log.kind === 'table' ? 'upq write --append' : 'sensor_logger --resume';
  if (!checkTimed(d.kind, `${tag}: ${how}`, r)) return;
  const after = readMaybe(a);
  if (r.status !== 0) {
    if (!same(after, d.bytes)) fail(d.kind, `${tag}: a failing ${how} changed the file`);
    else passed++;
    return;
  }
  const lines = catLines(a);
  if (!want) fail(d.kind, `${tag}: ${how} succeeded where recovery refuses the file`);
  else if (!lines) fail(d.kind, `${tag}: ${how} succeeded, the file does not read`);
  else if (lines.length !== want.length || !lines.every((l, i) => l === want[i]))
    fail(d.kind, `${tag}: ${how} gave ${lines.length} rows, want the ${kept} recovery keeps and ${want.length - kept} more`);
  else {
    passed++;
    queueDuck(a, lines, log, seen, `${tag} (${how})`);
  }
}

// The undamaged state appended to: it must take the rows (a journal of
// version 2 too, which resume continues at version 2).
function resumesUndamaged(st, log, n) {
  const a = path.join(WORK, 'a.parquet');
  fs.writeFileSync(a, st.bytes);
  const table = log.kind === 'table';
  const r = table ? run(UPQ, ['write', ...tableArgs(log.v2), '--append', 'more.jsonl', 'a.parquet'])
                  : run(LOGGER, ['--rows', '50', '--resume', ...LOGGER_OPTS, 'a.parquet']);
  const want = table ? [...log.rows.slice(0, n), ...log.more] : log.stream.slice(0, n + 50);
  const lines = r.status === 0 ? catLines(a) : null;
  if (!lines || lines.length !== want.length || !lines.every((l, i) => l === want[i]))
    fail('undamaged', `${st.name}: appending (exit ${r.status}) does not give the ${n} rows kept and ${want.length - n} more: ${tail(r.err)}`);
  else passed++;
}

// DuckDB reads the first file of each row count of a log, and every 10th other.
function queueDuck(file, lines, log, seen, what) {
  const key = `${log.name}:${lines.length}`;
  if (seen.counts.has(key) && seen.duck++ % 10 !== 0) return;
  seen.counts.add(key);
  const keep = path.join(WORK, 'duck', `${duckQueue.length}.parquet`);
  fs.mkdirSync(path.dirname(keep), { recursive: true });
  fs.copyFileSync(file, keep);
  duckQueue.push({ file: keep, lines, what });
}

async function duckCheck() {
  const { DuckOracle } = await import('../interop/oracle_duckdb.mjs');
  const { rowShape, parseJsonLine, firstDiff, show } = await import('../interop/canonical.mjs');
  const duck = await DuckOracle.open();
  let ok = 0;
  for (const q of duckQueue) {
    const meta = JSON.parse(run(UPQ, ['meta', '--json', q.file]).out);
    const shape = rowShape(meta.schema);
    const want = q.lines.map(parseJsonLine);
    let k = 0, bad = null;
    try {
      for await (const batch of duck.rows(q.file, shape)) {
        for (const got of batch) {
          const diff = k < want.length ? firstDiff(got, want[k]) : { path: '', upq: '(none)', oracle: '(a row)' };
          if (diff && !bad) bad = `row ${k} ${diff.path}: upq ${show(diff.upq)}, DuckDB ${show(diff.oracle)}`;
          k++;
        }
      }
    } catch (e) {
      bad = `DuckDB cannot read it: ${String(e.message || e).split('\n')[0]}`;
    }
    if (!bad && k !== want.length) bad = `DuckDB reads ${k} rows, upq ${want.length}`;
    if (bad) fail('DuckDB', `${q.what}: ${bad}`);
    else { passed++; ok++; }
  }
  duck.close();
  return ok;
}

// ---- main --------------------------------------------------------------------------------

async function main() {
  const t0 = Date.now();
  console.log(`# seed ${SEED}; upq ${UPQ}; sensor_logger ${LOGGER}; work ${WORK}`);
  const logs = makeLogs();
  const byKind = new Map();
  const slow = { ms: 0, what: '' };
  for (const log of logs) {
    const seen = { count: 0, duck: 0, counts: new Set() };
    for (const st of states(log)) {
      const n = baseline(st, log);
      resumesUndamaged(st, log, n);
      const ds = damages(st, log);
      for (const d of ds) {
        const before = failed;
        const t = Date.now();
        oneCopy(d, st, log, n, seen);
        const ms = Date.now() - t;
        if (ms > slow.ms) { slow.ms = ms; slow.what = `${st.name}: ${d.what}`; }
        const k = byKind.get(d.kind) || { copies: 0, bad: 0 };
        k.copies++;
        if (failed > before) k.bad++;
        byKind.set(d.kind, k);
      }
      console.log(`# ${st.name}: ${st.bytes.length} bytes, ${n} rows recovered undamaged, ${ds.length} damaged copies`);
    }
  }
  for (const [kind, k] of byKind)
    console.log(`${k.bad ? 'FAIL' : 'ok'} ${kind}: ${k.copies} damaged copies${k.bad ? `, ${k.bad} with failures` : ''}`);
  // the hard link: refused, nothing changed
  {
    const h = path.join(WORK, 'hl.parquet'), hl = path.join(WORK, 'hl-hard.parquet');
    const cut = logs[0].bytes.subarray(0, Math.floor(logs[0].bytes.length * 0.65));
    fs.writeFileSync(h, cut);
    fs.rmSync(hl, { force: true });
    fs.linkSync(h, hl);
    const r = run(UPQ, ['recover', h, hl]);
    if (r.status === 1 && same(readMaybe(h), cut)) { passed++; console.log('ok upq recover D HARDLINK: refused, D unchanged'); }
    else fail('names', `upq recover D HARDLINK: exit ${r.status}, D ${same(readMaybe(h), cut) ? 'unchanged' : 'changed or gone'}`);
  }
  const nd = await duckCheck();
  console.log(`ok DuckDB: ${nd} of ${duckQueue.length} sampled results read as upq reads them`);
  console.log(`# slowest copy: ${slow.ms} ms (${slow.what}); ${((Date.now() - t0) / 1000).toFixed(1)} s in all`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

const exitAfterFlush = (code) => process.stdout.write('', () => process.exit(code));
main().then(exitAfterFlush, (e) => {
  console.log(`FAIL ${e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : e}`);
  console.log(`${passed} passed, ${failed + 1} failed`);
  exitAfterFlush(1);
});
