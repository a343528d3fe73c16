#!/usr/bin/env node
// Column-chunk metadata `upq write` adds when asked, read back by other
// readers:
//
//  - --column-kv COL:KEY=VALUE: ColumnMetaData.key_value_metadata of every
//    chunk of COL (or of every leaf under a group COL), as DuckDB's
//    parquet_metadata() reads it and as `upq meta` prints it; in one pass
//    and in checkpoint mode, several row groups; the corpus's
//    column_chunk_key_value_metadata.parquet printed by `upq meta` as DuckDB
//    reads it.
//
//   node test/interop/column_meta.mjs [--upq UPQ] [--work DIR] [--skip-without-upq]
//
// Prints `ok ...` / `FAIL ...` per check and ends with `N passed, N failed`.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');

const o = { upq: path.join(repoRoot, 'build/host/upq'), skipWithoutUpq: false,
            work: path.join(repoRoot, 'build/check/column-meta') };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--upq') o.upq = process.argv[++i];
  else if (a === '--skip-without-upq') o.skipWithoutUpq = true;
  else if (a === '--work') o.work = process.argv[++i];
  else { console.error(`column_meta: unknown argument ${a}`); process.exit(2); }
}
if (!fs.existsSync(o.upq)) {
  console.log(`column_meta: no ${o.upq}`);
  process.exit(o.skipWithoutUpq ? 77 : 1);
}
fs.rmSync(o.work, { recursive: true, force: true });
fs.mkdirSync(o.work, { recursive: true });

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const sq = (s) => `'${s.replaceAll("'", "''")}'`;
async function rows(sql) {
  return (await con.runAndReadAll(sql)).getRowObjectsJson();
}
const upq = (args) => execFileSync(o.upq, args, { encoding: 'utf8', maxBuffer: 1 << 28,
                                                  stdio: ['ignore', 'pipe', 'pipe'] });

let pass = 0, fail = 0;
function check(name, problems) {
  if (problems.length === 0) { pass++; console.log(`ok ${name}`); }
  else { fail++; console.log(`FAIL ${name}: ${problems.slice(0, 5).join('; ')}`); }
}

/* `upq meta`'s text: per row group, per column, its key_value_metadata */
function metaKv(file) {
  const out = [];
  let rg = -1, col = null, inKv = false;
  for (const line of upq(['meta', file]).split('\n')) {
    let m;
    if ((m = /^row_group (\d+):/.exec(line))) { rg = Number(m[1]); out[rg] = {}; col = null; inKv = false; }
    else if ((m = /^  column \d+: (.*)$/.exec(line))) { col = m[1]; out[rg][col] = []; inKv = false; }
    else if (col !== null && line === '    key_value_metadata:') inKv = true;
    else if (inKv && (m = /^      (.*?) = (.*)$/.exec(line))) out[rg][col].push({ key: m[1], value: m[2] });
    /* a key without a value: DuckDB shows an empty one */
    else if (inKv && (m = /^      (.*) \(no value\)$/.exec(line))) out[rg][col].push({ key: m[1], value: '' });
    else if (inKv && !line.startsWith('      ')) inKv = false;
  }
  return out;
}

/* DuckDB's parquet_metadata(): the same shape */
async function duckKv(file) {
  const out = [];
  for (const r of await rows(`SELECT row_group_id, path_in_schema, key_value_metadata
      FROM parquet_metadata(${sq(file)}) ORDER BY row_group_id, column_id`)) {
    const g = Number(r.row_group_id);
    out[g] ??= {};
    /* DuckDB joins a nested path with ", " */
    out[g][r.path_in_schema.replaceAll(', ', '.')] =
      (r.key_value_metadata ?? []).map((e) => ({ key: e.key, value: e.value ?? '' }));
  }
  return out;
}

const norm = (x) => JSON.stringify(x);

