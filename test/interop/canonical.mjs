// The canonical form of a row that `upq cat --json` prints, built from the
// Parquet schema, and the comparison of upq's rows with an oracle's.
//
// An oracle (DuckDB, arrow-rs) turns its own values into expected values:
//
//   null, true/false     as themselves
//   Int(text)            an integer; upq must print exactly this literal
//   Flt(number, bits)    a FLOAT (32), DOUBLE (64) or FLOAT16 (16) value; upq's
//                        number is rounded to that width and must have the
//                        same bits (-0 is not 0); NaN and the infinities are
//                        the strings "NaN", "Infinity", "-Infinity"
//   string               a JSON string upq must print exactly (text, base64,
//                        dates, times, decimals, UUIDs)
//   Array                a JSON array (LIST, MAP, repeated fields)
//   Map                  a JSON object with exactly these keys in this order
//   ANY                  not compared (Variant)
//
// Formatting follows the Parquet type from the schema (`upq meta --json`
// schema entries), never the oracle's type: the oracle only supplies the
// value.

// ---- expected values -------------------------------------------------------------

export class Int {
  constructor(v) { this.text = typeof v === 'string' ? v : BigInt(v).toString(); }
}

export class Flt {
  constructor(v, bits) { this.v = v; this.bits = bits; }
}

export const ANY = Object.freeze({ any: true });

// ---- JSON text of one row, keeping what JSON.parse loses ----------------------------

// A number literal as written (JSON.parse rounds integers past 2^53 and
// cannot tell 1 from 1.0).
export class Num {
  constructor(text) { this.text = text; }
}

// Objects become Maps (key order kept, integer-like keys included),
// numbers become Num. Throws on anything that is not one JSON value.
export function parseJsonLine(text) {
  let i = 0;
  const n = text.length;
  const fail = (what) => { throw new Error(`invalid JSON at column ${i + 1}: ${what}`); };
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  const strRe = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
  const numRe = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const string = () => {
    strRe.lastIndex = i;
    const m = strRe.exec(text);
    if (!m) fail('bad string');
    i = strRe.lastIndex;
    return m[0].indexOf('\\') < 0 ? m[0].slice(1, -1) : JSON.parse(m[0]);
  };
  // an explicit stack: nesting depth is whatever the file has
  const stack = [];
  for (;;) {
    ws();
    let v;
    const c = text[i];
    if (c === '{' || c === '[') {
      i++;
      ws();
      const container = c === '{' ? new Map() : [];
      if (text[i] === (c === '{' ? '}' : ']')) {
        i++;
        v = container;
      } else {
        let key;
        if (c === '{') {
          if (text[i] !== '"') fail('expected a key');
          key = string();
          ws();
          if (text[i++] !== ':') fail("expected ':'");
        }
        stack.push({ container, key });
        continue;
      }
    } else if (c === '"') {
      v = string();
    } else if (text.startsWith('true', i)) { i += 4; v = true; }
    else if (text.startsWith('false', i)) { i += 5; v = false; }
    else if (text.startsWith('null', i)) { i += 4; v = null; }
    else {
      numRe.lastIndex = i;
      const m = numRe.exec(text);
      if (!m) fail('unexpected character');
      i = numRe.lastIndex;
      v = new Num(m[0]);
    }
    // v is complete: store it, then close every container that ends here
    for (;;) {
      if (stack.length === 0) {
        ws();
        if (i !== n) fail('trailing characters');
        return v;
      }
      const top = stack[stack.length - 1];
      if (Array.isArray(top.container)) top.container.push(v);
      else {
        if (top.container.has(top.key)) fail(`duplicate key ${JSON.stringify(top.key)}`);
        top.container.set(top.key, v);
      }
      ws();
      const isObj = !Array.isArray(top.container);
      if (text[i] === ',') {
        i++;
        if (isObj) {
          ws();
          if (text[i] !== '"') fail('expected a key');
          top.key = string();
          ws();
          if (text[i++] !== ':') fail("expected ':'");
        }
        break;
      }
      if (text[i] === (isObj ? '}' : ']')) {
        i++;
        stack.pop();
        v = top.container;
        continue;
      }
      fail(`expected ',' or '${isObj ? '}' : ']'}'`);
    }
  }
}

