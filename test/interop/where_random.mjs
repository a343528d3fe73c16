#!/usr/bin/env node
// The random predicate matrix (issue 26's acceptance): random WHERE
// conditions, written as SQL the way DuckDB reads it, over files from four
// writers (DuckDB, arrow-rs through parquet-wasm, hyparquet-writer and
// `upq write`), each answered by `upq cat --where` and checked against
// DuckDB's `SELECT id ... WHERE` on the same file. Every query is also run
// in three fixed arenas (`--arena`): each run must print exactly the rows of
// the unbounded run, or exit 1 with "arena too small: N bytes needed" (N
// above the arena, what it printed a prefix of the answer), and the same
// query in N bytes must then answer it.
//
//   node test/interop/where_random.mjs [--upq PATH] [--work DIR] [--seed N]
//        [--queries N] [--arenas 24K,64K,1M] [--skip-without-upq]
//
// The conditions mix comparisons with a literal on either side, BETWEEN,
// [NOT] IN with NULL members, IS [NOT] NULL, IS [NOT] DISTINCT FROM, [NOT]
// LIKE (prefix patterns that prune, general ones, ESCAPE), boolean columns
// alone, TRUE / FALSE / NULL, = NULL, AND / OR / NOT; names in any case and
// in double quotes; literals that are not values of the column as DuckDB
// takes them (out-of-range integers, fractions, integral decimals, exponents,
// trailing zeros, timestamps with any fraction, a date alone or an offset,
// UUIDs without hyphens or in braces, nan and inf in any case). Literals are
// drawn from the rows, so most conditions match some.
//
// The seed (--seed, else UPQ_TEST_SEED, else the clock) is printed first; the
// same seed gives the same queries. A failure prints the command and the
// SQL. Lines `ok ...` / `FAIL ...`, then `N passed, N failed`.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { DuckDBInstance } from '@duckdb/node-api';
import { upqOptions, runUpq, repoRoot, cmdline, tally } from './upq_harness.mjs';

const require = createRequire(import.meta.url);
const opts = upqOptions(process.argv, {
  '--seed': (o, v) => { o.seed = v(); },
  '--queries': (o, v) => { o.queries = Number(v()); },
  '--arenas': (o, v) => { o.arenas = v(); },
}, { work: path.join(repoRoot, 'build', 'check', 'where-random'), queries: 60, arenas: '24K,64K,1M' });
const t = tally();

// ---- a seeded generator (splitmix64) -------------------------------------------------

function rng(seed) {
  let x = BigInt.asUintN(64, BigInt(seed));
  const next = () => {
    x = BigInt.asUintN(64, x + 0x9e3779b97f4a7c15n);
    let z = x;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    return z ^ (z >> 31n);
  };
  const r = {
    u64: next,
    int: (n) => Number(next() % BigInt(n)),
    chance: (p) => Number(next() % 1000000n) < p * 1000000,
    pick: (a) => a[Number(next() % BigInt(a.length))],
  };
  return r;
}

// ---- the rows (the same data for every writer) ---------------------------------------

const N = 3000;
const PREFIXES = ['alpha', 'alpine', 'beta', 'beta_max', 'gamma%ray', 'delta', 'Ølfa', 'é-ü'];
const BASE_US = 1704067200000000n; // 2024-01-01 00:00:00 UTC in microseconds

function f32(x) { return Math.fround(x); }

