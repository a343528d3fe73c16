#!/usr/bin/env node
// `upq cat --where` through each pruning path, against DuckDB's
// `SELECT id ... WHERE` on the same file: the ids must be the same, in file
// order. The fuller query matrix over every type is where_vs_duckdb.mjs;
// this one makes sure each way of skipping data (chunk statistics, bloom
// filters, ColumnIndex pages, none) keeps every matching row, and that the
// pruning actually happens where it must (`--io-stats` counts).
//
//   node test/interop/where_prune_duckdb.mjs [--upq PATH] [--skip-without-upq] [--work DIR]
//
// Files (one data set: sorted id and ts, a string with nulls, a double with
// NaN and nulls, an optional group, a list):
//  - upq, 1000-level pages, 5000-row row groups, page index, statistics;
//  - the same with bloom filters on dev and id, dictionary encoding;
//  - the same encrypted (--footer-key: encrypted page indexes and filters);
//  - the same with --no-statistics --no-page-index (nothing to prune with);
//  - DuckDB's own (ROW_GROUP_SIZE 4096).
// Lines `ok ...` / `FAIL ...`, then `N passed, N failed`.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const opts = { upq: path.join(repoRoot, 'build', 'host', 'upq'), skipWithoutUpq: false,
               work: path.join(repoRoot, 'build', 'check', 'where_prune') };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--upq') opts.upq = argv[++i];
    else if (argv[i] === '--skip-without-upq') opts.skipWithoutUpq = true;
    else if (argv[i] === '--work') opts.work = argv[++i];
    else { console.error(`where_prune_duckdb: unknown argument ${argv[i]}`); process.exit(2); }
  }
}
if (!fs.existsSync(opts.upq)) {
  if (opts.skipWithoutUpq) { console.log('0 passed, 0 failed (no upq)'); process.exit(0); }
  console.error(`where_prune_duckdb: no upq at ${opts.upq}`);
  process.exit(2);
}
fs.mkdirSync(opts.work, { recursive: true });

function upq(args) {
  return new Promise((resolve) => {
    execFile(opts.upq, args, { encoding: 'utf8', maxBuffer: 1 << 28, timeout: 120000 },
      (err, stdout, stderr) => resolve({ ok: !err, code: err ? err.code : 0, stdout, stderr }));
  });
}

let passed = 0, failed = 0;
function ok(name) { passed++; console.log(`ok ${name}`); }
function fail(name, why) { failed++; console.log(`FAIL ${name}: ${why}`); }

// ---- data -----------------------------------------------------------------------
const ROWS = 20000;
const T0 = 1700000000000000n;
const SCHEMA = `message m {
  required int64 id;
  optional int64 ts (TIMESTAMP(MICROS,true));
  optional binary dev (STRING);
  optional double x;
  optional group g {
    optional int32 a;
  }
  optional group l (LIST) {
    repeated group list {
      optional int32 element;
    }
  }
}`;
const lines = [];
for (let i = 0; i < ROWS; i++) {
  const x = i % 50 === 0 ? 'NaN' : i % 7 ? i * 0.5 : null;
  const ts = i % 17 ? new Date(Number((T0 + BigInt(i) * 1000000n) / 1000n)).toISOString()
    .replace('.000Z', '.000000Z') : null;
  lines.push(JSON.stringify({ id: i, ts, dev: ['a', 'b', 'c', null][i % 4] ?? (i > 15000 ? 'zz' : null),
    x, g: i % 11 === 0 ? null : { a: i % 3 ? i % 13 : null }, l: i % 2 ? [i, i + 1] : null }));
}
const jsonl = path.join(opts.work, 'data.jsonl');
const schemaFile = path.join(opts.work, 'schema.txt');
fs.writeFileSync(jsonl, lines.join('\n') + '\n');
fs.writeFileSync(schemaFile, SCHEMA);

