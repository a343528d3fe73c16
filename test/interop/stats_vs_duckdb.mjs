#!/usr/bin/env node
// Statistics as upq reads them (`upq meta --json`, each chunk's
// typed_statistics: uparquet/stats.h) against DuckDB, for every
// plaintext-footer file in $PARQUET_TESTING_DIR/data and for files DuckDB
// and arrow-rs (parquet-wasm) write with every type, nulls, NaN, signed
// zeros, decimals of every physical type, unsigned integers near 2^31 and
// 2^63, strings sharing prefixes, and (by `upq write --stats-max-binary`)
// truncated string bounds.
//
//   node test/interop/stats_vs_duckdb.mjs [--upq PATH] [--skip-without-upq]
//        [--work DIR] [--verbose] [FILE...]
//
// Two checks per column chunk:
//   values    a bound upq marks usable equals DuckDB's reading of the same
//             field (parquet_metadata's stats_min_value/stats_max_value, or
//             stats_min/stats_max for the deprecated fields) wherever DuckDB
//             shows one. Compared by value: integers and decimals exactly,
//             floats at their width with -0 = +0 (upq widens zero bounds),
//             dates, times and timestamps as counts of their unit, bytes as
//             bytes.
//   bounds    for flat columns DuckDB reads: every non-null, non-NaN value of
//             the row group (DuckDB's min and max over the rows of that row
//             group, by file_row_number) lies within upq's usable bounds, and
//             equals a bound the file says is exact.
// Prints `ok FILE (N values, N bounds)` or `FAIL FILE: ...` per file and
// ends with `N passed, N failed, N skipped`; exits 1 when anything failed.

import { DuckDBInstance } from '@duckdb/node-api';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { tableFromArrays, tableToIPC } from 'apache-arrow';
import { listParquet, footerMagic } from './corpus.mjs';
import { leafKind, roundTo, beSigned } from './canonical.mjs';
import { writeGenerated } from './generated.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const require = createRequire(import.meta.url);

const opts = { upq: path.join(repoRoot, 'build', 'host', 'upq'), skipWithoutUpq: false,
               work: path.join(repoRoot, 'build', 'check', 'stats'), verbose: false, files: [] };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--upq') opts.upq = argv[++i];
    else if (a === '--skip-without-upq') opts.skipWithoutUpq = true;
    else if (a === '--work') opts.work = path.resolve(argv[++i]);
    else if (a === '--verbose' || a === '-v') opts.verbose = true;
    else if (a.startsWith('-')) { console.error(`stats_vs_duckdb: unknown option ${a}`); process.exit(2); }
    else opts.files.push(path.resolve(a));
  }
}
const corpusDir = process.env.PARQUET_TESTING_DIR
  ? path.resolve(process.env.PARQUET_TESTING_DIR)
  : path.resolve(repoRoot, '..', 'shared', 'parquet-testing');

// ---- files made for this check ----------------------------------------------------

