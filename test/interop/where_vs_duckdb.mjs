#!/usr/bin/env node
// The query matrix of `upq cat --where` (issue 13's acceptance): for each
// query, `upq cat --json --where EXPR [--columns ...] FILE` must print exactly
// the rows of DuckDB's `SELECT * FROM FILE WHERE SQL` (threads = 1 keeps file
// order), compared value by value as the other oracles compare (canonical.mjs).
// Equal rows also show that pruning (statistics, bloom filters, page index)
// never dropped a matching row.
//
//   node test/interop/where_vs_duckdb.mjs [--upq PATH] [--skip-without-upq] [--work DIR]
//
// --skip-without-upq: exit 77 (skipped, with a line saying why) when upq is
// not built or has no `cat --where` yet.
//
// Files:
//  - "typed": every physical type and the common logical types (INT8..64
//    signed and unsigned, FLOAT, DOUBLE with NaN, +-0 and infinities,
//    FLOAT16, DECIMAL on INT32/INT64/FLBA, DATE, TIME, TIMESTAMP ms/us/ns
//    with and without UTC, INT96, strings sharing long prefixes, binary,
//    UUID, FLBA, BOOLEAN), nulls, sorted (id, dt, ts_*) and unsorted columns,
//    a struct, a list and a map; written by upq with 50 level entries a page
//    and 600-row row groups and string statistics cut to 8 bytes (inexact):
//    v1 pages with a page index, the same without a page index, v2 pages
//    without dictionaries, bloom filters on 18 columns with IEEE 754 order
//    statistics, and encrypted (--footer-key; DuckDB 1.5 cannot read
//    multi-page encrypted chunks, so its truth is the plaintext twin); then
//    copied by DuckDB (COPY ... ROW_GROUP_SIZE 256; no page index); with
//    --head/--skip (counting matches) and --rows A:B (file rows first);
//  - "zeros": -0.0, +0.0 and NaN alone in their row groups, behind bloom
//    filters, dictionaries and IEEE 754 statistics;
//  - written by arrow-rs (parquet-wasm, small pages, page indexes);
//  - parquet-testing files (alltypes_plain, alltypes_tiny_pages,
//    data_index_bloom_encoding_stats) and uniform_encryption.parquet.encrypted
//    with KEYS.md's key, whose truth is DuckDB on a plaintext copy upq writes
//    from its own full reading (DuckDB cannot decrypt that file);
// then errors (a repeated leaf, a literal that does not fit, syntax) exit 1
// with a message naming the problem, and `--io-stats` shows that the page
// index prunes (fewer bytes than with --no-page-index and than a full scan).
// Lines `ok ...` / `FAIL ...` (with the command), then `N passed, N failed`.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { rowShape, parseJsonLine, firstDiff, show, fmtDate, fmtTime, fmtTimestamp, fmtDecimal, fmtUuid } from './canonical.mjs';
import { DuckOracle } from './oracle_duckdb.mjs';
import { upqOptions, runUpq, repoRoot, corpusDir, cmdline as cmdlineOf } from './upq_harness.mjs';

const require = createRequire(import.meta.url);
const corpus = corpusDir;
const opts = upqOptions(process.argv, {}, { work: path.join(repoRoot, 'build', 'check', 'where') });
const upq = (args) => runUpq(opts.upq, args);

const cmdline = (args) => cmdlineOf(opts.upq, args);

const KEY_ARGS = ['--footer-key', '0123456789abcdef0123456789abcdef'];
// parquet-testing's encrypted files: keys from its KEYS.md / README
const CORPUS_KEYS = ['--footer-key', Buffer.from('0123456789012345').toString('hex'),
  '--column-key', `double_field=${Buffer.from('1234567890123450').toString('hex')}`,
  '--column-key', `float_field=${Buffer.from('1234567890123451').toString('hex')}`];

// ---- the typed data ---------------------------------------------------------

const N = 1800;
const TYPED_SCHEMA = `message m {
  required int64 id;
  optional int32 i8 (INTEGER(8,true));
  optional int32 u8 (INTEGER(8,false));
  optional int32 i16 (INTEGER(16,true));
  optional int32 u16 (INTEGER(16,false));
  optional int32 i32;
  optional int32 u32 (INTEGER(32,false));
  optional int64 i64;
  optional int64 u64 (INTEGER(64,false));
  optional float f;
  optional double d;
  optional fixed_len_byte_array(2) h (FLOAT16);
  optional int32 dec32 (DECIMAL(9,2));
  optional int64 dec64 (DECIMAL(18,4));
  optional fixed_len_byte_array(13) decf (DECIMAL(30,3));
  optional int32 dt (DATE);
  optional int32 tm_ms (TIME(MILLIS,true));
  optional int64 tm_us (TIME(MICROS,false));
  optional int64 ts_ms (TIMESTAMP(MILLIS,true));
  optional int64 ts_us (TIMESTAMP(MICROS,false));
  optional int64 ts_ns (TIMESTAMP(NANOS,true));
  optional int64 ts_nl (TIMESTAMP(NANOS,false));
  optional int96 t96;
  optional binary s (STRING);
  optional binary b;
  optional fixed_len_byte_array(16) uid (UUID);
  optional fixed_len_byte_array(4) fx;
  optional boolean flag;
  optional group st {
    optional int32 a;
    optional binary b (STRING);
  }
  optional group lst (LIST) {
    repeated group list {
      optional int32 element;
    }
  }
  optional group mp (MAP) {
    repeated group key_value {
      required binary key (STRING);
      optional int32 value;
    }
  }
}
`;

