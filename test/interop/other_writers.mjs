#!/usr/bin/env node
// Files other writers produce in ways the corpus does not show, read by
// `upq cat --json` and compared value by value with DuckDB and hyparquet.
//
//   node test/interop/other_writers.mjs [--upq PATH] [--skip-without-upq]
//        [--work DIR] [--keep]
//
// Each case writes its file with the other writer, first checks that the
// file has the feature it is about (the page headers, walked by
// v2_flag.mjs, or the footer's codec), so a writer that changes its habits
// fails the case rather than passing it emptily, then compares upq's rows
// with each oracle's (canonical.mjs, formatted from `upq meta --json`).
//
//   hyparquet-writer (always DATA_PAGE_V2): all-null columns of every kind
//   it writes, whose values sections are empty yet stored as the codec's
//   encoding of nothing (one byte of SNAPPY by default, a gzip member, a
//   brotli stream), beside columns with some nulls, over several row groups.
//   BROTLI: files DuckDB writes (COPY ... (COMPRESSION brotli), its format
//   versions 1 and 2; both write v1 pages), arrow-rs writes (parquet-wasm, v1 and v2, small pages) and
//   hyparquet-writer writes (Node's brotli at quality 11): every column chunk
//   must be BROTLI; the pages are large enough for brotli's block splitting
//   and context modelling (several Huffman trees per meta-block).
//
//   created_by: arrow-testing's ARROW-17100.parquet (pyarrow 2.0, v2 pages
//   compressed under is_compressed = false) with its created_by changed in
//   place to other writers and versions: where the rule for parquet-cpp
//   before 2.0.0 applies, upq must read the rows DuckDB reads from a copy
//   whose flags say true (v2_flag.mjs); where it does not, upq must take the
//   flag at its word and refuse the pages (their stored size is not their
//   size).
//
// Prints `ok NAME (...)` or `FAIL NAME: ...` per case and ends with
// `N passed, N failed`; exits 1 when anything failed, 77 with
// --skip-without-upq when upq is not built.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { rowShape, parseJsonLine, firstDiff, show } from './canonical.mjs';
import { DuckOracle } from './oracle_duckdb.mjs';
import { HyparquetOracle } from './oracle_hyparquet.mjs';
import { pageHeaders, withV2Compressed } from './v2_flag.mjs';
import { createRequire } from 'node:module';
import { tableFromArrays, tableToIPC } from 'apache-arrow';

const require = createRequire(import.meta.url);

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');

const opts = { upq: path.join(repoRoot, 'build', 'host', 'upq'), skipWithoutUpq: false, keep: false,
               work: path.join(repoRoot, 'build', 'check', 'other-writers') };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--upq') opts.upq = argv[++i];
    else if (a === '--skip-without-upq') opts.skipWithoutUpq = true;
    else if (a === '--work') opts.work = argv[++i];
    else if (a === '--keep') opts.keep = true;
    else { console.error(`other_writers: unknown option ${a}`); process.exit(2); }
  }
}

class Failure extends Error {}

const lastLines = (s, n = 3) => (s || '').trim().split('\n').slice(-n).join(' | ');

function run(args) {
  return new Promise((resolve) => {
    execFile(opts.upq, args, { encoding: 'utf8', maxBuffer: 1 << 28, timeout: 120000 }, (err, stdout, stderr) => {
      const status = err ? (err.killed ? 'killed (timeout)' : err.signal ? `signal ${err.signal}` : `exit status ${err.code}`) : null;
      resolve({ ok: !err, status, stdout, stderr });
    });
  });
}

// ---- the files ----------------------------------------------------------------

const N = 7;
const nulls = () => Array(N).fill(null);
// every kind hyparquet-writer takes, once all null and once with some nulls
const hyparquetColumns = () => [
  { name: 'b_null', data: nulls(), type: 'BOOLEAN' },
  { name: 'i32_null', data: nulls(), type: 'INT32' },
  { name: 'i64_null', data: nulls(), type: 'INT64' },
  { name: 'f_null', data: nulls(), type: 'FLOAT' },
  { name: 'd_null', data: nulls(), type: 'DOUBLE' },
  { name: 's_null', data: nulls(), type: 'STRING' },
  { name: 'ts_null', data: nulls(), type: 'TIMESTAMP' },
  { name: 'json_null', data: nulls(), type: 'JSON' },
  { name: 'i32', data: [1, null, -3, null, 2147483647, -2147483648, 0], type: 'INT32' },
  { name: 's', data: ['a', null, '', 'héllo', null, 'z'.repeat(40), 'b'], type: 'STRING' },
  { name: 'd', data: [null, 1.5, -0.25, null, 1e300, null, 3], type: 'DOUBLE' },
];

