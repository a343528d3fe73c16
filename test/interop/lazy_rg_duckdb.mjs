#!/usr/bin/env node
// `upq cat --json [UPQ ARGS] FILE` against DuckDB, row by row, for the
// 11-column files of test/lazy/make_rg_file.sh (known schema, so no
// `upq meta --json`: with 100,000 row groups its output is larger than a
// JS string can hold). DuckDB's values are brought to upq's JSON form:
// timestamps as ISO-8601 UTC with milliseconds, dates as YYYY-MM-DD.
//
//   node test/interop/lazy_rg_duckdb.mjs --upq PATH [--cat-args 'ARGS'] FILE
//
// Prints `ok FILE (N rows)` or the first differing row, then
// `N passed, N failed`; exits 1 on a failure.
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { DuckDBInstance } from '@duckdb/node-api';

let upq = 'upq', catArgs = [], file = null;
{
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '--upq') upq = a[++i];
    else if (a[i] === '--cat-args') catArgs = a[++i].split(' ').filter((x) => x);
    else if (a[i].startsWith('-')) { console.error(`lazy_rg_duckdb: unknown option ${a[i]}`); process.exit(2); }
    else file = a[i];
  }
}
if (!file) { console.error('usage: lazy_rg_duckdb.mjs --upq PATH [--cat-args ARGS] FILE'); process.exit(2); }

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = `SELECT epoch_ms(ts)::BIGINT, id, v, name, flag, opt, f, big, tag, strftime(day, '%Y-%m-%d'), cnt
           FROM read_parquet('${file.replace(/'/g, "''")}', file_row_number = true) ORDER BY file_row_number`;
let rows;
try {
  rows = (await con.runAndReadAll(q)).getRows();
} catch (e) {
  console.log(`FAIL ${file}: DuckDB: ${e.message}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const num = (x) => (x === null ? null : typeof x === 'bigint' ? Number(x) : x);
const expect = (r) => JSON.stringify({
  ts: new Date(Number(r[0])).toISOString(), id: num(r[1]), v: num(r[2]), name: r[3], flag: r[4],
  opt: num(r[5]), f: num(r[6]), big: num(r[7]), tag: r[8], day: r[9], cnt: num(r[10]),
});

const child = spawn(upq, ['cat', '--json', ...catArgs, file], { stdio: ['ignore', 'pipe', 'pipe'] });
let stderr = '';
child.stderr.on('data', (d) => { stderr += d; });
const exited = new Promise((res) => child.on('close', (code) => res(code)));
const rl = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
let n = 0, bad = null;
for await (const line of rl) {
  if (bad) continue;
  if (n >= rows.length) { bad = `upq printed more than DuckDB's ${rows.length} rows`; continue; }
  const want = expect(rows[n]);
  if (JSON.stringify(JSON.parse(line)) !== want) bad = `row ${n}: upq=${line} duckdb=${want}`;
  n++;
}
const code = await exited;
if (!bad && n !== rows.length) bad = `upq printed ${n} rows, DuckDB has ${rows.length}`;
if (!bad && code !== 0) bad = `upq exit status ${code}: ${stderr.trim().split('\n').pop()}`;
if (bad) {
  console.log(`FAIL ${file}: ${bad}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
console.log(`ok ${file} (${n} rows)`);
console.log('1 passed, 0 failed');
