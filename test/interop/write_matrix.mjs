#!/usr/bin/env node
// The writer's interop matrix: `upq write` over generated data in every
// physical type x applicable encoding x codec x page version x nesting, and
// the edge cases, read back by upq, DuckDB and arrow-rs.
//
//   node test/interop/write_matrix.mjs [--upq PATH] [--skip-without-upq]
//        [--work DIR] [--only REGEX] [--keep] [--list]
//
// For each generated case: a schema (message syntax) and JSON lines in the
// exact form `upq cat --json` prints, made from a deterministic
// pseudo-random generator; `upq write --schema S IN.jsonl OUT.parquet` with
// the case's options; then
//   1. `upq cat --json OUT` must equal IN byte for byte;
//   2. DuckDB must read the same values (canonical form, canonical.mjs);
//      columns DuckDB cannot read are read by arrow-rs instead when they
//      match an entry of DUCKDB_EXCEPTIONS (else the case fails);
//   3. arrow-rs (parquet-wasm) must read the same values, except for the
//      columns listed in ARROW_EXCEPTIONS;
//   4. the footer (`upq meta --json`): row count, row groups, codec, the
//      encodings asked for (encoding_stats of the data pages); each chunk's
//      pages walked from its start: page version, encodings, value and row
//      counts, CRC-32 of every page (absent with --no-crc), the page
//      header's statistics;
//   5. statistics: each column chunk's null_count, min_value and max_value
//      against values computed here from the generated rows (in the
//      column's sort order, NaN left out, -0/+0 as the format asks; binary
//      bounds longer than 64 bytes may be truncated when marked inexact),
//      and DuckDB's reading of the same statistics (parquet_metadata);
//   6. the page index: the OffsetIndex and ColumnIndex at the offsets the
//      footer gives, decoded here (Thrift compact): page locations against
//      the pages walked, first_row_index, and per page null_pages /
//      null_counts / min / max against the rows of that page, boundary_order
//      against the pages' bounds. DuckDB's parquet_metadata (1.5) does not
//      show the index offsets, so they are checked only here.
// Prints `ok NAME (...)` or `FAIL NAME: reason` per case, then
// `N passed, N failed`. --only keeps the cases whose name matches REGEX;
// --keep leaves the files in the work directory; --list prints the cases.
//
// The matrix is not the full product: every (type, encoding) pair gets four
// files, one per codec, the page version alternating so that each type and
// each codec sees both; every file has the type under test required,
// optional with nulls, inside a LIST, as a MAP value and inside a struct, so
// every nesting meets every encoding, codec and page version (the run
// checks these pairs and prints the counts). Then: dictionary fallback,
// 64-byte pages, one row per row group, row groups cut by size, no rows,
// empty and longest strings, integer extremes, NaN/+-0/+-Inf/denormals,
// every logical type in one file, BSON, deeper nesting (lists of lists,
// lists of structs, maps of lists, long lists, row groups ended by full
// chunk buffers), and the switches --no-crc, --no-statistics,
// --no-page-index, --checkpoint, --dictionary, --no-dictionary.
//
// Checkpoint mode (--checkpoint, --checkpoint-rows, --append; the checks are
// in checkpoint_check.mjs): besides all of the above, hyparquet reads the
// file too (DuckDB, arrow-rs and hyparquet each read every row), every row
// group holds at most --row-group-rows rows (a row group may end earlier,
// when a column's reserved region is full), options checkpoint mode does
// not use are named on stderr; with --checkpoint-rows, copies cut at byte
// offsets and finished by `upq recover` read back, in all three readers, as
// a prefix of the rows ending at a checkpoint; the --append cases write
// half the rows, cut a copy, append the other half and read back the rows
// recovery kept followed by the appended ones.

import { execFile } from 'node:child_process';
import zlib from 'node:zlib';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import {
  rowShape, parseJsonLine, firstDiff, show, fmtDate, fmtTime, fmtTimestamp, fmtDecimal, fmtUuid,
  beSigned, roundHalf,
} from './canonical.mjs';
import {
  CheckFailure, readersAgree, rowGroupsWithin, cutRecover, appendAfterCut, recoverTwiceLine,
} from './checkpoint_check.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');

// ---- what is not compared, and why ----------------------------------------------------
//
// A column one reader cannot read is compared through the other one only
// when a rule here matches it (physical type, annotation kind, encoding);
// anything else it cannot read fails the case.

const DUCKDB_EXCEPTIONS = [
  { phys: ['INT32', 'INT64', 'FIXED_LEN_BYTE_ARRAY'], enc: 'BYTE_STREAM_SPLIT',
    why: 'DuckDB: "BYTE_STREAM_SPLIT encoding is only supported for FLOAT or DOUBLE data"' },
  { kind: ['bdec'], enc: 'DELTA_LENGTH_BYTE_ARRAY',
    why: 'DuckDB: "Delta Length Byte Array encoding is only supported for string/blob data" (DECIMAL on BYTE_ARRAY)' },
  { kind: ['bson'],
    why: 'DuckDB: "Unsupported converted type (20)": it cannot read BSON columns (nor the file\'s statistics)' },
  { kind: ['tns', 'tsns'], skip: true,
    why: 'DuckDB reads TIME(NANOS,true) and TIMESTAMP(NANOS,true) as TIME WITH TIME ZONE / TIMESTAMP WITH ' +
         'TIME ZONE, which keep microseconds: values and statistics are compared through arrow-rs and here only' },
];
// DuckDB shows a FLOAT/DOUBLE chunk's min or max that is infinite as NULL
// (stats_min_value / stats_max_value): that bound is not compared with it.
const DUCKDB_NO_INFINITE_STATS = 'DuckDB shows no FLOAT/DOUBLE statistics bound that is infinite';
const ARROW_EXCEPTIONS = [
  { kind: ['interval'],
    why: 'arrow-rs reads INTERVAL as Interval<DAY_TIME>, without the months: compared through DuckDB' },
];
// Columns neither reader reads: only upq's reading (and the statistics and
// page index checks) cover them.
const NEITHER = [
  { kind: ['interval'], enc: 'BYTE_STREAM_SPLIT',
    why: 'INTERVAL in BYTE_STREAM_SPLIT: DuckDB has no BYTE_STREAM_SPLIT for FIXED_LEN_BYTE_ARRAY, arrow-rs drops the months' },
];

// ---- options ----------------------------------------------------------------------------

const opts = { upq: path.join(repoRoot, 'build', 'host', 'upq'), skipWithoutUpq: false,
               work: path.join(repoRoot, 'build', 'check', 'write-matrix'), only: null, keep: false,
               list: false };
// write_random.mjs imports the kinds from here: run only when started directly
const isMain = !!process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--upq') opts.upq = argv[++i];
    else if (a === '--skip-without-upq') opts.skipWithoutUpq = true;
    else if (a === '--work') opts.work = argv[++i];
    else if (a === '--only') opts.only = new RegExp(argv[++i]);
    else if (a === '--keep') opts.keep = true;
    else if (a === '--list') opts.list = true;
    else { console.error(`write_matrix: unknown option ${a}`); process.exit(2); }
  }
}

// ---- randomness -----------------------------------------------------------------------------

function hashString(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  return h >>> 0;
}

