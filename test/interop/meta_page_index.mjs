// `upq meta --page-index` against hyparquet's own reading of the same
// OffsetIndex and ColumnIndex structures (readOffsetIndex, readColumnIndex):
// for every column chunk, the page count, each page's offset, size and first
// row, null pages and null counts, the boundary order, and the min/max of
// plain integer columns. Files: corpus files with page indexes and one
// `upq write` makes (small pages, nulls, strings), and checkpoint-mode logs
// of the sensor logger (closed, and cut then recovered), whose page indexes
// the finisher builds at close: there each OffsetIndex must also tile its
// chunk as hyparquet reads the ColumnChunk (first page at data_page_offset,
// each page where the one before ends, the last at the chunk's end, first
// rows rising from 0 below the row group's rows). Then a damaged index must
// make the command exit 1 with a reason.
//
// Lines `ok ...` / `FAIL ...`, then `N passed, N failed`.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parquetMetadata, readColumnIndex, readOffsetIndex } from 'hyparquet';
import { upqOptions, runUpq, tally, repoRoot } from './upq_harness.mjs';

const t = tally();
const opts = upqOptions();
const corpus = process.env.PARQUET_TESTING_DIR || path.resolve(repoRoot, '..', 'shared', 'parquet-testing');

// upq's pages per chunk, in file order: [{ pages: [...], boundary, ci }]
function parseUpq(out) {
  const chunks = [];
  let cur = null;
  for (const line of out.split('\n')) {
    let m = /^ {4}page index: (\d+) pages( \(no ColumnIndex\))?(?:, boundary_order (\w+))?$/.exec(line);
    if (m) { cur = { n: Number(m[1]), ci: !m[2], boundary: m[3] || null, pages: [] }; chunks.push(cur); continue; }
    if (/^ {4}page index: none$/.test(line)) { chunks.push({ n: 0, ci: false, pages: [] }); cur = null; continue; }
    m = /^ {6}page (\d+): offset (\d+), (\d+) bytes, first row (\d+)(.*)$/.exec(line);
    if (m && cur) {
      const rest = m[5];
      const nulls = /, (\d+) nulls/.exec(rest);
      const min = /, min ([^,]*), max/.exec(rest);
      const max = /, max ([^,]*)(,|$)/.exec(rest);
      cur.pages.push({ offset: Number(m[2]), size: Number(m[3]), first: Number(m[4]),
        onlyNulls: rest.includes('only nulls'), nulls: nulls ? Number(nulls[1]) : null,
        min: min ? min[1] : null, max: max ? max[1] : null });
    }
  }
  return chunks;
}

function reader(buf, off, len) {
  return { view: new DataView(buf.buffer, buf.byteOffset + off, len), offset: 0 };
}

// The pages of an OffsetIndex against the ColumnChunk's own placement.
function tiles(ch, rg, oi) {
  const md = ch.meta_data;
  const start = Number(md.dictionary_page_offset ?? md.data_page_offset);
  const end = start + Number(md.total_compressed_size);
  const pl = oi.page_locations;
  if (!pl.length) return 'no pages';
  if (Number(pl[0].offset) !== Number(md.data_page_offset)) return `first page at ${pl[0].offset}, data_page_offset ${md.data_page_offset}`;
  for (let i = 0; i < pl.length; i++) {
    const next = i + 1 < pl.length ? Number(pl[i + 1].offset) : end;
    if (Number(pl[i].offset) + pl[i].compressed_page_size !== next) return `page ${i} ends at ${Number(pl[i].offset) + pl[i].compressed_page_size}, next at ${next}`;
    const fr = Number(pl[i].first_row_index);
    if ((i === 0 && fr !== 0) || (i > 0 && fr < Number(pl[i - 1].first_row_index)) || fr >= Number(rg.num_rows))
      return `page ${i}: first row ${fr}`;
  }
  return '';
}

