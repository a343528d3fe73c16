#!/usr/bin/env node
// Checks the hyparquet oracle (oracle_hyparquet.mjs) against the others:
//
//   node test/interop/hyparquet_selftest.mjs [--no-generated] [--verbose] [FILE...]
//
// 1. corpus: every plaintext .parquet file under $PARQUET_TESTING_DIR/data
//    (default ../shared/parquet-testing/data; or the FILEs given), read by
//    hyparquet and by DuckDB (oracle_duckdb.mjs), both formatted from DuckDB's
//    parquet_schema(), must give the same canonical rows (canonical.mjs's
//    text of each row). Files DuckDB cannot read are compared with arrow-rs
//    (oracle_arrow.mjs) or their description, as cat_vs_duckdb.mjs does;
//    files hyparquet cannot read must fail with the listed message. Both
//    lists are below, each entry with its reason.
// 2. generated: the files generated.mjs has DuckDB write for the types the
//    corpus lacks (TIME/TIMESTAMP in every unit, UUID, INTERVAL, unsigned
//    ints, DECIMAL(38), JSON, -0, deep nesting, v2 pages with DELTA), and one
//    file hyparquet-writer writes; hyparquet against DuckDB again.
// 3. gaps: copies of a hyparquet-writer file and of a DuckDB file whose
//    column chunks are moved apart, with junk bytes (that look like page
//    headers and "PAR1") before the first chunk, between chunks and before
//    the footer, once in schema order and once in reverse column order; the
//    footer is rewritten with the moved offsets (hyparquet-writer's thrift
//    writer). hyparquet, DuckDB and arrow-rs must read each copy as they read
//    the original.
//
// Prints `ok NAME (N rows)` or `FAIL NAME: ...` per check and ends with
// `N passed, N failed`; exits 1 when anything failed.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parquetMetadata } from 'hyparquet';
import { parquetWriteBuffer, ByteWriter } from 'hyparquet-writer';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { rowShape, show, fmtTimestamp } from './canonical.mjs';
import { DuckOracle } from './oracle_duckdb.mjs';
import { ArrowOracle } from './oracle_arrow.mjs';
import { HyparquetOracle, diffCanonical } from './oracle_hyparquet.mjs';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { writeGenerated } from './generated.mjs';
import { listParquet, footerMagic } from './corpus.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const corpusDir = process.env.PARQUET_TESTING_DIR
  ? path.resolve(process.env.PARQUET_TESTING_DIR)
  : path.resolve(repoRoot, '..', 'shared', 'parquet-testing');
const dataDir = path.join(corpusDir, 'data');

// ---- what is not compared with DuckDB, and why -----------------------------------

// The files DuckDB cannot read (or reads wrongly) are compared with another
// oracle: the same table as cat_vs_duckdb.mjs's.
const OTHER_ORACLE = {
  'byte_stream_split_extended.gzip.parquet': { oracle: 'arrow',
    why: 'DuckDB: BYTE_STREAM_SPLIT only for FLOAT/DOUBLE (the file has it on INT32, INT64, FLOAT16, FLBA, DECIMAL)' },
  'hadoop_lz4_compressed.parquet': { oracle: 'arrow', why: 'DuckDB: unsupported codec LZ4 (Hadoop framing)' },
  'hadoop_lz4_compressed_larger.parquet': { oracle: 'arrow', why: 'DuckDB: unsupported codec LZ4 (Hadoop framing)' },
  'non_hadoop_lz4_compressed.parquet': { oracle: 'arrow', why: 'DuckDB: unsupported codec LZ4 (raw LZ4 blocks)' },
  'map_no_value.parquet': { oracle: 'arrow', why: 'DuckDB: MAP_KEY_VALUE requires two children' },
  'int96_from_spark.parquet': { oracle: 'expect',
    why: "DuckDB overflows the year-290000 value, arrow-rs's timestamp[ns] wraps; int96_from_spark.md's values",
    rows: () => [1704141296123456n, 1704070800000000n, 253402225200000000n, 1735599600000000n, null,
      9089380393200000000n].map((us) => new Map([['a', us === null ? null : fmtTimestamp(us * 1000n, 'NANOS', false)]])) },
};