// Deterministic pseudo-random 64-bit values (splitmix64).
function rng(seed) {
  let x = BigInt(seed) & 0xffffffffffffffffn;
  return () => {
    x = (x + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
    let z = x;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
    return z ^ (z >> 31n);
  };
}
const signed = (v, bits) => (v >= 1n << BigInt(bits - 1) ? v - (1n << BigInt(bits)) : v);
const bytesOf = (r, n) => Buffer.from(Array.from({ length: n }, () => Number(r() & 0xffn)));
const US = 1000000n;
const BASE_S = 1704067200n; // 2024-01-01T00:00:00Z
const PREFIX = 'sensor/building-7/floor-03/room-';
const UNI = 'é-ünïcode-ā€'; // two-byte and three-byte UTF-8

// One row as values (BigInt for integers) and its JSON line as upq write reads it.
function typedRow(k) {
  const r = rng(k * 7919 + 1);
  const nul = (m) => k % m === 0;
  const row = { id: BigInt(k) };
  row.i8 = nul(11) ? null : signed(r() % 256n, 8);
  row.u8 = nul(13) ? null : r() % 256n;
  row.i16 = nul(17) ? null : signed(r() % 65536n, 16);
  row.u16 = r() % 65536n;
  row.i32 = nul(19) ? null : signed(r() % (1n << 32n), 32);
  row.u32 = nul(23) ? null : r() % (1n << 32n);
  row.i64 = nul(29) ? null : signed(r(), 64);
  row.u64 = nul(31) ? null : r();
  const fs = ['NaN', '-0.0', '0.0', 'Infinity', '-Infinity', '1.5'];
  row.f = nul(37) ? null : k % 10 === 3 ? fs[(k / 10 | 0) % fs.length] : String(Number(r() % 2001n - 1000n) / 8);
  row.d = nul(41) ? null : k % 9 === 4 ? fs[(k / 9 | 0) % fs.length] : String(Number(r() % 200001n - 100000n) / 64);
  const hs = ['NaN', '-0.0', '0.0', '65504', '-65504'];
  row.h = nul(43) ? null : k % 8 === 5 ? hs[(k / 8 | 0) % hs.length] : String(Number(r() % 801n - 400n) / 4);
  row.dec32 = nul(47) ? null : fmtDecimal(signed(r() % (1n << 32n), 32) % 1000000000n, 2);
  row.dec64 = nul(53) ? null : fmtDecimal(signed(r(), 64) % 1000000000000000000n, 4);
  row.decf = nul(59) ? null : fmtDecimal((signed(r(), 64) * (r() % 10000000000000n)) % (10n ** 30n), 3);
  row.dt = 19723n + BigInt(k / 10 | 0); // sorted, 2024-01-01 on
  row.tm_ms = nul(61) ? null : r() % 86400000n;
  row.tm_us = r() % (86400n * US);
  row.ts_ms = (BASE_S + BigInt(k)) * 1000n; // sorted
  row.ts_us = BASE_S * US + BigInt(k) * 1000003n; // sorted
  // unsorted; whole microseconds (DuckDB reads UTC nanoseconds as microseconds)
  row.ts_ns = nul(67) ? null : (BASE_S * US + r() % (86400n * US * 30n)) * 1000n;
  row.ts_nl = BASE_S * US * 1000n + BigInt(k) * 1000000007n; // sorted
  row.t96 = nul(71) ? null : fmtTimestamp((BASE_S + BigInt(k)) * 1000000000n + (r() % 1000000n) * 1000n, 'NANOS', false);
  const sk = Number(r() % 400n);
  row.s = nul(73) ? null : k % 97 === 1 ? '' : k % 89 === 2 ? UNI : k % 83 === 3 ? 'sensor/b'
    : `${PREFIX}${String(sk).padStart(3, '0')}${sk % 3 === 0 ? '/temperature' : ''}`;
  row.b = nul(79) ? null : bytesOf(r, Number(r() % 5n)).toString('base64');
  row.uid = nul(83) ? null : fmtUuid(bytesOf(r, 16));
  row.fx = nul(89) ? null : bytesOf(r, 4).toString('base64');
  row.flag = k % 3 === 0 ? null : (r() & 1n) === 1n;
  row.st = k % 9 === 0 ? null : { a: k % 7 === 0 ? null : Number(r() % 100n), b: k % 5 === 0 ? null : `x${r() % 10n}` };
  row.lst = k % 6 === 0 ? null : Array.from({ length: k % 4 }, (_, j) => (j === 1 ? null : k * 10 + j));
  row.mp = k % 8 === 0 ? null : Array.from({ length: k % 3 }, (_, j) => ({ key: `k${j}`, value: j === 1 ? null : k + j }));
  return row;
}

const RAW = new Set(['f', 'd', 'h']); // written as JSON numbers (or NaN/Infinity strings)
function typedJson(row) {
  const parts = [];
  for (const [name, v] of Object.entries(row)) {
    let t;
    if (v === null) t = 'null';
    else if (typeof v === 'bigint') t = v.toString();
    else if (RAW.has(name)) t = /^-?\d/.test(v) ? v : JSON.stringify(v);
    else t = JSON.stringify(v);
    parts.push(`${JSON.stringify(name)}:${t}`);
  }
  return `{${parts.join(',')}}`;
}

// ---- queries ------------------------------------------------------------------

// Each query: the --where text, the SQL condition for DuckDB, and optional
// --columns. Literals of existing values come from the generated rows.
function typedQueries(rows) {
  const at = (k) => rows[k];
  const sq = (s) => `'${s.replaceAll("'", "''")}'`;
  const hex = (b64) => Buffer.from(b64, 'base64').toString('hex');
  const blob = (b64) => `from_hex('${hex(b64)}')`;
  const ts = (v, unit) => fmtTimestamp(v, unit, false).replace('T', ' ');
  const tsU = (v, unit) => `${ts(v, unit)}+00`;
  const x = [
    // sorted int64: points, ranges, ends, empty, everything
    ['id = 777', 'id = 777'],
    ['id >= 1790', 'id >= 1790'],
    ['id < 0', 'id < 0'],
    ['id >= 0', 'id >= 0'],
    ['id >= 600 and id < 664', 'id >= 600 AND id < 664'],
    ['id in (3, 599, 600, 1799, 99999)', 'id IN (3, 599, 600, 1799, 99999)'],
    ['id not in (1, 2, 3) and id < 10', 'id NOT IN (1, 2, 3) AND id < 10'],
    ['id > 1795 or id < 3', 'id > 1795 OR id < 3'],
    ['id >= 1700 AND i8 IS NOT NULL Or id == 0', 'id >= 1700 AND i8 IS NOT NULL OR id = 0'],
    // signed / unsigned integers of every width
    ['i8 < -100', 'i8 < -100'],
    ['i8 = 0', 'i8 = 0'],
    ['i8 is null', 'i8 IS NULL'],
    ['i8 >= 127 or i8 = -128', 'i8 >= 127 OR i8 = -128'],
    // literals outside the column's range or between its values, as SQL answers them
    ['i8 = 300', 'i8 = 300'],
    ['i8 < 200 and id < 40', 'i8 < 200 AND id < 40'],
    ['not i8 <> 300 or id < 3', 'NOT i8 <> 300 OR id < 3'],
    ['u8 = -1 or u8 > -1 and id < 20', 'u8 = -1 OR u8 > -1 AND id < 20'],
    ['i8 > 5.5 and i8 <= 7.0', 'i8 > 5.5 AND i8 <= 7.0'],
    ['i32 > 1e9', 'i32 > 1e9'],
    ['u8 > 200', 'u8 > 200'],
    ['u8 = 255 or u8 = 0', 'u8 = 255 OR u8 = 0'],
    ['i16 <= -30000', 'i16 <= -30000'],
    ['u16 >= 60000', 'u16 >= 60000'],
    ['i32 < -2000000000 or i32 > 2000000000', 'i32 < -2000000000 OR i32 > 2000000000'],
    ['u32 > 4000000000', 'u32 > 4000000000'],
    ['u32 < 100000000', 'u32 < 100000000'],
    ['i64 < -9000000000000000000', 'i64 < -9000000000000000000'],
    ['i64 != 0 and i64 > 9000000000000000000', 'i64 <> 0 AND i64 > 9000000000000000000'],
    ['u64 > 18000000000000000000', 'u64 > 18000000000000000000::UBIGINT'],
    ['u64 <= 500000000000000000', 'u64 <= 500000000000000000'],
    [`u64 = ${at(10).u64}`, `u64 = ${at(10).u64}::UBIGINT`],
    // floats: NaN greatest and equal to itself, -0 = +0, infinities
    ['f = nan', "f = 'NaN'::FLOAT"],
    ['f > 100', 'f > 100'],
    ['f = 0', 'f = 0'],
    ['f = -0.0', "f = '-0.0'::FLOAT"],
    ['f >= inf', "f >= 'inf'::FLOAT"],
    ['f < -inf', "f < '-inf'::FLOAT"],
    ['f <= -inf', "f <= '-inf'::FLOAT"],
    ['f != 1.5', 'f <> 1.5'],
    ['f in (1.5, -0.0, nan)', "f IN (1.5, '-0.0'::FLOAT, 'NaN'::FLOAT)"],
    ['d = nan', "d = 'NaN'::DOUBLE"],
    ['d < 0', 'd < 0'],
    ['d = -inf or d is null', "d = '-inf'::DOUBLE OR d IS NULL"],
    ['d > 1500.25', 'd > 1500.25'],
    ['not d < 1000', 'NOT d < 1000'],
    ['h > 50', 'h > 50'],
    ['h = 0', 'h = 0'],
    ['h = nan', "h = 'NaN'::FLOAT"],
    ['h <= -99.75', 'h <= -99.75'],
    ['h >= 65504', 'h >= 65504'],
    // decimals by value, on INT32, INT64 and FLBA
    ['dec32 > 9000000', 'dec32 > 9000000'],
    [`dec32 = "${at(42).dec32}"`, `dec32 = ${at(42).dec32}`],
    ['dec32 <= -9999999.5', 'dec32 <= -9999999.5'],
    ['dec64 < "-90000000000000.0000"', 'dec64 < -90000000000000.0000'],
    [`dec64 = ${at(100).dec64}`, `dec64 = ${at(100).dec64}`],
    [`decf > "${at(7).decf}"`, `decf > ${at(7).decf}`],
    [`decf = "${at(1000).decf}" or decf < 0`, `decf = ${at(1000).decf} OR decf < 0`],
    // dates, times, timestamps (ISO text and stored integers)
    ['dt = "2024-01-05"', "dt = DATE '2024-01-05'"],
    ['dt >= "2024-06-20"', "dt >= DATE '2024-06-20'"],
    ['dt < 19725', "dt < DATE '2024-01-03'"],
    ['tm_ms < "01:00:00.000"', "tm_ms < TIMETZ '01:00:00+00'"],
    ['tm_us >= "23:00:00.000000"', "tm_us >= TIME '23:00:00'"],
    ['ts_ms >= "2024-01-01T00:10:00.000Z" and ts_ms < "2024-01-01T00:10:05.000Z"',
      "ts_ms >= TIMESTAMPTZ '2024-01-01 00:10:00+00' AND ts_ms < TIMESTAMPTZ '2024-01-01 00:10:05+00'"],
    [`ts_us >= ${at(1234).ts_us}`, `ts_us >= TIMESTAMP '${ts(at(1234).ts_us, 'MICROS')}'`],
    [`ts_us > "${fmtTimestamp(at(50).ts_us, 'MICROS', false)}" and ts_us <= "${fmtTimestamp(at(55).ts_us, 'MICROS', false)}"`,
      `ts_us > TIMESTAMP '${ts(at(50).ts_us, 'MICROS')}' AND ts_us <= TIMESTAMP '${ts(at(55).ts_us, 'MICROS')}'`],
    // (literals with no more fraction digits than DuckDB's copy keeps: microseconds)
    ['ts_ns < "2024-01-03T00:00:00Z"', "ts_ns < TIMESTAMPTZ '2024-01-03 00:00:00+00'"],
    [`ts_ns = "${fmtTimestamp(at(5).ts_ns / 1000n, 'MICROS', true)}"`, `ts_ns = '${tsU(at(5).ts_ns, 'NANOS')}'::TIMESTAMPTZ`],
    ['ts_nl >= "2024-01-01T00:29:00.000000000"', "ts_nl >= TIMESTAMP_NS '2024-01-01 00:29:00'"],
    [`ts_nl = ${at(333).ts_nl}`, `ts_nl = TIMESTAMP_NS '${ts(at(333).ts_nl, 'NANOS')}'`],
    ['t96 >= "2024-01-01T00:29:00"', "t96 >= TIMESTAMP '2024-01-01 00:29:00'"],
    [`t96 = "${at(20).t96.slice(0, -3)}"`, `t96 = TIMESTAMP '${at(20).t96.replace('T', ' ')}'`],
    // strings sharing a long prefix, statistics cut to 8 bytes (inexact)
    [`s = "${at(5).s}"`, `s = ${sq(at(5).s)}`],
    [`s >= "${PREFIX}350"`, `s >= '${PREFIX}350'`],
    [`s < "${PREFIX}010"`, `s < '${PREFIX}010'`],
    ['s > "sensor/b"', "s > 'sensor/b'"],
    ['s = "sensor/b"', "s = 'sensor/b'"],
    ['s = "sensor/bu"', "s = 'sensor/bu'"],
    [`s in ("", "${UNI}")`, `s IN ('', '${UNI}')`],
    ['s > "z"', "s > 'z'"],
    ['s is null or s = ""', "s IS NULL OR s = ''"],
    [`s != "${at(5).s}" and s >= "${PREFIX}390"`, `s <> ${sq(at(5).s)} AND s >= '${PREFIX}390'`],
    // binary and FLBA compared byte-wise unsigned, UUID
    [`b = "${at(7).b}"`, `b = ${blob(at(7).b)}`],
    ['b >= "gA=="', "b >= from_hex('80')"],
    ['b = ""', "b = from_hex('')"],
    [`uid = "${at(3).uid}"`, `uid = '${at(3).uid}'::UUID`],
    ['uid > "c0000000-0000-0000-0000-000000000000"', "uid > 'c0000000-0000-0000-0000-000000000000'::UUID"],
    [`fx = "${at(12).fx}"`, `fx = ${blob(at(12).fx)}`],
    ['fx < "AAAAAA=="', "fx < from_hex('00000000')"],
    ['fx >= "8AAAAA=="', "fx >= from_hex('f0000000')"],
    // booleans and three-valued logic
    ['flag = true', 'flag = true'],
    ['flag != true', 'flag <> true'],
    ['not flag = true', 'NOT flag = true'],
    ['flag is null and id < 30', 'flag IS NULL AND id < 30'],
    ['(i8 > 0 and u8 < 100) or (d is null and not flag = true)', '(i8 > 0 AND u8 < 100) OR (d IS NULL AND NOT flag = true)'],
    ['not (i8 is null or i8 < 0)', 'NOT (i8 IS NULL OR i8 < 0)'],
    ['not (id < 1000) and s is not null and not (f = nan or d = nan)',
      "NOT (id < 1000) AND s IS NOT NULL AND NOT (f = 'NaN'::FLOAT OR d = 'NaN'::DOUBLE)"],
    ['i8 <> 5 or u8 <> 5', 'i8 <> 5 OR u8 <> 5'],
    ['i16 not in (0, 1) and i16 > 32000', 'i16 NOT IN (0, 1) AND i16 > 32000'],
    // nested columns in the projection, predicates on a struct's leaves
    ['st.a > 90', 'st.a > 90', ['id', 'st', 'lst', 'mp']],
    ['st.a is null', 'st.a IS NULL', ['id', 'st', 'lst', 'mp']],
    ['st.b in ("x1", "x2") and id >= 900', "st.b IN ('x1', 'x2') AND id >= 900", ['st', 'lst', 'mp']],
    ['not (st.a < 50) and st.b is not null', 'NOT (st.a < 50) AND st.b IS NOT NULL', ['lst', 'mp']],
    ['id >= 1200 and id < 1260', 'id >= 1200 AND id < 1260', ['lst', 'mp', 'st']],
    // projection without the predicate's column; empty result with one
    ['ts_ms >= "2024-01-01T00:25:00.000Z"', "ts_ms >= TIMESTAMPTZ '2024-01-01 00:25:00+00'", ['s', 'lst']],
    ['id > 5000', 'id > 5000', ['s', 'mp']],
    // JSON escapes in a literal, read as upq write reads them (docs/cli.md):
    // \u0000-\u00FF are that one byte, others UTF-8
    ['s = "\\u00c3\\u00a9-\\u00c3\\u00bcn\\u00c3\\u00afcode-\\u0101\\u20ac" or s = "\\u0073ensor/b"',
      `s = '${UNI}' OR s = 'sensor/b'`],
    ['s >= "\\u00c3"', "encode(s) >= from_hex('c3')"],
  ].map(([where, sql, cols]) => ({ where, sql, cols }));
  // --head / --skip count matching rows; --rows A:B restricts the file's
  // rows first (id is the row's position in every typed file)
  const lim = (where, sql, extra, post, cols) => ({ where, sql, cols, extra, post });
  x.push(
    lim('i8 > 0', 'i8 > 0', ['--head', '5'], (r) => r.slice(0, 5)),
    lim('i8 > 0', 'i8 > 0', ['--skip', '100', '--head', '7'], (r) => r.slice(100, 107)),
    lim('u8 < 50 and st.a > 10', 'u8 < 50 AND st.a > 10', ['--skip', '30'], (r) => r.slice(30), ['id', 'st', 'lst']),
    lim('i8 > 0', 'i8 > 0 AND id >= 550 AND id < 1250', ['--rows', '550:1250'], null),
    lim('s >= "sensor/building-7/floor-03/room-2"', "s >= 'sensor/building-7/floor-03/room-2' AND id >= 1199 AND id < 1201",
      ['--rows', '1199:1201'], null, ['id', 's', 'mp']),
    lim('d < 0', 'd < 0 AND id >= 1000', ['--rows', '1000:'], null),
    lim('d < 0', 'd < 0 AND id < 300', ['--rows', ':300'], null, ['d']),
    lim('id < 10', 'id < 10 AND id >= 20', ['--rows', '20:40'], null),
  );
  return x;
}

// Errors: each must exit 1 with a message matching `re`.
const TYPED_ERRORS = [
  { where: 'lst.list.element = 1', re: /repeat/i, what: 'a predicate on a list element' },
  { where: 'mp.key_value.key = "k0"', re: /repeat/i, what: 'a predicate on a map key' },
  { where: 'i8 = i16', re: /offset 5\b.*two columns/i, what: 'two columns compared' },
  { where: "i8 like '1%'", re: /offset 0\b.*LIKE/i, what: 'LIKE on an integer column' },
  { where: 'i8 between 1', re: /offset 12\b.*AND/i, what: 'BETWEEN without AND' },
  { where: "s = 'abc", re: /offset 4\b.*unterminated/i, what: 'an unterminated string' },
  { where: 'flag = 5.5', re: /offset 7\b/i, what: 'a fraction for a boolean' },
  { where: 'dt = "2024-13-45"', re: /offset \d+.*date/i, what: 'a bad date' },
  { where: 'id = "abc"', re: /offset \d+.*integer/i, what: 'a string for an int64' },
  { where: 'id >= ', re: /offset 6\b.*literal/i, what: 'a missing literal' },
  { where: 'id = 1 and', re: /offset \d+/i, what: 'a dangling and' },
  { where: '(id = 1', re: /offset \d+.*\)/i, what: 'an unclosed parenthesis' },
  { where: 'id = 1 id = 2', re: /offset 7\b/i, what: 'two predicates without and/or' },
  { where: 'nosuch = 1', re: /nosuch/, what: 'an unknown column' },
  { where: 'st = 1', re: /group|leaf/i, what: 'a group as a predicate column' },
  { where: 'i32 = nan', re: /offset 6\b/i, what: 'nan for an INT32' },
  { where: 'f = "abc"', re: /offset 4\b/i, what: 'a string for a FLOAT' },
  { where: 'uid = "not-a-uuid"', re: /offset 6\b/i, what: 'a bad UUID' },
];

