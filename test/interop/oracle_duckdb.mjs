// DuckDB's reading of a Parquet file, as canonical rows (canonical.mjs).
//
// The values come from @duckdb/node-api's value classes, which are exact:
// BIGINT/UBIGINT/HUGEINT arrive as BigInt, DECIMAL as an unscaled BigInt,
// timestamps as integer ticks, BLOBs as bytes. The file is read with
// binary_as_string=false so binary without annotation stays BLOB.
//
// How DuckDB's types map onto the Parquet types (the Parquet type decides the
// formatting; DuckDB only supplies the value):
//   INT96                    TIMESTAMP (micros; exact for these files, see below)
//   TIMESTAMP(MILLIS|MICROS) TIMESTAMP / TIMESTAMP WITH TIME ZONE (micros)
//   TIMESTAMP(NANOS)         TIMESTAMP_NS (nanos)
//   TIME(*)                  TIME (micros), TIME_NS, TIME WITH TIME ZONE
//   DECIMAL(p<=38)           DECIMAL (unscaled BigInt); p>38 reads as DOUBLE,
//                            which is inexact and reported as an oracle error
//   UINT_*/INTEGER(n,false)  UTINYINT..UBIGINT
//   FLOAT16                  FLOAT (every half value is a float)
//   UUID                     UUID; INTERVAL: INTERVAL (micros = millis * 1000)
//   GEOMETRY/GEOGRAPHY       GEOMETRY (the WKB bytes)
//   STRING/ENUM/JSON         VARCHAR / JSON; other binary: BLOB
//   LIST / repeated fields   LIST; MAP: MAP; groups: STRUCT
// Any tick count that does not convert exactly to the Parquet unit (INT96
// with sub-microsecond nanos) throws: the file then needs another oracle.

import {
  DuckDBInstance, DuckDBBlobValue, DuckDBDateValue, DuckDBDecimalValue, DuckDBGeometryValue,
  DuckDBIntervalValue, DuckDBListValue, DuckDBArrayValue, DuckDBMapValue, DuckDBStructValue,
  DuckDBTimeNSValue, DuckDBTimeTZValue, DuckDBTimeValue, DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue, DuckDBTimestampSecondsValue, DuckDBTimestampTZValue,
  DuckDBTimestampValue, DuckDBUUIDValue,
} from '@duckdb/node-api';
import {
  Int, Flt, ANY, UNIT, base64, fmtDate, fmtDecimal, fmtTime, fmtTimestamp, fmtUuid, interval,
} from './canonical.mjs';

export class OracleError extends Error {}

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;
const utf8 = new TextDecoder('utf-8');

function typeName(v) {
  return v === null ? 'null' : typeof v === 'object' ? v.constructor.name : typeof v;
}

function bad(shape, v, why) {
  return new OracleError(`${shape.path}: DuckDB gave ${typeName(v)} ${String(v).slice(0, 60)}${why ? ` (${why})` : ''}`);
}

// ticks at `from` per second to ticks at `to` per second, exactly
function rescale(shape, ticks, from, to) {
  if (from === to) return ticks;
  if (to > from) return ticks * (to / from);
  const f = from / to;
  if (ticks % f !== 0n) throw bad(shape, ticks, 'not a whole number of the Parquet unit');
  return ticks / f;
}

// A timestamp value's ticks and ticks per second.
function timestampTicks(v) {
  if (v instanceof DuckDBTimestampValue || v instanceof DuckDBTimestampTZValue) return [v.micros, 1000000n];
  if (v instanceof DuckDBTimestampNanosecondsValue) return [v.nanos, 1000000000n];
  if (v instanceof DuckDBTimestampMillisecondsValue) return [v.millis, 1000n];
  if (v instanceof DuckDBTimestampSecondsValue) return [v.seconds, 1n];
  return null;
}