export class Rng {
  constructor(seed) { this.s = (seed >>> 0) || 1; }
  u32() { // mulberry32
    let t = (this.s = (this.s + 0x6D2B79F5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  below(n) { return Math.floor((this.u32() / 4294967296) * n); }
  chance(p) { return this.u32() / 4294967296 < p; }
  pick(a) { return a[this.below(a.length)]; }
  bits(n) { // a random unsigned BigInt of n bits
    let v = 0n;
    for (let k = 0; k < n; k += 32) v = (v << 32n) | BigInt(this.u32());
    return v & ((1n << BigInt(n)) - 1n);
  }
  range(lo, hi) { // BigInt in [lo, hi]
    const span = hi - lo + 1n;
    let bits = 1;
    while ((1n << BigInt(bits)) < span) bits++;
    for (;;) { const v = this.bits(bits); if (v < span) return lo + v; }
  }
  // an integer of random magnitude: small numbers are as likely as large ones
  scaled(lo, hi) {
    const w = 1 + this.below(64);
    const v = this.range(-(1n << BigInt(w)), (1n << BigInt(w)));
    return v < lo ? lo : v > hi ? hi : v;
  }
  bytes(n) { const b = Buffer.alloc(n); for (let i = 0; i < n; i++) b[i] = this.u32() & 255; return b; }
}

// ---- number formatting as `upq cat --json` prints it (C's %.{p}g, shortest) -------------------

// The exact decimal value of a finite, nonzero double: digits x 10^point.
function exactDecimal(v) {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(v);
  const hi = b.readUInt32BE(0), lo = b.readUInt32BE(4);
  const ebits = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo), e;
  if (ebits === 0) e = -1074;
  else { m |= 1n << 52n; e = ebits - 1075; }
  if (e >= 0) return { digits: (m << BigInt(e)).toString(), point: 0 };
  return { digits: (m * 5n ** BigInt(-e)).toString(), point: e };
}

// C's %.{p}g (glibc: exact value, rounded half to even).
function cG(v, p) {
  const neg = v < 0 || Object.is(v, -0);
  const { digits, point } = exactDecimal(Math.abs(v));
  let X = digits.length - 1 + point;
  let d;
  if (digits.length <= p) d = digits.padEnd(p, '0');
  else {
    let head = BigInt(digits.slice(0, p));
    const rest = digits.slice(p);
    const first = rest.charCodeAt(0) - 48;
    if (first > 5 || (first === 5 && (/[1-9]/.test(rest.slice(1)) || (head & 1n)))) head += 1n;
    d = head.toString();
    if (d.length > p) { d = d.slice(0, p); X += 1; }
  }
  let out;
  if (X < -4 || X >= p) {
    let mant = d[0];
    const frac = d.slice(1).replace(/0+$/, '');
    if (frac) mant += `.${frac}`;
    const ax = Math.abs(X);
    out = `${mant}e${X < 0 ? '-' : '+'}${ax < 10 ? `0${ax}` : ax}`;
  } else if (X >= 0) {
    const frac = d.slice(X + 1).replace(/0+$/, '');
    out = d.slice(0, X + 1) + (frac ? `.${frac}` : '');
  } else {
    const frac = ('0'.repeat(-X - 1) + d).replace(/0+$/, '');
    out = `0.${frac}`;
  }
  return neg ? `-${out}` : out;
}

function putShortest(text, v, p) {
  const m = /e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const x = parseInt(m[1], 10);
  if (x < p || x >= 16) return text;
  return cG(v, x + 1);
}

function shortest(v, maxP, same) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  let p, s;
  for (p = 1; p <= maxP; p++) {
    s = cG(v, p);
    if (same(Number(s))) break;
  }
  if (p > maxP) p = maxP;
  return putShortest(s, v, p);
}

const fmtF64 = (v) => shortest(v, 17, (x) => x === v);
const fmtF32 = (v) => shortest(v, 9, (x) => Math.fround(x) === v);

function halfToNumber(h) {
  const e = (h >> 10) & 31, m = h & 1023, s = h & 0x8000 ? -1 : 1;
  if (e === 31) return m ? NaN : s * Infinity;
  if (e === 0) return s * m * 2 ** -24;
  return s * (m + 1024) * 2 ** (e - 25);
}
const fmtF16 = (h) => {
  const v = halfToNumber(h);
  return shortest(v, 9, (x) => Object.is(roundHalf(x), v));
};
const jsonNum = (t) => (/^-?\d/.test(t) ? t : `"${t}"`);

// JSON strings as upq prints them: '"' and '\' escaped, controls as \u00xx,
// everything else (well-formed UTF-8) as is.
export function jsonStr(s) {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c < 0x20) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

// ---- column kinds -------------------------------------------------------------------------------
//
// A kind is a physical type with an annotation: how to make values, print
// them as upq does, and order them for statistics. Values ("raw") are BigInt
// (stored integers), Number (floats; FLOAT16 as its 16 bits), Buffer (binary),
// boolean, or {jday, nanos} (INT96). key() maps a raw value into its sort
// order: ['i', BigInt] signed, ['u', BigInt] unsigned, ['f', Number],
// ['b', Buffer] unsigned bytes, ['z', boolean]; order null: none (INT96,
// INTERVAL), and then no min/max may be written.

const I32 = [-(2n ** 31n), 2n ** 31n - 1n], I64 = [-(2n ** 63n), 2n ** 63n - 1n];
const wrap = (v, bits) => BigInt.asIntN(bits, v);
const UNITS = { MILLIS: 1000n, MICROS: 1000000n, NANOS: 1000000000n };
const DAY = 86400n;

function intKind(id, phys, ann, lo, hi, { unsigned = false, bits = phys === 'INT32' ? 32 : 64, specials = [], fmt } = {}) {
  const B = phys === 'INT32' ? 32 : 64;
  return {
    id, phys, ann, order: unsigned ? 'u' : 'i',
    gen: (r) => wrap(r.scaled(lo, hi), B),
    specials: specials.map((v) => wrap(v, B)),
    json: fmt || ((v) => (unsigned ? BigInt.asUintN(bits, v) : v).toString()),
    key: (v) => (unsigned ? ['u', BigInt.asUintN(B, v)] : ['i', v]),
    plain: (b) => (B === 32 ? BigInt(b.readInt32LE(0)) : b.readBigInt64LE(0)),
  };
}

function timeKind(id, phys, unit, utc) {
  const max = DAY * UNITS[unit] - 1n;
  return intKind(id, phys, `TIME(${unit},${utc})`, 0n, max, {
    specials: [0n, max], fmt: (v) => JSON.stringify(fmtTime(v, unit)),
  });
}

function tsKind(id, unit, utc) {
  // DuckDB's and arrow-rs's ranges: NANOS within int64 less a margin (DuckDB
  // keeps the extremes for infinities), the others within 0001..9999
  const per = UNITS[unit];
  const [lo, hi] = unit === 'NANOS' ? [-9200000000000000000n, 9200000000000000000n]
    : [-62135596800n * per, 253402300799n * per + per - 1n];
  return intKind(id, 'INT64', `TIMESTAMP(${unit},${utc})`, lo, hi, {
    specials: [lo, hi, 0n, -1n], fmt: (v) => JSON.stringify(fmtTimestamp(v, unit, utc)),
  });
}

function decIntKind(id, phys, precision, scale) {
  const m = 10n ** BigInt(precision) - 1n;
  return intKind(id, phys, `DECIMAL(${precision},${scale})`, -m, m, {
    specials: [-m, m, 0n], fmt: (v) => JSON.stringify(fmtDecimal(v, scale)),
  });
}

// big-endian two's complement, shortest
function beBytes(v, len) {
  if (len === undefined) {
    len = 1;
    while (v < -(1n << BigInt(8 * len - 1)) || v >= (1n << BigInt(8 * len - 1))) len++;
  }
  const b = Buffer.alloc(len);
  let x = BigInt.asUintN(8 * len, v);
  for (let i = len - 1; i >= 0; i--) { b[i] = Number(x & 255n); x >>= 8n; }
  return b;
}

function decBytesKind(id, phys, precision, scale, len) {
  const m = 10n ** BigInt(precision) - 1n;
  return {
    id, phys, len, ann: `DECIMAL(${precision},${scale})`, order: 'i',
    gen: (r) => beBytes(r.scaled(-m, m), len),
    specials: [beBytes(-m, len), beBytes(m, len), beBytes(0n, len)],
    json: (b) => JSON.stringify(fmtDecimal(beSigned(b), scale)),
    key: (b) => ['i', beSigned(b)],
    plain: (b) => b,
  };
}

function floatKind(id, phys) {
  const f32 = phys === 'FLOAT';
  const round = f32 ? Math.fround : (x) => x;
  const specials = f32
    ? [NaN, 0, -0, Infinity, -Infinity, 2 ** -149, -(2 ** -149), 3.4028234663852886e38, -3.4028234663852886e38,
       1.1754943508222875e-38, 0.1, 16777217]
    : [NaN, 0, -0, Infinity, -Infinity, 5e-324, -5e-324, 1.7976931348623157e308, -1.7976931348623157e308,
       2.2250738585072014e-308, 0.1, 1e16, 123456789012345680000];
  const fmt = f32 ? fmtF32 : fmtF64;
  return {
    id, phys, ann: null, order: 'f',
    gen: (r) => {
      switch (r.below(4)) {
        case 0: return round(Number(r.scaled(-100000n, 100000n)) / 64);
        case 1: { // any finite bit pattern
          const b = Buffer.alloc(8);
          for (;;) {
            b.writeUInt32LE(r.u32(), 0);
            b.writeUInt32LE(r.u32(), 4);
            const v = f32 ? b.readFloatLE(0) : b.readDoubleLE(0);
            if (Number.isFinite(v)) return v;
          }
        }
        case 2: return round((r.u32() / 4294967296 - 0.5) * 10 ** (r.below(40) - 20));
        default: return round(Number(r.scaled(-1000n, 1000n)));
      }
    },
    specials: specials.map(round),
    json: (v) => jsonNum(fmt(v)),
    key: (v) => ['f', v],
    plain: (b) => (f32 ? b.readFloatLE(0) : b.readDoubleLE(0)),
  };
}

const f16Kind = {
  id: 'f16', phys: 'FIXED_LEN_BYTE_ARRAY', len: 2, ann: 'FLOAT16', order: 'f',
  gen: (r) => { for (;;) { const h = r.u32() & 0xFFFF; if (((h >> 10) & 31) !== 31) return h; } },
  specials: [0x7E00, 0x0000, 0x8000, 0x7C00, 0xFC00, 0x0001, 0x8001, 0x7BFF, 0xFBFF, 0x0400, 0x3C00],
  json: (h) => jsonNum(fmtF16(h)),
  key: (h) => ['f', halfToNumber(h)],
  plain: (b) => b.readUInt16LE(0),
  raw: (h) => { const b = Buffer.alloc(2); b.writeUInt16LE(h); return b; },
};

const STR_PIECES = ['a', 'b', 'z', 'A', '0', ' ', 'é', 'ß', '中', '文', '😀', '"', '\\', '\n', '\t', '\u0001', '\u001f',
  '/', '<', '~', 'x', 'y', 'PAR1', '\u00ff', '\u2028'];

function strGen(r) {
  let s = '';
  const n = r.below(12);
  for (let k = 0; k < n; k++) s += r.chance(0.6) ? String.fromCharCode(97 + r.below(26)) : r.pick(STR_PIECES);
  return Buffer.from(s, 'utf8');
}

function strKind(id, ann, gen = strGen, specials = ['', 'a', '\u0000', '\uffff', '😀😀']) {
  return {
    id, phys: 'BYTE_ARRAY', ann, order: 'b',
    gen, specials: specials.map((s) => Buffer.from(s, 'utf8')),
    json: (b) => jsonStr(b.toString('utf8')),
    key: (b) => ['b', b],
    plain: (b) => b,
  };
}

function binKind(id, phys, ann, len) {
  return {
    id, phys, ann, len, order: 'b',
    gen: (r) => r.bytes(len ?? r.below(20)),
    specials: len ? [Buffer.alloc(len, 0), Buffer.alloc(len, 255)] : [Buffer.alloc(0), Buffer.from([0]), Buffer.alloc(9, 255)],
    json: (b) => JSON.stringify(b.toString('base64')),
    key: (b) => ['b', b],
    plain: (b) => b,
  };
}

const uuidKind = {
  id: 'uuid', phys: 'FIXED_LEN_BYTE_ARRAY', len: 16, ann: 'UUID', order: 'b',
  gen: (r) => r.bytes(16), specials: [Buffer.alloc(16, 0), Buffer.alloc(16, 255)],
  json: (b) => JSON.stringify(fmtUuid(b)), key: (b) => ['b', b], plain: (b) => b,
};

const intervalKind = {
  id: 'interval', phys: 'FIXED_LEN_BYTE_ARRAY', len: 12, ann: 'INTERVAL', order: null,
  gen: (r) => {
    const b = Buffer.alloc(12);
    b.writeUInt32LE(r.below(1000), 0);
    b.writeUInt32LE(r.below(100000), 4);
    b.writeUInt32LE(r.chance(0.1) ? 4294967295 : r.below(1000000000), 8);
    return b;
  },
  specials: [Buffer.alloc(12, 0)],
  json: (b) => `{"months":${b.readUInt32LE(0)},"days":${b.readUInt32LE(4)},"millis":${b.readUInt32LE(8)}}`,
};

const int96Kind = {
  id: 't96', phys: 'INT96', ann: null, order: null,
  // 1900..2100, whole microseconds (DuckDB keeps microseconds)
  gen: (r) => ({ jday: 2415021 + r.below(73049), nanos: BigInt(r.below(86400000000)) * 1000n + 0n }),
  specials: [{ jday: 2440588, nanos: 0n }, { jday: 2440587, nanos: 86399999999000n }],
  json: (v) => JSON.stringify(fmtTimestamp(BigInt(v.jday - 2440588) * DAY * 1000000000n + v.nanos, 'NANOS', false)),
};

const boolKind = {
  id: 'bool', phys: 'BOOLEAN', ann: null, order: 'z',
  gen: (r) => r.chance(0.5), specials: [true, false],
  json: (v) => String(v), key: (v) => ['z', v], plain: (b) => b[0] !== 0,
};

export const K = {
  bool: boolKind,
  i32: intKind('i32', 'INT32', null, ...I32, { specials: [...I32, 0n, -1n] }),
  i8: intKind('i8', 'INT32', 'INTEGER(8,true)', -128n, 127n, { specials: [-128n, 127n] }),
  u8: intKind('u8', 'INT32', 'INTEGER(8,false)', 0n, 255n, { unsigned: true, bits: 8, specials: [0n, 255n] }),
  i16: intKind('i16', 'INT32', 'INTEGER(16,true)', -32768n, 32767n, { specials: [-32768n, 32767n] }),
  u16: intKind('u16', 'INT32', 'INTEGER(16,false)', 0n, 65535n, { unsigned: true, bits: 16, specials: [0n, 65535n] }),
  i32x: intKind('i32x', 'INT32', 'INTEGER(32,true)', ...I32, { specials: I32 }),
  u32: intKind('u32', 'INT32', 'INTEGER(32,false)', 0n, 2n ** 32n - 1n, { unsigned: true, specials: [0n, 2n ** 32n - 1n, 2n ** 31n] }),
  date: intKind('date', 'INT32', 'DATE', -719162n, 2932896n, { specials: [-719162n, 2932896n, 0n], fmt: (v) => JSON.stringify(fmtDate(v)) }),
  tms: timeKind('tms', 'INT32', 'MILLIS', true),
  tmsl: timeKind('tmsl', 'INT32', 'MILLIS', false),
  dec9: decIntKind('dec9', 'INT32', 9, 2),
  i64: intKind('i64', 'INT64', null, ...I64, { specials: [...I64, 0n, -1n] }),
  i64x: intKind('i64x', 'INT64', 'INTEGER(64,true)', ...I64, { specials: I64 }),
  u64: intKind('u64', 'INT64', 'INTEGER(64,false)', 0n, 2n ** 64n - 1n, { unsigned: true, specials: [0n, 2n ** 64n - 1n, 2n ** 63n] }),
  tus: timeKind('tus', 'INT64', 'MICROS', true),
  tusl: timeKind('tusl', 'INT64', 'MICROS', false),
  tns: timeKind('tns', 'INT64', 'NANOS', true),
  tnsl: timeKind('tnsl', 'INT64', 'NANOS', false),
  tsms: tsKind('tsms', 'MILLIS', true),
  tsmsl: tsKind('tsmsl', 'MILLIS', false),
  tsus: tsKind('tsus', 'MICROS', true),
  tsusl: tsKind('tsusl', 'MICROS', false),
  tsns: tsKind('tsns', 'NANOS', true),
  tsnsl: tsKind('tsnsl', 'NANOS', false),
  dec18: decIntKind('dec18', 'INT64', 18, 4),
  t96: int96Kind,
  f32: floatKind('f32', 'FLOAT'),
  f64: floatKind('f64', 'DOUBLE'),
  str: strKind('str', 'STRING'),
  bin: binKind('bin', 'BYTE_ARRAY', null),
  enum: strKind('enum', 'ENUM', (r) => Buffer.from(r.pick(['RED', 'GREEN', 'BLUE', 'CYAN', ''])), ['RED']),
  json: strKind('json', 'JSON', (r) => Buffer.from(r.pick(['{}', '[]', '{"a":1}', '[1,2,"x"]', 'null', '"s"', '{"k":{"n":[true,false]}}'])), ['0']),
  bson: binKind('bson', 'BYTE_ARRAY', 'BSON'),
  bdec: decBytesKind('bdec', 'BYTE_ARRAY', 20, 3),
  fixed: binKind('fixed', 'FIXED_LEN_BYTE_ARRAY', null, 7),
  uuid: uuidKind,
  f16: f16Kind,
  interval: intervalKind,
  fdec: decBytesKind('fdec', 'FIXED_LEN_BYTE_ARRAY', 25, 5, 11),
};

// The physical types: the kind used in every nesting, the annotated kinds
// that come along as extra columns, and the encodings that apply.
const TYPES = [
  { phys: 'BOOLEAN', base: 'bool', extra: [], encs: ['PLAIN', 'RLE'] },
  { phys: 'INT32', base: 'i32', extra: ['i8', 'u8', 'i16', 'u16', 'i32x', 'u32', 'date', 'tms', 'tmsl', 'dec9'],
    encs: ['PLAIN', 'DICT', 'DELTA_BINARY_PACKED', 'BYTE_STREAM_SPLIT'] },
  { phys: 'INT64', base: 'i64', extra: ['i64x', 'u64', 'tus', 'tusl', 'tns', 'tnsl', 'tsms', 'tsmsl', 'tsus', 'tsusl',
    'tsns', 'tsnsl', 'dec18'], encs: ['PLAIN', 'DICT', 'DELTA_BINARY_PACKED', 'BYTE_STREAM_SPLIT'] },
  { phys: 'INT96', base: 't96', extra: [], encs: ['PLAIN', 'DICT'] },
  { phys: 'FLOAT', base: 'f32', extra: [], encs: ['PLAIN', 'DICT', 'BYTE_STREAM_SPLIT'] },
  { phys: 'DOUBLE', base: 'f64', extra: [], encs: ['PLAIN', 'DICT', 'BYTE_STREAM_SPLIT'] },
  { phys: 'BYTE_ARRAY', base: 'str', extra: ['bin', 'enum', 'json', 'bdec'],
    encs: ['PLAIN', 'DICT', 'DELTA_LENGTH_BYTE_ARRAY', 'DELTA_BYTE_ARRAY'] },
  { phys: 'FIXED_LEN_BYTE_ARRAY', base: 'fixed', extra: ['uuid', 'f16', 'interval', 'fdec'],
    encs: ['PLAIN', 'DICT', 'DELTA_BYTE_ARRAY', 'BYTE_STREAM_SPLIT'] },
];
const CODECS = ['UNCOMPRESSED', 'SNAPPY', 'LZ4_RAW', 'GZIP'];

// ---- schemas and rows --------------------------------------------------------------------------------
//
// A column: {name, shape, kind, enc?}. Shapes: req, opt, list (optional LIST
// of optional elements), map (optional MAP, STRING keys, optional values),
// struct (optional group of a required `a` and an optional `b`).

export const typeText = (k) => (k.phys === 'FIXED_LEN_BYTE_ARRAY' ? `fixed_len_byte_array(${k.len})`
  : k.phys === 'BYTE_ARRAY' ? 'binary' : k.phys.toLowerCase());
export const annText = (k) => (k.ann ? ` (${k.ann})` : '');

function schemaText(cols) {
  const out = ['message m {'];
  for (const c of cols) {
    const k = c.kind, t = typeText(k), a = annText(k);
    switch (c.shape) {
      case 'req': out.push(`  required ${t} ${c.name}${a};`); break;
      case 'opt': out.push(`  optional ${t} ${c.name}${a};`); break;
      case 'list':
        out.push(`  optional group ${c.name} (LIST) {`, '    repeated group list {',
          `      optional ${t} element${a};`, '    }', '  }');
        break;
      case 'map':
        out.push(`  optional group ${c.name} (MAP) {`, '    repeated group key_value {',
          '      required binary key (STRING);', `      optional ${t} value${a};`, '    }', '  }');
        break;
      case 'struct':
        out.push(`  optional group ${c.name} {`, `    required ${t} a${a};`, `    optional ${t} b${a};`, '  }');
        break;
      case 'listlist':
        out.push(`  optional group ${c.name} (LIST) {`, '    repeated group list {', '      optional group element (LIST) {',
          '        repeated group list {', `          optional ${t} element${a};`, '        }', '      }', '    }', '  }');
        break;
      case 'liststruct':
        out.push(`  optional group ${c.name} (LIST) {`, '    repeated group list {', '      optional group element {',
          `        required ${t} a${a};`, `        optional ${t} b${a};`, '      }', '    }', '  }');
        break;
      case 'maplist':
        out.push(`  optional group ${c.name} (MAP) {`, '    repeated group key_value {', '      required binary key (STRING);',
          '      optional group value (LIST) {', '        repeated group list {', `          optional ${t} element${a};`,
          '        }', '      }', '    }', '  }');
        break;
      default: throw new Error(c.shape);
    }
  }
  out.push('}', '');
  return out.join('\n');
}

// The leaf columns of a column, in schema order: {path, kind, col, enc,
// entries(row value) -> the leaf's level entries (raw or null)}.
function leavesOf(c) {
  const one = (path, entries, kind = c.kind, enc = c.enc) => ({ path, kind, col: c, enc, entries });
  const keyKind = K.str;
  switch (c.shape) {
    case 'req': case 'opt': return [one(c.name, (v) => [v])];
    case 'list': return [one(`${c.name}.list.element`, (v) => (v === null || v.length === 0 ? [null] : v))];
    case 'map': return [
      one(`${c.name}.key_value.key`, (v) => (v === null || v.length === 0 ? [null] : v.map((e) => e.key)), keyKind,
        c.globalEnc ? c.enc : null),
      one(`${c.name}.key_value.value`, (v) => (v === null || v.length === 0 ? [null] : v.map((e) => e.value))),
    ];
    case 'struct': return [
      one(`${c.name}.a`, (v) => [v === null ? null : v.a]),
      one(`${c.name}.b`, (v) => [v === null ? null : v.b]),
    ];
    case 'listlist': return [one(`${c.name}.list.element.list.element`, (v) => (v === null || v.length === 0 ? [null]
      : v.flatMap((inner) => (inner === null || inner.length === 0 ? [null] : inner))))];
    case 'liststruct': return ['a', 'b'].map((f) => one(`${c.name}.list.element.${f}`, (v) => (v === null || v.length === 0 ? [null]
      : v.map((e) => (e === null ? null : e[f])))));
    case 'maplist': return [
      one(`${c.name}.key_value.key`, (v) => (v === null || v.length === 0 ? [null] : v.map((e) => e.key)), keyKind, null),
      one(`${c.name}.key_value.value.list.element`, (v) => (v === null || v.length === 0 ? [null]
        : v.flatMap((e) => (e.value === null || e.value.length === 0 ? [null] : e.value)))),
    ];
    default: throw new Error(c.shape);
  }
}

// One value of a kind: a special value now and then (when the case wants
// them), else from a small pool (dictionary cases) or fresh.
function valueOf(r, kind, c) {
  if (c.specials !== false && kind.specials.length && r.chance(0.08)) return r.pick(kind.specials);
  if (c.pool) {
    if (!c.poolVals) c.poolVals = Array.from({ length: c.pool }, () => kind.gen(r));
    return r.pick(c.poolVals);
  }
  return kind.gen(r);
}

function genColumn(r, c) {
  const k = c.kind;
  const nul = c.nulls ?? 0.2;
  switch (c.shape) {
    case 'req': return valueOf(r, k, c);
    case 'opt': return r.chance(nul) ? null : valueOf(r, k, c);
    case 'list': {
      if (r.chance(0.12)) return null;
      if (r.chance(0.1)) return [];
      return Array.from({ length: 1 + r.below(c.maxLen ?? 4) }, () => (r.chance(nul) ? null : valueOf(r, k, c)));
    }
    case 'map': {
      if (r.chance(0.12)) return null;
      if (r.chance(0.1)) return [];
      return Array.from({ length: 1 + r.below(3) }, (_, j) => ({
        key: Buffer.from(`k${j}`), value: r.chance(nul) ? null : valueOf(r, k, c) }));
    }
    case 'struct':
      if (r.chance(0.12)) return null;
      return { a: valueOf(r, k, c), b: r.chance(nul) ? null : valueOf(r, k, c) };
    case 'listlist': case 'liststruct': case 'maplist': {
      if (r.chance(0.1)) return null;
      if (r.chance(0.08)) return [];
      const inner = () => {
        if (r.chance(0.1)) return null;
        if (c.shape === 'liststruct') return { a: valueOf(r, k, c), b: r.chance(nul) ? null : valueOf(r, k, c) };
        if (r.chance(0.1)) return [];
        return Array.from({ length: 1 + r.below(c.maxLen ?? 4) }, () => (r.chance(nul) ? null : valueOf(r, k, c)));
      };
      const n = 1 + r.below(c.maxOuter ?? 4);
      if (c.shape === 'maplist') return Array.from({ length: n }, (_, j) => ({ key: Buffer.from(`k${j}`), value: inner() }));
      return Array.from({ length: n }, inner);
    }
    default: throw new Error(c.shape);
  }
}

function jsonOf(c, v) {
  const k = c.kind;
  const j = (x) => (x === null ? 'null' : k.json(x));
  if (v === null) return 'null';
  switch (c.shape) {
    case 'req': case 'opt': return j(v);
    case 'list': return `[${v.map(j).join(',')}]`;
    case 'map': return `[${v.map((e) => `{"key":${jsonStr(e.key.toString())},"value":${j(e.value)}}`).join(',')}]`;
    case 'struct': return `{"a":${j(v.a)},"b":${j(v.b)}}`;
    case 'listlist': return `[${v.map((x) => (x === null ? 'null' : `[${x.map(j).join(',')}]`)).join(',')}]`;
    case 'liststruct': return `[${v.map((x) => (x === null ? 'null' : `{"a":${j(x.a)},"b":${j(x.b)}}`)).join(',')}]`;
    case 'maplist': return `[${v.map((e) => `{"key":${jsonStr(e.key.toString())},"value":${e.value === null ? 'null'
      : `[${e.value.map(j).join(',')}]`}}`).join(',')}]`;
    default: throw new Error(c.shape);
  }
}

// ---- the cases ----------------------------------------------------------------------------------------------

const SHAPES = ['req', 'opt', 'list', 'map', 'struct'];

function encArgs(cols) {
  const a = [];
  for (const c of cols) {
    if (!c.enc) continue;
    const target = c.shape === 'map' || c.shape === 'maplist' ? `${c.name}.key_value.value` : c.name;
    a.push('--encoding', `${target}=${c.enc === 'DICT' ? 'RLE_DICTIONARY' : c.enc}`);
  }
  return a;
}

function makeCases() {
  const cases = [];
  let pair = 0;
  // the matrix
  for (const t of TYPES) {
    for (const enc of t.encs) {
      CODECS.forEach((codec, ci) => {
        const v2 = (ci + pair) % 2 === 1;
        const cols = [];
        SHAPES.forEach((shape, si) => cols.push({ name: `c${si}`, shape, kind: K[t.base], enc }));
        t.extra.forEach((id, xi) => cols.push({ name: `x_${id}`, shape: xi % 2 ? 'opt' : 'req', kind: K[id], enc }));
        if (enc === 'DICT') cols.forEach((c) => { c.pool = 12; });
        cases.push({
          name: `${t.phys}-${enc}-${codec}-v${v2 ? 2 : 1}`, cols, rows: 150,
          args: ['--codec', codec, ...(v2 ? ['--data-page-v2'] : []), '--page-size', '1K', '--dict-size', '4K',
                 '--row-group-rows', '60'],
          codec, v2, rgRows: 60,
        });
      });
      pair++;
    }
  }
  // dictionary fallback: many distinct values, a small dictionary budget
  cases.push({
    name: 'dict-fallback', rows: 2000, codec: 'SNAPPY', rgRows: 0, fallback: 'required',
    cols: [{ name: 's', shape: 'opt', kind: K.str, enc: 'DICT', specials: false },
           { name: 'n', shape: 'req', kind: K.i64, enc: 'DICT', specials: false },
           { name: 'f', shape: 'opt', kind: K.f64, enc: 'DICT', specials: false }],
    args: ['--codec', 'SNAPPY', '--dict-size', '1K', '--page-size', '2K'],
  });
  // tiny pages: the smallest page size, many pages and page index entries
  for (const v2 of [false, true]) {
    cases.push({
      name: `tiny-pages-v${v2 ? 2 : 1}`, rows: 400, codec: 'LZ4_RAW', v2, rgRows: 200, tinyPages: true,
      cols: [{ name: 'i', shape: 'req', kind: K.i32, enc: 'DELTA_BINARY_PACKED' },
             { name: 's', shape: 'opt', kind: K.str, enc: 'DELTA_BYTE_ARRAY' },
             { name: 'l', shape: 'list', kind: K.f64, enc: 'BYTE_STREAM_SPLIT' },
             { name: 'm', shape: 'map', kind: K.i64, enc: 'DICT', pool: 5 },
             { name: 'u', shape: 'opt', kind: K.u64, enc: 'PLAIN' }],
      args: ['--codec', 'LZ4_RAW', ...(v2 ? ['--data-page-v2'] : []), '--page-size', '64', '--chunk-size', '256K', '--dict-size', '1K',
             '--row-group-rows', '200'],
    });
  }
  // many row groups
  cases.push({
    name: 'many-row-groups', rows: 300, codec: 'GZIP', rgRows: 1,
    cols: [{ name: 'i', shape: 'req', kind: K.i64 }, { name: 's', shape: 'opt', kind: K.str },
           { name: 'l', shape: 'list', kind: K.i32 }],
    args: ['--codec', 'GZIP', '--row-group-rows', '1'],
  });
  cases.push({
    name: 'row-group-bytes', rows: 3000, codec: 'UNCOMPRESSED', rgRows: 0, manyGroups: true,
    cols: [{ name: 'i', shape: 'req', kind: K.i64, enc: 'PLAIN' }, { name: 's', shape: 'opt', kind: K.str, enc: 'PLAIN' }],
    args: ['--row-group-size', '8K', '--page-size', '1K'],
  });
  // no rows at all
  cases.push({
    name: 'empty', rows: 0, codec: 'UNCOMPRESSED', rgRows: 0,
    cols: SHAPES.map((shape, si) => ({ name: `c${si}`, shape, kind: K.str })),
    args: [],
  });
  // empty strings and the longest values a page takes (page size - 4)
  {
    const long = (n) => (r) => Buffer.from(Array.from({ length: n }, () => String.fromCharCode(32 + r.below(95))).join(''));
    const maxLen = 4096 - 4;
    const edge = (id, gen, specials) => ({ ...K.str, id, gen, specials: specials.map((s) => Buffer.from(s)) });
    for (const enc of ['PLAIN', 'DICT', 'DELTA_LENGTH_BYTE_ARRAY', 'DELTA_BYTE_ARRAY']) {
      cases.push({
        name: `strings-edge-${enc}`, rows: 60, codec: 'SNAPPY', rgRows: 0, fallback: true,
        cols: [{ name: 'e', shape: 'opt', kind: edge('empty', () => Buffer.alloc(0), ['']), enc },
               { name: 'm', shape: 'opt', kind: edge('maxlen', long(maxLen), ['~'.repeat(maxLen), ' '.repeat(maxLen)]), enc },
               { name: 'v', shape: 'req', kind: edge('varied', (r) => long(r.pick([0, 1, 63, 64, 65, 200, maxLen]))(r), ['']), enc },
               { name: 'b', shape: 'opt', kind: { ...K.bin, gen: (r) => r.bytes(r.pick([0, 1, 100, maxLen])) }, enc },
               { name: 'fx', shape: 'opt', kind: K.fixed, enc: enc === 'DELTA_LENGTH_BYTE_ARRAY' ? 'PLAIN' : enc }],
        args: ['--codec', 'SNAPPY', '--page-size', '4K'],
      });
    }
  }
  // extreme integers: every int kind, specials only, alternating
  for (const enc of ['PLAIN', 'DICT', 'DELTA_BINARY_PACKED', 'BYTE_STREAM_SPLIT']) {
    const ids = ['i32', 'i8', 'u8', 'i16', 'u16', 'u32', 'i64', 'u64', 'dec9', 'dec18', 'date'];
    cases.push({
      name: `extreme-ints-${enc}`, rows: 200, codec: 'LZ4_RAW', rgRows: 0,
      cols: ids.map((id) => ({ name: id, shape: 'req', enc,
        kind: { ...K[id], gen: (r) => r.pick(K[id].specials) } })),
      args: ['--codec', 'LZ4_RAW', '--page-size', '512'],
    });
  }
  // floats: NaN, +-0, +-Inf, denormals; all-NaN and all-zero columns
  for (const enc of ['PLAIN', 'DICT', 'BYTE_STREAM_SPLIT']) {
    const only = (k, vals) => ({ ...k, gen: (r) => r.pick(vals), specials: [] });
    cases.push({
      name: `floats-special-${enc}`, rows: 120, codec: 'UNCOMPRESSED', rgRows: 40, v2: enc !== 'PLAIN',
      cols: [
        { name: 'f', shape: 'opt', kind: only(K.f32, K.f32.specials), enc },
        { name: 'd', shape: 'opt', kind: only(K.f64, K.f64.specials), enc },
        { name: 'h', shape: 'opt', kind: only(K.f16, K.f16.specials), enc },
        { name: 'nan', shape: 'opt', kind: only(K.f64, [NaN]), enc },
        { name: 'zero', shape: 'req', kind: only(K.f32, [0]), enc },
        { name: 'negzero', shape: 'req', kind: only(K.f64, [-0]), enc },
        { name: 'zeros', shape: 'opt', kind: only(K.f64, [0, -0]), enc },
        { name: 'hzero', shape: 'req', kind: only(K.f16, [0x8000, 0x0000]), enc },
        { name: 'denorm', shape: 'req', kind: only(K.f64, [5e-324, -5e-324, 1e-310]), enc },
      ],
      args: ['--row-group-rows', '40', ...(enc !== 'PLAIN' ? ['--data-page-v2'] : [])],
    });
  }
  // deeper nesting (repetition level 2, lists of structs, maps of lists),
  // long lists, row groups ended by full chunk buffers
  [['i32', 'DELTA_BINARY_PACKED', true, 'SNAPPY'], ['str', 'DELTA_BYTE_ARRAY', false, 'GZIP'],
   ['f64', 'DICT', true, 'LZ4_RAW'], ['fixed', 'PLAIN', false, 'UNCOMPRESSED'], ['bool', 'RLE', true, 'GZIP'],
   ['i64', 'BYTE_STREAM_SPLIT', false, 'SNAPPY'], ['bdec', 'DELTA_LENGTH_BYTE_ARRAY', true, 'UNCOMPRESSED']].forEach(([id, enc, v2, codec]) => {
    cases.push({
      name: `deep-${id}-${enc}-v${v2 ? 2 : 1}`, rows: 300, codec, v2, rgRows: 0,
      cols: ['listlist', 'liststruct', 'maplist'].map((shape) => ({ name: shape, shape, kind: K[id], enc, pool: enc === 'DICT' ? 10 : undefined }))
        .concat([{ name: 'long', shape: 'list', kind: K[id], enc, maxLen: 150, nulls: 0.05, pool: enc === 'DICT' ? 10 : undefined },
                 { name: 'longlist', shape: 'listlist', kind: K[id], enc, maxOuter: 30, maxLen: 12, pool: enc === 'DICT' ? 10 : undefined }]),
      args: ['--codec', codec, ...(v2 ? ['--data-page-v2'] : []), '--page-size', '4K', '--chunk-size', '16K'],
    });
  });
  // the writer's switches: no CRCs, no statistics, no page index,
  // checkpoints, the dictionary on/off for every column
  const optCols = () => [{ name: 'i', shape: 'req', kind: K.i64 }, { name: 's', shape: 'opt', kind: K.str, pool: 30 },
    { name: 'l', shape: 'list', kind: K.f32 }, { name: 'm', shape: 'map', kind: K.date }, { name: 'st', shape: 'struct', kind: K.bin }];
  cases.push({ name: 'opt-no-crc', rows: 200, codec: 'SNAPPY', rgRows: 100, noCrc: true, cols: optCols(),
               args: ['--codec', 'SNAPPY', '--no-crc', '--row-group-rows', '100'] });
  cases.push({ name: 'opt-no-statistics', rows: 200, codec: 'UNCOMPRESSED', rgRows: 0, noStats: true, cols: optCols(),
               args: ['--no-statistics'] });
  cases.push({ name: 'opt-no-page-index', rows: 200, codec: 'GZIP', rgRows: 50, noPageIndex: true, v2: true, cols: optCols(),
               args: ['--codec', 'GZIP', '--no-page-index', '--data-page-v2', '--row-group-rows', '50'] });
  cases.push({ name: 'opt-checkpoint', rows: 300, codec: 'LZ4_RAW', rgRows: 25, checkpoint: true, v2: true, cols: optCols(),
               args: ['--codec', 'LZ4_RAW', '--checkpoint', '--data-page-v2', '--row-group-rows', '25'] });
  // direct mode: no chunk buffers, a row group per full page (each column
  // chunk one data page, encoded again as it is written out)
  cases.push({ name: 'opt-direct', rows: 300, codec: 'SNAPPY', rgRows: 0, manyGroups: true, cols: optCols(),
               args: ['--codec', 'SNAPPY', '--direct', '--page-size', '512'] });
  // checkpoint mode has no use for --direct or --chunk-size: they are named
  // on stderr and the file is the checkpoint-mode one
  cases.push({ name: 'opt-direct-checkpoint-v2', rows: 300, codec: 'UNCOMPRESSED', rgRows: 60,
               checkpoint: true, v2: true, cols: optCols(), notes: ['--direct', '--chunk-size'],
               args: ['--direct', '--chunk-size', '64K', '--checkpoint', '--data-page-v2', '--page-size', '1K',
                      '--row-group-rows', '60'] });
  // checkpoints every N rows: cut copies recovered by `upq recover`; --append
  // after a cut. Flat and nested columns, pages v1 and v2.
  const ckptFlat = () => [{ name: 'id', shape: 'req', kind: K.i64 }, { name: 'dev', shape: 'opt', kind: K.str, pool: 12 },
    { name: 'temp', shape: 'opt', kind: K.f32 }, { name: 'ok', shape: 'req', kind: K.bool },
    { name: 'day', shape: 'opt', kind: K.date }, { name: 'amount', shape: 'opt', kind: K.dec18 }];
  cases.push({ name: 'ckpt-rows-flat', rows: 1000, codec: 'UNCOMPRESSED', rgRows: 200, checkpoint: true, ckptRows: 50,
               cols: ckptFlat(), args: ['--checkpoint-rows', '50', '--row-group-rows', '200', '--page-size', '1K'] });
  cases.push({ name: 'ckpt-rows-flat-v2-gzip-nodict-fileid', rows: 700, codec: 'GZIP', rgRows: 250, checkpoint: true,
               ckptRows: 30, v2: true, cols: ckptFlat(),
               args: ['--codec', 'GZIP', '--data-page-v2', '--no-dictionary', '--checkpoint-rows', '30',
                      '--row-group-rows', '250', '--file-id', '0x5EED0001'] });
  cases.push({ name: 'ckpt-rows-nested-v2-snappy', rows: 600, codec: 'SNAPPY', rgRows: 150, checkpoint: true, ckptRows: 40,
               v2: true, cols: optCols(),
               args: ['--codec', 'SNAPPY', '--data-page-v2', '--checkpoint-rows', '40', '--row-group-rows', '150',
                      '--page-size', '2K'] });
  cases.push({ name: 'ckpt-rows-nested-v1-gzip-tiny-pages', rows: 500, codec: 'GZIP', rgRows: 120, checkpoint: true, ckptRows: 20,
               cols: optCols(), args: ['--codec', 'GZIP', '--checkpoint-rows', '20', '--row-group-rows', '120', '--page-size', '256'] });
  cases.push({ name: 'ckpt-append-flat-lz4', rows: 800, codec: 'LZ4_RAW', rgRows: 120, checkpoint: true, ckptRows: 50,
               append: { half: 400, cutAt: 0.6 }, cols: ckptFlat(),
               args: ['--codec', 'LZ4_RAW', '--checkpoint-rows', '50', '--row-group-rows', '120'] });
  cases.push({ name: 'ckpt-append-nested-v2', rows: 500, codec: 'UNCOMPRESSED', rgRows: 100, checkpoint: true, ckptRows: 25,
               v2: true, append: { half: 260, cutAt: 0.45 }, cols: optCols(),
               args: ['--data-page-v2', '--checkpoint-rows', '25', '--row-group-rows', '100', '--page-size', '1K'] });
  cases.push({ name: 'ckpt-append-nested-v1-snappy', rows: 400, codec: 'SNAPPY', rgRows: 90, checkpoint: true, ckptRows: 30,
               append: { half: 170, cutAt: 0.7 }, cols: optCols(),
               args: ['--codec', 'SNAPPY', '--checkpoint-rows', '30', '--row-group-rows', '90', '--page-size', '1K'] });
  cases.push({ name: 'opt-dictionary', rows: 200, codec: 'UNCOMPRESSED', rgRows: 0, cols: optCols().map((c) => ({ ...c, enc: 'DICT', pool: 20, globalEnc: true })),
               args: ['--dictionary'], globalEnc: true });
  cases.push({ name: 'opt-no-dictionary', rows: 200, codec: 'UNCOMPRESSED', rgRows: 0, cols: optCols().map((c) => ({ ...c, enc: 'PLAIN', pool: 5, globalEnc: true })),
               args: ['--no-dictionary'], globalEnc: true });
  // every logical type in one file, default options
  cases.push({
    name: 'logical-all', rows: 200, codec: 'UNCOMPRESSED', rgRows: 0,
    cols: Object.values(K).filter((k) => k.id !== 'bson').map((k, i) => ({ name: `x_${k.id}`, shape: i % 2 ? 'opt' : 'req', kind: k })),
    args: [],
  });
  // BSON: DuckDB refuses the whole file, so it is on its own
  cases.push({
    name: 'logical-bson', rows: 100, codec: 'SNAPPY', rgRows: 0,
    cols: [{ name: 'b', shape: 'opt', kind: K.bson }, { name: 'l', shape: 'list', kind: K.bson }],
    args: ['--codec', 'SNAPPY'],
  });
  return cases;
}

function buildCase(cs) {
  const r = new Rng(hashString(cs.name));
  const rows = [];
  for (let i = 0; i < cs.rows; i++) rows.push(cs.cols.map((c) => genColumn(r, c)));
  const lines = rows.map((row) => `{${cs.cols.map((c, j) => `${jsonStr(c.name)}:${jsonOf(c, row[j])}`).join(',')}}\n`);
  return { rows, text: lines.join(''), schema: schemaText(cs.cols), args: [...(cs.globalEnc ? [] : encArgs(cs.cols)), ...cs.args] };
}

// ---- running upq ---------------------------------------------------------------------------------------------

class Failure extends Error {}

function run(args, { encoding = 'utf8' } = {}) {
  return new Promise((resolve) => {
    execFile(opts.upq, args, { encoding, maxBuffer: 1 << 30, timeout: 120000 }, (err, stdout, stderr) => {
      const status = err ? (err.killed ? `killed (${err.signal || 'timeout'})`
        : err.signal ? `signal ${err.signal}` : `exit status ${err.code}`) : null;
      resolve({ ok: !err, status, stdout, stderr: String(stderr) });
    });
  });
}
const lastLines = (s, n = 3) => (s || '').trim().split('\n').slice(-n).join(' | ');

// JSON with integers kept exact (BigInt), as meta_vs_duckdb.mjs reads it.
function parseJsonExact(text) {
  return JSON.parse(text.replace(/("(?:[^"\\]|\\.)*")|(-?\d+)(?![\d.eE])/g,
    (m, s, n) => (s ? s : `{"__big":"${n}"}`)), (k, v) => (v && typeof v === 'object' && '__big' in v ? BigInt(v.__big) : v));
}

