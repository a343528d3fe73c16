// arrow-rs's reading of a Parquet file (parquet-wasm, returning Arrow IPC,
// read with apache-arrow), as canonical rows (canonical.mjs).
//
// Used for the files DuckDB cannot read or reads differently on purpose
// (see the exception table in cat_vs_duckdb.mjs), and by --cross-check.
// Values are read from the Arrow buffers directly wherever apache-arrow's
// getters would round (timestamps, times, decimals are 64/128-bit ticks).
// Limits worth knowing: arrow-rs turns INT96 into timestamp[ns] and wraps
// outside 1677..2262, and reads a MAP without values as a list of keys
// (compared here as [{key, value: null}]).

import fs from 'node:fs';
import { createRequire } from 'node:module';
import { tableFromIPC, makeVector, Type, TimeUnit } from 'apache-arrow';
import {
  Int, Flt, ANY, UNIT, base64, fmtDate, fmtDecimal, fmtTime, fmtTimestamp, fmtUuid, interval,
} from './canonical.mjs';
import { OracleError } from './oracle_duckdb.mjs';

const require = createRequire(import.meta.url);
const parquetWasm = require('parquet-wasm/node');

const utf8 = new TextDecoder('utf-8');
const vecCache = new WeakMap();
const vec = (data) => {
  let v = vecCache.get(data);
  if (!v) { v = makeVector(data); vecCache.set(data, v); }
  return v;
};

const PER = { [TimeUnit.SECOND]: 1n, [TimeUnit.MILLISECOND]: 1000n, [TimeUnit.MICROSECOND]: 1000000n, [TimeUnit.NANOSECOND]: 1000000000n };

function bad(shape, data, why) {
  return new OracleError(`${shape.path}: arrow-rs gave ${data.type}${why ? ` (${why})` : ''}`);
}

function rescale(shape, data, ticks, from, to) {
  if (from === to) return ticks;
  if (to > from) return ticks * (to / from);
  const f = from / to;
  if (ticks % f !== 0n) throw bad(shape, data, 'not a whole number of the Parquet unit');
  return ticks / f;
}

function ticksAt(data, i) {
  const v = data.values[i];
  return typeof v === 'bigint' ? v : BigInt(v);
}

// little-endian 32-bit words, two's complement
function wordsToBigInt(words) {
  let v = 0n;
  for (let k = words.length - 1; k >= 0; k--) v = (v << 32n) | BigInt(words[k] >>> 0);
  const bits = BigInt(32 * words.length);
  if (words[words.length - 1] & 0x80000000) v -= 1n << bits;
  return v;
}

function leaf(shape, data, i) {
  const t = data.type;
  const id = t.typeId;
  switch (shape.kind) {
    case 'null':
      return null;
    case 'bool':
      if (id !== Type.Bool) throw bad(shape, data);
      return vec(data).get(i);
    case 'int': {
      if (id !== Type.Int) throw bad(shape, data);
      let b = BigInt(vec(data).get(i));
      if (!shape.signed && b < 0n) b += 1n << BigInt(shape.bits);
      return new Int(b);
    }
    case 'float':
      if (id !== Type.Float) throw bad(shape, data);
      return new Flt(vec(data).get(i), shape.bits);
    case 'string': {
      const v = vec(data).get(i);
      return typeof v === 'string' ? v : utf8.decode(v);
    }
    case 'bytes': {
      const v = vec(data).get(i);
      return typeof v === 'string' ? Buffer.from(v, 'utf8').toString('base64') : base64(v);
    }
    case 'uuid': {
      const v = vec(data).get(i);
      if (!(v instanceof Uint8Array) || v.length !== 16) throw bad(shape, data);
      return fmtUuid(v);
    }
    case 'decimal': {
      let u;
      if (id === Type.Decimal) {
        const stride = data.stride;
        u = wordsToBigInt(data.values.subarray(stride * i, stride * (i + 1)));
        u = rescale(shape, data, u, 10n ** BigInt(t.scale), 10n ** BigInt(shape.scale));
      } else if (id === Type.Int) {
        u = BigInt(vec(data).get(i));
      } else throw bad(shape, data);
      return fmtDecimal(u, shape.scale);
    }
    case 'date':
      if (id !== Type.Date) throw bad(shape, data);
      if (t.unit === 0) return fmtDate(data.values[i]); // DAY
      return fmtDate(ticksAt(data, i) / 86400000n);
    case 'time':
      if (id !== Type.Time) throw bad(shape, data);
      return fmtTime(rescale(shape, data, ticksAt(data, i), PER[t.unit], UNIT[shape.unit].per), shape.unit);
    case 'timestamp':
      if (id !== Type.Timestamp) throw bad(shape, data);
      return fmtTimestamp(rescale(shape, data, ticksAt(data, i), PER[t.unit], UNIT[shape.unit].per), shape.unit, shape.utc);
    case 'int96':
      if (id !== Type.Timestamp) throw bad(shape, data);
      return fmtTimestamp(rescale(shape, data, ticksAt(data, i), PER[t.unit], 1000000000n), 'NANOS', false);
    case 'interval': {
      const v = vec(data).get(i);
      if (!(v instanceof Uint8Array) || v.length !== 12) throw bad(shape, data);
      const dv = new DataView(v.buffer, v.byteOffset, 12);
      return interval(dv.getUint32(0, true), dv.getUint32(4, true), dv.getUint32(8, true));
    }
    default:
      throw bad(shape, data, `unhandled kind ${shape.kind}`);
  }
}

