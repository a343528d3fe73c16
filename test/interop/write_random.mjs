#!/usr/bin/env node
// A property test of the writer: random schemas, rows and writer options.
//
//   node test/interop/write_random.mjs [--upq PATH] [--skip-without-upq]
//        [--work DIR] [--seed N] [--cases N] [--keep]
//
// The seed comes from --seed, else $UPQ_TEST_SEED, else a fixed default,
// and is printed: a failing run is repeated with the same seed. Each case:
// a schema of depth up to 4 (groups, 3-level LISTs, MAPs with required
// keys, bare repeated fields; leaves of every physical type with a random
// annotation the type takes; random repetition), rows in the exact form
// `upq cat --json` prints (nulls at every level, empty lists and maps,
// long strings, the kinds' extreme values) and random writer options
// (codec, page version, dictionary, page size, row groups, checkpoint mode:
// --checkpoint or --checkpoint-rows N).
//   1. `upq cat --json OUT` must equal the input byte for byte;
//   2. every 4th case, DuckDB must read the same values (canonical form);
//   3. checkpoint-mode cases (their kinds are the ones DuckDB reads, as in
//      2): DuckDB, arrow-rs and hyparquet each read every row, every row
//      group holds at most --row-group-rows rows, and with --checkpoint-rows
//      copies cut at byte offsets and finished by `upq recover` read back as
//      a prefix of the rows ending at a checkpoint (checkpoint_check.mjs).
// Prints `ok` / `FAIL` per case (a failure with the seed, the case, the
// schema and the first differing row), then `N passed, N failed`.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rowShape, parseJsonLine, firstDiff, show } from './canonical.mjs';
import { Rng, K, jsonStr, typeText, annText } from './write_matrix.mjs';
import {
  CheckFailure, readersAgree, rowGroupsWithin, cutRecover, cutOffsets, firstRecordEnd, recoverTwiceLine,
} from './checkpoint_check.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const DEFAULT_SEED = 20240611;

const opts = { upq: path.join(repoRoot, 'build', 'host', 'upq'), skipWithoutUpq: false,
               work: path.join(repoRoot, 'build', 'check', 'write-random'), keep: false,
               seed: process.env.UPQ_TEST_SEED ? Number(process.env.UPQ_TEST_SEED) : DEFAULT_SEED, cases: 40 };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--upq') opts.upq = argv[++i];
    else if (a === '--skip-without-upq') opts.skipWithoutUpq = true;
    else if (a === '--work') opts.work = argv[++i];
    else if (a === '--seed') opts.seed = Number(argv[++i]);
    else if (a === '--cases') opts.cases = Number(argv[++i]);
    else if (a === '--keep') opts.keep = true;
    else { console.error(`write_random: unknown option ${a}`); process.exit(2); }
  }
  if (!Number.isInteger(opts.seed) || opts.seed < 0) { console.error('write_random: the seed is a non-negative integer'); process.exit(2); }
}

// Cases known to fail, by seed and case number, with the reason: they are
// reported as `known-fail` and not counted. Empty while nothing is known.
const KNOWN_FAILURES = new Map();

// Kinds DuckDB does not read as upq does (see write_matrix.mjs): kept out of
// the cases DuckDB reads.
const NOT_FOR_DUCKDB = new Set(['bson', 'tns', 'tsns']);
// ... and for checkpoint-mode cases, which arrow-rs reads too: INTERVAL,
// which arrow-rs reads without its months (write_matrix.mjs).
const NOT_FOR_ALL_THREE = new Set([...NOT_FOR_DUCKDB, 'interval']);
const CODECS = ['UNCOMPRESSED', 'SNAPPY', 'LZ4_RAW', 'GZIP'];

// ---- schemas -----------------------------------------------------------------------------
//
// A node: {name, rep: 'required'|'optional'|'repeated'} and either
// {kind} (a leaf) or {group: 'plain'|'LIST'|'MAP', children}. A LIST's
// child is its repeated `list` group holding `element`; a MAP's is
// `key_value` holding a required `key` leaf and `value`.