// ---- Thrift compact, for page headers and the page index ---------------------------------------------------

function tRead(buf, pos) {
  let p = pos;
  const varint = () => {
    let v = 0n, shift = 0n;
    for (;;) {
      if (p >= buf.length) throw new Error('Thrift: truncated');
      const b = buf[p++];
      v |= BigInt(b & 127) << shift;
      if (!(b & 128)) return v;
      shift += 7n;
    }
  };
  const zigzag = () => { const v = varint(); return (v >> 1n) ^ -(v & 1n); };
  const value = (type) => {
    switch (type) {
      case 1: return true;
      case 2: return false;
      case 3: return BigInt.asIntN(8, BigInt(buf[p++]));
      case 4: case 5: case 6: return zigzag();
      case 7: { const v = buf.readDoubleLE(p); p += 8; return v; }
      case 8: { const n = Number(varint()); const v = buf.subarray(p, p + n); p += n; return v; }
      case 9: case 10: {
        const h = buf[p++];
        let n = h >> 4;
        const et = h & 15;
        if (n === 15) n = Number(varint());
        const out = [];
        for (let i = 0; i < n; i++) out.push(et === 1 || et === 2 ? buf[p++] === 1 : value(et));
        return out;
      }
      case 11: {
        const n = Number(varint());
        if (n === 0) return new Map();
        const kv = buf[p++];
        const m = new Map();
        for (let i = 0; i < n; i++) m.set(value(kv >> 4), value(kv & 15));
        return m;
      }
      case 12: return struct();
      default: throw new Error(`Thrift: type ${type}`);
    }
  };
  const struct = () => {
    const o = {};
    let id = 0;
    for (;;) {
      const h = buf[p++];
      if (h === 0) return o;
      const d = h >> 4;
      id = d ? id + d : Number(zigzag());
      o[id] = value(h & 15);
    }
  };
  const v = struct();
  return { v, len: p - pos };
}

