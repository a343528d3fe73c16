// hyparquet's reading of a Parquet file (a pure-JS reader, independent of
// DuckDB, arrow-rs and upq), as canonical rows (canonical.mjs).
//
//   import { HyparquetOracle, readRows } from './oracle_hyparquet.mjs';
//   const rows = await readRows(file);            // [Map, ...] in file order
//   for await (const batch of new HyparquetOracle().rows(file, shape)) ...
//
// HyparquetOracle has the shape of the other oracles: rows(file, shape)
// yields batches (one per row group) of expected rows, Maps of top-level
// field -> expected value, for the row shape built from the schema
// (`upq meta --json`, DuckDB's parquet_schema(), or schema() below, which
// gives the same entries from hyparquet's own footer parse). readRows(file,
// opts) collects them. diffCanonical() compares rows from two oracles (ANY
// matches anything); rowJson() is a row's text (canonical.mjs's show()).
//
// hyparquet decodes the pages (every encoding, levels, dictionaries,
// decompression through hyparquet-compressors) and assembles the nesting
// itself; this module only changes how some values come out, where
// hyparquet's own conversion is lossy by design:
//
//   DECIMAL     hyparquet divides into a double (inexact past 2^53): the
//               annotation is removed from the schema it reads with, so it
//               returns the unscaled INT32 / INT64 / big-endian bytes, which
//               are formatted here with the schema's scale.
//   INTERVAL,   hyparquet throws ("parquet interval not supported", "parquet
//   BSON        bson not supported"): the annotation is removed and the raw
//               FIXED_LEN_BYTE_ARRAY(12) / BYTE_ARRAY bytes are read; INTERVAL
//               is split into months, days, millis here.
//   MAP         hyparquet builds a JS object: keys become property names
//               (non-string keys stringified, integer-like keys reordered,
//               duplicates merged). The MAP / MAP_KEY_VALUE annotations are
//               removed, so hyparquet returns the key_value group as a plain
//               repeated group: {key_value: [{key, value}, ...]} in file
//               order, which becomes the canonical [{key, value}, ...].
//   LIST        hyparquet picks the element by its own rule (the repeated
//               group's only child, else the group), which differs from
//               LogicalTypes.md's backward-compatibility rules for legacy
//               two-level lists ("array", "<name>_tuple") and only applies
//               with the LIST converted type. The LIST annotation is removed
//               too: every group then comes back as an object and every
//               repeated field as an array, and the element is chosen here by
//               the canonical rules. hyparquet's Dremel assembly (levels to
//               nested arrays and objects) is still what builds the values.
//   timestamps, hyparquet makes Dates (milliseconds): its parsers hook is
//   INT96, DATE given exact ones that keep the integer ticks (INT96: the
//               nanoseconds since the epoch hyparquet computes itself) with
//               their unit, formatted here.
//   TIME        hyparquet leaves the INT32 / INT64 ticks: formatted here.
//   JSON        hyparquet JSON.parse()s it: the parser keeps the text.
//   GEOMETRY,   hyparquet decodes WKB to GeoJSON: the parsers keep the WKB
//   GEOGRAPHY   bytes (base64 like other binary). GeoParquet key-value
//               metadata is not applied (geoparquet: false), like the
//               other oracles.
//   binary      read with utf8: false: BYTE_ARRAY without an annotation stays
//               bytes (base64); STRING/UTF8 are decoded by hyparquet, ENUM
//               and JSON-without-converted-type here (TextDecoder, non-fatal,
//               as oracle_duckdb.mjs does).
//   UUID        hyparquet's lower-case 8-4-4-4-12 text (checked).
//   FLOAT16     hyparquet's number (every half value is a double).
//   UINT_*      hyparquet reinterprets 32/64-bit ones; the others arrive as
//               their INT32; any negative left is taken modulo 2^bits.
//
// What hyparquet cannot give (the value is canonical.mjs's ANY, which
// comparisons skip, and notes() says why):
//   INT96 with  hyparquet 1.33 builds the 96-bit value as
//   a negative  `BigInt(julianDay) << 64n | nanos` with the nanoseconds read
//   nanosecond  as a signed int64: when their top bit is set (Spark writes
//   field       such values for years past 2262, see int96_from_spark.md) the
//               OR keeps only the sign-extended nanoseconds and the day is
//               lost. hyparquet then reports julian day -1 plus 2^63..2^64
//               nanoseconds, which is recognised here (its range cannot be an
//               int64 TIMESTAMP(NANOS)); the value becomes ANY. A genuine
//               INT96 of julian day 106751..213503 (about 4420..4130 BC) falls
//               in the same range and is not compared either.
//   VARIANT     hyparquet decodes Variant to plain JS values (decimals as
//               doubles, shredded and unshredded object fields merged with a
//               spread), which the canonical form cannot be built from; the
//               canonical form does not compare Variant yet either. The
//               VARIANT annotation is removed so the raw metadata/value/
//               typed_value groups are read (and must decode) without
//               hyparquet's Variant decoding.
//   a repeated  top-level name (invalid, but possible): hyparquet's row
//               transposition finds columns by name, so every column of that
//               name after the first gets the first one's values.
// Files hyparquet refuses: encrypted ones (no decryption), column chunks in
// other files (file_path), and any codec hyparquet-compressors lacks; these
// throw OracleError.