// DuckDB reads a bare repeated group of one field as a list of that
// field's values, not of one-field structs (the LIST backward-compatibility
// rule applied outside LIST): cases DuckDB reads give such groups two fields.
function randomSchema(r, kinds, duckdb) {
  const rep = (canRepeat) => {
    const x = r.below(10);
    return x < 4 ? 'required' : x < 8 || !canRepeat ? 'optional' : 'repeated';
  };
  const leaf = (name, repetition) => ({ name, rep: repetition, kind: K[r.pick(kinds)] });
  // depth: the nesting levels still allowed (a LIST or MAP takes two)
  const node = (name, depth, canRepeat = true) => {
    const x = r.below(10);
    if (depth <= 1 || x < 4) return leaf(name, rep(canRepeat));
    if (x < 6) {
      const repetition = rep(canRepeat);
      const n = Math.max(1 + r.below(3), duckdb && repetition === 'repeated' ? 2 : 1);
      return { name, rep: repetition, group: 'plain', children: Array.from({ length: n }, (_, i) => node(`f${i}`, depth - 1)) };
    }
    if (depth < 3) return leaf(name, rep(canRepeat));
    if (x < 8) {
      const element = node('element', depth - 2, false);
      return { name, rep: r.chance(0.5) ? 'optional' : 'required', group: 'LIST',
               children: [{ name: 'list', rep: 'repeated', group: 'plain', children: [element] }] };
    }
    const key = { name: 'key', rep: 'required', kind: K[r.pick(['str', 'i32', 'i64', 'date'])], mapKey: true };
    const value = node('value', depth - 2, false);
    return { name, rep: r.chance(0.5) ? 'optional' : 'required', group: 'MAP',
             children: [{ name: 'key_value', rep: 'repeated', group: 'plain', children: [key, value] }] };
  };
  const n = 1 + r.below(5);
  return Array.from({ length: n }, (_, i) => node(`c${i}`, 4));
}

function schemaText(fields) {
  const out = ['message m {'];
  const emit = (nd, ind) => {
    const pad = '  '.repeat(ind);
    if (nd.kind) { out.push(`${pad}${nd.rep} ${typeText(nd.kind)} ${nd.name}${annText(nd.kind)};`); return; }
    out.push(`${pad}${nd.rep} group ${nd.name}${nd.group === 'plain' ? '' : ` (${nd.group})`} {`);
    for (const c of nd.children) emit(c, ind + 1);
    out.push(`${pad}}`);
  };
  for (const f of fields) emit(f, 1);
  out.push('}', '');
  return out.join('\n');
}

// ---- rows -------------------------------------------------------------------------------------

function longAscii(r, n) {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(32 + r.below(95));
  return s;
}

// JSON text of one node's value at its repetition.
function valueText(r, nd, ctx) {
  if (nd.rep === 'optional' && r.chance(ctx.nulls)) return 'null';
  if (nd.rep === 'repeated') return `[${Array.from({ length: count(r) }, () => innerText(r, nd, ctx)).join(',')}]`;
  return innerText(r, nd, ctx);
}

function count(r) {
  const x = r.below(20);
  return x < 4 ? 0 : x < 18 ? 1 + r.below(3) : 4 + r.below(12);
}

// The bytes a value takes in a page, bounded from above: the writer wants
// every row within one page, so the case's page size is raised to the
// largest row of a column.
const valueBytes = (k, v) => (Buffer.isBuffer(v) ? v.length + 4 : k.phys === 'INT96' ? 12 : 8);

function leafText(r, nd, ctx) {
  const k = nd.kind;
  let v;
  if (k.id === 'str' && r.chance(0.05)) v = Buffer.from(longAscii(r, r.below(ctx.maxStr + 1)));
  else if (k.specials.length && r.chance(0.12)) v = r.pick(k.specials);
  else v = k.gen(r);
  ctx.row.set(nd, (ctx.row.get(nd) || 0) + valueBytes(k, v));
  return k.json(v);
}

function innerText(r, nd, ctx) {
  if (nd.kind) return leafText(r, nd, ctx);
  if (nd.group === 'plain') return `{${nd.children.map((c) => `${jsonStr(c.name)}:${valueText(r, c, ctx)}`).join(',')}}`;
  const kv = nd.children[0];
  const n = count(r);
  if (nd.group === 'LIST') return `[${Array.from({ length: n }, () => valueText(r, kv.children[0], ctx)).join(',')}]`;
  // MAP: distinct keys
  const [key, value] = kv.children;
  const base = r.below(1000);
  const keyText = (j) => {
    ctx.row.set(key, (ctx.row.get(key) || 0) + 12);
    return key.kind.id === 'str' ? jsonStr(`k${base + j}`) : key.kind.json(BigInt(base + j));
  };
  return `[${Array.from({ length: n }, (_, j) => `{"key":${keyText(j)},"value":${valueText(r, value, ctx)}}`).join(',')}]`;
}