// ---- oracles (projected) ---------------------------------------------------------------------------------------

let duck = null, arrowMod = null;
const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;
const sqlIdent = (s) => `"${s.replaceAll('"', '""')}"`;

async function duckRows(file, shape, fields) {
  const { fromDuck } = await import('./oracle_duckdb.mjs');
  const sel = fields.map((f) => sqlIdent(f.name)).join(', ');
  const r = await duck.con.runAndReadAll(`SELECT ${sel} FROM read_parquet(${sqlString(file)}, binary_as_string = false)`);
  return r.getRows().map((row) => fields.map((f, j) => fromDuck(f.shape, row[j])));
}

async function arrowRows(file, fields) {
  if (!arrowMod) {
    const require = createRequire(import.meta.url);
    arrowMod = { wasm: require('parquet-wasm/node'), arrow: await import('apache-arrow'), o: await import('./oracle_arrow.mjs') };
  }
  const { wasm, arrow, o } = arrowMod;
  const t = wasm.readParquet(new Uint8Array(fs.readFileSync(file)), { columns: fields.map((f) => f.name) });
  const table = arrow.tableFromIPC(t.intoIPCStream());
  const out = [];
  for (const batch of table.batches) {
    const cols = fields.map((f) => batch.data.children[table.schema.fields.findIndex((x) => x.name === f.name)]);
    for (let i = 0; i < batch.numRows; i++) out.push(fields.map((f, j) => o.fromArrow(f.shape, cols[j], i)));
  }
  return out;
}