const KEY = '0123456789abcdef0123456789abcdef';
const base = ['write', '--schema', schemaFile, '--page-levels', '1000', '--row-group-rows', '5000'];
const files = [
  { name: 'upq', args: [], keys: [] },
  { name: 'upq-bloom', args: ['--bloom', 'dev', '--bloom', 'id', '--dictionary'], keys: [] },
  { name: 'upq-encrypted', args: ['--bloom', 'dev', '--footer-key', KEY], keys: ['--footer-key', KEY] },
  { name: 'upq-bare', args: ['--no-statistics', '--no-page-index'], keys: [] },
];
for (const f of files) {
  f.path = path.join(opts.work, `${f.name}.parquet`);
  const r = await upq([...base, ...f.args, jsonl, f.path]);
  if (!r.ok) { fail(`write ${f.name}`, r.stderr.trim()); f.broken = true; }
}
const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await db.connect();
{
  const duck = path.join(opts.work, 'duckdb.parquet');
  await con.run(`COPY (SELECT * FROM read_parquet('${files[0].path}')) TO '${duck}' (FORMAT parquet, ROW_GROUP_SIZE 4096)`);
  files.push({ name: 'duckdb', path: duck, keys: [] });
  // the truth comes from a table, not from DuckDB's reading of a file with a
  // WHERE: DuckDB's own pruning trusts bounds that leave NaN out (it drops the
  // NaN rows of `x > 9990` on files whose statistics follow the format)
  await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet('${files[0].path}')`);
}

// [--where text, SQL condition, expectation on the pruning of the upq file]
const Q = [
  ['id >= 4998 and id < 5003', 'id >= 4998 and id < 5003', { maxSelected: 2000 }],
  ['id = 12345', 'id = 12345', { maxSelected: 1000 }],
  ['id in (3, 19999, 7777)', 'id in (3, 19999, 7777)', {}],
  ['not (id >= 10)', 'not (id >= 10)', { maxSelected: 1000 }],
  ['ts >= "2023-11-15T02:00:00Z" and ts < "2023-11-15T02:00:05Z"',
    "ts >= '2023-11-15T02:00:00Z'::timestamptz and ts < '2023-11-15T02:00:05Z'::timestamptz", { maxSelected: 1000 }],
  ['ts is null', 'ts is null', {}],
  ['dev = "b"', "dev = 'b'", {}],
  ['dev = "zz"', "dev = 'zz'", {}],
  ['dev = "nope"', "dev = 'nope'", {}],
  ['dev = "0"', "dev = '0'", { maxSelected: 0 }],
  ['dev not in ("a", "b")', "dev not in ('a', 'b')", {}],
  ['dev is null or dev > "b"', "dev is null or dev > 'b'", {}],
  ['x > 9990', 'x > 9990', {}],
  ['x < 3', 'x < 3', {}],
  ['x = nan', "x = 'nan'::double", {}],
  ['x != 2.5 and id < 60', 'x != 2.5 and id < 60', {}],
  ['not (x <= 9000)', 'not (x <= 9000)', {}],
  ['g.a = 5 and id between', null, null], // a syntax error: exit 1
  ['g.a = 5 and id < 500', 'g.a = 5 and id < 500', {}],
  ['g.a is null and not (id > 200)', 'g.a is null and not (id > 200)', {}],
  ['(dev = "a" or dev = "c") and (x > 100 and x < 104 or id = 7)',
    "(dev = 'a' or dev = 'c') and (x > 100 and x < 104 or id = 7)", {}],
  ['not (dev = "a" or ts is not null)', "not (dev = 'a' or ts is not null)", {}],
];

for (const f of files) {
  if (f.broken) continue;
  for (const [w, sql, expect] of Q) {
    const name = `${f.name}: ${w}`;
    const r = await upq(['cat', '--json', '--columns', 'id', '--io-stats', ...f.keys, '--where', w, f.path]);
    if (sql === null) {
      if (r.ok || !/--where: offset \d+:/.test(r.stderr)) fail(name, `expected an error with an offset, got ${r.stderr.trim()}`);
      else ok(name);
      continue;
    }
    if (!r.ok) { fail(name, r.stderr.trim()); continue; }
    const got = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l).id);
    const rows = (await con.runAndReadAll(`SELECT id FROM t WHERE ${sql} ORDER BY id`)).getRows();
    const exp = rows.map((x) => Number(x[0]));
    if (got.length !== exp.length || got.some((v, i) => v !== exp[i])) {
      fail(name, `${got.length} rows, DuckDB ${exp.length}; first ${JSON.stringify(got.slice(0, 5))} vs ${JSON.stringify(exp.slice(0, 5))}`);
      continue;
    }
    const m = /rows: (\d+) selected/.exec(r.stderr);
    if (f.name === 'upq' && expect.maxSelected !== undefined && (!m || Number(m[1]) > expect.maxSelected)) {
      fail(name, `pruning kept ${m ? m[1] : '?'} rows, expected at most ${expect.maxSelected}`);
      continue;
    }
    ok(name);
  }
}
// bloom filters prune a value the statistics cannot: "b1" lies inside every chunk's
// [min, max] of dev but is in none
{
  const f = files.find((x) => x.name === 'upq-bloom');
  const r = await upq(['cat', '--json', '--io-stats', '--where', 'dev = "b1"', f.path]);
  const m = /(\d+) by bloom filters/.exec(r.stderr);
  if (!r.ok || r.stdout !== '' || !m || Number(m[1]) !== 4) fail('bloom prunes', r.stderr.trim());
  else ok('bloom prunes every row group for dev = "b1"');
}
// ... and without a filter, the dictionary does (every page of dev uses it)
{
  const f = files.find((x) => x.name === 'upq');
  const r = await upq(['cat', '--json', '--io-stats', '--where', 'dev = "b1"', f.path]);
  const m = /(\d+) by dictionaries/.exec(r.stderr);
  if (!r.ok || r.stdout !== '' || !m || Number(m[1]) !== 4) fail('dictionary prunes', r.stderr.trim());
  else ok('dictionaries prune every row group for dev = "b1"');
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
