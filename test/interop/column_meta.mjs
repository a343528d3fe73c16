#!/usr/bin/env node
// Column-chunk metadata `upq write` adds when asked, read back by other
// readers:
//
//  - --column-kv COL:KEY=VALUE: ColumnMetaData.key_value_metadata of every
//    chunk of COL (or of every leaf under a group COL), as DuckDB's
//    parquet_metadata() reads it and as `upq meta` prints it; in one pass
//    and in checkpoint mode, several row groups; the corpus's
//    column_chunk_key_value_metadata.parquet printed by `upq meta` as DuckDB
//    reads it.
//  - --column-order ieee754: FLOAT, DOUBLE and FLOAT16 columns declared in
//    IEEE_754_TOTAL_ORDER with each chunk's min/max/nan_count as the total
//    order gives them (computed here from the values' bits: -0 < +0, the
//    bounds of the values that are not NaN, NaN bounds only for a chunk of
//    NaNs); the corpus's floating_orders_nan_count.parquet (written by
//    another writer in both orders) rewritten: our statistics equal its
//    IEEE_754_TOTAL_ORDER columns'; DuckDB and arrow-rs (parquet-wasm) read
//    the files' values as upq does.
//  - geospatial statistics of GEOMETRY and GEOGRAPHY columns: each chunk's
//    bounding box (z and m when a value has them, NaN coordinates of empty
//    points left out) and WKB type codes, computed here from the
//    coordinates the WKB values are made from (not from the WKB), as upq
//    meta --json prints them and DuckDB's parquet_metadata() (geo_bbox,
//    geo_types) reads them; a chunk holding a value that is not WKB (cut
//    short, a count beyond its bytes, nested 40 collections deep, EWKB
//    flags) gets none, and upq still writes the file; checkpoint mode,
//    which finishes chunks from their page headers, writes none.
//
//   node test/interop/column_meta.mjs [--upq UPQ] [--work DIR] [--skip-without-upq]
//
// Prints `ok ...` / `FAIL ...` per check and ends with `N passed, N failed`.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';

const parquetWasm = createRequire(import.meta.url)('parquet-wasm/node');

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');

const o = { upq: path.join(repoRoot, 'build/host/upq'), skipWithoutUpq: false,
            work: path.join(repoRoot, 'build/check/column-meta') };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--upq') o.upq = process.argv[++i];
  else if (a === '--skip-without-upq') o.skipWithoutUpq = true;
  else if (a === '--work') o.work = process.argv[++i];
  else { console.error(`column_meta: unknown argument ${a}`); process.exit(2); }
}
if (!fs.existsSync(o.upq)) {
  console.log(`column_meta: no ${o.upq}`);
  process.exit(o.skipWithoutUpq ? 77 : 1);
}
fs.rmSync(o.work, { recursive: true, force: true });
fs.mkdirSync(o.work, { recursive: true });

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const sq = (s) => `'${s.replaceAll("'", "''")}'`;
async function rows(sql) {
  return (await con.runAndReadAll(sql)).getRowObjectsJson();
}
const upq = (args) => execFileSync(o.upq, args, { encoding: 'utf8', maxBuffer: 1 << 28,
                                                  stdio: ['ignore', 'pipe', 'pipe'] });

let pass = 0, fail = 0;
function check(name, problems) {
  if (problems.length === 0) { pass++; console.log(`ok ${name}`); }
  else { fail++; console.log(`FAIL ${name}: ${problems.slice(0, 5).join('; ')}`); }
}

/* `upq meta`'s text: per row group, per column, its key_value_metadata */
function metaKv(file) {
  const out = [];
  let rg = -1, col = null, inKv = false;
  for (const line of upq(['meta', file]).split('\n')) {
    let m;
    if ((m = /^row_group (\d+):/.exec(line))) { rg = Number(m[1]); out[rg] = {}; col = null; inKv = false; }
    else if ((m = /^  column \d+: (.*)$/.exec(line))) { col = m[1]; out[rg][col] = []; inKv = false; }
    else if (col !== null && line === '    key_value_metadata:') inKv = true;
    else if (inKv && (m = /^      (.*?) = (.*)$/.exec(line))) out[rg][col].push({ key: m[1], value: m[2] });
    /* a key without a value: DuckDB shows an empty one */
    else if (inKv && (m = /^      (.*) \(no value\)$/.exec(line))) out[rg][col].push({ key: m[1], value: '' });
    else if (inKv && !line.startsWith('      ')) inKv = false;
  }
  return out;
}