// Compares an oracle's rows (per field) with the generated lines.
function compareRows(name, got, fields, expected) {
  if (got.length !== expected.length) throw new Failure(`${name} reads ${got.length} rows, ${expected.length} written`);
  for (let r = 0; r < got.length; r++) {
    for (let j = 0; j < fields.length; j++) {
      const d = firstDiff(got[r][j], expected[r].get(fields[j].name), fields[j].name);
      if (d) throw new Failure(`${name} row ${r} ${d.path}: written ${show(d.upq)}, ${name} ${show(d.oracle)}`);
    }
  }
}

const ruleMatches = (rule, c) => !!c && (!rule.phys || rule.phys.includes(c.kind.phys)) &&
  (!rule.kind || rule.kind.includes(c.kind.id)) && (!rule.enc || rule.enc === (c.enc || 'default'));

// Reads `fields` with one oracle; columns it cannot read must match a rule.
// Returns the fields left for the other oracle and notes.
async function readWith(name, reader, file, fields, cols, expected, rules, notes) {
  let ok = fields, failed = [];
  const skipped = [];
  fields = fields.filter((f) => {
    const c = cols.find((x) => x.name === f.name);
    const rule = rules.find((ru) => ru.skip && ruleMatches(ru, c));
    if (!rule) return true;
    skipped.push(f);
    notes.add(`${name} skips ${c.kind.id}`);
    return false;
  });
  if (fields.length === 0) return skipped;
  try {
    compareRows(name, await reader(file, fields), fields, expected);
    return skipped;
  } catch (e) {
    if (e instanceof Failure) throw e;
    // which columns does it refuse?
    ok = [];
    for (const f of fields) {
      try { await reader(file, [f]); ok.push(f); } catch (e2) { failed.push([f, String(e2.message || e2).split('\n')[0]]); }
    }
    if (failed.length === 0) throw new Failure(`${name} cannot read the file: ${String(e.message || e).split('\n')[0]}`);
  }
  for (const [f, msg] of failed) {
    const c = cols.find((x) => x.name === f.name);
    const rule = rules.find((ru) => ruleMatches(ru, c));
    if (!rule) throw new Failure(`${name} cannot read column ${f.name} (not an exception): ${msg.slice(0, 200)}`);
    notes.add(`${name} skips ${c.kind.id}/${c.enc || 'default'}`);
  }
  if (ok.length) compareRows(name, await reader(file, ok), ok, expected);
  return [...skipped, ...failed.map(([f]) => f)];
}