// Each page's ColumnIndex entry of the named columns against the rows the
// OffsetIndex places in it: null count, null page, min and max (strings
// compared as bytes, numbers as numbers).
function boundsAgainstRows(file, rows, names) {
  const buf = fs.readFileSync(file);
  const meta = parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  const leaves = meta.schema.filter((e) => !e.num_children);
  let base = 0, pages = 0;
  for (const rg of meta.row_groups) {
    for (let ci = 0; ci < rg.columns.length; ci++) {
      const name = leaves[ci].name;
      if (!names.includes(name)) continue;
      const ch = rg.columns[ci];
      const oi = readOffsetIndex(reader(buf, Number(ch.offset_index_offset), ch.offset_index_length));
      const cx = readColumnIndex(reader(buf, Number(ch.column_index_offset), ch.column_index_length), leaves[ci]);
      const pl = oi.page_locations;
      for (let i = 0; i < pl.length; i++) {
        const a = base + Number(pl[i].first_row_index);
        const b = base + (i + 1 < pl.length ? Number(pl[i + 1].first_row_index) : Number(rg.num_rows));
        const vals = rows.slice(a, b).map((r) => r[name]).filter((v) => v !== null);
        const nulls = b - a - vals.length;
        const where = `${name}, row group at row ${base}, page ${i} (rows ${a}..${b - 1})`;
        pages++;
        if (Number(cx.null_counts[i]) !== nulls) return [false, 'page index against the rows', `${where}: ${cx.null_counts[i]} nulls, the rows have ${nulls}`];
        if (!!cx.null_pages[i] !== (vals.length === 0)) return [false, 'page index against the rows', `${where}: null page ${cx.null_pages[i]}`];
        if (!vals.length) continue;
        const cmp = (x, y) => (typeof x === 'string' ? Buffer.compare(Buffer.from(x), Buffer.from(y)) : x - y);
        const mn = vals.reduce((m, v) => (cmp(v, m) < 0 ? v : m)), mx = vals.reduce((m, v) => (cmp(v, m) > 0 ? v : m));
        const gotMin = typeof mn === 'string' ? String(cx.min_values[i]) : Number(cx.min_values[i]);
        const gotMax = typeof mx === 'string' ? String(cx.max_values[i]) : Number(cx.max_values[i]);
        if (gotMin !== mn || gotMax !== mx) return [false, 'page index against the rows', `${where}: min/max ${gotMin}/${gotMax}, the rows ${mn}/${mx}`];
      }
    }
    base += Number(rg.num_rows);
  }
  return [pages > 0, `checkpoint mode: ${pages} pages' null counts, null pages, min and max as the rows say`, 'no pages'];
}