// Rows for the BROTLI files: integers, doubles, text of varied length and
// repetition (what brotli's context modelling and dictionary act on), nulls.
const BROTLI_ROWS = 60000;
const DUCK_BROTLI_SELECT = `SELECT i::INTEGER AS i, (i * 1.25)::DOUBLE AS d,
    CASE WHEN i % 11 = 0 THEN NULL ELSE 'sensor-' || (i % 97) || ';temp=' || (i % 300) / 10.0 || repeat('x', i % 40) END AS s,
    CASE WHEN i % 7 = 0 THEN NULL ELSE (i * 2654435761) % 1000003 END AS h,
    [i % 5, i % 3] AS l
  FROM range(${BROTLI_ROWS}) t(i)`;

function arrowTable() {
  const n = BROTLI_ROWS;
  const i = new Int32Array(n), d = new Float64Array(n), s = new Array(n), h = new Array(n);
  for (let k = 0; k < n; k++) {
    i[k] = k;
    d[k] = k * 1.25;
    s[k] = k % 11 === 0 ? null : `sensor-${k % 97};temp=${(k % 300) / 10};${'x'.repeat(k % 40)}`;
    h[k] = k % 7 === 0 ? null : (k * 2654435761) % 1000003;
  }
  return tableFromArrays({ i, d, s, h: Float64Array.from(h, (v) => (v === null ? NaN : v)) });
}

function writeArrowRs(out, version) {
  const pw = require('parquet-wasm/node');
  const props = new pw.WriterPropertiesBuilder()
    .setCompression(pw.Compression.BROTLI)
    .setWriterVersion(version)
    .setDataPageSizeLimit(64 * 1024)
    .build();
  const t = pw.Table.fromIPCStream(tableToIPC(arrowTable(), 'stream'));
  fs.writeFileSync(out, Buffer.from(pw.writeParquet(t, props)));
}

const allBrotli = (pages) => pages.length > 0 && pages.every((h) => h.codec === 'BROTLI');

// A v2 page whose values section is empty as stated but not as stored.
const compressedEmptyValues = (h) => h.type === 3 && h.uncompressed - h.dl - h.rl === 0 && h.compressed - h.dl - h.rl > 0;

