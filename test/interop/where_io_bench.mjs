#!/usr/bin/env node
// Selective reading I/O (issue 13): a log sorted by timestamp, written by
// `upq write` with a page index, then read three ways with `upq cat --io-stats`:
//  - a 0.01% time range (`--where 'ts >= A and ts < B'`): reads, bytes, and
//    the share of the file's bytes (target: <= 1%);
//  - one row by position (`--rows N:N+1`): reads per column after the
//    footer (target: <= 3 after the footer and the column's OffsetIndex);
//  - a full scan, for comparison.
// Both selective reads must print exactly DuckDB's rows (SELECT ... WHERE /
// LIMIT 1 OFFSET N, compared as canonical.mjs compares).
//
//   node test/interop/where_io_bench.mjs [--upq PATH] [--work DIR] [--rows N] [--check]
//                                        [--assert-bytes] [--skip-without-upq]
//
// --rows: rows in the file (default 1,000,000; `make bench WHERE_BENCH_ROWS=10000000`
// for the 10M). --check: exit 1 when a row differs from DuckDB's or
// the one-row fetch takes more than 3 reads per column after the footer and
// index, which holds at any size (each column: its OffsetIndex, then one
// page); the 1% byte target is printed, asserted only with --assert-bytes
// (it depends on the size: at 20,000 rows the footer alone is over 1%).
// --skip-without-upq: exit 77 (skipped, saying why) when upq is not built or
// has no `cat --where` yet. Prints `N passed, N failed` at the end.

import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rowShape, parseJsonLine, firstDiff, show } from './canonical.mjs';
import { DuckOracle, fromDuck } from './oracle_duckdb.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');

const opts = { upq: path.join(repoRoot, 'build', 'host', 'upq'), work: path.join(repoRoot, 'build', 'bench', 'where'),
               rows: 1000000, check: false, assertBytes: false, skipWithoutUpq: false };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--upq') opts.upq = argv[++i];
    else if (argv[i] === '--work') opts.work = argv[++i];
    else if (argv[i] === '--rows') opts.rows = Number(argv[++i]);
    else if (argv[i] === '--check') opts.check = true;
    else if (argv[i] === '--assert-bytes') opts.assertBytes = true;
    else if (argv[i] === '--skip-without-upq') opts.skipWithoutUpq = true;
    else { console.error(`where_io_bench: unknown argument ${argv[i]}`); process.exit(2); }
  }
  if (!Number.isInteger(opts.rows) || opts.rows < 10000) {
    console.error('where_io_bench: --rows must be an integer >= 10000');
    process.exit(2);
  }
}

