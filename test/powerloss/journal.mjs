// The journal of a checkpoint-mode file as the damage tests see it
// (core/checkpoint/journal.h): records, where each column's pages are, and
// how to rewrite a record so that it passes its CRC again. Thrift compact
// structs are kept as lists of {id, t, v} fields, so a record can be
// decoded, edited and encoded back byte for byte.
//
// Only plaintext files: an encrypted file's payloads are GCM modules.

import zlib from 'node:zlib';

export const crc32 = (buf, seed = 0) => zlib.crc32(buf, seed) >>> 0;

export const TYPES = { 1: 'FILE', 2: 'RG_START', 3: 'CKPT', 4: 'RG_END', 5: 'ROWS', 7: 'CLOSE', 8: 'RESUME', 9: 'RG_SUM' };
export const HDR = 24;

// ---- Thrift compact ------------------------------------------------------------

function varint(b, p) {
  let v = 0n, s = 0n;
  for (;;) {
    if (p.i >= b.length) throw new Error('past the end');
    const x = b[p.i++];
    v |= BigInt(x & 0x7f) << s;
    s += 7n;
    if (!(x & 0x80)) return v;
    if (s > 70n) throw new Error('varint too long');
  }
}
const unzz = (v) => (v >> 1n) ^ -(v & 1n);
const zz = (v) => ((BigInt(v) << 1n) ^ (BigInt(v) >> 63n)) & 0xffffffffffffffffn;

function readValue(b, p, t, depth) {
  switch (t) {
    case 1: return true;
    case 2: return false;
    case 3: return b[p.i++];
    case 4: case 5: case 6: return unzz(varint(b, p));
    case 7: { const v = b.readDoubleLE(p.i); p.i += 8; return v; }
    case 8: {
      const n = Number(varint(b, p));
      if (p.i + n > b.length) throw new Error('binary past the end');
      const v = Buffer.from(b.subarray(p.i, p.i + n));
      p.i += n;
      return v;
    }
    case 9: case 10: {
      const h = b[p.i++];
      let n = h >> 4;
      const et = h & 15;
      if (n === 15) n = Number(varint(b, p));
      if (n > b.length) throw new Error('list too long');
      const items = [];
      for (let k = 0; k < n; k++) items.push(et === 1 || et === 2 ? b[p.i++] === 1 : readValue(b, p, et, depth + 1));
      return { list: et, items };
    }
    case 12: return readStruct(b, p, depth + 1);
    default: throw new Error(`thrift type ${t}`);
  }
}

export function readStruct(b, p, depth = 0) {
  if (depth > 16) throw new Error('too deep');
  const fields = [];
  let last = 0;
  for (;;) {
    if (p.i >= b.length) throw new Error('struct past the end');
    const h = b[p.i++];
    if (h === 0) return { fields };
    const t = h & 15;
    let id = h >> 4;
    id = id === 0 ? Number(unzz(varint(b, p))) : last + id;
    last = id;
    fields.push({ id, t, v: readValue(b, p, t, depth) });
  }
}

function writeValue(o, t, v) {
  switch (t) {
    case 1: case 2: return;
    case 3: o.push(v & 255); return;
    case 4: case 5: case 6: { let x = zz(v); for (;;) { if (x < 0x80n) { o.push(Number(x)); return; } o.push(Number(x & 0x7fn) | 0x80); x >>= 7n; } }
    case 7: { const x = Buffer.alloc(8); x.writeDoubleLE(v); o.push(...x); return; }
    case 8: pushLen(o, v.length); o.push(...v); return;
    case 9: case 10: {
      const n = v.items.length;
      if (n < 15) o.push((n << 4) | v.list); else { o.push(0xf0 | v.list); pushLen(o, n); }
      for (const e of v.items) { if (v.list === 1 || v.list === 2) o.push(e ? 1 : 2); else writeValue(o, v.list, e); }
      return;
    }
    case 12: writeStruct(o, v); return;
    default: throw new Error(`thrift type ${t}`);
  }
}

function pushLen(o, n) {
  let x = n;
  for (;;) { if (x < 0x80) { o.push(x); return; } o.push((x & 0x7f) | 0x80); x = Math.floor(x / 128); }
}

export function writeStruct(o, s) {
  let last = 0;
  for (const f of s.fields) {
    const t = f.t === 1 || f.t === 2 ? (f.v ? 1 : 2) : f.t;
    const d = f.id - last;
    if (d > 0 && d < 16) o.push((d << 4) | t);
    else { o.push(t); writeValue(o, 4, f.id); }
    last = f.id;
    writeValue(o, f.t, f.v);
  }
  o.push(0);
}