// ---- files ----------------------------------------------------------------------

async function mustUpq(args, what) {
  const r = await upq(args);
  if (!r.ok) throw new Error(`${what}: ${cmdline(args)}: ${r.stderr.trim()}`);
  return r;
}

async function typedFiles(duck, dir) {
  const rows = Array.from({ length: N }, (_, k) => typedRow(k));
  const src = path.join(dir, 'typed.jsonl');
  const schema = path.join(dir, 'typed.schema');
  fs.writeFileSync(src, rows.map(typedJson).join('\n') + '\n');
  fs.writeFileSync(schema, TYPED_SCHEMA);
  const common = ['--page-levels', '50', '--row-group-rows', '600', '--stats-max-binary', '8'];
  const variants = [
    { name: 'upq-v1-index', args: [] },
    { name: 'upq-v1-noindex', args: ['--no-page-index'] },
    { name: 'upq-v2-plain', args: ['--data-page-v2', '--no-dictionary', '--codec', 'SNAPPY'] },
    // bloom filters answer the = and IN queries (0.0 and -0.0, NaN, decimals,
    // binary, a struct's leaf), IEEE 754 total order statistics
    { name: 'upq-bloom-ieee754', args: ['--column-order', 'ieee754', '--no-dictionary',
      ...['id', 'i8', 'u64', 'f', 'd', 'h', 'dec32', 'dec64', 'decf', 'dt', 'ts_ns', 'ts_nl', 't96', 's', 'b', 'uid', 'fx', 'st.b']
        .flatMap((c) => ['--bloom', `${c}:600`])] },
  ];
  const files = [];
  for (const v of variants) {
    const out = path.join(dir, `${v.name}.parquet`);
    await mustUpq(['write', '--schema', schema, ...common, ...v.args, src, out], `upq write ${v.name}`);
    // the same rows in every variant (DuckDB reads each of them in
    // rows_vs_duckdb and the write stages): DuckDB's answers come from the first
    files.push({ file: out, about: v.name, truth: files.length ? files[0].file : null });
  }
  const enc = path.join(dir, 'upq-v1-index-enc.parquet');
  await mustUpq(['write', '--schema', schema, ...common, ...KEY_ARGS, src, enc], 'upq write encrypted');
  files.push({ file: enc, about: 'upq-v1-index encrypted (truth: its plaintext twin)', keys: KEY_ARGS, truth: files[0].file });
  const dk = path.join(dir, 'duckdb-copy.parquet');
  await duck.con.run(`COPY (SELECT * FROM read_parquet('${files[0].file}', binary_as_string = false))
    TO '${dk}' (FORMAT parquet, ROW_GROUP_SIZE 256)`);
  files.push({ file: dk, about: 'DuckDB copy (ROW_GROUP_SIZE 256: three row groups of 600 rows)' });
  return { files, queries: typedQueries(rows), errors: TYPED_ERRORS, rows };
}