function makeRows() {
  const r = rng(26);
  const rows = [];
  for (let k = 0; k < N; k++) {
    const nul = (m) => k % m === m - 1;
    const specials = [NaN, -0, 0, Infinity, -Infinity];
    const row = { id: k };
    row.i8 = nul(11) ? null : r.int(256) - 128;
    row.u8 = nul(13) ? null : r.int(256);
    row.i16 = nul(17) ? null : r.int(65536) - 32768;
    row.i32 = nul(19) ? null : (k % 5 === 0 ? r.int(2001) - 1000 : r.int(4000000000) - 2000000000);
    row.i64 = nul(23) ? null : BigInt.asIntN(64, r.u64()) / (k % 3 === 0 ? 1n : 1000000000n);
    row.f32 = nul(29) ? null : k % 37 === 5 ? r.pick(specials) : f32((r.int(200001) - 100000) / 64);
    row.f64 = nul(31) ? null : k % 41 === 7 ? r.pick(specials) : (r.int(2000001) - 1000000) / 1024;
    row.dec = nul(43) ? null : BigInt(r.int(2000000001) - 1000000000); // unscaled, DECIMAL(9,2)
    const p = r.pick(PREFIXES);
    row.s = nul(7) ? null : k % 97 === 3 ? '' : `${p}-${String(r.int(1000)).padStart(3, '0')}`;
    row.b = nul(5) ? null : r.chance(0.4);
    row.dt = 19723 + Math.floor(k / 8); // sorted, from 2024-01-01
    // sorted microseconds with sub-second parts, some whole seconds and milliseconds
    row.ts = BASE_US + BigInt(k) * 1000037n + (k % 4 === 0 ? 0n : BigInt(r.int(1000000)));
    if (k % 9 === 0) row.ts -= row.ts % 1000000n;
    if (k % 9 === 1) row.ts -= row.ts % 1000n;
    row.tstz = nul(19) ? null : BASE_US + BigInt(r.int(30 * 86400)) * 1000000n + BigInt(r.int(1000)) * 1000n;
    const u = [];
    for (let j = 0; j < 16; j++) u.push(r.int(256));
    row.uid = nul(47) ? null : Buffer.from(u).toString('hex');
    rows.push(row);
  }
  return rows;
}

const uuidText = (h) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
const pad = (n, w) => String(n).padStart(w, '0');