import fs from 'node:fs';
import { parquetMetadataAsync, parquetRead } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import {
  Int, Flt, ANY, UNIT, base64, beSigned, buildSchemaTree, fmtDate, fmtDecimal, fmtTime, fmtTimestamp,
  interval, rowShape, show,
} from './canonical.mjs';
import { OracleError } from './oracle_duckdb.mjs';

export { OracleError };

const utf8 = new TextDecoder('utf-8');

// ---- exact parsers --------------------------------------------------------------

// Integer ticks in a unit, from the parsers below.
class Ticks {
  constructor(v, unit) { this.v = BigInt(v); this.unit = unit; }
}
class Days {
  constructor(v) { this.v = v; }
}
class JsonText {
  constructor(s) { this.s = s; }
}
// An INT96 hyparquet lost the day of (see the top of this file).
class LostInt96 {
  constructor(v) { this.v = v; }
}

// The nanoseconds hyparquet computes for an INT96 whose nanosecond field it
// read as negative: julian day -1, nanoseconds 2^63..2^64.
const LOST_LO = -2440589n * 86400000000000n + (1n << 63n);
const LOST_HI = -2440589n * 86400000000000n + (1n << 64n);

const PARSERS = {
  timestampFromMilliseconds: (v) => new Ticks(v, 'MILLIS'),
  timestampFromMicroseconds: (v) => new Ticks(v, 'MICROS'),
  // also INT96 (hyparquet computes the nanoseconds since the epoch)
  timestampFromNanoseconds: (v) => {
    const b = BigInt(v);
    return b >= LOST_LO && b < LOST_HI ? new LostInt96(b) : new Ticks(b, 'NANOS');
  },
  dateFromDays: (v) => new Days(v),
  jsonFromBytes: (b) => b && new JsonText(utf8.decode(b)),
  geometryFromBytes: (b) => b,
  geographyFromBytes: (b) => b,
};

// ---- the schema hyparquet reads with -------------------------------------------

const STRIP_GROUP = new Set(['LIST', 'MAP', 'MAP_KEY_VALUE', 'VARIANT']);
const STRIP_LEAF = new Set(['DECIMAL', 'INTERVAL', 'BSON']);

// A copy of the metadata without the annotations hyparquet converts lossily
// (see the top of this file).
function readingMetadata(metadata) {
  const schema = metadata.schema.map((e) => {
    const group = !e.type;
    const strip = group ? STRIP_GROUP : STRIP_LEAF;
    const out = { ...e };
    if (strip.has(out.converted_type)) out.converted_type = undefined;
    if (out.logical_type && strip.has(out.logical_type.type)) out.logical_type = undefined;
    return out;
  });
  return { ...metadata, schema };
}

// hyparquet's SchemaElements as `upq meta --json` schema entries.
function logicalText(lt) {
  if (!lt || typeof lt.type !== 'string') return null;
  switch (lt.type) {
    case 'DECIMAL': return `DECIMAL(${lt.precision},${lt.scale})`;
    case 'INTEGER': return `INTEGER(${lt.bitWidth},${!!lt.isSigned})`;
    case 'TIME': case 'TIMESTAMP': return `${lt.type}(${lt.unit},${!!lt.isAdjustedToUTC})`;
    case 'NULL': return 'UNKNOWN';
    case 'STRING': case 'MAP': case 'LIST': case 'ENUM': case 'DATE': case 'JSON': case 'BSON':
    case 'UUID': case 'FLOAT16': case 'VARIANT': case 'GEOMETRY': case 'GEOGRAPHY':
      return lt.type;
    default: return null; // FILE and types hyparquet does not know
  }
}