// Zeros and NaN alone in their row groups: a bloom filter or dictionary
// holds -0.0 where the literal is 0.0 (different bits, equal values), and NaN
// where min/max leave it out; pruning must keep those row groups.
async function zerosFiles(dir) {
  const schema = path.join(dir, 'zeros.schema');
  const src = path.join(dir, 'zeros.jsonl');
  fs.writeFileSync(schema, 'message z {\n  required int64 id;\n  optional float f;\n  optional double d;\n' +
    '  optional fixed_len_byte_array(2) h (FLOAT16);\n}\n');
  const groups = [['-0.0', '0.0', '-0.0'], ['1.5', '"NaN"', '1.5'], ['"NaN"', '-0.0', '"NaN"'], ['0.0', '2.5', '0.0'],
    ['null', '"-Infinity"', 'null'], ['-2.5', '"Infinity"', '-2.5']];
  const lines = [];
  groups.forEach(([f, d, h], g) => { for (let j = 0; j < 4; j++) lines.push(`{"id":${g * 4 + j},"f":${f},"d":${d},"h":${h}}`); });
  fs.writeFileSync(src, lines.join('\n') + '\n');
  const bloom = ['--bloom', 'f:16', '--bloom', 'd:16', '--bloom', 'h:16'];
  const files = [];
  for (const [name, args] of [['zeros-dict-bloom', bloom], ['zeros-plain-bloom', ['--no-dictionary', ...bloom]],
    ['zeros-ieee754-bloom', ['--column-order', 'ieee754', ...bloom]], ['zeros-v2', ['--data-page-v2']]]) {
    const out = path.join(dir, `${name}.parquet`);
    await mustUpq(['write', '--schema', schema, '--row-group-rows', '4', ...args, src, out], `upq write ${name}`);
    files.push({ file: out, about: name });
  }
  const queries = [
    ['f = 0', 'f = 0'], ['f = -0.0', "f = '-0.0'::FLOAT"], ['d = 0', 'd = 0'], ['d = -0.0', "d = '-0.0'::DOUBLE"],
    ['h = 0', 'h = 0'], ['h = -0.0', "h = '-0.0'::FLOAT"], ['f in (0, 7)', 'f IN (0, 7)'],
    ['f = nan', "f = 'NaN'::FLOAT"], ['d = nan', "d = 'NaN'::DOUBLE"], ['h = nan', "h = 'NaN'::FLOAT"],
    ['f > 1', 'f > 1'], ['d >= 2.5', 'd >= 2.5'], ['h > 1', 'h > 1'],
    ['f != 0', 'f <> 0'], ['f >= 0', 'f >= 0'], ['f < 0', 'f < 0'], ['d <= -0.0', "d <= '-0.0'::DOUBLE"],
    ['f > -0.0', "f > '-0.0'::FLOAT"], ['d < inf', "d < 'inf'::DOUBLE"], ['d > -inf and d < nan', "d > '-inf'::DOUBLE AND d < 'NaN'::DOUBLE"],
    ['not f = 0', 'NOT f = 0'], ['f is null or h = 1.5', 'f IS NULL OR h = 1.5'],
  ].map(([where, sql]) => ({ where, sql }));
  return { files, queries, errors: [] };
}