function dateText(days) {
  const d = new Date(days * 86400000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}

// microseconds since the epoch as 'YYYY-MM-DD HH:MM:SS.ffffff'
function tsText(us, sep = ' ', digits = 6) {
  const s = us / 1000000n, f = us % 1000000n;
  const d = new Date(Number(s) * 1000);
  let t = `${dateText(Math.floor(Number(s) / 86400))}${sep}${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
  if (digits > 0) t += `.${pad(f, 6).padEnd(9, '0').slice(0, digits)}`;
  return t;
}

function decText(u) {
  const neg = u < 0n, a = neg ? -u : u;
  return `${neg ? '-' : ''}${a / 100n}.${pad(a % 100n, 2)}`;
}

function floatJson(x) {
  if (Number.isNaN(x)) return '"NaN"';
  if (x === Infinity) return '"Infinity"';
  if (x === -Infinity) return '"-Infinity"';
  if (Object.is(x, -0)) return '-0.0';
  return String(x);
}

// ---- the files --------------------------------------------------------------------------

const UPQ_SCHEMA = `message m {
  required int64 id;
  optional int32 i8 (INTEGER(8,true));
  optional int32 u8 (INTEGER(8,false));
  optional int32 i16 (INTEGER(16,true));
  optional int32 i32;
  optional int64 i64;
  optional float f32;
  optional double f64;
  optional int32 dec (DECIMAL(9,2));
  optional binary s (STRING);
  optional boolean b;
  optional int32 dt (DATE);
  optional int64 ts (TIMESTAMP(MICROS,false));
  optional int64 tstz (TIMESTAMP(MILLIS,true));
  optional fixed_len_byte_array(16) uid (UUID);
}
`;

function upqLine(r) {
  const v = (x, f) => (x === null ? 'null' : f(x));
  return `{"id":${r.id},"i8":${v(r.i8, String)},"u8":${v(r.u8, String)},"i16":${v(r.i16, String)},` +
    `"i32":${v(r.i32, String)},"i64":${v(r.i64, String)},"f32":${v(r.f32, floatJson)},"f64":${v(r.f64, floatJson)},` +
    `"dec":${v(r.dec, (x) => `"${decText(x)}"`)},"s":${v(r.s, JSON.stringify)},"b":${v(r.b, String)},` +
    `"dt":"${dateText(r.dt)}","ts":"${tsText(r.ts, 'T')}","tstz":${v(r.tstz, (x) => `"${tsText(x, 'T', 3)}Z"`)},` +
    `"uid":${v(r.uid, (x) => `"${uuidText(x)}"`)}}`;
}

async function writeUpq(rows, dir) {
  const schema = path.join(dir, 'upq.schema'), jsonl = path.join(dir, 'rows.jsonl');
  const out = path.join(dir, 'upq.parquet');
  fs.writeFileSync(schema, UPQ_SCHEMA);
  fs.writeFileSync(jsonl, rows.map(upqLine).join('\n') + '\n');
  const args = ['write', '--schema', schema, '--page-levels', '200', '--row-group-rows', '1100', jsonl, out];
  const r = await runUpq(opts.upq, args);
  if (!r.ok) throw new Error(`${cmdline(opts.upq, args)}: ${r.stderr.trim()}`);
  return out;
}

async function writeDuckDB(con, dir) {
  // DuckDB reads upq's JSON lines as text and casts each column
  const out = path.join(dir, 'duckdb.parquet');
  const jsonl = path.join(dir, 'rows.jsonl');
  const cols = ['id BIGINT', 'i8 TINYINT', 'u8 UTINYINT', 'i16 SMALLINT', 'i32 INTEGER', 'i64 BIGINT',
    'f32 FLOAT', 'f64 DOUBLE', 'dec DECIMAL(9,2)', 's VARCHAR', 'b BOOLEAN', 'dt DATE', 'ts TIMESTAMP',
    'tstz TIMESTAMPTZ', 'uid UUID'];
  const sel = cols.map((c) => { const [n, ty] = c.split(' '); return `CAST(${n} AS ${ty}) AS ${n}`; }).join(', ');
  const json = cols.map((c) => `${c.split(' ')[0]}: 'VARCHAR'`).join(', ');
  await con.run(`COPY (SELECT ${sel} FROM read_json('${jsonl}', columns={${json}}, format='newline_delimited'))
    TO '${out}' (FORMAT PARQUET, ROW_GROUP_SIZE 1024)`);
  return out;
}

async function writeArrow(rows, dir) {
  const { vectorFromArray, makeTable, tableToIPC, Int8, Uint8, Int16, Int32, Int64, Float32, Float64, Utf8, Bool,
    DateDay, TimestampMicrosecond, TimestampMillisecond, TimeUnit, Timestamp } = await import('apache-arrow');
  const pw = require('parquet-wasm/node');
  const col = (name, type) => vectorFromArray(rows.map((r) => r[name]), type).data[0];
  const t = makeTable({
    id: vectorFromArray(rows.map((r) => BigInt(r.id)), new Int64()).data[0],
    i8: col('i8', new Int8()), u8: col('u8', new Uint8()), i16: col('i16', new Int16()), i32: col('i32', new Int32()),
    i64: vectorFromArray(rows.map((r) => r.i64), new Int64()).data[0],
    f32: col('f32', new Float32()), f64: col('f64', new Float64()), s: col('s', new Utf8()), b: col('b', new Bool()),
    dt: vectorFromArray(rows.map((r) => r.dt * 86400000), new DateDay()).data[0],
    ts: vectorFromArray(rows.map((r) => Number(r.ts / 1000n)), new TimestampMicrosecond()).data[0],
    tstz: vectorFromArray(rows.map((r) => (r.tstz === null ? null : Number(r.tstz / 1000n))),
      new Timestamp(TimeUnit.MILLISECOND, 'UTC')).data[0],
  });
  void TimestampMillisecond;
  const props = new pw.WriterPropertiesBuilder().setDataPageSizeLimit(1024).setWriteBatchSize(100)
    .setMaxRowGroupSize(1300).build();
  const out = path.join(dir, 'arrow-rs.parquet');
  fs.writeFileSync(out, Buffer.from(pw.writeParquet(pw.Table.fromIPCStream(tableToIPC(t, 'stream')), props)));
  return out;
}

async function writeHyparquet(rows, dir) {
  const { parquetWriteBuffer } = await import('hyparquet-writer');
  const c = (name, data, type) => ({ name, data, type, columnIndex: true });
  const out = path.join(dir, 'hyparquet.parquet');
  const buf = parquetWriteBuffer({
    columnData: [
      c('id', rows.map((r) => BigInt(r.id)), 'INT64'),
      c('i32', rows.map((r) => r.i32), 'INT32'),
      c('i64', rows.map((r) => r.i64), 'INT64'),
      c('f32', rows.map((r) => r.f32), 'FLOAT'),
      c('f64', rows.map((r) => r.f64), 'DOUBLE'),
      c('s', rows.map((r) => r.s), 'STRING'),
      c('b', rows.map((r) => r.b), 'BOOLEAN'),
      c('tstz', rows.map((r) => (r.tstz === null ? null : new Date(Number(r.tstz / 1000n)))), 'TIMESTAMP'),
      c('uid', rows.map((r) => (r.uid === null ? null : Buffer.from(r.uid, 'hex'))), 'UUID'),
    ],
    rowGroupSize: 1000,
    pageSize: 2048,
  });
  fs.writeFileSync(out, Buffer.from(buf));
  return out;
}

// ---- conditions ------------------------------------------------------------------------------

// The column kinds conditions are made for, by DuckDB's type of the column.
function kindOf(duckType) {
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT)$/.test(duckType)) return 'int';
  if (duckType === 'FLOAT' || duckType === 'DOUBLE') return 'float';
  if (/^DECIMAL/.test(duckType)) return 'dec';
  if (duckType === 'VARCHAR') return 'str';
  if (duckType === 'BOOLEAN') return 'bool';
  if (duckType === 'DATE') return 'date';
  if (duckType === 'TIMESTAMP') return 'ts';
  if (duckType === 'TIMESTAMP WITH TIME ZONE') return 'tstz';
  if (duckType === 'UUID') return 'uuid';
  return null;
}

const RANGE = { TINYINT: [-128, 127], UTINYINT: [0, 255], SMALLINT: [-32768, 32767] };
const sq = (s) => `'${s.replaceAll("'", "''")}'`;

// Literals of a column, as SQL text, from the rows (and around them).
function literal(r, col, rows) {
  const v = rows[r.int(rows.length)][col.name];
  const k = col.kind;
  if (v === null || v === undefined || r.chance(0.04)) return r.chance(0.5) ? 'NULL' : literalOf(r, col, rows[r.int(rows.length)][col.name] ?? rows[0][col.name]);
  return literalOf(r, col, v);
}

function literalOf(r, col, v) {
  switch (col.kind) {
  case 'int': {
    const [lo, hi] = RANGE[col.type] || [-2147483648, 2147483647];
    const forms = [() => String(v), () => `${v}.0`, () => `${v}.5`, () => `${v}.000`, () => `${hi + 1 + r.int(1000)}`,
      () => `${lo - 1 - r.int(1000)}`, () => `'${v}'`, () => (Math.abs(Number(v)) < 1e15 ? `${Number(v)}e0` : String(v)),
      () => `${Number(v) / 1000}e3`, () => String(-Number(v))];
    return r.pick(forms)();
  }
  case 'float': {
    // (bare nan / inf are upq's words, not DuckDB's: where_vs_duckdb.mjs has them)
    if (Number.isNaN(v)) return r.pick(["'NaN'", "'nan'", "'NAN'"]);
    if (v === Infinity) return r.pick(["'Infinity'", "'inf'", "'INF'"]);
    if (v === -Infinity) return r.pick(["'-Infinity'", "'-inf'"]);
    if (Object.is(v, -0)) return r.pick(["'-0.0'", '0', '-0.0']);
    return r.pick([() => String(v), () => `${v}e0`, () => String(v + 0.001), () => `'${v}'`])();
  }
  case 'dec': {
    const t = typeof v === 'bigint' ? decText(v) : String(v);
    return r.pick([() => t, () => `${t}0`, () => `${t}00`, () => `${t}5`, () => `'${t}'`, () => t.replace(/\.\d+$/, ''),
      () => `${t}e0`])();
  }
  case 'str': return sq(v);
  case 'bool': return r.pick([v ? 'TRUE' : 'FALSE', v ? "'true'" : "'false'", v ? "'t'" : "'f'"]);
  case 'date': {
    const d = dateText(typeof v === 'number' ? v : 0);
    return r.pick([`'${d}'`, `DATE '${d}'`, `'${d} 00:00:00'`, `TIMESTAMP '${d} 12:00:00'`]);
  }
  case 'ts':
  case 'tstz': {
    const us = typeof v === 'bigint' ? v : BASE_US;
    const forms = [() => `'${tsText(us)}'`, () => `'${tsText(us, 'T')}'`, () => `'${tsText(us, ' ', 0)}'`,
      () => `'${tsText(us, ' ', 3)}'`, () => `'${tsText(us, ' ', 1 + r.int(9))}'`, () => `'${dateText(Number(us / 86400000000n))}'`,
      () => `TIMESTAMP '${tsText(us)}'`];
    if (col.kind === 'tstz') {
      forms.push(() => `'${tsText(us)}Z'`, () => `'${tsText(us + 7200000000n)}+02:00'`, () => `'${tsText(us - 19800000000n)}-05:30'`,
        () => `TIMESTAMPTZ '${tsText(us + 3600000000n)}+01'`);
    }
    return r.pick(forms)();
  }
  case 'uuid': {
    const h = typeof v === 'string' ? v : '00000000000000000000000000000000';
    return r.pick([`'${uuidText(h)}'`, `'${h}'`, `'{${uuidText(h).toUpperCase()}}'`, `'${h.toUpperCase()}'`]);
  }
  default: return 'NULL';
  }
}

// A name for the column as a user might write it: any case when that is
// unambiguous, sometimes in double quotes.
function nameOf(r, col) {
  if (r.chance(0.15)) return `"${col.name}"`;
  if (r.chance(0.3)) return col.name.toUpperCase();
  return col.name;
}

const OPS = ['=', '!=', '<>', '<', '<=', '>', '>='];
const FLIP = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '=': '=', '!=': '!=', '<>': '<>' };

function likePattern(r, v) {
  if (typeof v !== 'string' || v.length === 0) return "'%'";
  const esc = (s) => s.replaceAll('\\', '\\\\').replaceAll('%', '\\%').replaceAll('_', '\\_');
  const k = 1 + r.int(Math.max(1, v.length - 1));
  switch (r.int(6)) {
  case 0: return `${sq(v.slice(0, k) + '%')}`; // may hold a literal % or _: a wider match
  case 1: return `${sq(esc(v.slice(0, k)) + '%')} ESCAPE '\\'`;
  case 2: return sq(`%${v.slice(k - 1, k + 2)}%`);
  case 3: return sq(v.slice(0, 2) + '_' + v.slice(3) );
  case 4: return sq(v);
  default: return sq(`${v.slice(0, 3)}%${v.slice(-2)}`);
  }
}

// One atom: a condition on one column.
function atom(r, cols, rows) {
  const col = r.pick(cols);
  const n = nameOf(r, col);
  const lit = () => literal(r, col, rows);
  const x = r.int(100);
  if (col.kind === 'bool' && x < 25) return r.pick([n, `NOT ${n}`, `${n} IS TRUE`, `${n} IS NOT FALSE`, `${n} = 1`, `${n} = 0`]);
  if (col.kind === 'str' && x < 35) {
    const v = rows[r.int(rows.length)][col.name];
    return `${n} ${r.chance(0.25) ? 'NOT ' : ''}LIKE ${likePattern(r, v)}`;
  }
  if (x < 45) {
    const op = r.pick(OPS);
    return r.chance(0.7) ? `${n} ${op} ${lit()}` : `${lit()} ${FLIP[op]} ${n}`;
  }
  if (x < 55) return `${n} ${r.chance(0.2) ? 'NOT ' : ''}BETWEEN ${lit()} AND ${lit()}`;
  if (x < 65) {
    const k = 1 + r.int(4), items = [];
    for (let j = 0; j < k; j++) items.push(lit());
    return `${n} ${r.chance(0.3) ? 'NOT ' : ''}IN (${items.join(', ')})`;
  }
  if (x < 72) return `${n} IS ${r.chance(0.5) ? 'NOT ' : ''}NULL`;
  if (x < 80) return r.chance(0.7) ? `${n} IS ${r.chance(0.5) ? 'NOT ' : ''}DISTINCT FROM ${lit()}`
    : `${lit()} IS ${r.chance(0.5) ? 'NOT ' : ''}DISTINCT FROM ${n}`;
  if (x < 83) return `${n} = NULL`;
  if (x < 85) return r.pick(['TRUE', 'FALSE', 'NULL']);
  const op = r.pick(OPS);
  return `${n} ${op} ${lit()}`;
}

// A condition: atoms under AND / OR / NOT, up to three levels.
function condition(r, cols, rows, depth = 0) {
  if (depth >= 3 || r.chance(depth === 0 ? 0.25 : 0.55)) return atom(r, cols, rows);
  const a = condition(r, cols, rows, depth + 1), b = condition(r, cols, rows, depth + 1);
  const e = `${a} ${r.chance(0.5) ? 'AND' : 'OR'} ${b}`;
  return r.chance(0.2) ? `NOT (${e})` : `(${e})`;
}

// ---- running -------------------------------------------------------------------------------

function parseArena(s) {
  const m = /^(\d+)([KM]?)$/.exec(s);
  return Number(m[1]) * (m[2] === 'K' ? 1024 : m[2] === 'M' ? 1048576 : 1);
}

let running = 0;
const waiting = [];
async function pooled(args) {
  while (running >= 2) await new Promise((res) => waiting.push(res));
  running++;
  try {
    return await runUpq(opts.upq, args);
  } finally {
    running--;
    if (waiting.length) waiting.shift()();
  }
}

const idsOf = (stdout) => stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l).id);