const isListType = (id) => id === Type.List || id === Type.LargeList || id === Type.FixedSizeList;

function listRange(data, i) {
  if (data.type.typeId === Type.FixedSizeList) return [i * data.type.listSize, (i + 1) * data.type.listSize];
  return [Number(data.valueOffsets[i]), Number(data.valueOffsets[i + 1])];
}

// Arrow value (data, index) -> expected value for one shape, with a stack.
export function fromArrow(shape, data, index) {
  const root = [undefined];
  const pending = [[shape, data, index, root, 0]];
  while (pending.length) {
    const [s, d, i, into, k] = pending.pop();
    if (s.t === '__pair') { into[k] = new Map([['key', d[0]], ['value', d[1]]]); continue; }
    if (s.t === '__struct') { s.fields.forEach((f, j) => d.set(f.name, i[j])); continue; }
    if (d.type.typeId === Type.Dictionary) {
      // decode through the dictionary
      const key = Number(d.values[i]);
      if (!d.getValid(i)) { into[k] = null; continue; }
      pending.push([s, d.dictionary.data[0], key, into, k]);
      continue;
    }
    if (!d.getValid(i)) { into[k] = null; continue; }
    const id = d.type.typeId;
    switch (s.t) {
      case 'variant':
        into[k] = ANY;
        break;
      case 'leaf':
        into[k] = leaf(s, d, i);
        break;
      case 'struct': {
        if (id !== Type.Struct) throw bad(s, d);
        const m = new Map();
        const tmp = new Array(s.fields.length);
        into[k] = m;
        pending.push([{ t: '__struct', fields: s.fields }, m, tmp, null, 0]);
        s.fields.forEach((f, j) => pending.push([f.shape, d.children[j], i, tmp, j]));
        break;
      }
      case 'list': {
        if (!isListType(id)) throw bad(s, d);
        const [a, b] = listRange(d, i);
        const out = new Array(b - a);
        into[k] = out;
        for (let j = a; j < b; j++) pending.push([s.elem, d.children[0], j, out, j - a]);
        break;
      }
      case 'map': {
        if (id === Type.Map) {
          const [a, b] = [Number(d.valueOffsets[i]), Number(d.valueOffsets[i + 1])];
          const ent = d.children[0];
          const out = new Array(b - a);
          into[k] = out;
          for (let j = a; j < b; j++) {
            const pair = [undefined, null];
            pending.push([{ t: '__pair' }, pair, 0, out, j - a]);
            pending.push([s.key, ent.children[0], j, pair, 0]);
            if (s.value) pending.push([s.value, ent.children[1], j, pair, 1]);
          }
        } else if (isListType(id) && !s.value) {
          // a MAP without values: arrow-rs gives the list of keys
          const [a, b] = listRange(d, i);
          const out = new Array(b - a);
          into[k] = out;
          for (let j = a; j < b; j++) {
            const pair = [undefined, null];
            pending.push([{ t: '__pair' }, pair, 0, out, j - a]);
            pending.push([s.key, d.children[0], j, pair, 0]);
          }
        } else throw bad(s, d);
        break;
      }
      default:
        throw bad(s, d, `unknown shape ${s.t}`);
    }
  }
  return root[0];
}

export class ArrowOracle {
  // Batches of expected rows (arrays of Maps), in file order.
  async *rows(file, shape) {
    let table;
    try {
      const wasmTable = parquetWasm.readParquet(new Uint8Array(fs.readFileSync(file)));
      table = tableFromIPC(wasmTable.intoIPCStream());
    } catch (e) {
      throw new OracleError(`arrow-rs cannot read it: ${String(e.message || e).split('\n')[0]}`);
    }
    if (table.schema.fields.length !== shape.fields.length) {
      throw new OracleError(`arrow-rs has ${table.schema.fields.length} columns, the schema ${shape.fields.length} top-level fields`);
    }
    for (const batch of table.batches) {
      const cols = batch.data.children;
      const out = new Array(batch.numRows);
      for (let r = 0; r < batch.numRows; r++) {
        const m = new Map();
        shape.fields.forEach((f, j) => m.set(f.name, fromArrow(f.shape, cols[j], r)));
        out[r] = m;
      }
      yield out;
    }
  }
}