/* DuckDB's parquet_metadata(): the same shape */
async function duckKv(file) {
  const out = [];
  for (const r of await rows(`SELECT row_group_id, path_in_schema, key_value_metadata
      FROM parquet_metadata(${sq(file)}) ORDER BY row_group_id, column_id`)) {
    const g = Number(r.row_group_id);
    out[g] ??= {};
    /* DuckDB joins a nested path with ", " */
    out[g][r.path_in_schema.replaceAll(', ', '.')] =
      (r.key_value_metadata ?? []).map((e) => ({ key: e.key, value: e.value ?? '' }));
  }
  return out;
}

const norm = (x) => JSON.stringify(x);

// ---- --column-kv --------------------------------------------------------------
const schema = path.join(o.work, 'kv.schema');
fs.writeFileSync(schema, `message m {
  required int64 a;
  optional group g {
    optional binary s (STRING);
    optional double d;
  }
  optional float f;
}
`);
const input = path.join(o.work, 'kv.jsonl');
fs.writeFileSync(input, Array.from({ length: 3000 }, (_, i) =>
  JSON.stringify({ a: i, g: { s: `s${i}`, d: i + 0.5 }, f: i % 7 })).join('\n') + '\n');
const want = {
  a: [{ key: 'k1', value: 'v1' }, { key: 'empty', value: '' }],
  'g.s': [{ key: 'group', value: 'g' }, { key: 'x:y', value: 'z=w' }],
  'g.d': [{ key: 'group', value: 'g' }],
  f: [],
};
const kvArgs = ['--column-kv', 'a:k1=v1', '--column-kv', 'a:empty=', '--column-kv', 'g:group=g',
                '--column-kv', 'g.s:x:y=z=w'];
for (const [label, extra] of [['one pass', ['--row-group-rows', '1000']],
                              ['checkpoint mode', ['--checkpoint', '--row-group-rows', '1000']],
                              ['DATA_PAGE_V2, SNAPPY', ['--data-page-v2', '--codec', 'SNAPPY']]]) {
  const out = path.join(o.work, `kv-${label.replace(/\W+/g, '_')}.parquet`);
  const problems = [];
  try {
    upq(['write', '--schema', schema, ...kvArgs, ...extra, input, out]);
    const duck = await duckKv(out), meta = metaKv(out);
    if (duck.length === 0) problems.push('no row groups');
    duck.forEach((cols, g) => {
      for (const [col, kv] of Object.entries(want)) {
        if (norm(cols[col]) !== norm(kv)) problems.push(`rg ${g} ${col}: DuckDB ${norm(cols[col])}, want ${norm(kv)}`);
        if (norm(meta[g]?.[col] ?? []) !== norm(kv)) problems.push(`rg ${g} ${col}: upq meta ${norm(meta[g]?.[col])}, want ${norm(kv)}`);
      }
    });
    /* the rows are untouched */
    const n = upq(['cat', '--json', out]).split('\n').filter(Boolean).length;
    if (n !== 3000) problems.push(`${n} rows`);
  } catch (e) {
    problems.push(String(e.message).split('\n')[0]);
  }
  check(`--column-kv, ${label}: DuckDB and upq meta read each chunk's key_value_metadata`, problems);
}
{
  const problems = [];
  for (const [arg, re] of [['nope:k=v', /--column-kv 'nope:k=v': want COL:KEY=VALUE with COL a column/],
                           ['a:kv', /--column-kv 'a:kv': want COL:KEY=VALUE \(no '='\)/]]) {
    const out = path.join(o.work, 'bad.parquet');
    try {
      upq(['write', '--schema', schema, '--column-kv', arg, input, out]);
      problems.push(`${arg}: accepted`);
    } catch (e) {
      if (e.status !== 1 || !re.test(String(e.stderr))) problems.push(`${arg}: status ${e.status}: ${e.stderr}`);
      if (fs.existsSync(out) || fs.existsSync(`${out}.tmp`)) problems.push(`${arg}: output left behind`);
    }
  }
  check('--column-kv refuses an unknown column and a missing =', problems);
}
{
  const corpus = process.env.PARQUET_TESTING_DIR ?? path.resolve(repoRoot, '..', 'shared', 'parquet-testing');
  const f = path.join(corpus, 'data', 'column_chunk_key_value_metadata.parquet');
  const problems = [];
  if (!fs.existsSync(f)) problems.push(`no ${f}`);
  else {
    const duck = await duckKv(f), meta = metaKv(f);
    duck.forEach((cols, g) => {
      for (const [col, kv] of Object.entries(cols))
        if (norm(meta[g]?.[col] ?? []) !== norm(kv)) problems.push(`rg ${g} ${col}: upq meta ${norm(meta[g]?.[col])}, DuckDB ${norm(kv)}`);
    });
  }
  check('column_chunk_key_value_metadata.parquet: upq meta prints what DuckDB reads', problems);
}