export function schemaEntries(metadata) {
  const num = (x) => (x === null || x === undefined ? null : Number(x));
  return metadata.schema.map((e, k) => ({
    name: e.name, type: e.type ?? null, type_length: num(e.type_length),
    repetition: k === 0 ? null : e.repetition_type ?? null, num_children: num(e.num_children),
    converted_type: e.converted_type ?? null, logical_type: logicalText(e.logical_type),
    scale: num(e.scale), precision: num(e.precision),
  }));
}

// ---- how hyparquet lays out each shape -----------------------------------------
//
// With LIST/MAP stripped, hyparquet gives every group an object of its
// children and every repeated field an array of its elements. For each
// list and map shape, `how` records where the canonical value is in that.

// LogicalTypes.md's list element (as canonical.mjs's listElement()).
function listElement(node) {
  const rep = node.children[0];
  if (node.children.length !== 1 || rep.e.repetition !== 'REPEATED') {
    throw new OracleError(`LIST group ${node.e.name} is not one repeated field`);
  }
  if (!rep.children.length) return rep;
  if (rep.children.length > 1) return rep;
  if (rep.e.name === 'array' || rep.e.name === `${node.e.name}_tuple`) return rep;
  if (rep.children[0].e.repetition === 'REPEATED') return rep;
  return rep.children[0];
}

const annotationOf = (e) => (e.logical_type ? String(e.logical_type).replace(/\(.*$/s, '') : e.converted_type || null);

// Walks a row shape and the schema tree together; returns Map shape -> how.
function layout(shape, root) {
  const how = new Map();
  const pending = [[shape, root, false]];
  while (pending.length) {
    const [s, node, asElement] = pending.pop();
    const fail = (why) => new OracleError(`${s.path || '(row)'}: the shape does not fit hyparquet's schema: ${why}`);
    if (!asElement && node.e.repetition === 'REPEATED') {
      if (s.t !== 'list') throw fail(`repeated ${node.e.name} is not a list`);
      how.set(s, { repeated: true });
      pending.push([s.elem, node, true]);
      continue;
    }
    switch (s.t) {
      case 'leaf': case 'variant':
        break;
      case 'struct':
        if (s.fields.length !== node.children.length) throw fail(`${s.fields.length} fields, ${node.children.length} children`);
        s.fields.forEach((f, j) => {
          if (f.name !== node.children[j].e.name) throw fail(`field ${f.name} is ${node.children[j].e.name} in the file`);
          pending.push([f.shape, node.children[j], false]);
        });
        break;
      case 'list': {
        if (annotationOf(node.e) !== 'LIST') throw fail('a list that is neither LIST nor repeated');
        const rep = node.children[0];
        const el = listElement(node);
        how.set(s, { rep: rep.e.name, el: el === rep ? null : el.e.name });
        pending.push([s.elem, el, el === rep]);
        break;
      }
      case 'map': {
        const kv = node.children[0];
        if (!kv || !kv.children.length) throw fail('a map without key_value');
        how.set(s, { kv: kv.e.name, key: kv.children[0].e.name, value: kv.children[1] ? kv.children[1].e.name : null });
        pending.push([s.key, kv.children[0], false]);
        if (s.value) pending.push([s.value, kv.children[1], false]);
        break;
      }
      default:
        throw fail(`unknown shape ${s.t}`);
    }
  }
  return how;
}

// ---- values ------------------------------------------------------------------

function typeName(v) {
  return v === null ? 'null' : typeof v === 'object' ? v.constructor.name : typeof v;
}

function bad(shape, v, why) {
  let text;
  try { text = v instanceof Ticks ? `${v.v} ${v.unit}` : String(v); } catch { text = '?'; }
  return new OracleError(`${shape.path}: hyparquet gave ${typeName(v)} ${text.slice(0, 60)}${why ? ` (${why})` : ''}`);
}

const isInt = (v) => typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v));

// ticks in unit `from` to unit `to`, exactly
function rescale(shape, v, from, to) {
  const a = UNIT[from].per, b = UNIT[to].per;
  if (a === b) return v;
  if (b > a) return v * (b / a);
  if (v % (a / b) !== 0n) throw bad(shape, v, `not a whole number of ${to}`);
  return v / (a / b);
}