export const field = (s, id) => s.fields.find((f) => f.id === id);
export const value = (s, id) => { const f = field(s, id); return f ? f.v : undefined; };

// ---- records ---------------------------------------------------------------------

export function header(b, off) {
  if (off < 0 || off + HDR > b.length || b.toString('latin1', off, off + 4) !== 'UPQJ') return null;
  return {
    off, len: b.readUInt32LE(off + 4), type: b[off + 8], flags: b[off + 9],
    session: b.readUInt16LE(off + 10), seq: b.readUInt32LE(off + 12), fileId: b.readBigUInt64LE(off + 16),
  };
}

// The CRC seed of every record but FILE: the CRC of the file's nonce.
export function nonceSeed(b) {
  const f = header(b, 4);
  if (!f) return 0;
  try {
    const s = readStruct(b, { i: 4 + HDR });
    const n = value(s, 12);
    return n ? crc32(n) : 0;
  } catch { return 0; }
}

// The records as the writer chained them (framing only: no check of CRCs
// beyond what finding the next one needs), with their payloads decoded.
export function walk(b) {
  const out = [];
  const f = header(b, 4);
  if (!f || 4 + f.len > b.length) return out;
  out.push({ ...f, body: null });
  let off = 4 + f.len;
  for (let guard = 0; guard < 1e6; guard++) {
    const h = header(b, off);
    if (!h || h.len < HDR + 4 || off + h.len > b.length) break;
    let body = null;
    try { body = readStruct(b.subarray(0, off + h.len - 4), { i: off + HDR }); } catch { body = null; }
    out.push({ ...h, body });
    if (h.type === 4 && body) { off = Number(value(body, 5)); continue; }
    if (h.type === 7 && body) { off = Number(value(body, 1)); continue; }
    off += h.len;
  }
  return out;
}

// Rewrites record r's header fields and payload into `buf` (a copy), with a
// CRC that passes (seeded with the file's nonce). The payload must encode
// to r's length less the framing unless `len` says otherwise.
export function putRecord(buf, at, hdr, body, seed) {
  const o = [];
  writeStruct(o, body);
  const pay = Buffer.from(o);
  const len = HDR + pay.length + 4;
  if (at + len > buf.length) return null;
  buf.write('UPQJ', at, 'latin1');
  buf.writeUInt32LE(len, at + 4);
  buf[at + 8] = hdr.type;
  buf[at + 9] = hdr.flags;
  buf.writeUInt16LE(hdr.session, at + 10);
  buf.writeUInt32LE(hdr.seq, at + 12);
  buf.writeBigUInt64LE(hdr.fileId, at + 16);
  pay.copy(buf, at + HDR);
  buf.writeUInt32LE(crc32(buf.subarray(at, at + len - 4), hdr.type === 1 ? 0 : seed), at + len - 4);
  return len;
}

export const encodedLength = (body) => { const o = []; writeStruct(o, body); return o.length + HDR + 4; };

// ---- pages -------------------------------------------------------------------------

// Each row group's regions and the pages its last checkpoint record covers:
// [{rg, col, off, hl, len, dict}] (dict: the dictionary page in the slot).
export function pages(b, records) {
  const out = [];
  let regions = null, rg = -1, last = null;
  const flush = () => {
    if (!regions || !last) return;
    const cols = value(last.body, 3).items;
    cols.forEach((c, i) => {
      const r = regions[i];
      if (!r) return;
      const data = r.off + r.slot;
      const dictLen = Number(value(c, 9) ?? 0);
      if (last.type === 4 && dictLen > 0) addPage(b, out, rg, i, data - dictLen, data, true);
      let p = data;
      const end = data + Number(value(c, 1) ?? 0);
      while (p < end) {
        const n = addPage(b, out, rg, i, p, end, false);
        if (!n) break;
        p += n;
      }
    });
  };
  for (const r of records) {
    if (!r.body) continue;
    if (r.type === 2) {
      flush();
      rg = Number(value(r.body, 1));
      regions = value(r.body, 4).items.map((s) => ({ off: Number(value(s, 1)), slot: Number(value(s, 3) ?? 0) }));
      last = null;
    } else if (r.type === 3 || r.type === 4) {
      last = r;
    }
  }
  flush();
  return out;
}

function addPage(b, out, rg, col, at, end, dict) {
  try {
    const p = { i: at };
    const h = readStruct(b.subarray(0, end), p);
    const size = Number(value(h, 3));
    if (!(size >= 0) || p.i + size > end) return 0;
    out.push({ rg, col, off: at, hl: p.i - at, len: p.i - at + size, dict });
    return p.i - at + size;
  } catch { return 0; }
}