// DuckDB: the edges statistics get wrong when read in the wrong order.
const DUCK_FILES = [
  {
    name: 'stats_edges.parquet',
    sql: `COPY (SELECT
        CASE WHEN i % 5 = 0 THEN NULL ELSE (2147483640 + i)::UINTEGER END AS u32,
        CASE WHEN i % 6 = 0 THEN NULL ELSE (9223372036854775800::UBIGINT + i::UBIGINT) END AS u64,
        (i - 10)::TINYINT AS i8, (255 - i)::UTINYINT AS u8, (65500 + i)::USMALLINT AS u16,
        CASE WHEN i % 4 = 0 THEN 'nan'::DOUBLE WHEN i % 4 = 1 THEN -(i * 0.0) ELSE i * 0.5 - 3 END AS d,
        CASE WHEN i % 3 = 0 THEN -(i * 0.0)::FLOAT ELSE (i * 0.0)::FLOAT END AS fz,
        CASE WHEN i % 2 = 0 THEN 'nan'::FLOAT ELSE (i - 7)::FLOAT END AS fnan,
        ((i - 12) * 0.34)::DECIMAL(4,2) AS dec4, ((i - 12) * 1234567.891)::DECIMAL(18,3) AS dec18,
        ((i - 12) * 1234567890123456789012.5)::DECIMAL(38,1) AS dec38,
        'pre' || repeat('x', (i % 5)::INTEGER) || chr((65 + i % 3)::INTEGER) AS s, CASE WHEN i % 2 = 0 THEN '\\xFF\\x00'::BLOB ELSE '\\x7F'::BLOB END AS b,
        DATE '1969-12-25' + i::INTEGER AS dt,
        (TIMESTAMP '1970-01-01 00:00:00' + to_seconds(i - 12) + to_microseconds(i))::TIMESTAMP_NS AS tsn,
        (TIMESTAMP '2000-01-01 00:00:00' + to_minutes(i * 7))::TIMESTAMP_MS AS tsm,
        TIME '00:00:01' + to_seconds(i) AS tm,
        i % 3 = 0 AS bo, CASE WHEN i < 24 THEN NULL ELSE i END AS mostly_null
      FROM range(25) t(i)) TO '{out}' (FORMAT parquet, ROW_GROUP_SIZE 8)`,
  },
  {
    name: 'stats_v2.parquet',
    sql: `COPY (SELECT (i * 7919 % 1000 - 500)::INTEGER AS i, (i * 0.001 - 1)::DOUBLE AS d,
        md5(i::VARCHAR) AS h, (i % 50)::DECIMAL(9,2) AS dc
      FROM range(3000) t(i)) TO '{out}' (FORMAT parquet, PARQUET_VERSION V2, ROW_GROUP_SIZE 1000)`,
  },
];

// arrow-rs through parquet-wasm: unsigned and signed integers of every
// width, floats with NaN and signed zeros, strings, several row groups.
function writeArrowRs(out) {
  const pw = require('parquet-wasm/node');
  const n = 40;
  const u32 = new Uint32Array(n), u64 = new BigUint64Array(n), i8 = new Int8Array(n), u8 = new Uint8Array(n);
  const i64 = new BigInt64Array(n), f32 = new Float32Array(n), f64 = new Float64Array(n), s = new Array(n);
  for (let k = 0; k < n; k++) {
    u32[k] = 2147483630 + k;
    u64[k] = 9223372036854775790n + BigInt(k);
    i8[k] = k * 6 - 120;
    u8[k] = 255 - k * 3;
    i64[k] = BigInt(k - 20) * 461168601842738790n;
    f32[k] = k % 5 === 0 ? NaN : k % 5 === 1 ? -0 : (k % 5 === 2 ? 0 : k - 20.5);
    f64[k] = k % 7 === 0 ? NaN : k % 7 === 1 ? -0 : k * 1e-3 - 0.01;
    s[k] = k % 9 === 0 ? null : `k${'é'.repeat(k % 3)}${String.fromCharCode(0x41 + (k * 7) % 26)}${k % 4}`;
  }
  const t = tableFromArrays({ u32, u64, i8, u8, i64, f32, f64, s });
  const props = new pw.WriterPropertiesBuilder().setMaxRowGroupSize(16).build();
  fs.writeFileSync(out, Buffer.from(pw.writeParquet(pw.Table.fromIPCStream(tableToIPC(t, 'stream')), props)));
}

// upq write with --stats-max-binary 4: truncated, inexact string bounds.
async function writeTruncated(dir) {
  const schema = path.join(dir, 'trunc.schema'), rows = path.join(dir, 'trunc.jsonl');
  const out = path.join(dir, 'stats_truncated.parquet');
  fs.writeFileSync(schema, 'message m {\n  optional binary s (STRING);\n  required binary b;\n}\n');
  const lines = [];
  for (let k = 0; k < 30; k++) {
    const s = k % 6 === 0 ? null : `${'prefix'.slice(0, 2 + (k % 5))}${String.fromCharCode(0x61 + k % 26)}${'\u00ff'.repeat(k % 3)}tail${k}`;
    const b = Buffer.from([0xFF, 0xFF, 0xFF, 0xFF, k % 2 ? 0xFF : k]).toString('base64');
    lines.push(JSON.stringify({ s, b }));
  }
  fs.writeFileSync(rows, `${lines.join('\n')}\n`);
  const r = await run(['write', '--schema', schema, '--stats-max-binary', '4', '--row-group-rows', '10', rows, out]);
  if (r.error) throw new Error(`upq write: ${r.error}`);
  return out;
}