async function arrowFile(dir) {
  const { tableFromArrays, vectorFromArray, makeTable, tableToIPC, List, Field, Int32, Utf8, Float64,
    TimestampMicrosecond, Struct } = await import('apache-arrow');
  const pw = require('parquet-wasm/node');
  const n = 6000;
  const id = new BigInt64Array(n), u = new Uint16Array(n), i = new Array(n), d = new Array(n), s = new Array(n),
    ts = new Array(n), l = new Array(n), st = new Array(n), mc = new Array(n);
  for (let k = 0; k < n; k++) {
    const r = rng(k + 99);
    id[k] = BigInt(k);
    u[k] = Number(r() % 65536n);
    i[k] = k % 7 === 0 ? null : Number(signed(r() % 1000n, 16)) - 500;
    d[k] = k % 11 === 0 ? null : k % 13 === 0 ? NaN : k % 17 === 0 ? -0 : Number(r() % 10001n) / 16 - 300;
    s[k] = k % 5 === 0 ? null : `${PREFIX}${String(Number(r() % 500n)).padStart(3, '0')}`;
    ts[k] = 1704067200000 + k * 1000; // arrow JS takes milliseconds; sorted
    l[k] = k % 4 === 0 ? null : Array.from({ length: k % 3 }, (_, j) => (j === 1 ? null : k + j));
    st[k] = k % 6 === 0 ? null : { a: k % 9 === 0 ? null : k % 50, b: `y${k % 4}` };
    mc[k] = k % 10 === 0 ? null : k % 100;
  }
  const t0 = tableFromArrays({ id, u });
  const col = (vals, type) => vectorFromArray(vals, type).data[0];
  const t = makeTable({
    id: t0.getChild('id').data[0], u: t0.getChild('u').data[0], i: col(i, new Int32()), d: col(d, new Float64()),
    s: col(s, new Utf8()), ts: col(ts, new TimestampMicrosecond()),
    l: col(l, new List(new Field('item', new Int32(), true))),
    st: col(st, new Struct([new Field('a', new Int32(), true), new Field('b', new Utf8(), true)])),
    'my col': col(mc, new Int32()),
  });
  const props = new pw.WriterPropertiesBuilder().setDataPageSizeLimit(512).setWriteBatchSize(64)
    .setMaxRowGroupSize(2500).build();
  const out = path.join(dir, 'arrow-rs.parquet');
  fs.writeFileSync(out, Buffer.from(pw.writeParquet(pw.Table.fromIPCStream(tableToIPC(t, 'stream')), props)));
  const queries = [
    ['id >= 3000 and id < 3010', 'id >= 3000 AND id < 3010'],
    ['id in (0, 2499, 2500, 5999)', 'id IN (0, 2499, 2500, 5999)'],
    ['u > 65000', 'u > 65000'],
    ['i is null and id < 100', 'i IS NULL AND id < 100'],
    ['i < -490 or i > 495', 'i < -490 OR i > 495'],
    ['d = nan', "d = 'NaN'::DOUBLE"],
    ['d = 0', 'd = 0'],
    ['d > 300', 'd > 300'],
    [`s >= "${PREFIX}495"`, `s >= '${PREFIX}495'`],
    ['ts >= "2024-01-01T01:00:00.000000" and ts < "2024-01-01T01:00:03.000000"',
      "ts >= TIMESTAMP '2024-01-01 01:00:00' AND ts < TIMESTAMP '2024-01-01 01:00:03'"],
    ['st.a = 7', 'st.a = 7', ['id', 'l', 'st']],
    ['st.b = "y3" and id > 5900', "st.b = 'y3' AND id > 5900", ['l']],
    ['id < 0', 'id < 0'],
    ['`my col` >= 98 and id < 1000', '"my col" >= 98 AND id < 1000'],
  ].map(([where, sql, cols]) => ({ where, sql, cols }));
  return { files: [{ file: out, about: 'arrow-rs (parquet-wasm, 512-byte pages, page index)' }], queries,
    errors: [{ where: 'l.list.item = 1', re: /repeat/i, what: 'a predicate on a list element' }] };
}

