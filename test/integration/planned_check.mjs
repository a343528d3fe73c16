// The answers of examples/integration/planned.c against DuckDB's, and its
// arenas against what docs/memory.md promises (check-integration):
//
//   node test/integration/planned_check.mjs DIR OUTPUT
//
// DIR is where planned ran (its log.parquet, and the files it read); OUTPUT
// what it printed. Each "value" line is checked: the logger kept 2500 of its
// 2550 rows durable (a checkpoint every 100), recovery gave those 2500 and
// DuckDB reads them as logged; every row-wise count and sum, and every scan's
// sum(a) WHERE b > x, equals DuckDB's (sums of floating values within 1e-9 of
// their size: the order of the additions differs). Each "plan" line of a job
// that has a planner (the logger, row-wise reading, the scan) must have
// fitted on the first try; an open from 64 KiB in at most two (UPQ_ERR_NOMEM
// names its total); the others are listed with their tries. Prints "ok: ..." and
// "FAIL: ..." lines and "planned: N passed, N failed".
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../interop/package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const [dir, outFile] = process.argv.slice(2);
const lines = fs.readFileSync(outFile, 'utf8').split('\n').filter((l) => l);
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
let passed = 0, failed = 0;
const ok = (m) => { passed++; console.log('ok: ' + m); };
const fail = (m) => { failed++; console.log('FAIL: ' + m); };
const rows = async (sql) => (await con.runAndReadAll(sql)).getRowsJson();
const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
const kv = (l) => Object.fromEntries(l.split(' ').filter((w) => w.includes('=')).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));

// A column's value as a number DuckDB sums as planned.c does (timestamps as
// their stored milliseconds).
const types = {};
async function expr(file, col) {
  if (!types[file]) {
    types[file] = Object.fromEntries((await rows(`DESCRIBE SELECT * FROM '${file}'`)).map((r) => [r[0], r[1]]));
  }
  return /TIMESTAMP/.test(types[file][col]) ? `epoch_ms("${col}")` : `"${col}"`;
}

const withPlanner = /^(logger|recovery|rows:|scan:)/;
for (const l of lines) {
  const w = l.split(' ');
  if (w[0] === 'FAIL') fail(`planned: ${l.slice(5)}`);
  if (w[0] === 'plan') {
    const job = w[1], v = kv(l);
    if (v['first-try'] === 'yes') ok(`plan ${job}: ${v.bytes} bytes on the first try`);
    else if (withPlanner.test(job)) fail(`plan ${job}: its planner's ${v.bytes} bytes were not enough (${l})`);
    else if (job.startsWith('open:') && Number(v.tries) > 2) fail(`plan ${job}: UPQ_ERR_NOMEM names the open's total, yet ${v.tries} tries (${l})`);
    else ok(`plan ${job}: not on the first try (no planner, or UPQ_ERR_NOMEM named the total): ${v.tries} tries to ${v.bytes} bytes`);
  }
  if (w[0] !== 'value') continue;
  const job = w[1], v = kv(l);
  if (job === 'logger') {
    if (v.rows === '2550' && v.durable === '2500') ok('logger: 2550 rows taken, 2500 durable when cut');
    else fail(`logger: ${l}`);
  } else if (job === 'recovery') {
    const log = path.join(dir, 'log.parquet');
    const [[n, good]] = await rows(`SELECT count(*), count(*) FILTER (WHERE epoch_ms(ts) = 1717200000000 + file_row_number * 1000
        AND device = ['north', 'south', 'east'][file_row_number % 3 + 1]
        AND CASE WHEN file_row_number % 7 = 6 THEN value IS NULL ELSE value = (file_row_number % 100) / 4 END)
      FROM read_parquet('${log}', file_row_number = true)`);
    if (v.rows === '2500' && n === '2500' && good === '2500') ok('recovery: the cut log holds 2500 rows, DuckDB reads each as logged');
    else fail(`recovery: ${v.rows} rows; DuckDB: ${n} rows, ${good} as logged`);
  } else if (job.startsWith('rows:')) {
    const file = path.join(dir, job.slice(5));
    for (const [k, val] of Object.entries(v)) {
      if (k === 'rows') {
        const [[n]] = await rows(`SELECT count(*) FROM '${file}'`);
        if (n === val) ok(`${job}: ${val} rows, as DuckDB`);
        else fail(`${job}: ${val} rows, DuckDB ${n}`);
      } else if (k.startsWith('sum:')) {
        const col = k.slice(4), e = await expr(file, col);
        const [[s, c]] = await rows(`SELECT coalesce(sum(${e}), 0)::DOUBLE, count(${e}) FROM '${file}'`);
        if (close(Number(val), Number(s)) && v['count:' + col] === String(c)) ok(`${job}: ${col}: sum ${val}, count ${c}, as DuckDB`);
        else fail(`${job}: ${col}: sum ${val}, count ${v['count:' + col]}; DuckDB ${s}, ${c}`);
      }
    }
  } else if (job.startsWith('scan:')) {
    const file = path.join(dir, job.slice(5));
    const a = await expr(file, v.a), b = await expr(file, v.b);
    const [[s, c]] = await rows(`SELECT coalesce(sum(${a}), 0)::DOUBLE, count(${a}) FROM '${file}' WHERE ${b} > ${v.x}`);
    if (close(Number(v.sum), Number(s)) && v.count === String(c)) ok(`${job}: sum(${v.a}) WHERE ${v.b} > ${v.x}: ${v.sum} over ${v.count} rows, as DuckDB`);
    else fail(`${job}: sum(${v.a}) WHERE ${v.b} > ${v.x}: ${v.sum}, ${v.count}; DuckDB ${s}, ${c}`);
  }
}
if (!lines.some((l) => l.startsWith('value scan:'))) fail('planned printed no scan');
console.log(`planned: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