// upq's answer in every arena; null when all agree with DuckDB, else why not.
async function check(file, where, cols, expect) {
  const base = ['cat', '--json', '--columns', cols.join(','), '--where', where];
  const full = await pooled([...base, file]);
  if (!full.ok) return { why: `exit ${full.code}: ${full.stderr.trim().split('\n').pop()}`, args: [...base, file] };
  const ids = idsOf(full.stdout);
  if (ids.length !== expect.length || ids.some((v, i) => String(v) !== String(expect[i]))) {
    const i = ids.findIndex((v, j) => String(v) !== String(expect[j]));
    return { why: `upq printed ${ids.length} rows, DuckDB ${expect.length}; first difference at ${i < 0 ? Math.min(ids.length, expect.length) : i}: ` +
      `upq ${ids[i < 0 ? Math.min(ids.length, expect.length) : i]} DuckDB ${expect[i < 0 ? Math.min(ids.length, expect.length) : i]}`, args: [...base, file] };
  }
  const runs = await Promise.all(opts.arenaList.map(async (a) => {
    const args = [...base, '--arena', a, file];
    let r = await pooled(args);
    if (r.ok) return r.stdout === full.stdout ? null : { why: `--arena ${a}: other rows than without it`, args };
    const m = /arena too small: (\d+) bytes needed/.exec(r.stderr);
    if (r.code !== 1 || !m) return { why: `--arena ${a}: exit ${r.code}: ${r.stderr.trim().split('\n').pop()}`, args };
    if (!(Number(m[1]) > parseArena(a))) return { why: `--arena ${a}: says ${m[1]} bytes needed, not more than it had`, args };
    if (!full.stdout.startsWith(r.stdout)) return { why: `--arena ${a}: printed rows that are not the answer's first`, args };
    // one retry in the bytes it named answers
    const again = [...base, '--arena', m[1], file];
    r = await pooled(again);
    if (!r.ok || r.stdout !== full.stdout)
      return { why: `--arena ${a} named ${m[1]} bytes, and in them: exit ${r.code} ${r.stderr.trim().split('\n').pop()}`, args: again };
    return { needed: true };
  }));
  const bad = runs.find((x) => x && x.why);
  return bad || { arenasFailed: runs.filter((x) => x && x.needed).length };
}