const CASES = [
  {
    name: 'hyparquet-writer-snappy-nulls',
    about: 'all-null v2 pages whose empty values section is one byte of SNAPPY',
    write: (out) => fs.writeFileSync(out, Buffer.from(parquetWriteBuffer({ columnData: hyparquetColumns() }))),
    expect: (pages) => pages.some(compressedEmptyValues) && pages.every((h) => h.codec === 'SNAPPY'),
  },
  {
    name: 'hyparquet-writer-snappy-nulls-row-groups',
    about: 'the same over row groups of 3, 3 and 1 rows',
    write: (out) => fs.writeFileSync(out, Buffer.from(parquetWriteBuffer({ columnData: hyparquetColumns(), rowGroupSize: 3 }))),
    expect: (pages) => pages.filter(compressedEmptyValues).length >= 3 * 8,
  },
  {
    name: 'hyparquet-writer-gzip-nulls',
    about: 'all-null v2 pages whose empty values section is a gzip member',
    write: (out) => fs.writeFileSync(out, Buffer.from(parquetWriteBuffer({
      columnData: hyparquetColumns(), codec: 'GZIP', compressors: { GZIP: (b) => zlib.gzipSync(b) } }))),
    expect: (pages) => pages.some(compressedEmptyValues) && pages.every((h) => h.codec === 'GZIP'),
  },
  {
    name: 'hyparquet-writer-brotli-nulls',
    about: 'BROTLI (Node\'s brotli, quality 11), all-null v2 pages among others',
    write: (out) => fs.writeFileSync(out, Buffer.from(parquetWriteBuffer({
      columnData: hyparquetColumns(), codec: 'BROTLI', compressors: { BROTLI: (b) => zlib.brotliCompressSync(b) } }))),
    expect: (pages) => pages.some(compressedEmptyValues) && allBrotli(pages),
  },
  {
    name: 'duckdb-brotli-v1',
    about: `BROTLI by DuckDB, ${BROTLI_ROWS} rows, pages v1`,
    write: async (out, duck) => duck.con.run(`COPY (${DUCK_BROTLI_SELECT}) TO '${out}' (FORMAT parquet, COMPRESSION brotli)`),
    expect: (pages) => allBrotli(pages) && pages.some((h) => h.type === 0),
  },
  {
    // DuckDB's PARQUET_VERSION v2 changes the encodings (DELTA_*), not the page type
    name: 'duckdb-brotli-format-v2',
    about: `BROTLI by DuckDB, ${BROTLI_ROWS} rows, PARQUET_VERSION v2 encodings`,
    write: async (out, duck) => duck.con.run(`COPY (${DUCK_BROTLI_SELECT}) TO '${out}' (FORMAT parquet, COMPRESSION brotli, PARQUET_VERSION v2)`),
    expect: (pages) => allBrotli(pages),
  },
  {
    name: 'arrow-rs-brotli-v1',
    about: `BROTLI by arrow-rs (parquet-wasm), ${BROTLI_ROWS} rows, 64 KiB pages v1`,
    write: (out) => writeArrowRs(out, 0),
    expect: (pages) => allBrotli(pages) && pages.filter((h) => h.type === 0).length > 4,
  },
  {
    name: 'arrow-rs-brotli-v2',
    about: `BROTLI by arrow-rs (parquet-wasm), ${BROTLI_ROWS} rows, 64 KiB pages v2`,
    write: (out) => writeArrowRs(out, 1),
    expect: (pages) => allBrotli(pages) && pages.filter((h) => h.type === 3).length > 4,
  },
];

// ---- created_by ---------------------------------------------------------------

const arrowTestingDir = path.join(process.env.ARROW_TESTING_DIR
  ? path.resolve(process.env.ARROW_TESTING_DIR)
  : path.resolve(repoRoot, '..', 'shared', 'arrow-testing'), 'data', 'parquet');
const ARROW_17100 = path.join(arrowTestingDir, 'ARROW-17100.parquet');
const CREATED_BY_17100 = 'parquet-cpp version 1.5.1-SNAPSHOT';

// Same length as the original, so the footer's Thrift stays valid.
const CREATED_BY_CASES = [
  { createdBy: 'parquet-cpp version 1.9.9-SNAPSHOT', compressed: true },
  { createdBy: 'parquet-cpp version 1.4 (build 12)', compressed: true },
  { createdBy: 'parquet-cpp version 2.0.0-SNAPSHOT', compressed: false },
  { createdBy: 'parquet-cpp version 12.0.0-SNAPSHO', compressed: false },
  { createdBy: 'parquet-cpp-arrow version 1.5.1-SN', compressed: false },
  { createdBy: 'parquet-mr version 1.5.1-SNAPSHOT!', compressed: false },
];

function withCreatedBy(src, out, text) {
  const buf = Buffer.from(fs.readFileSync(src));
  const at = buf.lastIndexOf(Buffer.from(CREATED_BY_17100));
  if (at < 0) throw new Failure(`${src} does not say created_by "${CREATED_BY_17100}"`);
  if (Buffer.byteLength(text) !== CREATED_BY_17100.length) throw new Failure(`"${text}" is not ${CREATED_BY_17100.length} bytes`);
  buf.write(text, at, 'latin1');
  fs.writeFileSync(out, buf);
}