// Files hyparquet refuses: it must fail with this message (a reader that
// starts reading them must be checked again, not silently pass).
const HYPARQUET_REFUSES = {
  'large_string_map.brotli.parquet': { reject: /Cannot create a string longer than/,
    why: 'its map key is a 2^30-character string (README.md): longer than V8 lets a string be (2^29 - 24)' },
  'nation.dict-malformed.parquet': { reject: /Invalid typed array length/,
    why: 'total_compressed_size leaves out the 15-byte dictionary page header (the parquet-mr bug PARQUET-816; ' +
         'created_by "parquet-mr" has no version): hyparquet reads exactly [data_page_offset, +total_compressed_size) ' +
         'and the data page runs 15 bytes past it; arrow-rs (parquet-wasm) fails too ("EOF: Invalid page header"), ' +
         'DuckDB reads on past the range' },
};

// ---- options ----------------------------------------------------------------

const opts = { generated: true, verbose: false, files: [] };
for (const a of process.argv.slice(2)) {
  if (a === '--no-generated') opts.generated = false;
  else if (a === '--verbose') opts.verbose = true;
  else if (a.startsWith('-')) { console.error(`hyparquet_selftest: unknown option ${a}`); process.exit(2); }
  else opts.files.push(path.resolve(a));
}

let pass = 0, fail = 0;
const ok = (name, what) => { pass++; console.log(`ok ${name}${what ? ` (${what})` : ''}`); };
const bad = (name, why) => { fail++; console.log(`FAIL ${name}: ${why}`); };
const firstLine = (e) => String((e && e.message) || e).split('\n')[0];

// ---- reading through an oracle ---------------------------------------------------

async function collect(oracle, file, shape) {
  const out = [];
  for await (const batch of oracle.rows(file, shape)) for (const r of batch) out.push(r);
  return out;
}

// null when the same (ANY matching anything), else the first difference
function diffRows(a, b, an, bn) {
  const n = Math.min(a.length, b.length);
  for (let r = 0; r < n; r++) {
    const d = diffCanonical(a[r], b[r]);
    if (d) return `row ${r} column ${d.path || '(the row)'}: ${an}=${show(d.a, 200)} ${bn}=${show(d.b, 200)}`;
  }
  if (a.length !== b.length) return `row counts differ: ${an} ${a.length}, ${bn} ${b.length}`;
  return null;
}

// ---- 1 and 2: hyparquet against DuckDB ----------------------------------------------

async function compareWithOracles(file, name, duck, arrow, hyp) {
  const refuse = HYPARQUET_REFUSES[path.basename(file)];
  const other = OTHER_ORACLE[path.basename(file)];
  let shape;
  try {
    shape = rowShape(await duck.schema(file));
  } catch (e) {
    // DuckDB cannot read the footer: hyparquet's own schema then
    try { shape = rowShape(await hyp.schema(file)); } catch (e2) {
      if (refuse && refuse.reject.test(firstLine(e2))) { ok(name, `hyparquet refuses it as listed: ${firstLine(e2)}`); return; }
      bad(name, `no schema: DuckDB: ${firstLine(e)}; hyparquet: ${firstLine(e2)}`);
      return;
    }
  }
  let got;
  try {
    got = await collect(hyp, file, shape);
  } catch (e) {
    if (refuse && refuse.reject.test(firstLine(e))) { ok(name, `hyparquet refuses it as listed: ${firstLine(e)}`); return; }
    bad(name, `hyparquet: ${firstLine(e)}`);
    return;
  }
  if (refuse) { bad(name, `hyparquet read it (${got.length} rows) but is listed as refusing it: ${refuse.why}`); return; }
  let want, oname = 'duckdb';
  try {
    if (other && other.oracle === 'arrow') { oname = 'arrow-rs'; want = await collect(arrow, file, shape); }
    else if (other && other.oracle === 'expect') { oname = 'expected'; want = other.rows(); }
    else want = await collect(duck, file, shape);
  } catch (e) {
    bad(name, `${oname} cannot read it: ${firstLine(e)} (not in the table of other oracles)`);
    return;
  }
  const d = diffRows(got, want, 'hyparquet', oname);
  if (d) { bad(name, d); return; }
  const notes = hyp.notes();
  ok(name, `${got.length} rows${oname !== 'duckdb' ? `; against ${oname}` : ''}${notes.length ? `; ${notes.join('; ')}` : ''}`);
}