async function main() {
  if (!fs.existsSync(opts.upq)) {
    if (opts.skipWithoutUpq) { console.log(`# ${opts.upq} not built: skipped`); return 77; }
    console.error(`where_random: no ${opts.upq}`);
    return 2;
  }
  const seed = opts.seed ?? process.env.UPQ_TEST_SEED ?? String(Date.now() % 1000000007);
  console.log(`# seed ${seed} (--seed ${seed} repeats these queries)`);
  opts.arenaList = opts.arenas.split(',');
  fs.mkdirSync(opts.work, { recursive: true });
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  await con.run('SET threads = 1');
  await con.run("SET TimeZone = 'UTC'");
  // the truth must not depend on the file's statistics (NaN is left out of them)
  await con.run("SET disabled_optimizers = 'filter_pushdown,statistics_propagation'");

  const rows = makeRows();
  const files = [];
  for (const [name, make] of [['upq write', () => writeUpq(rows, opts.work)], ['DuckDB', () => writeDuckDB(con, opts.work)],
    ['arrow-rs (parquet-wasm)', () => writeArrow(rows, opts.work)], ['hyparquet-writer', () => writeHyparquet(rows, opts.work)]]) {
    try {
      files.push({ name, file: await make() });
    } catch (e) {
      t.result(false, `write the ${name} file`, e.message);
    }
  }
  const r = rng(BigInt(seed) * 7919n + 26n);
  let queries = 0, matched = 0, arenaFails = 0;
  for (const f of files) {
    const desc = (await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${f.file}')`)).getRowsJson();
    const cols = desc.map(([name, type]) => ({ name, type, kind: kindOf(type) })).filter((c) => c.kind && c.name !== 'id');
    let ok = 0;
    const pending = [];
    for (let q = 0; q < opts.queries; q++) {
      const where = condition(r, cols, rows);
      const proj = ['id', ...cols.filter(() => r.chance(0.3)).map((c) => c.name)];
      let expect;
      try {
        const res = await con.runAndReadAll(`SELECT id FROM read_parquet('${f.file}') WHERE ${where} ORDER BY id`);
        expect = res.getRowsJson().map((x) => x[0]);
      } catch (e) {
        t.result(false, `${f.name}: DuckDB refused WHERE ${where}`, e.message.split('\n')[0]);
        continue;
      }
      pending.push(check(f.file, where, proj, expect).then((res) => {
        queries++;
        if (res.why) {
          t.result(false, `${f.name}: WHERE ${where}`, `${res.why}\n    ${cmdline(opts.upq, res.args)}`);
        } else {
          ok++;
          matched += expect.length ? 1 : 0;
          arenaFails += res.arenasFailed;
        }
      }));
    }
    await Promise.all(pending);
    t.result(ok === opts.queries, `${f.name}: ${ok}/${opts.queries} random conditions as DuckDB answers them, in every arena`,
      'see the failures above');
  }
  console.log(`# ${queries} queries, ${matched} matching some row; ${arenaFails} fixed-arena runs said how many bytes ` +
    'they needed and answered in them');
  con.closeSync();
  await t.finish();
}

main().catch((e) => { console.error(e); process.exit(2); });