// ---- --column-order ieee754 ---------------------------------------------------------
/* the total order of a float's bits: a signed integer key (w bytes wide) */
function bitsOf(v, w) {
  const dv = new DataView(new ArrayBuffer(8));
  if (w === 8) { dv.setFloat64(0, v); return dv.getBigUint64(0); }
  if (w === 4) { dv.setFloat32(0, v); return BigInt(dv.getUint32(0)); }
  /* FLOAT16 from a value exact in it (the generator's are) */
  if (Number.isNaN(v)) return 0x7E00n;
  if (v === 0) return Object.is(v, -0) ? 0x8000n : 0n;
  if (!Number.isFinite(v)) return v > 0 ? 0x7C00n : 0xFC00n;
  const s = v < 0 ? 0x8000n : 0n, a = Math.abs(v);
  let e = Math.floor(Math.log2(a));
  if (e < -14) return s | BigInt(Math.round(a / 2 ** -24));
  return s | (BigInt(e + 15) << 10n) | BigInt(Math.round((a / 2 ** e - 1) * 1024));
}
function totalKey(v, w) {
  const b = bitsOf(v, w), sign = 1n << BigInt(8 * w - 1), mag = b & (sign - 1n);
  return b & sign ? -mag - 1n : mag;
}
/* min, max, nan count of a chunk's values (nulls left out) in total order */
function totalStats(vals, w) {
  const num = vals.filter((v) => !Number.isNaN(v)), nans = vals.length - num.length;
  const pool = num.length ? num : vals;
  if (pool.length === 0) return { nans };
  let lo = pool[0], hi = pool[0];
  for (const v of pool) {
    if (totalKey(v, w) < totalKey(lo, w)) lo = v;
    if (totalKey(v, w) > totalKey(hi, w)) hi = v;
  }
  return { min: lo, max: hi, nans };
}
const same = (a, b) => Object.is(a, b);
const parseNum = (s) => (s === null || s === undefined ? undefined : s === 'NaN' ? NaN : Number(s));
function metaJson(file) { return JSON.parse(upq(['meta', '--json', file])); }