function corpusSets() {
  const d = path.join(corpus, 'data');
  const f = (name) => path.join(d, name);
  return [
    { files: [{ file: f('alltypes_plain.parquet'), about: 'corpus alltypes_plain.parquet' }],
      queries: [
        ['bool_col = true and id > 3', 'bool_col = true AND id > 3'],
        ['string_col = "MQ=="', "string_col = from_hex('31')"],
        ['timestamp_col >= "2009-03-01T00:00:00.000000000"', "timestamp_col >= TIMESTAMP '2009-03-01 00:00:00'"],
        ['float_col > 0 or double_col = 0', 'float_col > 0 OR double_col = 0'],
        ['tinyint_col in (0, 1) and bigint_col != 0', 'tinyint_col IN (0, 1) AND bigint_col <> 0'],
      ].map(([where, sql]) => ({ where, sql })), errors: [] },
    { files: [{ file: f('alltypes_tiny_pages.parquet'), about: 'corpus alltypes_tiny_pages.parquet' }],
      queries: [
        ['id >= 5000 and id < 5010', 'id >= 5000 AND id < 5010'],
        ['tinyint_col = 3 and month = 7', 'tinyint_col = 3 AND month = 7'],
        ['string_col = "5" and year = 2010 and month = 12', "string_col = '5' AND year = 2010 AND month = 12"],
        ['timestamp_col < "2009-01-02T00:00:00.000000000"', "timestamp_col < TIMESTAMP '2009-01-02 00:00:00'"],
        ['float_col > 8.5 and id < 400', 'float_col > 8.5 AND id < 400'],
        ['date_string_col = "01/01/09"', "date_string_col = '01/01/09'"],
        ['id > 7299', 'id > 7299'],
      ].map(([where, sql]) => ({ where, sql })), errors: [] },
    { files: [{ file: f('data_index_bloom_encoding_stats.parquet'), about: 'corpus data_index_bloom_encoding_stats.parquet' }],
      queries: [
        ['String = "Hello"', `"String" = 'Hello'`],
        ['String >= "m"', `"String" >= 'm'`],
        ['String in ("a", "zz")', `"String" IN ('a', 'zz')`],
        ['String is null', '"String" IS NULL'],
      ].map(([where, sql]) => ({ where, sql })), errors: [] },
  ];
}