// ---- running upq ----------------------------------------------------------------------

function run(args) {
  return new Promise((resolve) => {
    execFile(opts.upq, args, { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, timeout: 120000 },
      (err, stdout, stderr) => {
        if (err) resolve({ error: `${err.code ?? err.signal}: ${(stderr || '').trim().split('\n').slice(-2).join(' | ')}` });
        else resolve({ stdout });
      });
  });
}

// JSON with integers kept exact (BigInt); other numbers as Number.
function parseJson(text) {
  return JSON.parse(text.replace(/(?<=[:\[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '"#big#$1"'),
    (k, v) => (typeof v === 'string' && v.startsWith('#big#') ? BigInt(v.slice(5)) : v));
}

// ---- values as comparable keys --------------------------------------------------------
//
// key(kind, text) turns a value's text (upq's or DuckDB's) into
//   {t:'int', v: BigInt}      integers, decimals (unscaled), dates (days),
//                             times and timestamps (nanoseconds)
//   {t:'float', v: Number}    rounded to the column's width
//   {t:'bytes', v: Buffer}
//   {t:'bool', v: 0|1}
// or null when the text cannot be read (not compared).

function civilDays(y, m, d) {
  y -= m <= 2 ? 1n : 0n;
  const era = (y >= 0n ? y : y - 399n) / 400n;
  const yoe = y - era * 400n;
  const mp = m > 2n ? m - 3n : m + 9n;
  const doy = (153n * mp + 2n) / 5n + d - 1n;
  const doe = yoe * 365n + yoe / 4n - yoe / 100n + doy;
  return era * 146097n + doe - 719468n;
}

const fracNs = (f) => BigInt((f || '').padEnd(9, '0').slice(0, 9) || '0');

function parseDate(s) {
  const m = /^([+-]?\d{4,})-(\d\d)-(\d\d)$/.exec(s);
  return m ? civilDays(BigInt(m[1]), BigInt(m[2]), BigInt(m[3])) : null;
}

function parseTime(s) {
  const m = /^(\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:Z|[+-]\d\d(?::?\d\d)?)?$/.exec(s);
  if (!m) return null;
  return ((BigInt(m[1]) * 60n + BigInt(m[2])) * 60n + BigInt(m[3])) * 1000000000n + fracNs(m[4]);
}

function parseTimestamp(s) {
  const m = /^([+-]?\d{4,})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(Z|([+-])(\d\d)(?::?(\d\d))?)?$/.exec(s);
  if (!m) return null;
  const days = civilDays(BigInt(m[1]), BigInt(m[2]), BigInt(m[3]));
  let ns = ((days * 24n + BigInt(m[4])) * 60n + BigInt(m[5])) * 60n + BigInt(m[6]);
  ns = ns * 1000000000n + fracNs(m[7]);
  if (m[9]) {
    const off = (BigInt(m[10]) * 60n + BigInt(m[11] || '0')) * 60000000000n;
    ns += m[9] === '+' ? -off : off;
  }
  return ns;
}

function parseDecimal(s, scale) {
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(s);
  if (!m || (m[2] === '' && !m[3])) return null;
  const frac = (m[3] || '').padEnd(scale, '0');
  if (frac.length > scale) return null;
  const v = BigInt((m[2] || '0') + frac);
  return m[1] ? -v : v;
}

// DuckDB shows a BLOB with \xNN escapes for bytes outside printable ASCII
// (backslash included). `enc`: how the other characters become bytes.
function duckBlob(s, enc = 'utf8') {
  const out = [];
  const re = /\\x([0-9A-Fa-f]{2})/y;
  let i = 0;
  while (i < s.length) {
    re.lastIndex = i;
    const m = re.exec(s);
    if (m) {
      out.push(parseInt(m[1], 16));
      i += 4;
      continue;
    }
    const cp = s.codePointAt(i);
    const ch = String.fromCodePoint(cp);
    for (const b of Buffer.from(ch, enc)) out.push(b);
    i += ch.length;
  }
  return Buffer.from(out);
}

function parseFloatText(s) {
  const t = String(s).trim().toLowerCase();
  if (t === 'nan') return NaN;
  if (t === 'inf' || t === 'infinity' || t === '+inf') return Infinity;
  if (t === '-inf' || t === '-infinity') return -Infinity;
  const v = Number(t);
  return Number.isNaN(v) ? null : v;
}

// upq's text of a value (typed_statistics min/max; a BigInt for integers);
// `hex` its bytes (min_hex/max_hex) for byte-valued bounds.
function upqKey(k, v, hex) {
  if (v === null || v === undefined) return null;
  if ((k.kind === 'string' || k.kind === 'bytes' || k.kind === 'uuid') && typeof hex === 'string') {
    return { t: 'bytes', v: Buffer.from(hex, 'hex') };
  }
  switch (k.kind) {
    case 'int': return { t: 'int', v: BigInt(v) };
    case 'bool': return { t: 'bool', v: v === 'true' || v === true ? 1 : 0 };
    case 'float': { const x = parseFloatText(v); return x === null ? null : { t: 'float', v: roundTo(x, k.bits) }; }
    case 'decimal': { const x = parseDecimal(String(v), k.scale); return x === null ? null : { t: 'int', v: x }; }
    case 'date': { const x = parseDate(String(v)); return x === null ? null : { t: 'int', v: x }; }
    case 'time': { const x = parseTime(String(v)); return x === null ? null : { t: 'int', v: x }; }
    case 'timestamp': { const x = parseTimestamp(String(v)); return x === null ? null : { t: 'int', v: x }; }
    case 'string': return { t: 'bytes', v: Buffer.from(String(v), 'utf8') };
    case 'uuid': return { t: 'bytes', v: Buffer.from(String(v).replaceAll('-', ''), 'hex') };
    case 'bytes':
      if (typeof v === 'string' && /^0x([0-9a-f]{2})*$/.test(v)) return { t: 'bytes', v: Buffer.from(v.slice(2), 'hex') };
      return null;
    default: return null;
  }
}

// DuckDB's text of a value of that kind (parquet_metadata's stats, or
// min()/max() cast to VARCHAR).
function duckKey(k, s) {
  if (s === null || s === undefined) return null;
  s = String(s);
  switch (k.kind) {
    case 'int': return /^-?\d+$/.test(s) ? { t: 'int', v: BigInt(s) } : null;
    case 'bool': return s === 'true' || s === '1' ? { t: 'bool', v: 1 } : s === 'false' || s === '0' ? { t: 'bool', v: 0 } : null;
    case 'float': { const x = parseFloatText(s); return x === null ? null : { t: 'float', v: roundTo(x, k.bits) }; }
    case 'decimal': { const x = parseDecimal(s, k.scale); return x === null ? null : { t: 'int', v: x }; }
    case 'date': { const x = parseDate(s); return x === null ? null : { t: 'int', v: x }; }
    case 'time': { const x = parseTime(s); return x === null ? null : { t: 'int', v: x }; }
    case 'timestamp': { const x = parseTimestamp(s); return x === null ? null : { t: 'int', v: x }; }
    case 'string': return { t: 'bytes', v: duckBlob(s) }; // invalid UTF-8 shows as \xNN
    case 'uuid': return /^[0-9a-f-]{36}$/i.test(s) ? { t: 'bytes', v: Buffer.from(s.replaceAll('-', ''), 'hex') } : null;
    case 'bytes': return { t: 'bytes', v: duckBlob(s) };
    default: return null;
  }
}

// <0, 0, >0; floats by value (-0 = +0).
function cmpKey(a, b) {
  if (a.t !== b.t) throw new Error(`comparing ${a.t} with ${b.t}`);
  if (a.t === 'bytes') return Buffer.compare(a.v, b.v);
  return a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
}

const showKey = (x) => (x === null ? 'null' : x.t === 'bytes' ? `0x${x.v.toString('hex')}`
  : x.t === 'float' && Object.is(x.v, -0) ? '-0' : String(x.v));

// ---- DuckDB's side ----------------------------------------------------------------------

const q = (s) => `'${s.replaceAll("'", "''")}'`;
const ident = (s) => `"${s.replaceAll('"', '""')}"`;

async function rows(con, sql) {
  const r = await con.runAndReadAll(sql);
  return r.getRowObjectsJson();
}

// The expression DuckDB aggregates for a column of that kind and DuckDB
// type (null: not compared). Text comes back as VARCHAR for duckKey.
function aggExpr(k, dtype, col) {
  const c = ident(col);
  switch (k.kind) {
    case 'int': case 'decimal': case 'date': case 'time': case 'timestamp':
      if (k.kind === 'decimal' && !/^DECIMAL/.test(dtype)) return null;
      if (k.kind === 'int' && !/INT/.test(dtype)) return null;
      return { lo: `min(${c})::VARCHAR`, hi: `max(${c})::VARCHAR` };
    case 'bool': return { lo: `min(${c}::INTEGER)::VARCHAR`, hi: `max(${c}::INTEGER)::VARCHAR` };
    case 'float': {
      const v = `CASE WHEN isnan(${c}) THEN NULL ELSE ${c} END`;
      return { lo: `min(${v})::VARCHAR`, hi: `max(${v})::VARCHAR` };
    }
    case 'string':
      if (dtype !== 'VARCHAR' && dtype !== 'JSON') return null;
      // as bytes: DuckDB's text of a VARCHAR loses invalid UTF-8
      return { lo: `min(encode(${c}::VARCHAR))::VARCHAR`, hi: `max(encode(${c}::VARCHAR))::VARCHAR` };
    case 'uuid': return { lo: `min(${c}::VARCHAR)`, hi: `max(${c}::VARCHAR)` };
    case 'bytes':
      if (dtype !== 'BLOB') return null;
      return { lo: `min(${c})::VARCHAR`, hi: `max(${c})::VARCHAR` };
    default: return null;
  }
}

// ---- one file ---------------------------------------------------------------------------

async function checkFile(con, file) {
  const problems = [];
  let nValues = 0, nBounds = 0, note = '';
  const u = await run(['meta', '--json', file]);
  if (u.error) return { fail: [`upq meta --json failed: ${u.error}`] };
  const meta = parseJson(u.stdout);

  let dmeta;
  try {
    // the text of strings also as bytes: DuckDB's client decodes some valid
    // UTF-8 (4-byte sequences) into U+FFFD
    dmeta = await rows(con, `SELECT row_group_id, column_id, row_group_num_rows, stats_min, stats_max,
        stats_min_value, stats_max_value,
        encode(stats_min)::VARCHAR AS stats_min_b, encode(stats_max)::VARCHAR AS stats_max_b,
        encode(stats_min_value)::VARCHAR AS stats_min_value_b, encode(stats_max_value)::VARCHAR AS stats_max_value_b
      FROM parquet_metadata(${q(file)}) ORDER BY row_group_id, column_id`);
  } catch (e) {
    return { skip: `DuckDB cannot read its metadata: ${String(e.message).split('\n')[0]}` };
  }
  const dstat = new Map(dmeta.map((r) => [`${r.row_group_id}/${r.column_id}`, r]));

  // leaves in schema order, with their kind; top-level primitive ones by name
  const leaves = [];
  {
    const el = meta.schema;
    const stack = [{ left: Number(el[0].num_children ?? 0), depth: 0 }];
    for (let i = 1; i < el.length; i++) {
      while (stack.length && stack[stack.length - 1].left === 0) stack.pop();
      const top = stack[stack.length - 1];
      top.left--;
      const e = el[i];
      const nc = e.num_children === null || e.num_children === undefined ? 0 : Number(e.num_children);
      if (e.type === null || e.type === undefined) { stack.push({ left: nc, depth: top.depth + 1 }); continue; }
      let kind = null;
      try { kind = leafKind(e); } catch { kind = { kind: 'unknown' }; }
      leaves.push({ e, kind, flat: top.depth === 0 && e.repetition !== 'REPEATED', path: e.path });
    }
  }

  // values: upq's usable bounds against DuckDB's reading of the same field
  meta.row_groups.forEach((rg, g) => {
    rg.columns.forEach((c, j) => {
      const ts = c.typed_statistics, leaf = leaves[j];
      if (!ts || !leaf || !ts.usable) return;
      const d = dstat.get(`${g}/${j}`);
      if (!d) return;
      const dep = ts.source === 'min/max';
      const b = leaf.kind.kind === 'string' ? '_b' : '';
      for (const [side, uv, hex, dv] of [['min', ts.min, ts.min_hex, d[(dep ? 'stats_min' : 'stats_min_value') + b]],
                                         ['max', ts.max, ts.max_hex, d[(dep ? 'stats_max' : 'stats_max_value') + b]]]) {
        if (uv === null || uv === undefined) continue;
        const a = upqKey(leaf.kind, uv, hex);
        if (a && a.t === 'float' && Number.isNaN(a.v)) {
          problems.push(`row group ${g} ${c.path} ${side}: upq marks a NaN bound usable`);
          continue;
        }
        if (dv === null || dv === undefined) continue;
        // a string's stats text, as bytes (\xNN for \), shows invalid UTF-8 as \xNN
        const b = leaf.kind.kind === 'string' ? { t: 'bytes', v: duckBlob(duckBlob(dv).toString('latin1'), 'latin1') }
          : duckKey(leaf.kind, dv);
        if (!a || !b) continue;
        nValues++;
        if (cmpKey(a, b) !== 0) {
          problems.push(`row group ${g} ${c.path} ${side}: upq ${JSON.stringify(String(uv))} (${showKey(a)}), DuckDB ${JSON.stringify(dv)} (${showKey(b)})`);
        }
      }
    });
  });

  // bounds: every value of the row group within upq's usable bounds
  const flat = [];
  leaves.forEach((l, j) => { if (l.flat) flat.push({ ...l, j }); });
  let types = null;
  try {
    types = new Map((await rows(con, `DESCRIBE SELECT * FROM read_parquet(${q(file)})`)).map((r) => [r.column_name, r.column_type]));
  } catch { types = null; }
  const cols = types ? flat.map((l) => ({ ...l, agg: types.has(l.path) ? aggExpr(l.kind, types.get(l.path), l.path) : null }))
    .filter((l) => l.agg && meta.row_groups.some((rg) => rg.columns[l.j]?.typed_statistics?.usable)) : [];
  if (cols.length && meta.row_groups.length) {
    const starts = [];
    let at = 0n;
    for (const rg of meta.row_groups) { starts.push(at); at += BigInt(rg.num_rows); }
    const rgs = starts.map((s, g) => `(${g}, ${s})`).join(', ');
    const sel = cols.map((l, k) => `${l.agg.lo} AS lo${k}, ${l.agg.hi} AS hi${k}`).join(', ');
    let agg = null;
    try {
      agg = await rows(con, `WITH rg__(g__, a__) AS (VALUES ${rgs}),
          d AS (SELECT * FROM read_parquet(${q(file)}, file_row_number = true))
        SELECT rg__.g__ AS g, ${sel} FROM d ASOF JOIN rg__ ON d.file_row_number >= rg__.a__
        GROUP BY rg__.g__ ORDER BY rg__.g__`);
    } catch (e) {
      note = `rows not compared: DuckDB: ${String(e.message).split('\n')[0]}`;
    }
    for (const r of agg || []) {
      const g = Number(r.g);
      cols.forEach((l, k) => {
        const ts = meta.row_groups[g].columns[l.j].typed_statistics;
        if (!ts || !ts.usable) return;
        const lo = duckKey(l.kind, r[`lo${k}`]), hi = duckKey(l.kind, r[`hi${k}`]);
        const where = `row group ${g} ${l.path}`;
        if (lo === null || hi === null) return; // no non-null value, or unreadable
        for (const [side, uv, hex, dv, exact] of [['min', ts.min, ts.min_hex, lo, ts.min_exact],
                                                  ['max', ts.max, ts.max_hex, hi, ts.max_exact]]) {
          if (uv === null || uv === undefined) continue;
          const b = upqKey(l.kind, uv, hex);
          if (!b) continue;
          nBounds++;
          const c = cmpKey(b, dv);
          if ((side === 'min' && c > 0) || (side === 'max' && c < 0)) {
            problems.push(`${where}: upq's ${side} ${JSON.stringify(String(uv))} does not bound the rows' ${side} ${showKey(dv)}`);
          } else if (exact === true && c !== 0) {
            problems.push(`${where}: upq's ${side} ${JSON.stringify(String(uv))} is exact but the rows' ${side} is ${showKey(dv)}`);
          }
        }
      });
    }
  }
  return { problems, nValues, nBounds, note };
}

// ---- main ---------------------------------------------------------------------------------

async function main() {
  if (!fs.existsSync(opts.upq)) {
    if (opts.skipWithoutUpq) {
      console.log(`# ${opts.upq} is not built yet: nothing compared`);
      return 77;
    }
    console.error(`stats_vs_duckdb: ${opts.upq} does not exist`);
    return 2;
  }
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  await con.run("SET TimeZone = 'UTC'");
  let files = opts.files;
  if (files.length === 0) {
    const dataDir = path.join(corpusDir, 'data');
    if (!fs.existsSync(dataDir)) {
      console.error(`stats_vs_duckdb: no corpus at ${dataDir} (set PARQUET_TESTING_DIR)`);
      return 2;
    }
    files = listParquet(dataDir).filter((f) => footerMagic(f) !== 'PARE');
    fs.mkdirSync(opts.work, { recursive: true });
    files.push(...await writeGenerated(con, path.join(opts.work, 'generated')));
    for (const g of DUCK_FILES) {
      const out = path.join(opts.work, g.name);
      fs.rmSync(out, { force: true });
      await con.run(g.sql.replaceAll('{out}', out.replaceAll("'", "''")));
      files.push(out);
    }
    const arrowOut = path.join(opts.work, 'stats_arrow_rs.parquet');
    writeArrowRs(arrowOut);
    files.push(arrowOut);
    files.push(await writeTruncated(opts.work));
  }
  const rel = (f) => (f.startsWith(corpusDir) ? path.relative(corpusDir, f) : path.relative(repoRoot, f));
  let pass = 0, fail = 0, skip = 0, values = 0, bounds = 0;
  for (const f of files) {
    let r;
    try {
      r = await checkFile(con, f);
    } catch (e) {
      r = { fail: [`${e.message}`] };
    }
    if (r.skip) { console.log(`skip ${rel(f)}: ${r.skip}`); skip++; continue; }
    const probs = r.fail || r.problems;
    if (probs.length) {
      const shown = opts.verbose ? probs : probs.slice(0, 4);
      console.log(`FAIL ${rel(f)}: ${shown.join('; ')}${probs.length > shown.length ? ` (+${probs.length - shown.length} more)` : ''}`);
      fail++;
    } else {
      console.log(`ok ${rel(f)} (${r.nValues} values, ${r.nBounds} bounds${r.note ? `; ${r.note}` : ''})`);
      pass++;
    }
    values += r.nValues || 0;
    bounds += r.nBounds || 0;
  }
  console.log(`# ${values} bounds equal to DuckDB's reading of the statistics, ${bounds} bounds checked against the rows`);
  console.log(`${pass} passed, ${fail} failed, ${skip} skipped`);
  return fail ? 1 : 0;
}

const exitAfterFlush = (code) => process.stdout.write('', () => process.exit(code));
main().then(exitAfterFlush, (e) => {
  console.error(e && e.stack ? e.stack : e);
  exitAfterFlush(1);
});