function leaf(shape, v) {
  switch (shape.kind) {
    case 'null':
      return null;
    case 'bool':
      if (typeof v !== 'boolean') throw bad(shape, v);
      return v;
    case 'int': {
      if (typeof v !== 'number' && typeof v !== 'bigint') throw bad(shape, v);
      let b = BigInt(v);
      if (!shape.signed && b < 0n) b += 1n << BigInt(shape.bits);
      return new Int(b);
    }
    case 'float':
      if (typeof v !== 'number') throw bad(shape, v);
      return new Flt(v, shape.bits);
    case 'string':
      if (typeof v === 'string') return v;
      if (v instanceof DuckDBBlobValue) return utf8.decode(v.bytes);
      throw bad(shape, v);
    case 'bytes':
      if (v instanceof DuckDBBlobValue || v instanceof DuckDBGeometryValue) return base64(v.bytes);
      if (typeof v === 'string') return Buffer.from(v, 'utf8').toString('base64');
      throw bad(shape, v);
    case 'decimal': {
      if (!(v instanceof DuckDBDecimalValue)) throw bad(shape, v, 'not an exact DECIMAL');
      const u = rescale(shape, v.value, 10n ** BigInt(v.scale), 10n ** BigInt(shape.scale));
      return fmtDecimal(u, shape.scale);
    }
    case 'date':
      if (!(v instanceof DuckDBDateValue) || !v.isFinite) throw bad(shape, v);
      return fmtDate(v.days);
    case 'time': {
      let ticks, per;
      if (v instanceof DuckDBTimeValue || v instanceof DuckDBTimeTZValue) [ticks, per] = [v.micros, 1000000n];
      else if (v instanceof DuckDBTimeNSValue) [ticks, per] = [v.nanos, 1000000000n];
      else throw bad(shape, v);
      if (v instanceof DuckDBTimeTZValue && v.offset !== 0) throw bad(shape, v, 'time zone offset');
      return fmtTime(rescale(shape, ticks, per, UNIT[shape.unit].per), shape.unit);
    }
    case 'timestamp': {
      const t = timestampTicks(v);
      if (!t || !v.isFinite) throw bad(shape, v);
      return fmtTimestamp(rescale(shape, t[0], t[1], UNIT[shape.unit].per), shape.unit, shape.utc);
    }
    case 'int96': {
      // DuckDB keeps microseconds; the files it is used for have no more
      const t = timestampTicks(v);
      if (!t || !v.isFinite) throw bad(shape, v);
      return fmtTimestamp(rescale(shape, t[0], t[1], 1000000000n), 'NANOS', false);
    }
    case 'uuid':
      if (v instanceof DuckDBUUIDValue) return v.toString().toLowerCase();
      if (v instanceof DuckDBBlobValue && v.bytes.length === 16) return fmtUuid(v.bytes);
      throw bad(shape, v);
    case 'interval':
      if (!(v instanceof DuckDBIntervalValue)) throw bad(shape, v);
      if (v.micros % 1000n !== 0n) throw bad(shape, v, 'sub-millisecond interval');
      return interval(v.months, v.days, v.micros / 1000n);
    default:
      throw bad(shape, v, `unhandled kind ${shape.kind}`);
  }
}

// DuckDB value -> expected value, for one shape. Nesting is shallow in
// practice but unbounded in principle, so this walks with a stack of
// pending work: each item fills slot `k` of `into`.
export function fromDuck(shape, value) {
  const root = [undefined];
  const pending = [[shape, value, root, 0]];
  while (pending.length) {
    const [s, v, into, k] = pending.pop();
    if (v === null || v === undefined) { into[k] = null; continue; }
    switch (s.t) {
      case 'variant':
        into[k] = ANY;
        break;
      case 'leaf':
        into[k] = leaf(s, v);
        break;
      case 'struct': {
        if (!(v instanceof DuckDBStructValue)) throw bad(s, v);
        const names = Object.keys(v.entries);
        const vals = s.fields.map((f, j) => (Object.hasOwn(v.entries, f.name) ? v.entries[f.name] : v.entries[names[j]]));
        const tmp = new Array(s.fields.length);
        const m = new Map();
        into[k] = m;
        // fill tmp first, then the Map in schema order
        pending.push([{ t: '__struct_done', fields: s.fields }, tmp, m, null]);
        s.fields.forEach((f, j) => pending.push([f.shape, vals[j], tmp, j]));
        break;
      }
      case '__struct_done':
        s.fields.forEach((f, j) => into.set(f.name, v[j]));
        break;
      case 'list': {
        if (!(v instanceof DuckDBListValue || v instanceof DuckDBArrayValue)) throw bad(s, v);
        const out = new Array(v.items.length);
        into[k] = out;
        v.items.forEach((it, j) => pending.push([s.elem, it, out, j]));
        break;
      }
      case 'map': {
        let entries;
        if (v instanceof DuckDBMapValue) entries = v.entries;
        else if (v instanceof DuckDBListValue) {
          // a MAP DuckDB read as a list of key/value structs
          entries = v.items.map((it) => {
            if (!(it instanceof DuckDBStructValue)) throw bad(s, it);
            const vs = Object.values(it.entries);
            return { key: vs[0], value: vs[1] ?? null };
          });
        } else throw bad(s, v);
        const out = new Array(entries.length);
        into[k] = out;
        entries.forEach((en, j) => {
          const pair = [undefined, null];
          pending.push([{ t: '__pair_done' }, pair, out, j]);
          pending.push([s.key, en.key, pair, 0]);
          if (s.value) pending.push([s.value, en.value, pair, 1]);
        });
        break;
      }
      case '__pair_done':
        into[k] = new Map([['key', v[0]], ['value', v[1]]]);
        break;
      default:
        throw bad(s, v, `unknown shape ${s.t}`);
    }
  }
  return root[0];
}