async function readersAgree(file, cols, problems) {
  const mine = upq(['cat', '--json', file]).split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const norm = (v) => (v === null || v === undefined ? 'null' : Number.isNaN(Number(v)) ? 'NaN' : Object.is(Number(v), -0) ? '-0' : String(Number(v)));
  const duck = await rows(`SELECT ${cols.map((c) => `"${c}"::DOUBLE AS "${c}"`).join(', ')} FROM read_parquet(${sq(file)})`);
  if (duck.length !== mine.length) problems.push(`DuckDB ${duck.length} rows, upq ${mine.length}`);
  let arrow = null;
  try {
    arrow = tableFromIPC(parquetWasm.readParquet(new Uint8Array(fs.readFileSync(file))).intoIPCStream());
    if (arrow.numRows !== mine.length) problems.push(`arrow-rs ${arrow.numRows} rows, upq ${mine.length}`);
  } catch (e) {
    problems.push(`arrow-rs cannot read it: ${String(e.message || e).split('\n')[0]}`);
  }
  for (let r = 0; r < Math.min(duck.length, mine.length); r++)
    for (const c of cols) {
      /* a FLOAT column as DuckDB widens it: compare at single precision */
      const f32 = (v) => (v === null || v === undefined || c !== 'f' ? v : Math.fround(Number(v)));
      const u = norm(f32(mine[r][c])), d = norm(f32(duck[r][c]));
      if (u !== d) { problems.push(`row ${r} ${c}: upq ${u}, DuckDB ${d}`); return; }
      if (arrow) {
        const col = arrow.getChild(c);
        const a = col.type.typeId === 10 /* Float16 */ || String(col.type) === 'Float16'
          ? col.get(r) : col.get(r);
        if (norm(f32(a)) !== u) { problems.push(`row ${r} ${c}: upq ${u}, arrow-rs ${norm(a)}`); return; }
      }
    }
}