// leaf() gives LOST for a value hyparquet cannot give; fromHyparquet makes
// it ANY and records the path.
const LOST = Object.freeze({ lost: true });

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function leaf(shape, v) {
  switch (shape.kind) {
    case 'null':
      return null;
    case 'bool':
      if (typeof v !== 'boolean') throw bad(shape, v);
      return v;
    case 'int': {
      if (!isInt(v)) throw bad(shape, v);
      let b = BigInt(v);
      if (!shape.signed && b < 0n) b += 1n << BigInt(shape.bits);
      return new Int(b);
    }
    case 'float':
      if (typeof v !== 'number') throw bad(shape, v);
      return new Flt(v, shape.bits);
    case 'string':
      if (typeof v === 'string') return v;
      if (v instanceof JsonText) return v.s;
      if (v instanceof Uint8Array) return utf8.decode(v);
      throw bad(shape, v);
    case 'bytes':
      if (v instanceof Uint8Array) return base64(v);
      throw bad(shape, v);
    case 'decimal': {
      let u;
      if (isInt(v)) u = BigInt(v);
      else if (v instanceof Uint8Array) u = beSigned(v);
      else throw bad(shape, v, 'not an unscaled decimal');
      return fmtDecimal(u, shape.scale);
    }
    case 'date':
      if (v instanceof Days) return fmtDate(v.v);
      if (isInt(v)) return fmtDate(v); // DATE without the converted type
      throw bad(shape, v);
    case 'time':
      if (!isInt(v)) throw bad(shape, v);
      return fmtTime(BigInt(v), shape.unit);
    case 'timestamp': {
      let t;
      if (v instanceof Ticks) t = rescale(shape, v.v, v.unit, shape.unit);
      else if (isInt(v)) t = BigInt(v); // no annotation hyparquet converts
      else throw bad(shape, v);
      return fmtTimestamp(t, shape.unit, shape.utc);
    }
    case 'int96':
      if (v instanceof LostInt96) return LOST;
      if (!(v instanceof Ticks)) throw bad(shape, v);
      return fmtTimestamp(rescale(shape, v.v, v.unit, 'NANOS'), 'NANOS', false);
    case 'uuid':
      if (typeof v === 'string' && UUID_RE.test(v)) return v;
      throw bad(shape, v);
    case 'interval': {
      if (!(v instanceof Uint8Array) || v.length !== 12) throw bad(shape, v);
      const dv = new DataView(v.buffer, v.byteOffset, 12);
      return interval(dv.getUint32(0, true), dv.getUint32(4, true), dv.getUint32(8, true));
    }
    default:
      throw bad(shape, v, `unhandled kind ${shape.kind}`);
  }
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v);

function field(s, v, name) {
  if (!isObject(v) || !Object.hasOwn(v, name)) throw bad(s, v, `no field ${name}`);
  return v[name];
}

// hyparquet value -> expected value for one shape, with a stack (nesting is
// unbounded in principle). Each item fills slot `k` of `into`.
// `lost`, when given, is a Set that collects the paths of values given as
// ANY because hyparquet cannot give them.
export function fromHyparquet(shape, value, how, lost = null) {
  const root = [undefined];
  const pending = [[shape, value, root, 0]];
  while (pending.length) {
    const [s, v, into, k] = pending.pop();
    if (s.t === '__struct') { s.fields.forEach((f, j) => v.set(f.name, into[j])); continue; }
    if (s.t === '__pair') { into[k] = new Map([['key', v[0]], ['value', v[1]]]); continue; }
    if (v === null || v === undefined) { into[k] = null; continue; }
    switch (s.t) {
      case 'variant':
        into[k] = ANY;
        break;
      case 'leaf': {
        const x = leaf(s, v);
        if (x === LOST) {
          into[k] = ANY;
          if (lost) lost.add(s.path);
        } else into[k] = x;
        break;
      }
      case 'struct': {
        if (!isObject(v)) throw bad(s, v);
        const m = new Map();
        const tmp = new Array(s.fields.length);
        into[k] = m;
        // fill tmp, then the Map in schema order
        pending.push([{ t: '__struct', fields: s.fields }, m, tmp, null]);
        s.fields.forEach((f, j) => pending.push([f.shape, field(s, v, f.name), tmp, j]));
        break;
      }
      case 'list': {
        const h = how.get(s);
        let items, pick = null;
        if (h.repeated) items = v;
        else {
          items = field(s, v, h.rep);
          pick = h.el;
        }
        if (!Array.isArray(items)) throw bad(s, items, 'not an array');
        const out = new Array(items.length);
        into[k] = out;
        items.forEach((it, j) => pending.push([s.elem, pick === null ? it : field(s, it, pick), out, j]));
        break;
      }
      case 'map': {
        const h = how.get(s);
        const entries = field(s, v, h.kv);
        if (!Array.isArray(entries)) throw bad(s, entries, 'key_value is not an array');
        const out = new Array(entries.length);
        into[k] = out;
        entries.forEach((en, j) => {
          const pair = [undefined, null];
          pending.push([{ t: '__pair' }, pair, out, j]);
          pending.push([s.key, field(s, en, h.key), pair, 0]);
          if (s.value) pending.push([s.value, field(s, en, h.value), pair, 1]);
        });
        break;
      }
      default:
        throw bad(s, v, `unknown shape ${s.t}`);
    }
  }
  return root[0];
}