// parquet-testing's uniformly encrypted file: DuckDB cannot decrypt it, so its
// truth is a plaintext copy upq writes from its own full reading (checked
// against the file's known values by test_crypto_read).
// (DuckDB keeps INT96 in microseconds: that column is left out of the rows
// compared, not of the predicates)
const NO_INT96 = ['boolean_field', 'int32_field', 'int64_field', 'float_field', 'double_field', 'ba_field', 'flba_field'];
async function encryptedCorpus(dir) {
  const src = path.join(corpus, 'data', 'uniform_encryption.parquet.encrypted');
  const keys = ['--footer-key', Buffer.from('0123456789012345').toString('hex')];
  const schema = path.join(dir, 'uniform.schema');
  const jsonl = path.join(dir, 'uniform.jsonl');
  const twin = path.join(dir, 'uniform-plain.parquet');
  fs.writeFileSync(schema, (await mustUpq(['schema', ...keys, src], 'upq schema')).stdout);
  fs.writeFileSync(jsonl, (await mustUpq(['cat', '--json', ...keys, src], 'upq cat')).stdout);
  await mustUpq(['write', '--schema', schema, jsonl, twin], 'upq write (plaintext twin)');
  return {
    files: [{ file: src, about: 'corpus uniform_encryption.parquet.encrypted (truth: plaintext copy)', keys, truth: twin }],
    queries: [
      ['double_field > 20', 'double_field > 20'],
      ['boolean_field = true and float_field < 20', 'boolean_field = true AND float_field < 20'],
      ['int32_field >= "00:00:00.030"', "int32_field >= TIMETZ '00:00:00.030+00'"],
      ['ba_field is null or flba_field = "AAAAAAAAAAAAAA=="', "ba_field IS NULL OR flba_field = from_hex('00000000000000000000')"],
      ['int96_field < "1970-01-01T00:00:00.000000000"', "int96_field < TIMESTAMP '1970-01-01 00:00:00'"],
    ].map(([where, sql]) => ({ where, sql, cols: NO_INT96 })),
    errors: [{ where: 'int64_field = 1', re: /repeat/i, what: 'a predicate on a repeated primitive' }],
  };
}

// ---- checking -----------------------------------------------------------------

const pick = (m, names) => (names ? new Map([...m].filter(([k]) => names.includes(k))) : m);

// DuckDB's answers, one query at a time, each asked once per truth file.
const answers = new Map();
let duckTurn = Promise.resolve();
function expected(duck, f, shape, q) {
  const truth = f.truth || f.file;
  const key = `${truth}\0${q.sql}\0${q.cols}`;
  if (!answers.has(key)) {
    const p = duckTurn.then(async () => {
      const rows = [];
      for await (const batch of duck.rows(truth, shape, null, q.sql)) rows.push(...batch);
      return rows.map((r) => pick(r, q.cols));
    });
    duckTurn = p.catch(() => {});
    answers.set(key, p);
  }
  return answers.get(key);
}

// A few upq processes at once beside DuckDB (one connection, one query at a time).
const MAX_UPQ = 3;
let running = 0;
const waiting = [];
async function upqPooled(args) {
  while (running >= MAX_UPQ) await new Promise((res) => waiting.push(res));
  running++;
  try {
    return await upq(args);
  } finally {
    running--;
    if (waiting.length) waiting.shift()();
  }
}

const whereArgs = (f, q) => ['cat', '--json', ...(f.keys || []), '--where', q.where,
  ...(q.cols ? ['--columns', q.cols.join(',')] : []), ...(q.extra || []), f.file];

async function checkQuery(duck, f, shape, q) {
  const pending = upqPooled(whereArgs(f, q));
  let exp;
  try {
    exp = await expected(duck, f, shape, q);
    if (q.post) exp = q.post(exp);
  } catch (e) {
    await pending;
    throw e;
  }
  const r = await pending;
  q.matched = exp.length;
  if (!r.ok) return `exit ${r.code}: ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`;
  const lines = r.stdout.split('\n').filter((x) => x);
  for (let k = 0; k < Math.min(lines.length, exp.length); k++) {
    const d = firstDiff(exp[k], parseJsonLine(lines[k]));
    if (d) return `row ${k} of ${exp.length} column ${d.path}: upq=${show(d.upq)} DuckDB=${show(d.oracle)}`;
  }
  if (lines.length !== exp.length) {
    const more = lines.length > exp.length ? `first extra: ${lines[exp.length].slice(0, 160)}`
      : `first missing: ${show(exp[lines.length])}`;
    return `upq printed ${lines.length} rows, DuckDB ${exp.length} (${more})`;
  }
  return null;
}

async function checkError(f, e) {
  const args = ['cat', '--json', ...(f.keys || []), '--where', e.where, f.file];
  const r = await upqPooled(args);
  if (r.code !== 1) return { args, why: `exit ${r.code}, expected 1 (stdout ${r.stdout.length} bytes)` };
  if (!e.re.test(r.stderr)) return { args, why: `stderr does not name it (${e.re}): ${r.stderr.trim().slice(0, 200)}` };
  if (r.stdout.length) return { args, why: `printed rows on stdout before failing` };
  return null;
}