async function runCreatedBy(cs, duck) {
  const file = path.join(opts.work, 'created-by.parquet');
  withCreatedBy(ARROW_17100, file, cs.createdBy);
  const meta = await run(['meta', '--json', file]);
  if (!meta.ok) throw new Failure(`upq meta --json: ${meta.status}: ${lastLines(meta.stderr)}`);
  const m = JSON.parse(meta.stdout);
  if (m.created_by !== cs.createdBy) throw new Failure(`upq meta says created_by ${JSON.stringify(m.created_by)}`);
  const cat = await run(['cat', '--json', file]);
  if (!cs.compressed) {
    if (cat.ok) throw new Failure('upq read the pages as compressed, which their flags deny');
    if (!/uncompressed page sizes differ/.test(cat.stderr)) throw new Failure(`upq cat --json: ${lastLines(cat.stderr)}`);
    return 'pages refused as their flags say: not compressed';
  }
  if (!cat.ok) throw new Failure(`upq cat --json: ${cat.status}: ${lastLines(cat.stderr)}`);
  const fixed = path.join(opts.work, 'created-by-fixed.parquet');
  withV2Compressed(file, fixed);
  const lines = cat.stdout.split('\n').filter((l) => l);
  await compare('DuckDB (flags set)', fixed, rowShape(m.schema), lines, duck);
  return `${lines.length} rows, as DuckDB reads them with the flags set`;
}

// ---- comparing ----------------------------------------------------------------

async function compare(name, file, shape, lines, oracle) {
  let k = 0;
  try {
    for await (const batch of oracle.rows(file, shape)) {
      for (const exp of batch) {
        if (k >= lines.length) throw new Failure(`${name} has more than upq's ${lines.length} rows`);
        const d = firstDiff(exp, parseJsonLine(lines[k]));
        if (d) throw new Failure(`row ${k} ${d.path}: upq=${show(d.upq)} ${name}=${show(d.oracle)}`);
        k++;
      }
    }
  } catch (e) {
    if (e instanceof Failure) throw e;
    throw new Failure(`${name}: ${String(e.message || e).split('\n')[0]}`);
  }
  if (k !== lines.length) throw new Failure(`${name} reads ${k} rows, upq ${lines.length}`);
}

async function runCase(cs, oracles) {
  const file = path.join(opts.work, `${cs.name}.parquet`);
  fs.rmSync(file, { force: true });
  await cs.write(file, oracles[0][1]);
  const pages = pageHeaders(file);
  if (!cs.expect(pages)) throw new Failure(`the file lacks what the case is about (${cs.about})`);
  const meta = await run(['meta', '--json', file]);
  if (!meta.ok) throw new Failure(`upq meta --json: ${meta.status}: ${lastLines(meta.stderr)}`);
  const shape = rowShape(JSON.parse(meta.stdout).schema);
  const cat = await run(['cat', '--json', file]);
  if (!cat.ok) throw new Failure(`upq cat --json: ${cat.status}: ${lastLines(cat.stderr)}`);
  const lines = cat.stdout.split('\n').filter((l) => l);
  if (lines.length === 0) throw new Failure('upq printed no rows');
  for (const [name, o] of oracles) await compare(name, file, shape, lines, o);
  if (!opts.keep) fs.rmSync(file, { force: true });
  return `${lines.length} rows, ${pages.length} pages; ${cs.about}; ${oracles.map(([n]) => n).join(', ')} agree`;
}

async function main() {
  if (!fs.existsSync(opts.upq)) {
    console.log(`# ${opts.upq} is not built`);
    return opts.skipWithoutUpq ? 77 : 2;
  }
  fs.mkdirSync(opts.work, { recursive: true });
  const duck = await DuckOracle.open();
  const oracles = [['DuckDB', duck], ['hyparquet', new HyparquetOracle()]];
  let pass = 0, fail = 0;
  for (const cs of CASES) {
    try {
      console.log(`ok ${cs.name} (${await runCase(cs, oracles)})`);
      pass++;
    } catch (e) {
      const msg = e instanceof Failure ? e.message : (e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : String(e));
      console.log(`FAIL ${cs.name}: ${msg}`);
      fail++;
    }
  }
  for (const cs of CREATED_BY_CASES) {
    const name = `created_by "${cs.createdBy}"`;
    try {
      console.log(`ok ${name} (${await runCreatedBy(cs, duck)})`);
      pass++;
    } catch (e) {
      const msg = e instanceof Failure ? e.message : (e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : String(e));
      console.log(`FAIL ${name}: ${msg}`);
      fail++;
    }
  }
  duck.close();
  console.log(`${pass} passed, ${fail} failed`);
  return fail ? 1 : 0;
}

const exitAfterFlush = (code) => process.stdout.write('', () => process.exit(code));
main().then(exitAfterFlush, (e) => {
  console.error(e && e.stack ? e.stack : e);
  exitAfterFlush(1);
});
