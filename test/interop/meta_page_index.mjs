// `upq meta --page-index` against hyparquet's own reading of the same
// OffsetIndex and ColumnIndex structures (readOffsetIndex, readColumnIndex):
// for every column chunk, the page count, each page's offset, size and first
// row, null pages and null counts, the boundary order, and the min/max of
// plain integer columns. Files: corpus files with page indexes and one
// `upq write` makes (small pages, nulls, strings). Then a damaged index must
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

async function checkFile(name, file) {
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