const ioOf = (stderr) => {
  const m = /io: (\d+) reads, (\d+) bytes/.exec(stderr);
  return m ? { reads: Number(m[1]), bytes: Number(m[2]) } : null;
};

// The page index prunes: a narrow range of a sorted column reads fewer bytes
// with it than without it (--no-page-index), and statistics alone read fewer
// than a full scan. The file has no dictionaries (a dictionary page is read
// whatever the page index says) and three row groups of 12 pages a column.
async function checkPruning(dir, result) {
  const file = path.join(dir, 'prune.parquet');
  await mustUpq(['write', '--schema', path.join(dir, 'typed.schema'), '--page-levels', '50', '--row-group-rows', '600',
    '--no-dictionary', path.join(dir, 'typed.jsonl'), file], 'upq write (pruning file)');
  const cases = [
    { where: 'id >= 700 and id < 705', cols: 'id,s,d' },
    { where: `ts_us >= ${BASE_S * US + 1500n * 1000003n} and ts_us < ${BASE_S * US + 1510n * 1000003n}`, cols: 'id,ts_us,u64,s' },
    { where: 'dt = "2024-02-15"', cols: 'dt,i64,b' },
  ];
  for (const c of cases) {
    const base = ['cat', '--json', '--io-stats', '--columns', c.cols];
    const withIdx = [...base, '--where', c.where, file];
    const noIdx = [...base, '--no-page-index', '--where', c.where, file];
    const full = [...base, file];
    const a = await upq(withIdx), b = await upq(noIdx), s = await upq(full);
    const ia = ioOf(a.stderr), ib = ioOf(b.stderr), is = ioOf(s.stderr);
    let why = null;
    if (!a.ok || !b.ok || !s.ok || !ia || !ib || !is) why = `failed or no io line: ${(a.stderr + b.stderr + s.stderr).trim().slice(0, 300)}`;
    else if (a.stdout !== b.stdout) why = 'rows differ with and without the page index';
    else if (!(ia.bytes < ib.bytes)) why = `page index: ${ia.bytes} bytes, not fewer than without it (${ib.bytes})`;
    else if (!(ib.bytes < is.bytes)) why = `statistics: ${ib.bytes} bytes, not fewer than a full scan (${is.bytes})`;
    result(!why, `pruning ${c.where} [${c.cols}]: ${ia ? `${ia.reads} reads ${ia.bytes} B with the page index, ` +
      `${ib.reads}/${ib.bytes} without, ${is.reads}/${is.bytes} full scan` : ''}`, why ? `${why}\n    ${cmdline(withIdx)}` : null);
  }
}

async function main() {
  if (!fs.existsSync(opts.upq)) {
    if (opts.skipWithoutUpq) { console.log(`# ${opts.upq} not built: skipped`); return 77; }
    console.error(`where_vs_duckdb: no ${opts.upq}`);
    return 2;
  }
  if (opts.skipWithoutUpq && !/--where/.test((await upq(['help'])).stdout)) {
    console.log(`# ${opts.upq} has no cat --where: skipped`);
    return 77;
  }
  fs.mkdirSync(opts.work, { recursive: true });
  const duck = await DuckOracle.open();
  // The truth must not depend on any file's statistics: DuckDB 1.5 pushes
  // `d = 'NaN'` down to arrow-rs's min/max (which leave NaN out, as the
  // format says) and drops every NaN row. Filters run on the decoded rows.
  await duck.con.run("SET disabled_optimizers = 'filter_pushdown,statistics_propagation'");
  let pass = 0, fail = 0;
  const result = (ok, what, why) => {
    if (ok) { pass++; console.log(`ok ${what}`); } else { fail++; console.log(`FAIL ${what}: ${why}`); }
  };
  const sets = [];
  for (const [what, make] of [['typed files', () => typedFiles(duck, opts.work)], ['zeros files', () => zerosFiles(opts.work)],
    ['arrow-rs file', () => arrowFile(opts.work)],
    ['corpus', async () => corpusSets()], ['encrypted corpus file', () => encryptedCorpus(opts.work)]]) {
    try {
      const got = await make();
      sets.push(...(Array.isArray(got) ? got : [got]));
    } catch (e) {
      result(false, what, e.message);
    }
  }
  for (const set of sets) {
    for (const f of set.files) {
      let shape;
      try {
        const meta = await mustUpq(['meta', '--json', ...(f.keys || []), f.file], 'upq meta');
        shape = rowShape(JSON.parse(meta.stdout).schema);
      } catch (e) {
        result(false, f.about, e.message);
        continue;
      }
      let ok = 0, total = 0;
      const outcomes = set.queries.map((q) => checkQuery(duck, f, shape, q).catch(
        (e) => `DuckDB or oracle error: ${e.message}`));
      const errs = set.errors.map((e) => checkError(f, e));
      for (const [k, q] of set.queries.entries()) {
        total++;
        const why = await outcomes[k];
        if (why) result(false, `${f.about}: --where ${q.where}`, `${why}\n    ${cmdline(whereArgs(f, q))}`);
        else ok++;
      }
      for (const [k, e] of set.errors.entries()) {
        total++;
        const bad = await errs[k];
        if (bad) result(false, `${f.about}: ${e.what} (--where ${e.where})`, `${bad.why}\n    ${cmdline(bad.args)}`);
        else ok++;
      }
      // one count per query and file, so the summary says how many held
      pass += ok;
      const empty = set.queries.filter((q) => q.matched === 0).length;
      console.log(`${ok === total ? 'ok' : '# partly'} ${f.about}: ${ok}/${total} queries and errors as expected ` +
        `(${empty} queries match no row)`);
      if (process.env.WHERE_VERBOSE) set.queries.forEach((q) => console.log(`#   ${q.matched} rows: ${q.where}`));
    }
  }
  try {
    await checkPruning(opts.work, result);
  } catch (e) {
    result(false, 'pruning', e.message);
  }
  duck.close();
  console.log(`${pass} passed, ${fail} failed`);
  return fail ? 1 : 0;
}

main().then((rc) => process.exit(rc), (e) => { console.error(e); process.exit(2); });