// ---- a file hyparquet-writer writes ----------------------------------------------------

function writeHyparquetFile(file) {
  const n = 3000;
  const ints = Array.from({ length: n }, (_, i) => (i % 7 === 0 ? null : i * 7919 - 100000));
  const schema = [
    { name: 'root', num_children: 8 },
    { name: 'i32', type: 'INT32', repetition_type: 'OPTIONAL' },
    { name: 'i64', type: 'INT64', repetition_type: 'REQUIRED' },
    { name: 'd', type: 'DOUBLE', repetition_type: 'OPTIONAL' },
    { name: 's', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
    { name: 'dec', type: 'INT64', repetition_type: 'OPTIONAL', converted_type: 'DECIMAL', scale: 2, precision: 18,
      logical_type: { type: 'DECIMAL', scale: 2, precision: 18 } },
    { name: 'ts', type: 'INT64', repetition_type: 'OPTIONAL',
      logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' }, converted_type: 'TIMESTAMP_MICROS' },
    { name: 'l', repetition_type: 'OPTIONAL', converted_type: 'LIST', logical_type: { type: 'LIST' }, num_children: 1 },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    { name: 'element', type: 'INT32', repetition_type: 'OPTIONAL' },
    { name: 'st', repetition_type: 'OPTIONAL', num_children: 2 },
    { name: 'a', type: 'INT32', repetition_type: 'OPTIONAL' },
    { name: 'b', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
  ];
  const columnData = [
    { name: 'i32', data: ints },
    { name: 'i64', data: Array.from({ length: n }, (_, i) => BigInt(i) * 1000000007n - 9000000000000000000n) },
    { name: 'd', data: Array.from({ length: n }, (_, i) => (i % 11 === 0 ? null : i / 3 - 500)) },
    // few distinct values: dictionary pages
    { name: 's', data: Array.from({ length: n }, (_, i) => (i % 13 === 0 ? null : `v${i % 17}\u00e9`)) },
    // the writer takes decimals as numbers and scales them
    { name: 'dec', data: Array.from({ length: n }, (_, i) => (i % 5 === 0 ? null : (i * 37 - 5000) / 100)) },
    { name: 'ts', data: Array.from({ length: n }, (_, i) => (i % 9 === 0 ? null : new Date(Date.UTC(2020, 0, 1) + i * 3600001))) },
    { name: 'l', data: Array.from({ length: n }, (_, i) => (i % 10 === 0 ? null : i % 10 === 1 ? [] : [i, null, -i])) },
    { name: 'st', data: Array.from({ length: n }, (_, i) => (i % 8 === 0 ? null : { a: i % 3 ? i : null, b: `x${i}` })) },
  ];
  const buf = parquetWriteBuffer({ columnData, schema, rowGroupSize: 1000, pageSize: 4096 });
  fs.writeFileSync(file, Buffer.from(buf));
}

// ---- 3: column chunks with gaps ---------------------------------------------------------

// Junk that a reader scanning for pages or magic would trip over: "PAR1", a
// plausible page header start (compact thrift: field 1 = DATA_PAGE), 0xff.
function junk(len, seed) {
  const b = Buffer.alloc(len);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < len; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    b[i] = x & 0xff;
  }
  const marks = [Buffer.from('PAR1'), Buffer.from([0x15, 0x00, 0x15, 0x80, 0x01, 0x15, 0x80, 0x01, 0x2c]), Buffer.alloc(8, 0xff)];
  for (let at = 0, k = 0; at + 16 < len; at += 61, k++) marks[k % marks.length].copy(b, at);
  return b;
}

// A copy of `src` with its column chunks moved apart (junk before the first,
// between each two and before the footer), optionally in reverse column
// order within each row group. The footer keeps everything but the page
// indexes, bloom filters and statistics (which are not needed to read and
// would need moving too), with the chunk offsets moved.
function gapCopy(src, dst, { reverse, seed }) {
  const data = fs.readFileSync(src);
  const meta = parquetMetadata(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), { geoparquet: false });
  const parts = [Buffer.from('PAR1'), junk(37, seed)];
  let pos = 4 + 37;
  const layout = [];
  for (const rg of meta.row_groups) {
    const order = rg.columns.map((_, j) => j);
    if (reverse) order.reverse();
    let first = null, total = 0n;
    for (const j of order) {
      const c = rg.columns[j];
      const m = c.meta_data;
      const start = m.dictionary_page_offset || m.data_page_offset;
      const len = Number(m.total_compressed_size);
      const chunk = data.subarray(Number(start), Number(start) + len);
      const delta = BigInt(pos) - BigInt(start);
      layout.push(`${m.path_in_schema.join('.')}@${pos}+${len}`);
      parts.push(chunk);
      if (first === null) first = BigInt(pos);
      total += BigInt(len);
      m.data_page_offset += delta;
      if (m.dictionary_page_offset) m.dictionary_page_offset += delta;
      m.index_page_offset = undefined;
      m.bloom_filter_offset = undefined;
      m.bloom_filter_length = undefined;
      m.statistics = undefined;
      m.size_statistics = undefined;
      m.geospatial_statistics = undefined;
      c.file_offset = BigInt(pos);
      c.offset_index_offset = undefined;
      c.offset_index_length = undefined;
      c.column_index_offset = undefined;
      c.column_index_length = undefined;
      pos += len;
      const gap = junk(23 + ((seed + pos) % 211), seed + pos);
      parts.push(gap);
      pos += gap.length;
    }
    rg.file_offset = first ?? 0n;
    rg.total_compressed_size = total;
  }
  const w = new ByteWriter();
  writeMetadata(w, meta);
  w.appendUint32(0x31524150); // "PAR1"
  parts.push(Buffer.from(w.getBuffer()));
  fs.writeFileSync(dst, Buffer.concat(parts));
  return layout;
}

async function gapChecks(src, label, dir, duck, arrow, hyp) {
  let shape;
  try {
    shape = rowShape(await duck.schema(src));
  } catch (e) {
    bad(`gaps ${label}`, `DuckDB cannot read the original: ${firstLine(e)}`);
    return;
  }
  const orig = {};
  for (const [n, o] of [['hyparquet', hyp], ['duckdb', duck], ['arrow-rs', arrow]]) {
    try { orig[n] = await collect(o, src, shape); } catch (e) { orig[n] = `error: ${firstLine(e)}`; }
  }
  // the original must read the same everywhere, or the copies prove nothing
  const base = orig.hyparquet;
  if (typeof base === 'string') { bad(`gaps ${label}`, `hyparquet cannot read the original: ${base}`); return; }
  const d0 = typeof orig.duckdb === 'string' ? orig.duckdb : diffRows(base, orig.duckdb, 'hyparquet', 'duckdb');
  if (d0) { bad(`gaps ${label}`, `the original: ${d0}`); return; }
  for (const reverse of [false, true]) {
    const dst = path.join(dir, `${path.basename(src, '.parquet')}.gaps${reverse ? '.reversed' : ''}.parquet`);
    const layout = gapCopy(src, dst, { reverse, seed: reverse ? 977 : 131 });
    const name = `gaps ${label}${reverse ? ' (reverse column order)' : ''}`;
    if (opts.verbose) console.log(`# ${name}: ${dst}: ${layout.slice(0, 8).join(' ')}${layout.length > 8 ? ' ...' : ''}`);
    const problems = [];
    for (const [n, o] of [['hyparquet', hyp], ['duckdb', duck], ['arrow-rs', arrow]]) {
      if (typeof orig[n] === 'string') continue; // cannot read the original either
      let got;
      try { got = await collect(o, dst, shape); } catch (e) { problems.push(`${n}: ${firstLine(e)}`); continue; }
      const d = diffRows(got, orig[n], `${n}(copy)`, `${n}(original)`);
      if (d) problems.push(`${n}: ${d}`);
    }
    if (problems.length) bad(name, problems.join('; '));
    else ok(name, `${base.length} rows, ${layout.length} chunks moved apart`);
    // Not a check: whether hyparquet's own file AsyncBuffer reads the copy
    // (oracle_hyparquet.mjs's fileAsyncBuffer says why it may not).
    try {
      await parquetReadObjects({ file: await asyncBufferFromFile(dst), compressors, utf8: false });
    } catch (e) {
      console.log(`# note: ${name}: hyparquet with its asyncBufferFromFile fails: ${firstLine(e)}`);
    }
  }
}

// ---- main -------------------------------------------------------------------------------

async function main() {
  const duck = await DuckOracle.open();
  const arrow = new ArrowOracle();
  const hyp = new HyparquetOracle();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'upq-hyparquet-'));
  try {
    let files = opts.files;
    if (!files.length) {
      if (!fs.existsSync(dataDir)) {
        console.error(`hyparquet_selftest: no corpus at ${dataDir} (set PARQUET_TESTING_DIR)`);
        return 2;
      }
      files = listParquet(dataDir).filter((f) => footerMagic(f) !== 'PARE');
      console.log('# not compared with DuckDB:');
      for (const [f, x] of Object.entries(OTHER_ORACLE)) console.log(`#   ${f}: against ${x.oracle}: ${x.why}`);
      for (const [f, x] of Object.entries(HYPARQUET_REFUSES)) console.log(`#   ${f}: hyparquet must refuse it: ${x.why}`);
    }
    const rel = (f) => (f.startsWith(dataDir + path.sep) ? path.relative(dataDir, f) : f);
    for (const f of files) await compareWithOracles(f, rel(f), duck, arrow, hyp);

    if (opts.generated && !opts.files.length) {
      const gen = await writeGenerated(duck.con, path.join(tmp, 'generated'));
      const hw = path.join(tmp, 'hyparquet_writer.parquet');
      writeHyparquetFile(hw);
      for (const f of [...gen, hw]) await compareWithOracles(f, `generated/${path.basename(f)}`, duck, arrow, hyp);
      await gapChecks(hw, 'hyparquet-writer file', tmp, duck, arrow, hyp);
      // DuckDB's: several row groups, zstd, v2 pages, dictionaries
      await gapChecks(gen.find((f) => f.endsWith('v2_delta.parquet')), 'DuckDB v2_delta', tmp, duck, arrow, hyp);
      await gapChecks(gen.find((f) => f.endsWith('nested.parquet')), 'DuckDB nested', tmp, duck, arrow, hyp);
      const alltypes = path.join(dataDir, 'alltypes_dictionary.parquet');
      if (fs.existsSync(alltypes)) await gapChecks(alltypes, 'alltypes_dictionary (impala)', tmp, duck, arrow, hyp);
    }
  } finally {
    duck.close();
    if (!opts.verbose) fs.rmSync(tmp, { recursive: true, force: true });
    else console.log(`# files kept in ${tmp}`);
  }
  console.log(`${pass} passed, ${fail} failed`);
  return fail ? 1 : 0;
}

main().then((code) => process.stdout.write('', () => process.exit(code)), (e) => {
  console.error(e && e.stack ? e.stack : e);
  process.stdout.write('', () => process.exit(1));
});