// ---- the oracle ------------------------------------------------------------------

function shapeHasVariant(shape) {
  const pending = [shape];
  while (pending.length) {
    const s = pending.pop();
    if (!s) continue;
    if (s.t === 'variant') return true;
    if (s.t === 'struct') s.fields.forEach((f) => pending.push(f.shape));
    else if (s.t === 'list') pending.push(s.elem);
    else if (s.t === 'map') pending.push(s.key, s.value);
  }
  return false;
}

// A local file as an AsyncBuffer with ArrayBuffer.prototype.slice's
// semantics (synchronous, clamped; start >= end gives an empty buffer).
// hyparquet's own asyncBufferFromFile (createReadStream) throws on start >
// end, which hyparquet 1.33 asks for when a row group's column chunks are not
// in ascending file order: parquetPlanGroup() merges the chunks into one
// prefetch run [first chunk's start, last chunk's end) in schema order, which
// is then inverted. With these semantics that run comes back empty, every
// chunk misses it and is read on its own range (prefetchAsyncBuffer's
// fallback), as with an in-memory ArrayBuffer, which hyparquet documents as
// an AsyncBuffer. hyparquet_selftest.mjs notes whether asyncBufferFromFile
// still fails.
export function fileAsyncBuffer(file) {
  const fd = fs.openSync(file, 'r');
  const size = fs.fstatSync(fd).size;
  return {
    byteLength: size,
    slice(start, end = size) {
      const clamp = (x) => (x < 0 ? Math.max(size + x, 0) : Math.min(x, size));
      const a = clamp(Number(start)), b = clamp(Number(end));
      const out = new ArrayBuffer(Math.max(b - a, 0));
      const view = new Uint8Array(out);
      let done = 0;
      while (done < view.length) {
        const n = fs.readSync(fd, view, done, view.length - done, a + done);
        if (n <= 0) throw new Error(`${file}: short read at ${a + done}`);
        done += n;
      }
      return out;
    },
    close() { fs.closeSync(fd); },
  };
}

export class HyparquetOracle {
  constructor() {
    this.staticNotes = [];
    this.lost = new Set();
  }

  // hyparquet's footer (BigInts for i64 fields) and the open file, or throws
  // OracleError. The caller closes buf.
  async open(file) {
    const buf = fileAsyncBuffer(file);
    try {
      if (buf.byteLength >= 4 && Buffer.from(buf.slice(buf.byteLength - 4)).toString('latin1') === 'PARE') {
        throw new OracleError('hyparquet cannot read it: encrypted footer (PARE)');
      }
      let metadata;
      try {
        metadata = await parquetMetadataAsync(buf, { geoparquet: false });
      } catch (e) {
        throw new OracleError(`hyparquet cannot read the footer: ${String(e.message || e).split('\n')[0]}`);
      }
      return { buf, metadata };
    } catch (e) {
      buf.close();
      throw e;
    }
  }

  async metadata(file) {
    const { buf, metadata } = await this.open(file);
    buf.close();
    return metadata;
  }

  // Schema entries in `upq meta --json`'s form, from hyparquet's footer.
  async schema(file) {
    return schemaEntries(await this.metadata(file));
  }