// ---- cases ---------------------------------------------------------------------------------------

function makeCase(seed, i) {
  const r = new Rng((seed ^ Math.imul(i + 1, 0x9E3779B1)) >>> 0);
  // checkpoint mode from a stream of its own: the kinds are then the ones
  // DuckDB reads, as all three readers read these files
  const rc = new Rng((seed ^ Math.imul(i + 1, 0x85EBCA77) ^ 0xC4EC4B01) >>> 0);
  const checkpoint = rc.chance(0.3);
  const ckptRows = checkpoint && rc.chance(0.6) ? rc.pick([1, 3, 10, 25]) : 0;
  const duckdb = i % 4 === 0 || checkpoint;
  const kinds = Object.keys(K).filter((id) => !(checkpoint ? NOT_FOR_ALL_THREE : duckdb ? NOT_FOR_DUCKDB : new Set()).has(id));
  const fields = randomSchema(r, kinds, duckdb);
  const codec = r.pick(CODECS);
  const v2 = r.chance(0.5);
  let pageSize = r.pick([null, 64, 256, 1024, 8192]);
  const dict = r.below(3);
  const rgRows = r.pick([null, null, 1, 7, 50]);
  r.chance(0.2); // the checkpoint draw of old: kept so the rest of the stream is as it was
  const ctx = { nulls: r.pick([0, 0.1, 0.3, 0.7]), maxStr: Math.min(3000, (pageSize || 1 << 20) - 4), row: null };
  const nrows = r.pick([0, 1, 5, 20, 60, 150]);
  let text = '', widest = 0;
  for (let k = 0; k < nrows; k++) {
    ctx.row = new Map();
    text += `{${fields.map((f) => `${jsonStr(f.name)}:${valueText(r, f, ctx)}`).join(',')}}\n`;
    for (const b of ctx.row.values()) widest = Math.max(widest, b);
  }
  if (pageSize && pageSize < widest + 16) pageSize = widest + 16;
  const args = ['--codec', codec];
  if (v2) args.push('--data-page-v2');
  if (dict === 1) args.push('--dictionary');
  if (dict === 2) args.push('--no-dictionary');
  if (pageSize) args.push('--page-size', String(pageSize));
  if (rgRows) args.push('--row-group-rows', String(rgRows));
  if (checkpoint) args.push(...(ckptRows ? ['--checkpoint-rows', String(ckptRows)] : ['--checkpoint']));
  return { name: `case-${i}`, i, duckdb, checkpoint, ckptRows, rgRows, schema: schemaText(fields), text, args, nrows };
}

// ---- running -------------------------------------------------------------------------------------

class Failure extends Error {}

function run(args) {
  return new Promise((resolve) => {
    execFile(opts.upq, args, { encoding: 'utf8', maxBuffer: 1 << 30, timeout: 120000 }, (err, stdout, stderr) => {
      const status = err ? (err.killed ? `killed (${err.signal || 'timeout'})`
        : err.signal ? `signal ${err.signal}` : `exit status ${err.code}`) : null;
      resolve({ ok: !err, status, stdout, stderr: String(stderr) });
    });
  });
}
const lastLines = (s, n = 3) => (s || '').trim().split('\n').slice(-n).join(' | ');