// ---- statistics ------------------------------------------------------------------------------------------------

function cmpKey(a, b) {
  const x = a[1], y = b[1];
  switch (a[0]) {
    case 'b': return Buffer.compare(x, y);
    case 'z': return (x ? 1 : 0) - (y ? 1 : 0);
    case 'f': return x < y ? -1 : x > y ? 1 : 0;
    default: return x < y ? -1 : x > y ? 1 : 0;
  }
}
const keyEq = (a, b) => (a[0] === 'f' ? Object.is(a[1], b[1]) : cmpKey(a, b) === 0);
const showKey = (k) => (k === null ? 'none' : k[0] === 'b' ? `0x${k[1].toString('hex').slice(0, 40)}${k[1].length > 20 ? '...' : ''}`
  : Object.is(k[1], -0) ? '-0' : String(k[1]));

// Bounds and null count of a list of raw values (nulls included).
function expectStats(kind, vals) {
  let nulls = 0, min = null, max = null;
  for (const v of vals) {
    if (v === null) { nulls++; continue; }
    if (!kind.order) continue;
    const k = kind.key(v);
    if (k[0] === 'f' && Number.isNaN(k[1])) continue;
    if (min === null || cmpKey(k, min) < 0) min = k;
    if (max === null || cmpKey(k, max) > 0) max = k;
  }
  // zeros: the min is written as -0 and the max as +0
  if (min && min[0] === 'f' && min[1] === 0) min = ['f', -0];
  if (max && max[0] === 'f' && max[1] === 0) max = ['f', 0];
  return { nulls, min, max, nonNull: vals.length - nulls };
}

function daysFromCivil(y, m, d) {
  y -= m <= 2 ? 1n : 0n;
  const era = (y >= 0n ? y : y - 399n) / 400n;
  const yoe = y - era * 400n;
  const mp = m > 2n ? m - 3n : m + 9n;
  const doy = (153n * mp + 2n) / 5n + d - 1n;
  const doe = yoe * 365n + yoe / 4n - yoe / 100n + doy;
  return era * 146097n + doe - 719468n;
}

// "YYYY-MM-DD", "[T ]HH:MM:SS[.frac]", zone suffixes ("Z", "+00") dropped.
function parseDateTime(s, unit) {
  const m = /^([+-]?\d+)-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d):(\d\d)(?:\.(\d+))?)?(?:Z|\+00(?::00)?)?$/.exec(s);
  if (!m) return null;
  const days = daysFromCivil(BigInt(m[1]), BigInt(m[2]), BigInt(m[3]));
  if (!unit) return days;
  const per = UNITS[unit];
  const frac = (m[7] || '').padEnd(9, '0');
  const ns = BigInt(frac.slice(0, 9));
  const sec = days * DAY + BigInt(m[4] || 0) * 3600n + BigInt(m[5] || 0) * 60n + BigInt(m[6] || 0);
  return sec * per + ns / (1000000000n / per);
}

function parseTime(s, unit) {
  const m = /^(\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:Z|\+00(?::00)?)?$/.exec(s);
  if (!m) return null;
  const per = UNITS[unit];
  const ns = BigInt((m[4] || '').padEnd(9, '0').slice(0, 9));
  return (BigInt(m[1]) * 3600n + BigInt(m[2]) * 60n + BigInt(m[3])) * per + ns / (1000000000n / per);
}

function parseDecimal(s, scale) {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(s);
  if (!m) return null;
  const frac = (m[3] || '').padEnd(scale, '0');
  if (frac.length !== scale) return null;
  const v = BigInt(m[2] + frac);
  return m[1] ? -v : v;
}

const parseFloatText = (s) => {
  const t = String(s).toLowerCase();
  if (t === 'nan') return NaN;
  if (t === 'infinity' || t === 'inf') return Infinity;
  if (t === '-infinity' || t === '-inf') return -Infinity;
  return Number(s);
};