async function checkFile(name, file, tile) {
  const r = await runUpq(opts.upq, ['meta', '--page-index', file]);
  if (r.code !== 0) { t.result(false, `${name}: upq meta --page-index`, r.stderr.trim()); return; }
  const got = parseUpq(r.stdout);
  const buf = fs.readFileSync(file);
  const meta = parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  const leaves = meta.schema.filter((e) => !e.num_children);
  let k = 0, why = '', pages = 0, bounds = 0;
  for (const rg of meta.row_groups) {
    rg.columns.forEach((ch, ci) => {
      const u = got[k++];
      if (why) return;
      if (!u) { why = `chunk ${k - 1}: missing in upq's output`; return; }
      if (ch.offset_index_offset === undefined) {
        if (u.n !== 0) why = `chunk ${k - 1}: upq shows ${u.n} pages, the file has no OffsetIndex`;
        return;
      }
      const oi = readOffsetIndex(reader(buf, Number(ch.offset_index_offset), ch.offset_index_length));
      const cx = ch.column_index_offset !== undefined
        ? readColumnIndex(reader(buf, Number(ch.column_index_offset), ch.column_index_length), leaves[ci]) : null;
      if (tile) {
        const bad = tiles(ch, rg, oi);
        if (bad) { why = `chunk ${k - 1}: ${bad}`; return; }
      }
      if (u.n !== oi.page_locations.length) { why = `chunk ${k - 1}: ${u.n} pages, hyparquet ${oi.page_locations.length}`; return; }
      if (!!cx !== u.ci) { why = `chunk ${k - 1}: ColumnIndex ${u.ci}, hyparquet ${!!cx}`; return; }
      if (cx && cx.boundary_order !== u.boundary) { why = `chunk ${k - 1}: boundary ${u.boundary}, hyparquet ${cx.boundary_order}`; return; }
      const plainInt = (leaves[ci].type === 'INT32' || leaves[ci].type === 'INT64') &&
        !leaves[ci].logical_type && !leaves[ci].converted_type;
      oi.page_locations.forEach((pl, i) => {
        const p = u.pages[i];
        if (why) return;
        pages++;
        if (p.offset !== Number(pl.offset) || p.size !== pl.compressed_page_size || p.first !== Number(pl.first_row_index)) {
          why = `chunk ${k - 1} page ${i}: ${p.offset}/${p.size}/${p.first}, hyparquet ${pl.offset}/${pl.compressed_page_size}/${pl.first_row_index}`;
          return;
        }
        if (!cx) return;
        if (p.onlyNulls !== !!cx.null_pages[i]) { why = `chunk ${k - 1} page ${i}: null page ${p.onlyNulls}`; return; }
        if (cx.null_counts && p.nulls !== Number(cx.null_counts[i])) { why = `chunk ${k - 1} page ${i}: ${p.nulls} nulls, hyparquet ${cx.null_counts[i]}`; return; }
        if (plainInt && !p.onlyNulls) {
          bounds++;
          if (BigInt(p.min) !== BigInt(cx.min_values[i]) || BigInt(p.max) !== BigInt(cx.max_values[i]))
            why = `chunk ${k - 1} page ${i}: min/max ${p.min}/${p.max}, hyparquet ${cx.min_values[i]}/${cx.max_values[i]}`;
        }
      });
    });
  }
  if (!why && k !== got.length) why = `upq shows ${got.length} chunks, the file has ${k}`;
  t.result(!why, `${name}: ${k} chunks, ${pages} pages, ${bounds} integer bounds as hyparquet reads them`, why);
}