// ---- the schema as a tree of shapes -------------------------------------------------
//
// Schema entries are `upq meta --json`'s: {name, type, type_length,
// repetition, num_children, converted_type, logical_type ("DECIMAL(10,2)",
// "TIMESTAMP(MICROS,true)", "INTEGER(8,false)", "STRING", ...), scale,
// precision}. Shapes:
//   {t:'struct', fields:[{name, shape}]}   a group without LIST/MAP
//   {t:'list', elem}                       LIST, or a repeated field
//   {t:'map', key, value}                  MAP / MAP_KEY_VALUE (value null: none)
//   {t:'leaf', kind, ...}                  see leafKind()
//   {t:'variant'}                          VARIANT (not compared yet)
// Each shape also has `optional` (may be null) and `path` (dotted).

export function buildSchemaTree(entries) {
  if (!entries.length) throw new Error('empty schema');
  const nodes = entries.map((e) => ({ e, children: [] }));
  // the flat list is a depth-first walk; num_children says where groups end
  const stack = [{ node: nodes[0], left: nodes[0].e.num_children ?? 0 }];
  for (let k = 1; k < nodes.length; k++) {
    while (stack.length && stack[stack.length - 1].left === 0) stack.pop();
    if (!stack.length) throw new Error(`schema element ${k} is outside the root`);
    const top = stack[stack.length - 1];
    top.node.children.push(nodes[k]);
    top.left--;
    const nc = nodes[k].e.num_children;
    if (nc !== null && nc !== undefined && Number(nc) > 0) stack.push({ node: nodes[k], left: Number(nc) });
  }
  return nodes[0];
}