// A statistics value as text (upq meta --json, DuckDB) -> key, by kind.
function textKey(kind, v, who) {
  if (v === null || v === undefined) return null;
  const ann = kind.ann || '';
  const s = String(v);
  let m;
  switch (kind.order) {
    case 'z': return ['z', s === 'true'];
    case 'f': return ['f', kind.phys === 'FLOAT' ? Math.fround(parseFloatText(s)) : kind.id === 'f16' ? roundHalf(parseFloatText(s)) : parseFloatText(s)];
    case 'u': return ['u', BigInt(s)];
    case 'i':
      if (ann === 'DATE') return ['i', parseDateTime(s)];
      if ((m = /^TIME\((\w+),/.exec(ann))) return ['i', parseTime(s, m[1])];
      if ((m = /^TIMESTAMP\((\w+),/.exec(ann))) return ['i', parseDateTime(s, m[1])];
      if ((m = /^DECIMAL\(\d+,(\d+)\)/.exec(ann))) return ['i', parseDecimal(s, Number(m[1]))];
      return ['i', BigInt(s)];
    case 'b':
      if (['STRING', 'ENUM', 'JSON'].includes(ann)) return ['b', Buffer.from(s, 'utf8')];
      if (ann === 'UUID') return ['b', Buffer.from(s.replaceAll('-', ''), 'hex')];
      if (who === 'upq') return ['b', Buffer.from(s.replace(/^0x/, ''), 'hex')];
      // DuckDB's BLOB text: printable ASCII as is, everything else \xHH
      return ['b', Buffer.from(s.replace(/\\x([0-9a-fA-F]{2})|[\s\S]/g, (x, h) => String.fromCharCode(h ? parseInt(h, 16) : x.charCodeAt(0))), 'latin1')];
    default: return null;
  }
}

// Checks one set of bounds against the expected ones. Binary bounds longer
// than STATS_MAX_BINARY (the writer's default) may be truncated: then they
// must still bound the values, be marked inexact (chunk statistics; the
// page index has no flag) and be no longer than that.
const STATS_MAX_BINARY = 64;

function checkBounds(where, kind, exp, min, max, minExact, maxExact, pageIndex = false) {
  if (!kind.order || exp.min === null) {
    if (min !== null || max !== null) throw new Failure(`${where}: min/max ${showKey(min)}/${showKey(max)} written, want none`);
    return;
  }
  if (min === null || max === null) throw new Failure(`${where}: no min/max, want ${showKey(exp.min)}/${showKey(exp.max)}`);
  const one = (what, got, want, exact, side) => {
    if (keyEq(got, want)) {
      if (exact === false && !pageIndex) throw new Failure(`${where}: ${what} ${showKey(got)} is exact but marked inexact`);
      return;
    }
    const truncatable = kind.order === 'b' && kind.phys === 'BYTE_ARRAY' && want[1].length > STATS_MAX_BINARY;
    if (!truncatable) throw new Failure(`${where}: ${what} ${showKey(got)}, want ${showKey(want)}`);
    if (exact !== false && !pageIndex) throw new Failure(`${where}: ${what} ${showKey(got)} differs from ${showKey(want)} but is marked exact`);
    if (got[1].length > STATS_MAX_BINARY) throw new Failure(`${where}: ${what} of ${got[1].length} bytes, longer than ${STATS_MAX_BINARY}`);
    if (cmpKey(got, want) * side < 0) throw new Failure(`${where}: truncated ${what} ${showKey(got)} does not bound ${showKey(want)}`);
  };
  one('min', min, exp.min, minExact, -1);
  one('max', max, exp.max, maxExact, 1);
}

// ---- one case ---------------------------------------------------------------------------------------------------

const PAGE_TYPES = { 0: 'DATA_PAGE', 2: 'DICTIONARY_PAGE', 3: 'DATA_PAGE_V2' };
const ENC_NAMES = { 0: 'PLAIN', 2: 'PLAIN_DICTIONARY', 3: 'RLE', 5: 'DELTA_BINARY_PACKED', 6: 'DELTA_LENGTH_BYTE_ARRAY',
  7: 'DELTA_BYTE_ARRAY', 8: 'RLE_DICTIONARY', 9: 'BYTE_STREAM_SPLIT' };
const isDictEnc = (e) => e === 'PLAIN_DICTIONARY' || e === 'RLE_DICTIONARY';

async function runCase(cs, work) {
  const built = buildCase(cs);
  const base = path.join(work, cs.name);
  const sfile = `${base}.schema`, jfile = `${base}.jsonl`, pfile = `${base}.parquet`;
  fs.writeFileSync(sfile, built.schema);
  fs.writeFileSync(jfile, built.text);
  fs.rmSync(pfile, { force: true });
  const notes = new Set();

  // the write
  const w = await run(['write', '--schema', sfile, ...built.args, jfile, pfile]);
  if (!w.ok) throw new Failure(`upq write ${built.args.join(' ')}: ${w.status}: ${lastLines(w.stderr)}`);

  // 1. upq reads back exactly what was written
  const cat = await run(['cat', '--json', pfile]);
  if (!cat.ok) throw new Failure(`upq cat --json: ${cat.status}: ${lastLines(cat.stderr)}`);
  if (cat.stdout !== built.text) {
    const a = built.text.split('\n'), b = cat.stdout.split('\n');
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    throw new Failure(`upq cat --json differs at line ${i + 1}: wrote ${(a[i] ?? '(end)').slice(0, 300)} | read ${(b[i] ?? '(end)').slice(0, 300)}`);
  }

  // the footer
  const metaRun = await run(['meta', '--json', pfile]);
  if (!metaRun.ok) throw new Failure(`upq meta --json: ${metaRun.status}: ${lastLines(metaRun.stderr)}`);
  const meta = parseJsonExact(metaRun.stdout);
  const shape = rowShape(meta.schema);
  const expected = built.text.split('\n').filter((l) => l).map((l) => parseJsonLine(l));

  // 2. DuckDB, 3. arrow-rs
  const fields = shape.fields;
  const left = await readWith('DuckDB', (f, fl) => duckRows(f, shape, fl), pfile, fields, cs.cols, expected, DUCKDB_EXCEPTIONS, notes);
  const arrowLeft = await readWith('arrow-rs', arrowRows, pfile, fields, cs.cols, expected, ARROW_EXCEPTIONS, notes);
  const neither = left.filter((f) => arrowLeft.includes(f));
  for (const f of neither) {
    const c = cs.cols.find((x) => x.name === f.name);
    if (!NEITHER.some((ru) => ruleMatches(ru, c))) throw new Failure(`neither DuckDB nor arrow-rs reads ${f.name}`);
    notes.add(`only upq reads ${c.kind.id}/${c.enc}`);
  }

  // 4. the footer's structure
  if (BigInt(cs.rows) !== meta.num_rows) throw new Failure(`num_rows ${meta.num_rows}, ${cs.rows} written`);
  const rgs = meta.row_groups;
  if (cs.rgRows && !cs.checkpoint) {
    const want = Math.ceil(cs.rows / cs.rgRows);
    if (rgs.length !== want) throw new Failure(`${rgs.length} row groups, want ${want} (--row-group-rows ${cs.rgRows})`);
  }
  if (cs.manyGroups && rgs.length < 3) throw new Failure(`${rgs.length} row groups, want several (--row-group-size, --direct)`);
  if (cs.rows === 0 && rgs.length > 1) throw new Failure(`${rgs.length} row groups for no rows`);
  const leaves = cs.cols.flatMap(leavesOf);
  if (meta.schema.filter((e) => e.type !== null).length !== leaves.length) throw new Failure('leaf count differs from the schema');

  const fd = fs.openSync(pfile, 'r');
  const readAt = (off, len) => {
    const b = Buffer.alloc(len);
    const n = fs.readSync(fd, b, 0, len, Number(off));
    return b.subarray(0, n);
  };
  const duckStats = [];
  if (!cs.cols.some((c) => c.kind.id === 'bson')) {
    const r = await duck.con.runAndReadAll(`SELECT row_group_id, column_id, stats_min_value, stats_max_value, stats_null_count FROM parquet_metadata(${sqlString(pfile)}) ORDER BY row_group_id, column_id`);
    for (const row of r.getRows()) {
      (duckStats[Number(row[0])] ||= [])[Number(row[1])] = { min: row[2], max: row[3], nulls: row[4] };
    }
  } else notes.add('DuckDB statistics not read (BSON)');

  let firstRow = 0, pages = 0, maxPages = 0;
  try {
    for (let g = 0; g < rgs.length; g++) {
      const rg = rgs[g];
      const nrows = Number(rg.num_rows);
      const rowsHere = built.rows.slice(firstRow, firstRow + nrows);
      if (rg.columns.length !== leaves.length) throw new Failure(`row group ${g}: ${rg.columns.length} columns`);
      for (let li = 0; li < leaves.length; li++) {
        const lf = leaves[li], ch = rg.columns[li];
        const where = `row group ${g} ${lf.path}`;
        if (ch.path !== lf.path) throw new Failure(`${where}: the chunk's path is ${ch.path}`);
        if (ch.codec !== cs.codec) throw new Failure(`${where}: codec ${ch.codec}, want ${cs.codec}`);
        const ci = cs.cols.indexOf(lf.col);
        const perRow = rowsHere.map((row) => lf.entries(row[ci]));
        const all = perRow.flat();
        if (BigInt(all.length) !== ch.num_values) throw new Failure(`${where}: num_values ${ch.num_values}, want ${all.length}`);

        // encodings asked for, on the data pages
        const es = ch.encoding_stats || [];
        const dataEncs = new Set(es.filter((e) => e.page_type !== 'DICTIONARY_PAGE').map((e) => e.encoding));
        const dictPages = es.filter((e) => e.page_type === 'DICTIONARY_PAGE').length;
        if (lf.enc && nrows > 0) {
          if (lf.enc === 'DICT') {
            if (!dictPages) throw new Failure(`${where}: no dictionary page, dictionary asked for`);
            const plain = [...dataEncs].filter((e) => !isDictEnc(e));
            if (![...dataEncs].some(isDictEnc)) throw new Failure(`${where}: no data page uses the dictionary (${[...dataEncs]})`);
            if (plain.length && !(cs.fallback && plain.every((e) => e === 'PLAIN'))) {
              throw new Failure(`${where}: data pages in ${plain}`);
            }
            if (cs.fallback === 'required' && g === 0 && lf.path !== 'n' && !plain.length) throw new Failure(`${where}: no fallback to PLAIN`);
            if (cs.fallback && plain.length) notes.add('dictionary fell back to PLAIN');
          } else {
            if (dictPages) throw new Failure(`${where}: a dictionary page, ${lf.enc} asked for`);
            if (dataEncs.size !== 1 || !dataEncs.has(lf.enc)) throw new Failure(`${where}: data pages in ${[...dataEncs]}, want ${lf.enc}`);
          }
          for (const e of dataEncs) if (!ch.encodings.includes(e)) throw new Failure(`${where}: encodings ${ch.encodings} lack ${e}`);
        }

        // 5. chunk statistics
        const exp = expectStats(lf.kind, all);
        const st = ch.statistics;
        if (cs.noStats) {
          if (st && (st.null_count !== null || st.min_value !== null || st.max_value !== null)) throw new Failure(`${where}: statistics with --no-statistics`);
        } else if (!st) throw new Failure(`${where}: no statistics`);
        if (st && !cs.noStats) {
        if (BigInt(exp.nulls) !== st.null_count) throw new Failure(`${where}: null_count ${st.null_count}, want ${exp.nulls}`);
        checkBounds(`${where} statistics`, lf.kind, exp, textKey(lf.kind, st.min_value, 'upq'), textKey(lf.kind, st.max_value, 'upq'),
          st.is_min_value_exact, st.is_max_value_exact);
        const ds = duckStats[g] && duckStats[g][li];
        const duckSkip = DUCKDB_EXCEPTIONS.some((ru) => ru.skip && ruleMatches(ru, lf.col));
        if (ds && !duckSkip) {
          if (BigInt(exp.nulls) !== ds.nulls) throw new Failure(`${where}: DuckDB's null count ${ds.nulls}, want ${exp.nulls}`);
          let dmin = textKey(lf.kind, ds.min, 'duckdb'), dmax = textKey(lf.kind, ds.max, 'duckdb');
          const inf = (k) => k && k[0] === 'f' && !Number.isFinite(k[1]);
          if ((dmin === null && inf(exp.min)) || (dmax === null && inf(exp.max))) {
            notes.add(DUCKDB_NO_INFINITE_STATS);
            if (dmin === null) dmin = exp.min;
            if (dmax === null) dmax = exp.max;
          }
          checkBounds(`${where} statistics as DuckDB reads them`, lf.kind, exp, dmin, dmax,
            st.is_min_value_exact, st.is_max_value_exact);
        } else if (!ds && duckStats.length && nrows > 0) throw new Failure(`${where}: not in DuckDB's parquet_metadata`);
        }

        // the pages, walked from the chunk's start: headers, CRCs, page
        // statistics, page versions and encodings
        const start = ch.dictionary_page_offset ?? ch.data_page_offset;
        const chunkEnd = start + ch.total_compressed_size;
        const walked = [];
        let rowsSeen = 0, valuesSeen = 0;
        for (let pos = start, k = 0; pos < chunkEnd; k++) {
          const head = readAt(pos, Number(chunkEnd - pos < 1048576n ? chunkEnd - pos : 1048576n));
          const h = tRead(head, 0);
          const size = h.len + Number(h.v[3]);
          const pw = `${where} page at ${pos}`;
          if (pos + BigInt(size) > chunkEnd) throw new Failure(`${pw}: runs past the chunk's end`);
          const body = readAt(pos + BigInt(h.len), Number(h.v[3]));
          if (h.v[4] === undefined) {
            if (!cs.noCrc) throw new Failure(`${pw}: no CRC`);
          } else {
            if (cs.noCrc) throw new Failure(`${pw}: a CRC with --no-crc`);
            if ((zlib.crc32(body) | 0) !== Number(h.v[4])) throw new Failure(`${pw}: CRC ${h.v[4]} does not match the page`);
          }
          const ptype = PAGE_TYPES[Number(h.v[1])];
          if (ptype === 'DICTIONARY_PAGE') {
            if (k !== 0 || pos !== ch.dictionary_page_offset) throw new Failure(`${pw}: a dictionary page not first`);
          } else {
            if (ptype !== (cs.v2 ? 'DATA_PAGE_V2' : 'DATA_PAGE')) throw new Failure(`${pw}: ${ptype}, want ${cs.v2 ? 'v2' : 'v1'}`);
            const dh = cs.v2 ? h.v[8] : h.v[5];
            const penc = ENC_NAMES[Number(cs.v2 ? dh[4] : dh[2])];
            if (!dataEncs.has(penc)) throw new Failure(`${pw}: in ${penc}, not in encoding_stats`);
            const nvals = Number(dh[1]);
            let first = rowsSeen, prow = null;
            if (cs.v2) { prow = Number(dh[3]); rowsSeen += prow; }
            valuesSeen += nvals;
            const pst = cs.v2 ? dh[8] : dh[5];
            if (cs.noStats && pst) throw new Failure(`${pw}: page statistics with --no-statistics`);
            walked.push({ off: pos, size, first, prow, nvals, stats: pst });
          }
          pos += BigInt(size);
        }
        if (valuesSeen !== all.length) throw new Failure(`${where}: the data pages hold ${valuesSeen} values, want ${all.length}`);
        if (cs.v2 && rowsSeen !== nrows) throw new Failure(`${where}: the v2 pages hold ${rowsSeen} rows, want ${nrows}`);
        const dataPages = es.filter((e) => e.page_type !== 'DICTIONARY_PAGE').reduce((a, e) => a + Number(e.count), 0);
        if (dataPages !== walked.length) throw new Failure(`${where}: ${walked.length} data pages, ${dataPages} in encoding_stats`);
        if (walked.length && walked[0].off !== ch.data_page_offset) throw new Failure(`${where}: data_page_offset ${ch.data_page_offset}, the first data page is at ${walked[0].off}`);
        pages += walked.length;
        maxPages = Math.max(maxPages, walked.length);

        // 6. the page index
        if (cs.noPageIndex) {
          if (ch.offset_index_offset !== null || ch.column_index_offset !== null) throw new Failure(`${where}: a page index with --no-page-index`);
          continue;
        }
        if (ch.offset_index_offset === null) throw new Failure(`${where}: no OffsetIndex`);
        const oi = tRead(readAt(ch.offset_index_offset, Number(ch.offset_index_length)), 0);
        if (oi.len !== Number(ch.offset_index_length)) throw new Failure(`${where}: OffsetIndex is ${oi.len} bytes, the footer says ${ch.offset_index_length}`);
        const locs = (oi.v[1] || []).map((l) => ({ off: l[1], size: Number(l[2]), first: Number(l[3]) }));
        if (locs.length !== walked.length) throw new Failure(`${where}: ${locs.length} pages in the OffsetIndex, ${walked.length} in the chunk`);
        if (locs[0].first !== 0) throw new Failure(`${where}: first_row_index ${locs[0].first}`);
        for (let p = 0; p < locs.length; p++) {
          const L = locs[p], W = walked[p];
          if (L.off !== W.off || L.size !== W.size) throw new Failure(`${where}: OffsetIndex page ${p} at ${L.off}+${L.size}, the page is at ${W.off}+${W.size}`);
          if (p && !(L.first > locs[p - 1].first)) throw new Failure(`${where}: first_row_index not increasing at page ${p}`);
          if (L.first >= nrows) throw new Failure(`${where}: page ${p} starts at row ${L.first} of ${nrows}`);
          const to = p + 1 < locs.length ? locs[p + 1].first : nrows;
          if (W.prow !== null && W.prow !== to - L.first) throw new Failure(`${where}: v2 page ${p} has num_rows ${W.prow}, the OffsetIndex says ${to - L.first}`);
          const pexp = expectStats(lf.kind, perRow.slice(L.first, to).flat());
          if (pexp.nulls + pexp.nonNull !== W.nvals) throw new Failure(`${where}: page ${p} holds ${W.nvals} values, rows ${L.first}..${to} have ${pexp.nulls + pexp.nonNull}`);
          // the page header's own statistics
          if (W.stats && !cs.noStats) {
            const ps = W.stats, pw = `${where} page ${p} header statistics`;
            if (ps[3] !== undefined && BigInt(pexp.nulls) !== ps[3]) throw new Failure(`${pw}: null_count ${ps[3]}, want ${pexp.nulls}`);
            const pk = (b) => (b === undefined ? null : lf.kind.key(lf.kind.plain(b)));
            if (pexp.nonNull && (ps[6] !== undefined || ps[5] !== undefined || lf.kind.order)) {
              checkBounds(pw, lf.kind, pexp, pk(ps[6]), pk(ps[5]), ps[8], ps[7]);
            }
          }
        }
        if (ch.column_index_offset === null) {
          // as parquet-java does, a chunk with a page of only NaN may go without
          const nanPage = locs.some((L, p) => {
            const to = p + 1 < locs.length ? locs[p + 1].first : nrows;
            const e = expectStats(lf.kind, perRow.slice(L.first, to).flat());
            return e.nonNull > 0 && e.min === null;
          });
          if (lf.kind.order && !nanPage) throw new Failure(`${where}: no ColumnIndex`);
          if (nanPage) notes.add('no ColumnIndex for a chunk with a page of only NaN');
          continue;
        }
        const ciBuf = readAt(ch.column_index_offset, Number(ch.column_index_length));
        const cix = tRead(ciBuf, 0);
        if (cix.len !== Number(ch.column_index_length)) throw new Failure(`${where}: ColumnIndex is ${cix.len} bytes, the footer says ${ch.column_index_length}`);
        const nullPages = cix.v[1], mins = cix.v[2], maxs = cix.v[3], order = Number(cix.v[4]), ncounts = cix.v[5];
        if (nullPages.length !== locs.length || mins.length !== locs.length || maxs.length !== locs.length) {
          throw new Failure(`${where}: ColumnIndex has ${nullPages.length}/${mins.length}/${maxs.length} pages, OffsetIndex ${locs.length}`);
        }
        if (!ncounts || ncounts.length !== locs.length) throw new Failure(`${where}: ColumnIndex null_counts missing or of the wrong length`);
        const bounds = [];
        for (let p = 0; p < locs.length; p++) {
          const to = p + 1 < locs.length ? locs[p + 1].first : nrows;
          const pexp = expectStats(lf.kind, perRow.slice(locs[p].first, to).flat());
          const pw = `${where} page ${p}`;
          if (BigInt(pexp.nulls) !== ncounts[p]) throw new Failure(`${pw}: null_counts ${ncounts[p]}, want ${pexp.nulls}`);
          if (nullPages[p] !== (pexp.nonNull === 0)) throw new Failure(`${pw}: null_pages ${nullPages[p]}, ${pexp.nonNull} values`);
          if (nullPages[p]) continue;
          if (pexp.min === null) {
            // only NaN: bounds may be absent (empty) or NaN
            continue;
          }
          const pk = (b) => lf.kind.key(lf.kind.plain(b));
          const pmin = pk(mins[p]), pmax = pk(maxs[p]);
          checkBounds(pw, lf.kind, pexp, pmin, pmax, undefined, undefined, true);
          bounds.push([pmin, pmax]);
        }
        for (let p = 1; p < bounds.length; p++) {
          const a = bounds[p - 1], b = bounds[p];
          if (order === 1 && (cmpKey(a[0], b[0]) > 0 || cmpKey(a[1], b[1]) > 0)) throw new Failure(`${where}: boundary_order ASCENDING, pages ${p - 1} and ${p} are not`);
          if (order === 2 && (cmpKey(a[0], b[0]) < 0 || cmpKey(a[1], b[1]) < 0)) throw new Failure(`${where}: boundary_order DESCENDING, pages ${p - 1} and ${p} are not`);
        }
      }
      firstRow += nrows;
    }
  } finally {
    fs.closeSync(fd);
  }
  if (firstRow !== cs.rows) throw new Failure(`the row groups hold ${firstRow} rows`);
  if (cs.checkpoint) {
    try {
      // DuckDB, arrow-rs and hyparquet: every row (the columns of checkpoint
      // cases are ones all three read)
      const lines = built.text.split('\n').filter((l) => l);
      for (const n of await readersAgree(pfile, lines, { upq: opts.upq, duck, shape })) notes.add(n);
      notes.add('DuckDB, arrow-rs, hyparquet read every row');
      // row groups of at most --row-group-rows rows (64K by default)
      const sizes = rowGroupsWithin(meta, cs.rgRows || 65536, 'checkpoint mode');
      notes.add(`row groups ${[...new Set(sizes)].join('/')} rows`);
      for (const opt of cs.notes || []) {
        if (!w.stderr.includes(`${opt} has no effect in checkpoint mode`)) throw new Failure(`upq write does not say that ${opt} has no effect in checkpoint mode`);
      }
      if (cs.ckptRows) {
        notes.add(await cutRecover({ upq: opts.upq, file: pfile, lines, ckptRows: cs.ckptRows, work, duck, name: cs.name, keep: opts.keep }));
      }
      if (cs.append) {
        notes.add(await appendAfterCut({ upq: opts.upq, schema: sfile, args: built.args, lines, half: cs.append.half,
          cutAt: cs.append.cutAt, rgRows: cs.rgRows, ckptRows: cs.ckptRows, work, duck, name: cs.name, keep: opts.keep }));
      }
    } catch (e) {
      if (e instanceof CheckFailure) throw new Failure(e.message);
      throw e;
    }
  }
  if (cs.tinyPages && maxPages < 10) throw new Failure(`only ${maxPages} pages per chunk with --page-size 64`);
  if (!opts.keep) for (const f of [sfile, jfile, pfile]) fs.rmSync(f, { force: true });
  return `${cs.rows} rows, ${rgs.length} row groups, ${pages} pages${notes.size ? `; ${[...notes].join('; ')}` : ''}`;
}

// Every pair the design promises: (type, encoding), (encoding, codec),
// (codec, page version), (nesting, page version). Prints the counts;
// returns what is missing, or null.
function coverage(cases) {
  const want = { 'type x encoding': new Set(), 'encoding x codec': new Set(), 'codec x page version': new Set(),
                 'nesting x page version': new Set() };
  const encs = [...new Set(TYPES.flatMap((t) => t.encs))];
  for (const t of TYPES) for (const e of t.encs) want['type x encoding'].add(`${t.phys}/${e}`);
  for (const e of encs) for (const c of CODECS) want['encoding x codec'].add(`${e}/${c}`);
  for (const c of CODECS) for (const v of ['v1', 'v2']) want['codec x page version'].add(`${c}/${v}`);
  for (const sh of SHAPES) for (const v of ['v1', 'v2']) want['nesting x page version'].add(`${sh}/${v}`);
  const got = Object.fromEntries(Object.keys(want).map((k) => [k, new Set()]));
  for (const cs of cases) {
    const v = cs.v2 ? 'v2' : 'v1';
    got['codec x page version'].add(`${cs.codec}/${v}`);
    for (const c of cs.cols) {
      got['nesting x page version'].add(`${c.shape}/${v}`);
      if (!c.enc) continue;
      got['type x encoding'].add(`${c.kind.phys}/${c.enc}`);
      got['encoding x codec'].add(`${c.enc}/${cs.codec}`);
    }
  }
  const missing = [];
  const counts = [];
  for (const [k, w] of Object.entries(want)) {
    const miss = [...w].filter((x) => !got[k].has(x));
    counts.push(`${w.size - miss.length}/${w.size} ${k}`);
    if (miss.length) missing.push(`${k}: ${miss.join(', ')}`);
  }
  console.log(`# coverage: ${counts.join(', ')}`);
  return missing.length ? missing.join('; ') : null;
}

// ---- main -------------------------------------------------------------------------------------------------------

async function main() {
  const cases = makeCases().filter((c) => !opts.only || opts.only.test(c.name));
  if (opts.list) {
    for (const c of cases) console.log(`${c.name}: ${c.rows} rows, ${c.cols.length} columns, ${buildCase(c).args.join(' ')}`);
    return 0;
  }
  if (!fs.existsSync(opts.upq)) {
    console.log(`# ${opts.upq} is not built`);
    return opts.skipWithoutUpq ? 77 : 2;
  }
  const help = await run(['help']);
  if (!/^\s+write\b/m.test(help.stdout)) {
    console.log(`# ${opts.upq} has no write command yet: skipped`);
    return opts.skipWithoutUpq ? 77 : 2;
  }
  fs.mkdirSync(opts.work, { recursive: true });
  const { DuckOracle } = await import('./oracle_duckdb.mjs');
  duck = await DuckOracle.open();
  console.log(`# ${cases.length} cases; columns one reader cannot read are read by the other when listed:`);
  for (const e of DUCKDB_EXCEPTIONS) console.log(`#   DuckDB: ${[e.phys, e.kind, e.enc].filter(Boolean).join(' ')}: ${e.why}`);
  for (const e of ARROW_EXCEPTIONS) console.log(`#   arrow-rs: ${[e.phys, e.kind, e.enc].filter(Boolean).join(' ')}: ${e.why}`);
  for (const e of NEITHER) console.log(`#   neither: ${[e.phys, e.kind, e.enc].filter(Boolean).join(' ')}: ${e.why}`);
  console.log('#   DuckDB 1.5\'s parquet_metadata() does not show ColumnIndex/OffsetIndex offsets: the page index is decoded here');
  let pass = 0, fail = 0;
  const t0 = Date.now();
  if (!opts.only) {
    const why = coverage(cases);
    if (why) { console.log(`FAIL coverage: ${why}`); fail++; } else pass++;
  }
  for (const cs of cases) {
    try {
      const note = await runCase(cs, opts.work);
      console.log(`ok ${cs.name} (${note})`);
      pass++;
    } catch (e) {
      if (!(e instanceof Failure)) {
        console.log(`FAIL ${cs.name}: ${e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : e}`);
      } else console.log(`FAIL ${cs.name}: ${e.message}`);
      fail++;
    }
  }
  const twice = recoverTwiceLine();
  if (twice) {
    console.log(twice.line);
    if (twice.ok) pass++; else fail++;
  }
  duck.close();
  console.log(`# ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  console.log(`${pass} passed, ${fail} failed`);
  return fail ? 1 : 0;
}

const exitAfterFlush = (code) => process.stdout.write('', () => process.exit(code));
if (isMain) {
  main().then(exitAfterFlush, (e) => {
    console.error(e && e.stack ? e.stack : e);
    exitAfterFlush(1);
  });
}