export class DuckOracle {
  static async open() {
    const o = new DuckOracle();
    o.inst = await DuckDBInstance.create(':memory:');
    o.con = await o.inst.connect();
    // the other check stages run beside this one
    await o.con.run('SET threads = 1');
    await o.con.run('SET preserve_insertion_order = true');
    return o;
  }

  // DuckDB's column types ("a:INTEGER[]"), or throws DuckDB's error.
  async describe(file) {
    const r = await this.con.runAndReadAll(
      `DESCRIBE SELECT * FROM read_parquet(${sqlString(file)}, binary_as_string = false)`);
    return r.getRows().map((row) => `${row[0]}:${row[1]}`);
  }

  // Schema entries in `upq meta --json`'s form, from parquet_schema(): for
  // running without upq.
  async schema(file) {
    const r = await this.con.runAndReadAll(
      `SELECT * FROM parquet_schema(${sqlString(file)}) ORDER BY column_id`);
    const names = r.columnNames();
    return r.getRows().map((row) => {
      const d = Object.fromEntries(row.map((v, k) => [names[k], v]));
      const num = (x) => (x === null || x === undefined ? null : Number(x));
      return {
        name: d.name, type: d.type, type_length: num(d.type_length), repetition: d.repetition_type,
        num_children: num(d.num_children), converted_type: d.converted_type,
        logical_type: duckLogicalType(d.logical_type), scale: num(d.scale), precision: num(d.precision),
      };
    });
  }

  // Batches of expected rows (arrays of Maps), in file order. `footerKey`
  // names a key added with addKey() for encrypted files; `where`, an SQL
  // condition, keeps only the rows where it is true.
  async *rows(file, shape, footerKey = null, where = null) {
    const enc = footerKey ? `, encryption_config = {footer_key: ${sqlString(footerKey)}}` : '';
    const cond = where ? ` WHERE ${where}` : '';
    const res = await this.con.stream(
      `SELECT * FROM read_parquet(${sqlString(file)}, binary_as_string = false${enc})${cond}`);
    const n = res.columnCount;
    if (n !== shape.fields.length) {
      throw new OracleError(`DuckDB has ${n} columns, the schema ${shape.fields.length} top-level fields`);
    }
    for await (const batch of res.yieldRows()) {
      yield batch.map((row) => {
        const m = new Map();
        shape.fields.forEach((f, j) => m.set(f.name, fromDuck(f.shape, row[j])));
        return m;
      });
    }
  }

  // Adds a named Parquet key (16, 24 or 32 bytes given as a string of that
  // many characters, as DuckDB takes them).
  async addKey(name, key) {
    await this.con.run(`PRAGMA add_parquet_key(${sqlString(name)}, ${sqlString(key)})`);
  }

  close() {
    try { this.con.closeSync(); } catch { /* gone already */ }
  }
}

// parquet_schema()'s logical_type (Thrift's printTo) as upq meta writes it.
function duckLogicalType(s) {
  if (s === null || s === undefined) return null;
  const simple = { 'StringType()': 'STRING', 'MapType()': 'MAP', 'ListType()': 'LIST',
    'EnumType()': 'ENUM', 'DateType()': 'DATE', 'NullType()': 'UNKNOWN', 'JsonType()': 'JSON',
    'BsonType()': 'BSON', 'UUIDType()': 'UUID', 'Float16Type()': 'FLOAT16' };
  if (simple[s]) return simple[s];
  let m = /^DecimalType\(scale=(-?\d+), precision=(-?\d+)\)$/.exec(s);
  if (m) return `DECIMAL(${m[2]},${m[1]})`;
  m = /^IntType\(bitWidth=([\s\S]), isSigned=([01])\)$/.exec(s);
  if (m) return `INTEGER(${m[1].charCodeAt(0)},${m[2] === '1'})`;
  m = /^(Time|Timestamp)Type\(isAdjustedToUTC=([01]), unit=TimeUnit\((.*)\)\)$/.exec(s);
  if (m) {
    const u = /(MILLIS|MICROS|NANOS)=(?!<null>)/.exec(m[3]);
    return `${m[1].toUpperCase()}(${u ? u[1] : '?'},${m[2] === '1'})`;
  }
  if (s.startsWith('GeometryType(')) return 'GEOMETRY';
  if (s.startsWith('GeographyType(')) return 'GEOGRAPHY';
  if (s.startsWith('VariantType(')) return 'VARIANT';
  return null;
}