const isGroup = (node) => node.e.type === null || node.e.type === undefined;
const annotation = (node) => {
  const lt = node.e.logical_type;
  if (lt) return String(lt).replace(/\(.*$/s, '');
  return node.e.converted_type || null;
};

// The leaf's kind from its physical and logical (else converted) type.
export function leafKind(e) {
  const phys = e.type;
  const lt = e.logical_type ? String(e.logical_type) : null;
  const ct = e.converted_type || null;
  const scale = Number(e.scale ?? 0);
  let m;
  if (lt) {
    if (lt === 'STRING' || lt === 'ENUM' || lt === 'JSON') return { kind: 'string' };
    if (lt === 'UUID') return { kind: 'uuid' };
    if (lt === 'FLOAT16') return { kind: 'float', bits: 16 };
    if (lt === 'DATE') return { kind: 'date' };
    if (lt === 'UNKNOWN') return { kind: 'null' };
    if (lt === 'BSON') return { kind: 'bytes' };
    if ((m = /^DECIMAL\((\d+),(\d+)\)$/.exec(lt))) return { kind: 'decimal', scale: Number(m[2]), precision: Number(m[1]) };
    if ((m = /^INTEGER\((\d+),(true|false)\)$/.exec(lt))) return { kind: 'int', bits: Number(m[1]), signed: m[2] === 'true' };
    if ((m = /^TIME\((MILLIS|MICROS|NANOS),(true|false)\)$/.exec(lt))) return { kind: 'time', unit: m[1], utc: m[2] === 'true' };
    if ((m = /^TIMESTAMP\((MILLIS|MICROS|NANOS),(true|false)\)$/.exec(lt))) return { kind: 'timestamp', unit: m[1], utc: m[2] === 'true' };
    if (lt.startsWith('GEOMETRY') || lt.startsWith('GEOGRAPHY')) return { kind: 'bytes', geo: true };
    if (lt.startsWith('VARIANT')) return { kind: 'variant' };
    // an annotation this oracle does not know: the physical type decides
  } else if (ct) {
    switch (ct) {
      case 'UTF8': case 'ENUM': case 'JSON': return { kind: 'string' };
      case 'BSON': return { kind: 'bytes' };
      case 'DECIMAL': return { kind: 'decimal', scale, precision: Number(e.precision ?? 0) };
      case 'DATE': return { kind: 'date' };
      case 'TIME_MILLIS': return { kind: 'time', unit: 'MILLIS', utc: true };
      case 'TIME_MICROS': return { kind: 'time', unit: 'MICROS', utc: true };
      // the legacy converted types are UTC-adjusted (LogicalTypes.md)
      case 'TIMESTAMP_MILLIS': return { kind: 'timestamp', unit: 'MILLIS', utc: true };
      case 'TIMESTAMP_MICROS': return { kind: 'timestamp', unit: 'MICROS', utc: true };
      case 'UINT_8': return { kind: 'int', bits: 8, signed: false };
      case 'UINT_16': return { kind: 'int', bits: 16, signed: false };
      case 'UINT_32': return { kind: 'int', bits: 32, signed: false };
      case 'UINT_64': return { kind: 'int', bits: 64, signed: false };
      case 'INT_8': return { kind: 'int', bits: 8, signed: true };
      case 'INT_16': return { kind: 'int', bits: 16, signed: true };
      case 'INT_32': return { kind: 'int', bits: 32, signed: true };
      case 'INT_64': return { kind: 'int', bits: 64, signed: true };
      case 'INTERVAL': return { kind: 'interval' };
      default: break;
    }
  }
  switch (phys) {
    case 'BOOLEAN': return { kind: 'bool' };
    case 'INT32': return { kind: 'int', bits: 32, signed: true };
    case 'INT64': return { kind: 'int', bits: 64, signed: true };
    case 'INT96': return { kind: 'int96' };
    case 'FLOAT': return { kind: 'float', bits: 32 };
    case 'DOUBLE': return { kind: 'float', bits: 64 };
    case 'BYTE_ARRAY': case 'FIXED_LEN_BYTE_ARRAY': return { kind: 'bytes' };
    default: throw new Error(`unknown physical type ${phys}`);
  }
}

// The element of a LIST-annotated group, by the backward-compatibility
// rules of LogicalTypes.md.
function listElement(node) {
  if (node.children.length !== 1) throw new Error(`LIST group ${node.e.name} has ${node.children.length} children`);
  const rep = node.children[0];
  if (rep.e.repetition !== 'REPEATED') throw new Error(`LIST group ${node.e.name}: its child is not repeated`);
  if (!isGroup(rep)) return rep;                                  // repeated primitive
  if (rep.children.length > 1) return rep;                        // repeated tuple
  if (rep.e.name === 'array' || rep.e.name === `${node.e.name}_tuple`) return rep;
  if (rep.children.length === 1 && rep.children[0].e.repetition === 'REPEATED') return rep;
  return rep.children[0];                                          // three levels
}

function shapeOf(node, path, asElement) {
  const e = node.e;
  const optional = !asElement && e.repetition === 'OPTIONAL';
  if (!asElement && e.repetition === 'REPEATED') {
    // a repeated field outside LIST/MAP: a list of required values
    return { t: 'list', optional: false, path, elem: shapeOf(node, path, true) };
  }
  if (!isGroup(node)) {
    const k = leafKind(e);
    if (k.kind === 'variant') return { t: 'variant', optional, path };
    return { t: 'leaf', optional, path, ...k, physical: e.type };
  }
  const ann = annotation(node);
  if (ann === 'VARIANT') return { t: 'variant', optional, path };
  if (ann === 'LIST') {
    const el = listElement(node);
    return { t: 'list', optional, path, elem: shapeOf(el, `${path}[]`, el === node.children[0]) };
  }
  if (ann === 'MAP' || ann === 'MAP_KEY_VALUE') {
    const kv = node.children[0];
    if (node.children.length !== 1 || !kv || kv.e.repetition !== 'REPEATED' || !isGroup(kv)) {
      throw new Error(`MAP group ${e.name} does not hold one repeated group`);
    }
    if (kv.children.length < 1 || kv.children.length > 2) {
      throw new Error(`MAP group ${e.name}: key_value has ${kv.children.length} fields`);
    }
    return {
      t: 'map', optional, path,
      key: shapeOf(kv.children[0], `${path}[].key`, false),
      value: kv.children[1] ? shapeOf(kv.children[1], `${path}[].value`, false) : null,
    };
  }
  return {
    t: 'struct', optional, path,
    fields: node.children.map((c) => ({ name: c.e.name, shape: shapeOf(c, path ? `${path}.${c.e.name}` : c.e.name, false) })),
  };
}

// The row shape: a struct of the top-level fields.
export function rowShape(entries) {
  const root = buildSchemaTree(entries);
  return { t: 'struct', optional: false, path: '', fields: root.children.map((c) => ({ name: c.e.name, shape: shapeOf(c, c.e.name, false) })) };
}

// Does the shape hold a kind anywhere (e.g. 'variant', 'int96')?
export function shapeHas(shape, pred) {
  const pending = [shape];
  while (pending.length) {
    const s = pending.pop();
    if (!s) continue;
    if (pred(s)) return true;
    if (s.t === 'struct') s.fields.forEach((f) => pending.push(f.shape));
    else if (s.t === 'list') pending.push(s.elem);
    else if (s.t === 'map') pending.push(s.key, s.value);
  }
  return false;
}

// ---- canonical text of leaf values ----------------------------------------------

const floorDiv = (a, b) => { const q = a / b; return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q; };
const mod = (a, b) => { const r = a % b; return r < 0n ? r + b : r; };
const pad = (v, n) => v.toString().padStart(n, '0');

// Days since 1970-01-01 as YYYY-MM-DD (proleptic Gregorian); years outside
// 0..9999 get a sign and at least four digits ("+290000-12-30").
export function fmtDate(days) {
  let z = BigInt(days) + 719468n;
  const era = floorDiv(z, 146097n);
  const doe = z - era * 146097n;
  const yoe = (doe - doe / 1460n + doe / 36524n - doe / 146096n) / 365n;
  const doy = doe - (365n * yoe + yoe / 4n - yoe / 100n);
  const mp = (5n * doy + 2n) / 153n;
  const d = doy - (153n * mp + 2n) / 5n + 1n;
  const m = mp < 10n ? mp + 3n : mp - 9n;
  const y = yoe + era * 400n + (m <= 2n ? 1n : 0n);
  const ys = y >= 0n && y <= 9999n ? pad(y, 4) : `${y < 0n ? '-' : '+'}${pad(y < 0n ? -y : y, 4)}`;
  return `${ys}-${pad(m, 2)}-${pad(d, 2)}`;
}

export const UNIT = { MILLIS: { per: 1000n, digits: 3 }, MICROS: { per: 1000000n, digits: 6 }, NANOS: { per: 1000000000n, digits: 9 } };

function hms(sod) {
  return `${pad(sod / 3600n, 2)}:${pad((sod / 60n) % 60n, 2)}:${pad(sod % 60n, 2)}`;
}

// v units since the epoch.
export function fmtTimestamp(v, unit, utc) {
  const { per, digits } = UNIT[unit];
  v = BigInt(v);
  const secs = floorDiv(v, per);
  const frac = mod(v, per);
  const days = floorDiv(secs, 86400n);
  const sod = mod(secs, 86400n);
  return `${fmtDate(days)}T${hms(sod)}.${pad(frac, digits)}${utc ? 'Z' : ''}`;
}

// v units since midnight.
export function fmtTime(v, unit) {
  const { per, digits } = UNIT[unit];
  v = BigInt(v);
  return `${hms(v / per)}.${pad(mod(v, per), digits)}`;
}

// An unscaled integer with exactly `scale` fraction digits.
export function fmtDecimal(unscaled, scale) {
  let v = BigInt(unscaled);
  const neg = v < 0n;
  if (neg) v = -v;
  let s = v.toString();
  if (scale > 0) {
    s = s.padStart(scale + 1, '0');
    s = `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  } else if (scale < 0) {
    if (v !== 0n) s += '0'.repeat(-scale);
  }
  return neg ? `-${s}` : s;
}

export const base64 = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

export function fmtUuid(bytes) {
  const h = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// Big-endian two's complement bytes as a BigInt.
export function beSigned(bytes) {
  if (bytes.length === 0) return 0n;
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  if (bytes[0] & 0x80) v -= 1n << BigInt(8 * bytes.length);
  return v;
}

// INTERVAL (12 bytes: months, days, millis, unsigned little-endian).
export function interval(months, days, millis) {
  return new Map([['months', new Int(months)], ['days', new Int(days)], ['millis', new Int(millis)]]);
}

// ---- floats --------------------------------------------------------------------

// Rounds a double to the nearest binary16 value (ties to even), as a double.
export function roundHalf(x) {
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  if (a >= 65520) return x < 0 ? -Infinity : Infinity;
  // quantum: 2^-24 for subnormals, else 2^(e-10)
  const e = Math.max(Math.floor(Math.log2(a)), -14);
  let q = 2 ** (e - 10);
  // log2 can be off by one near powers of two
  if (a >= 2 ** (e + 1)) q *= 2;
  else if (a < 2 ** e && e > -14) q /= 2;
  const n = a / q;
  let r = Math.round(n);
  if (r - n === 0.5 && r % 2 === 1) r -= 1; // Math.round rounds half up
  const v = r * q;
  return x < 0 ? -v : v;
}

export function roundTo(x, bits) {
  if (bits === 32) return Math.fround(x);
  if (bits === 16) return roundHalf(x);
  return x;
}

// The shortest decimal that reads back as v at that width.
export function shortestFloat(v, bits) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  if (bits === 64) return String(v);
  for (let p = 1; p <= 17; p++) {
    const s = Number(v.toPrecision(p));
    if (roundTo(s, bits) === v) return String(s);
  }
  return String(v);
}

// ---- comparison ------------------------------------------------------------------

// Shows an upq or an expected value as (short) JSON.
export function show(v, max = 160) {
  const out = [];
  const walk = (x) => {
    if (out.length > max) return;
    if (x === null) out.push('null');
    else if (x === ANY) out.push('(any)');
    else if (x === undefined) out.push('(missing)');
    else if (typeof x === 'boolean') out.push(String(x));
    else if (typeof x === 'string') out.push(JSON.stringify(x));
    else if (x instanceof Num || x instanceof Int) out.push(x.text);
    else if (x instanceof Flt) {
      const s = shortestFloat(x.v, x.bits);
      out.push(/^-?\d/.test(s) ? s : JSON.stringify(s));
    } else if (Array.isArray(x)) {
      out.push('[');
      x.forEach((y, k) => { if (k) out.push(','); walk(y); });
      out.push(']');
    } else if (x instanceof Map) {
      out.push('{');
      let k = 0;
      for (const [key, y] of x) { if (k++) out.push(','); out.push(`${JSON.stringify(key)}:`); walk(y); }
      out.push('}');
    } else out.push(`?${String(x)}`);
  };
  walk(v);
  const s = out.join('');
  return s.length > max ? `${s.slice(0, max)}...` : s;
}

function leafEqual(exp, got) {
  if (exp === ANY) return true;
  if (exp === null || typeof exp === 'boolean' || typeof exp === 'string') return exp === got;
  if (exp instanceof Int) return got instanceof Num && got.text === exp.text;
  if (exp instanceof Flt) {
    if (Number.isNaN(exp.v)) return got === 'NaN';
    if (exp.v === Infinity) return got === 'Infinity';
    if (exp.v === -Infinity) return got === '-Infinity';
    if (!(got instanceof Num)) return false;
    return Object.is(roundTo(Number(got.text), exp.bits), exp.v);
  }
  return false;
}

// The first difference between an expected value and upq's, as
// {path, upq, oracle}, or null. Walks without recursion.
export function firstDiff(exp, got, rootPath = '') {
  const pending = [[exp, got, rootPath]];
  while (pending.length) {
    const [e, g, p] = pending.pop();
    if (e === ANY) continue;
    if (Array.isArray(e)) {
      if (!Array.isArray(g)) return { path: p, upq: g, oracle: e };
      if (g.length !== e.length) return { path: `${p} (length ${g.length}, expected ${e.length})`, upq: g, oracle: e };
      for (let k = e.length - 1; k >= 0; k--) pending.push([e[k], g[k], `${p}[${k}]`]);
      continue;
    }
    if (e instanceof Map) {
      if (!(g instanceof Map)) return { path: p, upq: g, oracle: e };
      const ek = [...e.keys()], gk = [...g.keys()];
      if (ek.length !== gk.length || ek.some((k, j) => k !== gk[j])) {
        return { path: `${p} (keys ${JSON.stringify(gk)}, expected ${JSON.stringify(ek)})`, upq: g, oracle: e };
      }
      for (let k = ek.length - 1; k >= 0; k--) {
        pending.push([e.get(ek[k]), g.get(ek[k]), p ? `${p}.${ek[k]}` : ek[k]]);
      }
      continue;
    }
    if (!leafEqual(e, g)) return { path: p, upq: g, oracle: e };
  }
  return null;
}