// ---- --column-kv --------------------------------------------------------------
const schema = path.join(o.work, 'kv.schema');
fs.writeFileSync(schema, `message m {
  required int64 a;
  optional group g {
    optional binary s (STRING);
    optional double d;
  }
  optional float f;
}
`);
const input = path.join(o.work, 'kv.jsonl');
fs.writeFileSync(input, Array.from({ length: 3000 }, (_, i) =>
  JSON.stringify({ a: i, g: { s: `s${i}`, d: i + 0.5 }, f: i % 7 })).join('\n') + '\n');
const want = {
  a: [{ key: 'k1', value: 'v1' }, { key: 'empty', value: '' }],
  'g.s': [{ key: 'group', value: 'g' }, { key: 'x:y', value: 'z=w' }],
  'g.d': [{ key: 'group', value: 'g' }],
  f: [],
};
const kvArgs = ['--column-kv', 'a:k1=v1', '--column-kv', 'a:empty=', '--column-kv', 'g:group=g',
                '--column-kv', 'g.s:x:y=z=w'];
for (const [label, extra] of [['one pass', ['--row-group-rows', '1000']],
                              ['checkpoint mode', ['--checkpoint', '--row-group-rows', '1000']],
                              ['DATA_PAGE_V2, SNAPPY', ['--data-page-v2', '--codec', 'SNAPPY']]]) {
  const out = path.join(o.work, `kv-${label.replace(/\W+/g, '_')}.parquet`);
  const problems = [];
  try {
    upq(['write', '--schema', schema, ...kvArgs, ...extra, input, out]);
    const duck = await duckKv(out), meta = metaKv(out);
    if (duck.length === 0) problems.push('no row groups');
    duck.forEach((cols, g) => {
      for (const [col, kv] of Object.entries(want)) {
        if (norm(cols[col]) !== norm(kv)) problems.push(`rg ${g} ${col}: DuckDB ${norm(cols[col])}, want ${norm(kv)}`);
        if (norm(meta[g]?.[col] ?? []) !== norm(kv)) problems.push(`rg ${g} ${col}: upq meta ${norm(meta[g]?.[col])}, want ${norm(kv)}`);
      }
    });
    /* the rows are untouched */
    const n = upq(['cat', '--json', out]).split('\n').filter(Boolean).length;
    if (n !== 3000) problems.push(`${n} rows`);
  } catch (e) {
    problems.push(String(e.message).split('\n')[0]);
  }
  check(`--column-kv, ${label}: DuckDB and upq meta read each chunk's key_value_metadata`, problems);
}
{
  const problems = [];
  for (const [arg, re] of [['nope:k=v', /--column-kv 'nope:k=v': want COL:KEY=VALUE with COL a column/],
                           ['a:kv', /--column-kv 'a:kv': want COL:KEY=VALUE \(no '='\)/]]) {
    const out = path.join(o.work, 'bad.parquet');
    try {
      upq(['write', '--schema', schema, '--column-kv', arg, input, out]);
      problems.push(`${arg}: accepted`);
    } catch (e) {
      if (e.status !== 1 || !re.test(String(e.stderr))) problems.push(`${arg}: status ${e.status}: ${e.stderr}`);
      if (fs.existsSync(out) || fs.existsSync(`${out}.tmp`)) problems.push(`${arg}: output left behind`);
    }
  }
  check('--column-kv refuses an unknown column and a missing =', problems);
}
{
  const corpus = process.env.PARQUET_TESTING_DIR ?? path.resolve(repoRoot, '..', 'shared', 'parquet-testing');
  const f = path.join(corpus, 'data', 'column_chunk_key_value_metadata.parquet');
  const problems = [];
  if (!fs.existsSync(f)) problems.push(`no ${f}`);
  else {
    const duck = await duckKv(f), meta = metaKv(f);
    duck.forEach((cols, g) => {
      for (const [col, kv] of Object.entries(cols))
        if (norm(meta[g]?.[col] ?? []) !== norm(kv)) problems.push(`rg ${g} ${col}: upq meta ${norm(meta[g]?.[col])}, DuckDB ${norm(kv)}`);
    });
  }
  check('column_chunk_key_value_metadata.parquet: upq meta prints what DuckDB reads', problems);
}

console.log(`${pass} passed, ${fail} failed`);
process.exit(fail ? 1 : 0);