  // Batches of expected rows (arrays of Maps), one per row group, in file
  // order. `shape` defaults to the one from hyparquet's own schema.
  // notes() afterwards: what was given as ANY and why.
  async *rows(file, shape = null) {
    this.staticNotes = [];
    this.lost = new Set();
    const { buf, metadata } = await this.open(file);
    try {
      const entries = schemaEntries(metadata);
      if (!shape) shape = rowShape(entries);
      const how = layout(shape, buildSchemaTree(entries));
      const names = shape.fields.map((f) => f.name);
      const skip = new Set();
      names.forEach((n, j) => {
        if (names.indexOf(n) !== j) {
          skip.add(j);
          this.staticNotes.push(`${n} (column ${j}): a repeated top-level name; hyparquet gives it the first one's values`);
        } else if (shapeHasVariant(shape.fields[j].shape)) {
          this.staticNotes.push(`${n}: VARIANT is not compared (hyparquet's decoding is lossy)`);
        }
      });
      if (metadata.row_groups.some((rg) => rg.columns.some((c) => c.crypto_metadata || c.encrypted_column_metadata))) {
        throw new OracleError('hyparquet cannot read it: encrypted columns');
      }
      const readMeta = readingMetadata(metadata);
      let start = 0;
      for (const rg of metadata.row_groups) {
        const n = Number(rg.num_rows);
        if (n === 0) continue;
        let got;
        try {
          await parquetRead({
            file: buf, metadata: readMeta, compressors, parsers: PARSERS, utf8: false, rowFormat: 'array',
            rowStart: start, rowEnd: start + n, onComplete: (rows) => { got = rows; },
          });
        } catch (e) {
          throw new OracleError(`hyparquet cannot read it: ${String(e.message || e).split('\n')[0]}`);
        }
        if (!got || got.length !== n) {
          throw new OracleError(`hyparquet gave ${got ? got.length : 'no'} rows for a row group of ${n}`);
        }
        start += n;
        yield got.map((row) => {
          if (row.length !== shape.fields.length) {
            throw new OracleError(`hyparquet has ${row.length} columns, the schema ${shape.fields.length} top-level fields`);
          }
          const m = new Map();
          shape.fields.forEach((f, j) => m.set(f.name, skip.has(j) ? ANY : fromHyparquet(f.shape, row[j], how, this.lost)));
          return m;
        });
      }
    } finally {
      buf.close();
    }
  }

  // What the last rows() gave as ANY, and why.
  notes() {
    return [...this.staticNotes,
      ...[...this.lost].map((p) => `${p}: INT96 values with a negative nanosecond field not compared (hyparquet loses their day)`)];
  }
}

// All rows of `file` as canonical Maps. opts.shape: the row shape to
// format by (default: from hyparquet's own footer parse). opts.notes: an
// array that receives notes() (values given as ANY).
export async function readRows(file, opts = {}) {
  const o = new HyparquetOracle();
  const out = [];
  for await (const batch of o.rows(file, opts.shape ?? null)) for (const r of batch) out.push(r);
  if (opts.notes) opts.notes.push(...o.notes());
  return out;
}

// A canonical row as one line of text (what cat_vs_duckdb.mjs --print and
// its cross-check compare); ANY prints as (any).
export function rowJson(row) {
  return show(row, Infinity);
}

// The first difference between two oracles' canonical values, as {path, a,
// b}, or null. ANY on either side matches anything; Flt must have the same
// width and bits (-0 is not 0, NaN equals NaN).
export function diffCanonical(a, b, rootPath = '') {
  const pending = [[a, b, rootPath]];
  while (pending.length) {
    const [x, y, p] = pending.pop();
    if (x === ANY || y === ANY) continue;
    const differ = () => ({ path: p, a: x, b: y });
    if (Array.isArray(x)) {
      if (!Array.isArray(y)) return differ();
      if (x.length !== y.length) return { path: `${p} (length ${x.length} vs ${y.length})`, a: x, b: y };
      for (let k = x.length - 1; k >= 0; k--) pending.push([x[k], y[k], `${p}[${k}]`]);
    } else if (x instanceof Map) {
      if (!(y instanceof Map)) return differ();
      const xk = [...x.keys()], yk = [...y.keys()];
      if (xk.length !== yk.length || xk.some((k, j) => k !== yk[j])) return { path: `${p} (keys)`, a: x, b: y };
      for (let k = xk.length - 1; k >= 0; k--) pending.push([x.get(xk[k]), y.get(xk[k]), p ? `${p}.${xk[k]}` : xk[k]]);
    } else if (x instanceof Int) {
      if (!(y instanceof Int) || x.text !== y.text) return differ();
    } else if (x instanceof Flt) {
      if (!(y instanceof Flt) || x.bits !== y.bits || !Object.is(x.v, y.v)) return differ();
    } else if (x !== y) return differ();
  }
  return null;
}