{
  const f = path.join(o.work, 'order.schema');
  fs.writeFileSync(f, `message m {
  optional float f;
  optional double d;
  optional fixed_len_byte_array(2) h (FLOAT16);
  optional int32 i;
}
`);
  /* row groups of 6 rows: each a case the total order decides */
  const groups = [
    [0, -0, 1.5, -1.5, null, 2],            /* -0 the minimum of no negative... */
    [-0, 0, -0, 0, null, -0],               /* zeros only: min -0, max +0 */
    [NaN, NaN, null, NaN, NaN, NaN],        /* NaNs only: NaN bounds */
    [NaN, 3, -Infinity, NaN, 0.25, null],   /* NaN beside numbers: left out */
    [Infinity, NaN, -0, 5e-324, -2, 7],     /* infinities, a denormal */
    [null, null, null, null, null, null],   /* nulls only: no bounds */
  ];
  const fmt = (v) => (v === null ? null : Number.isNaN(v) ? 'NaN' : v === Infinity ? 'Infinity' : v === -Infinity ? '-Infinity' : Object.is(v, -0) ? -0 : v);
  const toH = (v) => (v === null || !Number.isFinite(v) || Number.isNaN(v) || v === 0 || Math.abs(v) >= 1e-4 ? v : 0.5); /* a FLOAT16-exact twin */
  const toF = (v) => (v === null ? null : Math.fround(v) === 0 && v !== 0 ? 1e-40 : v);
  const lines = [];
  for (const g of groups) for (let k = 0; k < g.length; k++) {
    const v = g[k];
    lines.push(JSON.stringify({ f: fmt(toF(v)), d: fmt(v), h: fmt(toH(v)), i: k }).replace(/"f":-0\b/, '"f":-0'));
  }
  /* JSON.stringify prints -0 as 0: put the signs back */
  const input2 = path.join(o.work, 'order.jsonl');
  fs.writeFileSync(input2, groups.flatMap((g) => g.map((v, k) => {
    const j = (x) => (x === null ? 'null' : Number.isNaN(x) ? '"NaN"' : x === Infinity ? '"Infinity"' : x === -Infinity ? '"-Infinity"' : Object.is(x, -0) ? '-0' : String(x));
    return `{"f":${j(toF(v))},"d":${j(v)},"h":${j(toH(v))},"i":${k}}`;
  })).join('\n') + '\n');
  for (const [label, extra] of [['one pass', []], ['checkpoint mode', ['--checkpoint']],
                                ['DATA_PAGE_V2, 2-row pages', ['--data-page-v2', '--page-levels', '2']]]) {
    const out = path.join(o.work, `order-${label.replace(/\W+/g, '_')}.parquet`);
    const problems = [];
    try {
      upq(['write', '--schema', f, '--column-order', 'ieee754', '--row-group-rows', '6', ...extra, input2, out]);
      const m = metaJson(out);
      const orders = m.column_orders;
      if (norm(orders) !== norm(['IEEE_754_TOTAL_ORDER', 'IEEE_754_TOTAL_ORDER', 'IEEE_754_TOTAL_ORDER', 'TYPE_ORDER']))
        problems.push(`column_orders ${norm(orders)}`);
      m.row_groups.forEach((rg, g) => {
        for (const [ci, name, w, conv] of [[0, 'f', 4, toF], [1, 'd', 8, (x) => x], [2, 'h', 2, toH]]) {
          const vals = groups[g].map(conv).filter((v) => v !== null).map((v) => (w === 4 ? Math.fround(v) : v));
          const want = totalStats(vals, w);
          const st = rg.columns[ci].statistics ?? {};
          const gotMin = parseNum(st.min_value), gotMax = parseNum(st.max_value);
          if (!same(gotMin, want.min) || !same(gotMax, want.max) || Number(st.nan_count) !== want.nans)
            problems.push(`rg ${g} ${name}: min ${st.min_value} max ${st.max_value} nan_count ${st.nan_count}, want ${want.min} ${want.max} ${want.nans}`);
        }
      });
      /* DuckDB's view of the bounds too (parquet_metadata) */
      const dm = await rows(`SELECT row_group_id, path_in_schema, stats_min_value, stats_max_value
          FROM parquet_metadata(${sq(out)}) WHERE path_in_schema = 'd' ORDER BY row_group_id`);
      dm.forEach((r) => {
        const vals = groups[Number(r.row_group_id)].filter((v) => v !== null);
        const want = totalStats(vals, 8);
        const dmin = parseNum(r.stats_min_value === null ? undefined : String(r.stats_min_value).replace(/^nan$/i, 'NaN'));
        const dmax = parseNum(r.stats_max_value === null ? undefined : String(r.stats_max_value).replace(/^nan$/i, 'NaN'));
        /* DuckDB shows no bound that is not finite (NULL): those are compared above */
        const fin = (x) => Number.isFinite(x);
        if ((fin(want.min) && !same(dmin, want.min)) || (fin(want.max) && !same(dmax, want.max)) ||
            (!fin(want.min) && dmin !== undefined && !same(dmin, want.min)) ||
            (!fin(want.max) && dmax !== undefined && !same(dmax, want.max)))
          problems.push(`rg ${r.row_group_id} d: DuckDB reads bounds ${r.stats_min_value} ${r.stats_max_value}, want ${want.min} ${want.max}`);
      });
      await readersAgree(out, ['f', 'd', 'h', 'i'], problems);
    } catch (e) {
      problems.push(String(e.message).split('\n')[0]);
    }
    check(`--column-order ieee754, ${label}: IEEE_754_TOTAL_ORDER bounds and nan_count as the total order gives them; DuckDB and arrow-rs read the values`, problems);
  }
}
{
  const corpus = process.env.PARQUET_TESTING_DIR ?? path.resolve(repoRoot, '..', 'shared', 'parquet-testing');
  const src = path.join(corpus, 'data', 'floating_orders_nan_count.parquet');
  const problems = [];
  if (!fs.existsSync(src)) problems.push(`no ${src}`);
  else {
    try {
      const sch = path.join(o.work, 'fon.schema'), rowsFile = path.join(o.work, 'fon.jsonl');
      const out = path.join(o.work, 'fon.parquet');
      fs.writeFileSync(sch, upq(['schema', src]));
      fs.writeFileSync(rowsFile, upq(['cat', '--json', src]));
      const ref = metaJson(src);
      const rgRows = ref.row_groups[0].num_rows;
      upq(['write', '--schema', sch, '--column-order', 'ieee754', '--row-group-rows', String(rgRows), rowsFile, out]);
      const mine = metaJson(out);
      if (mine.row_groups.length !== ref.row_groups.length) problems.push(`${mine.row_groups.length} row groups, the file ${ref.row_groups.length}`);
      const leaves = ref.column_orders;
      ref.row_groups.forEach((rg, g) => {
        rg.columns.forEach((c, ci) => {
          if (leaves[ci] !== 'IEEE_754_TOTAL_ORDER') return;
          /* the same values in the TYPE_ORDER twin column get the same bounds from us */
          for (const cj of [ci, ci + 1]) {
            const a = c.statistics ?? {}, b = mine.row_groups[g]?.columns[cj]?.statistics ?? {};
            for (const k of ['min_value', 'max_value', 'nan_count'])
              if (String(a[k]) !== String(b[k])) problems.push(`rg ${g} ${c.path}: ${k} ${b[k]} (column ${cj}), the file's ${a[k]}`);
          }
        });
      });
      if (mine.column_orders.some((x) => x !== 'IEEE_754_TOTAL_ORDER')) problems.push(`column_orders ${norm(mine.column_orders)}`);
      await readersAgree(out, ['float_ieee754', 'double_ieee754', 'float16_ieee754'], problems);
    } catch (e) {
      problems.push(String(e.message).split('\n')[0]);
    }
  }
  check('floating_orders_nan_count.parquet rewritten with --column-order ieee754: statistics equal the file\'s own IEEE_754_TOTAL_ORDER columns\'', problems);
}