async function runCase(cs, duck) {
  const base = path.join(opts.work, cs.name);
  const sfile = `${base}.schema`, jfile = `${base}.jsonl`, pfile = `${base}.parquet`;
  fs.writeFileSync(sfile, cs.schema);
  fs.writeFileSync(jfile, cs.text);
  fs.rmSync(pfile, { force: true });
  const w = await run(['write', '--schema', sfile, ...cs.args, jfile, pfile]);
  if (!w.ok) throw new Failure(`upq write ${cs.args.join(' ')}: ${w.status}: ${lastLines(w.stderr)}`);
  const cat = await run(['cat', '--json', pfile]);
  if (!cat.ok) throw new Failure(`upq cat --json: ${cat.status}: ${lastLines(cat.stderr)}`);
  if (cat.stdout !== cs.text) {
    const a = cs.text.split('\n'), b = cat.stdout.split('\n');
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    throw new Failure(`upq cat --json differs at row ${i}:\n  wrote ${(a[i] ?? '(end)').slice(0, 600)}\n  read  ${(b[i] ?? '(end)').slice(0, 600)}`);
  }
  let note = '';
  if (cs.checkpoint) {
    const lines = cs.text.split('\n').filter((l) => l);
    try {
      const rn = await readersAgree(pfile, lines, { upq: opts.upq, duck });
      if (rn.length) note += `; ${[...new Set(rn)].join('; ')}`;
      const m = await run(['meta', '--json', pfile]);
      if (!m.ok) throw new Failure(`upq meta --json: ${m.status}: ${lastLines(m.stderr)}`);
      rowGroupsWithin(JSON.parse(m.stdout), cs.rgRows || 65536, 'checkpoint mode');
      note = `; DuckDB, arrow-rs, hyparquet agree${note}`;
      if (cs.ckptRows) {
        const size = fs.statSync(pfile).size;
        note += `; ${await cutRecover({ upq: opts.upq, file: pfile, lines, ckptRows: cs.ckptRows, work: opts.work, duck,
          name: cs.name, offsets: cutOffsets(size, firstRecordEnd(pfile), 3), keep: opts.keep })}`;
      }
    } catch (e) {
      if (e instanceof CheckFailure) throw new Failure(e.message);
      throw e;
    }
  } else if (cs.duckdb) {
    const meta = await run(['meta', '--json', pfile]);
    if (!meta.ok) throw new Failure(`upq meta --json: ${meta.status}: ${lastLines(meta.stderr)}`);
    const shape = rowShape(JSON.parse(meta.stdout).schema);
    const lines = cs.text.split('\n').filter((l) => l);
    let k = 0;
    try {
      for await (const batch of duck.rows(pfile, shape)) {
        for (const got of batch) {
          if (k >= lines.length) throw new Failure(`DuckDB reads more than the ${lines.length} rows written`);
          const d = firstDiff(got, parseJsonLine(lines[k]));
          if (d) throw new Failure(`DuckDB differs at row ${k} ${d.path}: written ${show(d.upq)}, DuckDB ${show(d.oracle)}\n  row ${lines[k].slice(0, 600)}`);
          k++;
        }
      }
    } catch (e) {
      if (e instanceof Failure) throw e;
      throw new Failure(`DuckDB: ${String(e.message || e).split('\n')[0]}`);
    }
    if (k !== lines.length) throw new Failure(`DuckDB reads ${k} rows, ${lines.length} written`);
    note = '; DuckDB agrees';
  }
  if (!opts.keep) for (const f of [sfile, jfile, pfile]) fs.rmSync(f, { force: true });
  return `${cs.nrows} rows, ${cs.args.join(' ')}${note}`;
}

async function main() {
  if (!fs.existsSync(opts.upq)) {
    console.log(`# ${opts.upq} is not built`);
    return opts.skipWithoutUpq ? 77 : 2;
  }
  fs.mkdirSync(opts.work, { recursive: true });
  console.log(`# write_random: seed ${opts.seed} (UPQ_TEST_SEED=${opts.seed} repeats this run), ${opts.cases} cases`);
  const { DuckOracle } = await import('./oracle_duckdb.mjs');
  const duck = await DuckOracle.open();
  let pass = 0, fail = 0, known = 0;
  const t0 = Date.now();
  for (let i = 0; i < opts.cases; i++) {
    const cs = makeCase(opts.seed, i);
    const why = KNOWN_FAILURES.get(`${opts.seed}/${i}`);
    try {
      const note = await runCase(cs, duck);
      if (why) { console.log(`FAIL ${cs.name}: passes, but is listed as a known failure (${why})`); fail++; continue; }
      console.log(`ok ${cs.name} (${note})`);
      pass++;
    } catch (e) {
      const msg = e instanceof Failure ? e.message : (e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : String(e));
      const head = why ? `known-fail ${cs.name} (${why})` : `FAIL ${cs.name}`;
      console.log(`${head}: seed ${opts.seed} case ${i}: ${msg}\n  options: ${cs.args.join(' ')}\n  schema:\n${cs.schema.replace(/^/gm, '    ')}`);
      if (why) known++; else fail++;
    }
  }
  const twice = recoverTwiceLine();
  if (twice) {
    console.log(twice.line);
    if (twice.ok) pass++; else fail++;
  }
  duck.close();
  console.log(`# ${((Date.now() - t0) / 1000).toFixed(1)} s${known ? `, ${known} known failures not counted` : ''}`);
  console.log(`${pass} passed, ${fail} failed`);
  return fail ? 1 : 0;
}

const exitAfterFlush = (code) => process.stdout.write('', () => process.exit(code));
main().then(exitAfterFlush, (e) => {
  console.error(e && e.stack ? e.stack : e);
  exitAfterFlush(1);
});
