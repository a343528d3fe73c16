// A copy of a Parquet file whose DATA_PAGE_V2 headers say is_compressed =
// true, for files whose writer compressed v2 values under a false flag
// (pyarrow 2.0: ARROW-17100). No oracle reads such a file as written; each
// reads the corrected copy, which holds the same bytes but for one nibble per
// page header, so its values are the truth for the original.
//
//   import { withV2Compressed, pageHeaders } from './v2_flag.mjs';
//   const { out, pages } = withV2Compressed(file, outFile);
//   for (const h of pageHeaders(file)) ... (every page header of the file:
//     type, uncompressed, compressed, v2 level lengths dl/rl, flag, codec)
//
// The footer is parsed by hyparquet (independent of upq); the page headers by
// the small Thrift compact walker below. In the compact protocol a bool
// field's value is its type nibble (1 true, 2 false), so the flag flips in
// place. Throws when a chunk's pages do not walk to its end, or when no v2
// page had a false flag (then the copy would prove nothing).

import fs from 'node:fs';
import { parquetMetadata } from 'hyparquet';

// Thrift compact types
const T_TRUE = 1, T_FALSE = 2, T_BYTE = 3, T_I16 = 4, T_I32 = 5, T_I64 = 6, T_DOUBLE = 7, T_BINARY = 8,
  T_LIST = 9, T_SET = 10, T_MAP = 11, T_STRUCT = 12;

function varint(buf, at) {
  let v = 0n, shift = 0n, p = at.pos;
  for (;;) {
    if (p >= buf.length) throw new Error('page header runs past the file');
    const b = buf[p++];
    v |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
    shift += 7n;
  }
  at.pos = p;
  return v;
}
const zigzag = (v) => (v >> 1n) ^ -(v & 1n);

function skipValue(buf, at, type, depth) {
  if (depth > 64) throw new Error('page header nested too deep');
  switch (type) {
    case T_TRUE: case T_FALSE: return; // in a struct the value is the type
    case T_BYTE: at.pos += 1; return;
    case T_I16: case T_I32: case T_I64: varint(buf, at); return;
    case T_DOUBLE: at.pos += 8; return;
    case T_BINARY: at.pos += Number(varint(buf, at)); return;
    case T_LIST: case T_SET: {
      const h = buf[at.pos++];
      let n = h >> 4;
      if (n === 15) n = Number(varint(buf, at));
      for (let i = 0; i < n; i++) {
        if ((h & 15) === T_TRUE || (h & 15) === T_FALSE) at.pos += 1; // a list's bools are bytes
        else skipValue(buf, at, h & 15, depth + 1);
      }
      return;
    }
    case T_MAP: {
      const n = Number(varint(buf, at));
      if (n === 0) return;
      const kv = buf[at.pos++];
      for (let i = 0; i < n; i++) {
        skipValue(buf, at, kv >> 4, depth + 1);
        skipValue(buf, at, kv & 15, depth + 1);
      }
      return;
    }
    case T_STRUCT: walkStruct(buf, at, () => {}, depth + 1); return;
    default: throw new Error(`unknown Thrift compact type ${type}`);
  }
}

// Calls visit(id, type, pos) for each field of the struct at at.pos, pos
// being the field header's offset; visit returns true when it consumed the
// value itself.
function walkStruct(buf, at, visit, depth = 0) {
  let last = 0;
  for (;;) {
    if (at.pos >= buf.length) throw new Error('page header runs past the file');
    const hpos = at.pos;
    const b = buf[at.pos++];
    if (b === 0) return;
    const type = b & 15;
    const id = b >> 4 ? last + (b >> 4) : Number(zigzag(varint(buf, at)));
    last = id;
    if (!visit(id, type, hpos, at)) skipValue(buf, at, type, depth);
  }
}

// PageHeader: 1 type, 2 uncompressed_page_size, 3 compressed_page_size, 8
// data_page_header_v2 (5 definition_levels_byte_length, 6
// repetition_levels_byte_length, 7 is_compressed).
function pageHeader(buf, start) {
  const at = { pos: start };
  const h = { type: null, uncompressed: null, compressed: null, flagAt: -1, flag: null, dl: 0, rl: 0 };
  walkStruct(buf, at, (id, type, hpos, a) => {
    if (id === 1 && type === T_I32) { h.type = Number(zigzag(varint(buf, a))); return true; }
    if (id === 2 && type === T_I32) { h.uncompressed = Number(zigzag(varint(buf, a))); return true; }
    if (id === 3 && type === T_I32) { h.compressed = Number(zigzag(varint(buf, a))); return true; }
    if (id === 8 && type === T_STRUCT) {
      walkStruct(buf, a, (id2, t2, hpos2, a2) => {
        if (id2 === 7 && (t2 === T_TRUE || t2 === T_FALSE)) { h.flagAt = hpos2; h.flag = t2 === T_TRUE; }
        if (id2 === 5 && t2 === T_I32) { h.dl = Number(zigzag(varint(buf, a2))); return true; }
        if (id2 === 6 && t2 === T_I32) { h.rl = Number(zigzag(varint(buf, a2))); return true; }
        return false;
      }, 1);
      return true;
    }
    return false;
  });
  if (h.type === null || h.compressed === null || h.compressed < 0) throw new Error(`bad page header at ${start}`);
  return { ...h, end: at.pos };
}

// Every page header of the file's column chunks, in file order.
function walkPages(file, buf) {
  const meta = parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  const out = [];
  for (const rg of meta.row_groups) {
    for (const cc of rg.columns) {
      const m = cc.meta_data;
      let pos = Number(m.dictionary_page_offset && m.dictionary_page_offset < m.data_page_offset
        ? m.dictionary_page_offset : m.data_page_offset);
      const end = pos + Number(m.total_compressed_size);
      while (pos < end) {
        const h = pageHeader(buf, pos);
        out.push({ ...h, codec: m.codec, column: m.path_in_schema.join('.') });
        pos = h.end + h.compressed;
      }
      if (pos !== end) throw new Error(`${file}: pages of a chunk end at ${pos}, the chunk at ${end}`);
    }
  }
  return out;
}

export function pageHeaders(file) {
  return walkPages(file, fs.readFileSync(file));
}

export function withV2Compressed(file, outFile) {
  const buf = Buffer.from(fs.readFileSync(file));
  let pages = 0;
  for (const h of walkPages(file, buf)) {
    if (h.type === 3 && h.flag === false) { // DATA_PAGE_V2
      buf[h.flagAt] = (buf[h.flagAt] & 0xf0) | T_TRUE;
      pages++;
    }
  }
  if (pages === 0) throw new Error(`${file}: no DATA_PAGE_V2 page says is_compressed = false`);
  fs.writeFileSync(outFile, buf);
  return { out: outFile, pages };
}