// ---- geospatial statistics --------------------------------------------------------
{
  /* geometries as coordinates; wkb() encodes them, bboxOf() reads the coordinates */
  const DIMS = { XY: [0, 2], XYZ: [1, 3], XYM: [2, 3], XYZM: [3, 4] };
  function wkb(g, le = true) {
    const parts = [];
    const u8 = (v) => parts.push(Buffer.from([v]));
    const u32 = (v) => { const b = Buffer.alloc(4); le ? b.writeUInt32LE(v) : b.writeUInt32BE(v); parts.push(b); };
    const f64 = (v) => { const b = Buffer.alloc(8); le ? b.writeDoubleLE(v) : b.writeDoubleBE(v); parts.push(b); };
    const [dim] = DIMS[g.dims];
    const head = (base) => { u8(le ? 1 : 0); u32(dim * 1000 + base); };
    const pts = (ps) => ps.forEach((p) => p.forEach(f64));
    switch (g.t) {
      case 'Point': head(1); pts([g.c]); break;
      case 'LineString': head(2); u32(g.c.length); pts(g.c); break;
      case 'Polygon': head(3); u32(g.c.length); g.c.forEach((ring) => { u32(ring.length); pts(ring); }); break;
      case 'MultiPoint': head(4); u32(g.c.length); g.c.forEach((p) => parts.push(wkb({ t: 'Point', dims: g.dims, c: p }, !le))); break;
      case 'GeometryCollection': head(7); u32(g.c.length); g.c.forEach((m) => parts.push(wkb(m, le))); break;
      default: throw new Error(g.t);
    }
    return Buffer.concat(parts);
  }
  const BASE = { Point: 1, LineString: 2, Polygon: 3, MultiPoint: 4, GeometryCollection: 7 };
  function coordsOf(g, out) {
    const [, nd] = DIMS[g.dims];
    const axes = g.dims === 'XYM' ? ['x', 'y', 'm'] : ['x', 'y', 'z', 'm'].slice(0, nd);
    const add = (p) => p.forEach((v, i) => { if (!Number.isNaN(v)) out[axes[i]].push(v); });
    if (g.t === 'Point') add(g.c);
    else if (g.t === 'LineString') g.c.forEach(add);
    else if (g.t === 'Polygon') g.c.forEach((r) => r.forEach(add));
    else if (g.t === 'MultiPoint') g.c.forEach(add);
    else g.c.forEach((m) => coordsOf(m, out));
  }
  function expected(geoms) {
    const out = { x: [], y: [], z: [], m: [] };
    const types = new Set();
    for (const g of geoms) { coordsOf(g, out); types.add(DIMS[g.dims][0] * 1000 + BASE[g.t]); }
    const mm = (a) => (a.length ? [Math.min(...a), Math.max(...a)] : null);
    return { x: mm(out.x), y: mm(out.y), z: mm(out.z), m: mm(out.m), types: [...types].sort((a, b) => a - b) };
  }
  const good = [
    { t: 'Point', dims: 'XY', c: [1.5, -2] },
    { t: 'LineString', dims: 'XYZ', c: [[0, 0, 5], [10, 20, -3], [-7.25, 3, 1]] },
    { t: 'Polygon', dims: 'XYM', c: [[[0, 0, 100], [4, 0, 101], [4, 4, 99], [0, 0, 100]]] },
    { t: 'MultiPoint', dims: 'XYZM', c: [[2, 3, 4, 5], [NaN, NaN, NaN, NaN], [-1, 30, 0, -9]] },
    { t: 'GeometryCollection', dims: 'XY', c: [{ t: 'Point', dims: 'XY', c: [55, -60] },
      { t: 'GeometryCollection', dims: 'XY', c: [{ t: 'LineString', dims: 'XY', c: [[-80, 1], [2, 2]] }] }] },
    { t: 'Point', dims: 'XY', c: [NaN, NaN] },                       /* an empty point */
  ];
  const le = [true, false, true, false, true, true];
  const deep = (() => { let g = { t: 'Point', dims: 'XY', c: [1, 1] }; for (let i = 0; i < 40; i++) g = { t: 'GeometryCollection', dims: 'XY', c: [g] }; return g; })();
  const bad = [
    wkb(good[1]).subarray(0, 30),                                   /* cut short */
    (() => { const b = Buffer.from(wkb(good[1])); b.writeUInt32LE(0x7fffffff, 5); return b; })(), /* a count beyond its bytes */
    wkb(deep),                                                      /* too deep */
    (() => { const b = Buffer.from(wkb(good[0])); b.writeUInt32LE(0x20000001, 1); return b; })(), /* EWKB's SRID flag */
    Buffer.concat([wkb(good[0]), Buffer.from([0])]),               /* a byte after it */
  ];
  const schemaG = path.join(o.work, 'geo.schema');
  fs.writeFileSync(schemaG, `message m {
  optional binary g (GEOMETRY);
  optional binary h (GEOGRAPHY);
  required int32 i;
}
`);
  /* row groups of 6: all good; one bad value each among good ones; nulls only */
  const rowsG = [];
  const groupsG = [];
  groupsG.push(good.map((g, k) => ({ g: wkb(g, le[k]), h: wkb(g, !le[k]), geoms: [g] })));
  for (const b of bad) groupsG.push(good.map((g, k) => ({ g: k === 3 ? b : wkb(g), h: wkb(g), geoms: [g] })));
  groupsG.push(good.map(() => ({ g: null, h: null })));
  groupsG.forEach((grp) => grp.forEach((r, k) => rowsG.push(JSON.stringify({
    g: r.g ? r.g.toString('base64') : null, h: r.h ? r.h.toString('base64') : null, i: k }))));
  const inputG = path.join(o.work, 'geo.jsonl');
  fs.writeFileSync(inputG, rowsG.join('\n') + '\n');
  const want = expected(good);
  /* `upq meta`'s geospatial_bbox / geospatial_types lines, per row group and column */
  function geoMeta(file) {
    const out = { row_groups: [] };
    let col = -1;
    for (const line of upq(['meta', file]).split('\n')) {
      let mm;
      if (/^row_group \d+:/.test(line)) { out.row_groups.push({ columns: [] }); col = -1; }
      else if ((mm = /^  column (\d+):/.exec(line))) col = Number(mm[1]);
      else if ((mm = /^    geospatial_bbox: (.*)$/.exec(line))) {
        const cur = (out.row_groups.at(-1).columns[col] ??= {});
        cur.bbox = {};
        for (const part of mm[1].split(', ')) {
          const [ax, range] = part.split(' ');
          const [a, b] = range.split('..').map(Number);
          cur.bbox[`${ax}min`] = a;
          cur.bbox[`${ax}max`] = b;
        }
      } else if ((mm = /^    geospatial_types: (.*)$/.exec(line))) {
        (out.row_groups.at(-1).columns[col] ??= {}).geospatial_types = mm[1].split(', ').map(Number);
      }
    }
    return out;
  }
  for (const [label, extra] of [['one pass', []], ['checkpoint mode', ['--checkpoint']],
                                ['DATA_PAGE_V2, 2-row pages', ['--data-page-v2', '--page-levels', '2']]]) {
    const out = path.join(o.work, `geo-${label.replace(/\W+/g, '_')}.parquet`);
    const problems = [];
    try {
      upq(['write', '--schema', schemaG, '--row-group-rows', '6', ...extra, inputG, out]);
      const m = geoMeta(out);
      if (m.row_groups.length !== groupsG.length) problems.push(`${m.row_groups.length} row groups`);
      const duck = await rows(`SELECT row_group_id, path_in_schema, geo_bbox, geo_types
          FROM parquet_metadata(${sq(out)}) ORDER BY row_group_id, column_id`);
      m.row_groups.forEach((rg, gi) => {
        for (const ci of [0, 1]) {
          const gs = rg.columns[ci] ?? null;
          const d = duck.find((r) => Number(r.row_group_id) === gi && r.path_in_schema === (ci ? 'h' : 'g'));
          /* checkpoint mode finishes chunks from their page headers: no geospatial statistics */
          const expectNone = label === 'checkpoint mode' || gi === groupsG.length - 1 ||
                             (gi >= 1 && gi <= bad.length && ci === 0);
          if (expectNone) {
            if (gs) problems.push(`rg ${gi} col ${ci}: statistics ${JSON.stringify(gs)}, want none`);
            if (d && d.geo_types && d.geo_types.length) problems.push(`rg ${gi} col ${ci}: DuckDB geo_types ${JSON.stringify(d.geo_types)}, want none`);
            continue;
          }
          const b = gs?.bbox ?? {};
          const got = { x: [b.xmin, b.xmax], y: [b.ymin, b.ymax], z: b.zmin === undefined || b.zmin === null ? null : [b.zmin, b.zmax],
                        m: b.mmin === undefined || b.mmin === null ? null : [b.mmin, b.mmax], types: gs?.geospatial_types ?? null };
          if (JSON.stringify(got) !== JSON.stringify(want))
            problems.push(`rg ${gi} col ${ci}: upq meta ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
          if (!d) { problems.push(`rg ${gi} col ${ci}: not in DuckDB's parquet_metadata`); continue; }
          const db = d.geo_bbox ?? {};
          const dgot = { x: [db.xmin, db.xmax], y: [db.ymin, db.ymax] };
          if (JSON.stringify(dgot) !== JSON.stringify({ x: want.x, y: want.y }))
            problems.push(`rg ${gi} col ${ci}: DuckDB geo_bbox ${JSON.stringify(db)}, want ${JSON.stringify({ x: want.x, y: want.y })}`);
          if (want.z && (db.zmin !== want.z[0] || db.zmax !== want.z[1])) problems.push(`rg ${gi} col ${ci}: DuckDB z ${db.zmin} ${db.zmax}`);
          if (want.m && (db.mmin !== want.m[0] || db.mmax !== want.m[1])) problems.push(`rg ${gi} col ${ci}: DuckDB m ${db.mmin} ${db.mmax}`);
        }
      });
      const n = upq(['cat', '--json', out]).split('\n').filter(Boolean).length;
      if (n !== rowsG.length) problems.push(`${n} rows read back`);
    } catch (e) {
      problems.push(String(e.message).split('\n')[0]);
    }
    check(`geospatial statistics, ${label}: bounding box and WKB types as the coordinates give them (upq meta, DuckDB); none for a chunk with a value that is not WKB`, problems);
  }
}

console.log(`${pass} passed, ${fail} failed`);
process.exit(fail ? 1 : 0);