function upq(args, stdoutFile = null) {
  return new Promise((resolve) => {
    if (stdoutFile) {
      // a full scan's output is large: straight to a file, not into memory
      const out = fs.openSync(stdoutFile, 'w');
      const p = spawn(opts.upq, args, { stdio: ['ignore', out, 'pipe'] });
      let stderr = '';
      p.stderr.on('data', (d) => { stderr += d; });
      p.on('close', (code) => { fs.closeSync(out); resolve({ ok: code === 0, code, stdout: '', stderr }); });
      return;
    }
    execFile(opts.upq, args, { encoding: 'utf8', maxBuffer: 1 << 28, timeout: 600000 },
      (err, stdout, stderr) => resolve({ ok: !err, code: err ? err.code : 0, stdout, stderr }));
  });
}
const q1 = (a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`);
const cmdline = (args) => ['upq', ...args].map(q1).join(' ');
const ioOf = (r) => {
  const m = /io: (\d+) reads, (\d+) bytes/.exec(r.stderr);
  if (!r.ok || !m) throw new Error(`upq failed or printed no io line: ${r.stderr.trim().slice(0, 300)}`);
  return { reads: Number(m[1]), bytes: Number(m[2]) };
};

// A sensor log: one row every 100 ms from 2024-01-01T00:00:00Z, 16 devices
// and 500 room tags (dictionaries of ~100 B and ~12 KB), a value, a channel
// with nulls, a sequence number.
const SCHEMA = `message log {
  required int64 ts (TIMESTAMP(MICROS,true));
  required binary device (STRING);
  required binary tag (STRING);
  required double value;
  optional float ch0;
  required int64 seq;
}
`;
const T0 = 1704067200000000n; // micros
const STEP = 100000n;
const COLUMNS = ['ts', 'device', 'tag', 'value', 'ch0', 'seq'];

// JSON lines into `upq write -` (nothing the size of the file on disk but the file).
function writeFile(file) {
  return new Promise((resolve, reject) => {
    const schema = path.join(opts.work, 'log.schema');
    fs.writeFileSync(schema, SCHEMA);
    // 8 KiB of values a page, 128K-row row groups: about 1,000 rows a page,
    // the granularity a 0.01% range of 10M rows (1,000 rows) needs; a
    // dictionary for the device only, deltas for the sorted integers
    const args = ['write', '--schema', schema, '--page-size', '8K', '--row-group-rows', '131072',
      '--max-pages', '4096', '--sorting-column', 'ts', '--codec', 'SNAPPY', '--encoding', 'PLAIN',
      '--encoding', 'device=RLE_DICTIONARY', '--encoding', 'tag=RLE_DICTIONARY', '--encoding', 'ts=DELTA_BINARY_PACKED',
      '--encoding', 'seq=DELTA_BINARY_PACKED', '-', file];
    const p = spawn(opts.upq, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d) => { stderr += d; });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(args) : reject(new Error(`${cmdline(args)}: ${stderr.trim()}`))));
    let k = 0;
    const pump = () => {
      while (k < opts.rows) {
        const lines = [];
        for (let j = 0; j < 4096 && k < opts.rows; j++, k++) {
          const ts = T0 + BigInt(k) * STEP;
          const dev = `dev-${String((k * 7) % 16).padStart(2, '0')}`;
          const value = ((k * 2654435761) % 100000) / 64;
          const ch0 = k % 10 === 0 ? 'null' : String(((k * 40503) % 4096) / 16);
          const tag = `room-${String((k * 7919) % 500).padStart(3, '0')}/building-7`;
          lines.push(`{"ts":${ts},"device":"${dev}","tag":"${tag}","value":${value},"ch0":${ch0},"seq":${k}}`);
        }
        if (!p.stdin.write(lines.join('\n') + '\n')) { p.stdin.once('drain', pump); return; }
      }
      p.stdin.end();
    };
    pump();
  });
}

async function duckRows(duck, shape, file, sql) {
  const rows = [];
  if (sql.startsWith('WHERE ')) {
    for await (const b of duck.rows(file, shape, null, sql.slice(6))) rows.push(...b);
    return rows;
  }
  // LIMIT / OFFSET: DuckOracle reads whole files; the one row is cut out here
  const n = Number(/OFFSET (\d+)/.exec(sql)[1]);
  const res = await duck.con.runAndReadAll(`SELECT * FROM read_parquet('${file}') LIMIT 1 OFFSET ${n}`);
  return res.getRows().map((row) => new Map(shape.fields.map((f, j) => [f.name, fromDuck(f.shape, row[j])])));
}

function sameRows(exp, stdout) {
  const lines = stdout.split('\n').filter((x) => x);
  if (lines.length !== exp.length) return `upq printed ${lines.length} rows, DuckDB ${exp.length}`;
  for (let k = 0; k < lines.length; k++) {
    const d = firstDiff(exp[k], parseJsonLine(lines[k]));
    if (d) return `row ${k} column ${d.path}: upq=${show(d.upq)} DuckDB=${show(d.oracle)}`;
  }
  return null;
}

const fmtTs = (micros) => new Date(Number(micros / 1000n)).toISOString().replace(/\.(\d{3})Z$/,
  (_, ms) => `.${ms}${String(micros % 1000n).padStart(3, '0')}Z`);
const pct = (a, b) => `${(100 * a / b).toFixed(3)}%`;

async function main() {
  if (!fs.existsSync(opts.upq) || !/--where/.test((await upq(['help'])).stdout)) {
    if (opts.skipWithoutUpq) { console.log(`# ${opts.upq} not built or without cat --where: skipped`); return 77; }
    console.error(`where_io_bench: no ${opts.upq}, or it has no cat --where`);
    return 2;
  }
  fs.mkdirSync(opts.work, { recursive: true });
  const file = path.join(opts.work, `log-${opts.rows}.parquet`);
  let pass = 0, fail = 0;
  const result = (ok, what, why) => {
    if (ok) { pass++; console.log(`ok ${what}`); } else { fail++; console.log(`FAIL ${what}: ${why}`); }
  };
  const t = Date.now();
  const wargs = await writeFile(file);
  const size = fs.statSync(file).size;
  const meta = JSON.parse((await upq(['meta', '--json', file])).stdout);
  const shape = rowShape(meta.schema);
  console.log(`# ${opts.rows} rows, ${meta.row_groups.length} row groups, ${size} bytes, written in ${((Date.now() - t) / 1000).toFixed(1)} s:`);
  console.log(`#   ${cmdline(wargs)}`);
  const duck = await DuckOracle.open();

  // the footer alone: what every command reads first
  const footer = ioOf(await upq(['cat', '--json', '--io-stats', '--head', '0', file]));
  console.log(`footer: ${footer.reads} reads, ${footer.bytes} bytes (upq cat --head 0)`);

  // 0.01% of the time range, in the middle of the file
  const n = BigInt(opts.rows);
  const width = n / 10000n;
  const a = T0 + (n / 2n + 37n) * STEP, b = a + width * STEP;
  const where = `ts >= "${fmtTs(a)}" and ts < "${fmtTs(b)}"`;
  const rangeArgs = ['cat', '--json', '--io-stats', '--where', where, file];
  const range = await upq(rangeArgs);
  const ri = ioOf(range);
  const share = ri.bytes / size;
  console.log(`0.01% time range (${width} rows): ${ri.reads} reads, ${ri.bytes} bytes = ${pct(ri.bytes, size)} ` +
    `of the file (target <= 1%: ${share <= 0.01 ? 'met' : 'NOT met'})`);
  console.log(`#   ${cmdline(rangeArgs)}`);
  const expRange = await duckRows(duck, shape, file, `WHERE epoch_us(ts) >= ${a} AND epoch_us(ts) < ${b}`);
  let why = sameRows(expRange, range.stdout);
  if (!why && expRange.length !== Number(width)) why = `DuckDB has ${expRange.length} rows, expected ${width}`;
  result(!why, `0.01% time range: the rows equal DuckDB's (${expRange.length})`, why);
  if (opts.assertBytes) result(share <= 0.01, `0.01% time range reads <= 1% of the file (${pct(ri.bytes, size)})`, 'over');

  // one row by position: each column alone (its reads after the footer's),
  // then the whole row
  const pos = Math.floor(opts.rows * 0.6180339) + 11;
  const expRow = await duckRows(duck, shape, file, `LIMIT 1 OFFSET ${pos}`);
  for (const cols of [...COLUMNS.map((c) => [c]), COLUMNS]) {
    const rowArgs = ['cat', '--json', '--io-stats', '--rows', `${pos}:${pos + 1}`, '--columns', cols.join(','), file];
    const one = await upq(rowArgs);
    const oi = ioOf(one);
    const exp = expRow.map((m) => new Map([...m].filter(([k]) => cols.includes(k))));
    why = sameRows(exp, one.stdout);
    if (cols.length > 1) {
      console.log(`one row by position (--rows ${pos}:${pos + 1}, every column): ${oi.reads} reads, ${oi.bytes} bytes`);
      console.log(`#   ${cmdline(rowArgs)}`);
      result(!why, `--rows ${pos}:${pos + 1}: the row equals DuckDB's`, why);
      continue;
    }
    // the column's OffsetIndex is one read; then the page holding the row,
    // read whole (its size is in the index), and the dictionary page, if
    // any: its header, then its body past the column's window
    const after = oi.reads - footer.reads - 1;
    console.log(`one row by position, column ${cols[0]}: ${oi.reads} reads, ${oi.bytes} bytes; ${after} after the ` +
      `footer and index (target <= 3: ${after <= 3 ? 'met' : 'NOT met'})`);
    if (why) result(false, `--rows ${pos}:${pos + 1} --columns ${cols[0]}: the row equals DuckDB's`, why);
    if (opts.check) {
      result(after <= 3, `--rows ${pos}:${pos + 1} --columns ${cols[0]}: <= 3 reads after the footer and index`,
        `${after}: ${cmdline(rowArgs)}`);
    }
  }

  // the full scan
  const t1 = Date.now();
  // --raw: the same reads as --json, without the time spent formatting
  const fullArgs = ['cat', '--raw', '--io-stats', file];
  const full = ioOf(await upq(fullArgs, path.join(opts.work, 'full.jsonl')));
  fs.rmSync(path.join(opts.work, 'full.jsonl'), { force: true });
  console.log(`full scan: ${full.reads} reads, ${full.bytes} bytes = ${pct(full.bytes, size)} of the file ` +
    `(${((Date.now() - t1) / 1000).toFixed(1)} s); the range read ${pct(ri.bytes, full.bytes)} of that`);
  console.log(`#   ${cmdline(fullArgs)} > /dev/null`);
  result(ri.bytes < full.bytes, 'the time range reads fewer bytes than the full scan', `${ri.bytes} >= ${full.bytes}`);
  duck.close();
  console.log(`${pass} passed, ${fail} failed`);
  return fail ? 1 : 0;
}

main().then((rc) => process.exit(rc), (e) => { console.error(e); process.exit(2); });