async function main() {
  if (!fs.existsSync(opts.upq)) {
    if (opts.skipWithoutUpq) { console.log(`# skipped: no ${opts.upq}`); console.log('0 passed, 0 failed'); return; }
    console.error(`no ${opts.upq}`); process.exit(2);
  }
  const work = opts.work || fs.mkdtempSync(path.join(os.tmpdir(), 'upq-meta-pi-'));
  fs.mkdirSync(work, { recursive: true });
  for (const f of ['alltypes_tiny_pages.parquet', 'alltypes_tiny_pages_plain.parquet',
    'data_index_bloom_encoding_stats.parquet', 'int32_with_null_pages.parquet']) {
    await checkFile(f, path.join(corpus, 'data', f));
  }
  // upq's own: small pages, nulls, strings, ascending and unordered columns
  const schema = path.join(work, 'pi.schema'), jsonl = path.join(work, 'pi.jsonl'), file = path.join(work, 'pi.parquet');
  fs.writeFileSync(schema, 'message m {\n  required int64 id;\n  optional int32 v;\n  optional binary s (STRING);\n}\n');
  const lines = [];
  for (let i = 0; i < 5000; i++) {
    const v = i % 700 < 300 ? 'null' : String((i * 7919) % 1000 - 500);
    lines.push(`{"id":${i},"v":${v},"s":${i % 3 ? `"k${i % 50}"` : 'null'}}`);
  }
  fs.writeFileSync(jsonl, lines.join('\n') + '\n');
  const w = await runUpq(opts.upq, ['write', '--schema', schema, '--page-size', '1024', jsonl, file]);
  if (w.code !== 0) t.result(false, 'upq write', w.stderr.trim());
  else await checkFile('upq write, 1 KiB pages', file);

  // checkpoint mode: the sensor logger's log, closed, and cut then recovered
  const logger = path.join(path.dirname(opts.upq), 'sensor_logger');
  const log = path.join(work, 'log.parquet'), cut = path.join(work, 'cut.parquet');
  fs.rmSync(log, { force: true });
  fs.rmSync(cut, { force: true });
  const l = await runUpq(logger, ['--rows', '9000', '--row-group-rows', '4000', '--checkpoint-rows', '600', log]);
  if (l.code !== 0) t.result(false, 'sensor_logger', l.stderr.trim());
  else {
    await checkFile('sensor logger, checkpoint mode, closed', log, true);
    const all = fs.readFileSync(log);
    fs.writeFileSync(cut, all.subarray(0, Math.floor(all.length * 0.8)));
    const rc = await runUpq(opts.upq, ['recover', cut]);
    if (rc.code !== 0) t.result(false, 'upq recover', rc.stderr.trim());
    else await checkFile('sensor logger, cut at 80% and recovered', cut, true);
  }

  // checkpoint mode through upq write: bounds longer than what the finisher
  // gathers of a list at once (200-byte strings), nulls, null pages; each
  // page's min, max and null count (as hyparquet reads them) against the
  // input rows its OffsetIndex says it holds
  const cschema = path.join(work, 'ck.schema'), cjsonl = path.join(work, 'ck.jsonl'), cfile = path.join(work, 'ck.parquet');
  fs.writeFileSync(cschema, 'message m {\n  required int64 id;\n  optional binary s (STRING);\n  optional int32 v;\n}\n');
  const crows = [];
  for (let i = 0; i < 6000; i++) {
    const sv = i % 5 === 0 || (i >= 3000 && i < 3400) ? null : `k${String((i * 7919) % 6000).padStart(5, '0')}-`.repeat((i % 9) + 12);
    crows.push({ id: i, s: sv, v: i % 7 === 0 ? null : ((i * 31) % 1000) - 500 });
  }
  fs.writeFileSync(cjsonl, crows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  fs.rmSync(cfile, { force: true });
  const cw = await runUpq(opts.upq, ['write', '--schema', cschema, '--checkpoint', '--checkpoint-rows', '700',
    '--row-group-rows', '2500', '--stats-max-binary', '200', '--page-size', '1024', cjsonl, cfile]);
  if (cw.code !== 0) t.result(false, 'upq write --checkpoint', cw.stderr.trim());
  else {
    await checkFile('upq write --checkpoint, 200-byte bounds', cfile, true);
    t.result(...boundsAgainstRows(cfile, crows, ['s', 'v']));
  }

  // a damaged OffsetIndex: its first page offset outside the chunk
  const buf = Buffer.from(fs.readFileSync(file));
  const meta = parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  const ch = meta.row_groups[0].columns[0];
  const at = Number(ch.offset_index_offset);
  const bad = path.join(work, 'bad.parquet');
  // the first byte of the module is the list header; the offset varint
  // follows; fill the module with 0x7f so it no longer checks out
  buf.fill(0x7f, at + 2, at + Math.min(ch.offset_index_length, 12));
  fs.writeFileSync(bad, buf);
  const b = await runUpq(opts.upq, ['meta', '--page-index', bad]);
  const plain = await runUpq(opts.upq, ['meta', bad]);
  t.result(b.code === 1 && /bad\.parquet: .*OffsetIndex, row group 0, column 0/.test(b.stderr) && plain.code === 0,
    'a damaged OffsetIndex (the footer intact): exit 1 naming the OffsetIndex, row group and column',
    `exit ${b.code} (plain meta ${plain.code}): ${b.stderr.trim()}`);
  if (!opts.work) fs.rmSync(work, { recursive: true, force: true });
  await t.finish();
}

main().catch((e) => { console.error(e); process.exit(2); });
