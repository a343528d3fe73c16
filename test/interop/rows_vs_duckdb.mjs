#!/usr/bin/env node
// Row ranges: `upq cat --json --rows A:B [--columns ...] FILE` against rows
// A .. B-1 of DuckDB's reading of the same file (threads = 1 keeps file
// order), at several offsets: the first rows, page boundaries, the middle,
// the last row, row group boundaries and ranges spanning row groups, to the
// end, with every column and with a projection.
//
//   node test/interop/rows_vs_duckdb.mjs [--upq PATH] [--skip-without-upq] [--work DIR]
//
// Files:
//  - written by upq from generated JSON lines (flat, nested lists with
//    nulls, a dictionary-encoded string column), 97 level entries a page,
//    1,000-row row groups: v1 pages with dictionaries, v2 pages, PLAIN with
//    SNAPPY; each has an OffsetIndex, and every column chunk entered after
//    its first page must be entered through it (`--io-stats` says how);
//  - the same, encrypted with --footer-key (encrypted OffsetIndex modules),
//    compared against DuckDB's rows of its plaintext twin (DuckDB 1.5 cannot
//    read multi-page encrypted chunks);
//  - written by arrow-rs (parquet-wasm: small pages, a list column), which
//    writes page indexes;
//  - written by DuckDB (it writes no page index: the header scan path);
//  - parquet-testing files with page indexes (alltypes_tiny_pages*, ...);
//  - parquet-testing's encrypted files, against upq's own full reading of
//    them (no other reader here decrypts them; test_crypto_read checks that
//    reading's values).
// A row range of a file that has an OffsetIndex must not print "page index
// not used". Lines `ok ...` / `FAIL ...`, then `N passed, N failed`.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { rowShape, parseJsonLine, firstDiff, show } from './canonical.mjs';
import { DuckOracle } from './oracle_duckdb.mjs';
import { upqOptions, runUpq, repoRoot, corpusDir } from './upq_harness.mjs';

const require = createRequire(import.meta.url);
const corpus = corpusDir;
const opts = upqOptions(process.argv, {}, { work: path.join(repoRoot, 'build', 'check', 'rows') });
const upq = (args) => runUpq(opts.upq, args);

const KEY = '0123456789abcdef0123456789abcdef'; // hex, 16 bytes
const KEY_ARGS = ['--footer-key', KEY];
// parquet-testing's encrypted files: keys from its README
const CORPUS_KEYS = ['--footer-key', Buffer.from('0123456789012345').toString('hex'),
  '--column-key', `double_field=${Buffer.from('1234567890123450').toString('hex')}`,
  '--column-key', `float_field=${Buffer.from('1234567890123451').toString('hex')}`];

// ---- files ------------------------------------------------------------------

const ROWS = 2600;
const SCHEMA = `message m {
  required int64 id;
  optional binary s (STRING);
  optional group l (LIST) {
    repeated group list {
      optional int32 element;
    }
  }
  optional double d;
}
`;

function jsonl() {
  const lines = [];
  for (let k = 0; k < ROWS; k++) {
    const s = k % 7 === 0 ? null : `v${k % 13}`;
    const l = k % 5 === 0 ? null : Array.from({ length: k % 4 }, (_, j) => (j === 1 ? null : k * 10 + j));
    const d = k % 3 === 0 ? null : k / 4;
    lines.push(JSON.stringify({ id: k, s, l, d }));
  }
  return lines.join('\n') + '\n';
}

async function writeUpqFiles(dir) {
  const src = path.join(dir, 'rows.jsonl');
  const schema = path.join(dir, 'rows.schema');
  fs.writeFileSync(src, jsonl());
  fs.writeFileSync(schema, SCHEMA);
  const common = ['--page-levels', '97', '--row-group-rows', '1000'];
  const variants = [
    { name: 'upq-v1-dict', args: [] },
    { name: 'upq-v2', args: ['--data-page-v2'] },
    { name: 'upq-plain-snappy', args: ['--no-dictionary', '--codec', 'SNAPPY'] },
  ];
  const files = [];
  for (const v of variants) {
    for (const enc of [false, true]) {
      const out = path.join(dir, `${v.name}${enc ? '-enc' : ''}.parquet`);
      const r = await upq(['write', '--schema', schema, ...common, ...v.args, ...(enc ? KEY_ARGS : []), src, out]);
      if (!r.ok) throw new Error(`upq write ${v.name}: ${r.stderr.trim()}`);
      files.push(enc
        ? { file: out, about: `${v.name} encrypted`, keys: KEY_ARGS, truth: path.join(dir, `${v.name}.parquet`),
            index: true, pages: 97 }
        : { file: out, about: v.name, index: true, pages: 97 });
    }
  }
  return files;
}

async function writeArrowRs(dir) {
  const { tableFromArrays, tableToIPC, vectorFromArray, List, Field, Int32, makeTable } = await import('apache-arrow');
  const pw = require('parquet-wasm/node');
  const n = 5000;
  const i = new Int32Array(n), s = new Array(n), l = new Array(n);
  for (let k = 0; k < n; k++) {
    i[k] = k;
    s[k] = k % 7 === 0 ? null : `v${k % 13}`;
    l[k] = k % 5 === 0 ? null : Array.from({ length: k % 4 }, (_, j) => (j === 1 ? null : k + j));
  }
  const t0 = tableFromArrays({ i, s });
  const lv = vectorFromArray(l, new List(new Field('item', new Int32(), true)));
  const t = makeTable({ i: t0.getChild('i').data[0], s: t0.getChild('s').data[0], l: lv.data[0] });
  const files = [];
  for (const version of [pw.WriterVersion.V1, pw.WriterVersion.V2]) {
    const props = new pw.WriterPropertiesBuilder().setDataPageSizeLimit(512).setWriteBatchSize(64)
      .setMaxRowGroupSize(2000).setWriterVersion(version).build();
    const out = path.join(dir, `arrow-rs-v${version === pw.WriterVersion.V1 ? 1 : 2}.parquet`);
    fs.writeFileSync(out, Buffer.from(pw.writeParquet(pw.Table.fromIPCStream(tableToIPC(t, 'stream')), props)));
    files.push({ file: out, about: `arrow-rs (parquet-wasm) ${path.basename(out)}`, index: true, pages: 64 });
  }
  return files;
}

async function writeDuck(duck, dir) {
  const out = path.join(dir, 'duckdb.parquet');
  await duck.con.run(`COPY (SELECT i::BIGINT AS i, CASE WHEN i % 7 = 0 THEN NULL ELSE 'v' || (i % 13) END AS s,
      CASE WHEN i % 5 = 0 THEN NULL ELSE [i, NULL, i + 2][1:(i % 4)] END AS l
    FROM range(30000) t(i)) TO '${out}' (FORMAT parquet, ROW_GROUP_SIZE 10000)`);
  return [{ file: out, about: 'DuckDB (no page index: header scan)', index: false, pages: 2048 }];
}

function corpusFiles() {
  const d = path.join(corpus, 'data');
  const plain = ['alltypes_tiny_pages.parquet', 'alltypes_tiny_pages_plain.parquet', 'int32_with_null_pages.parquet',
    'data_index_bloom_encoding_stats.parquet', 'repeated_primitive_no_list.parquet',
    'dict-page-offset-zero.parquet', 'lz4_raw_compressed_larger.parquet', 'nested_maps.snappy.parquet',
    'datapage_v2.snappy.parquet', 'overflow_i16_page_cnt.parquet']
    .map((f) => ({ file: path.join(d, f), about: `corpus ${f}`, index: null, pages: 20 }));
  const enc = ['encrypt_columns_plaintext_footer.parquet.encrypted', 'encrypt_columns_and_footer.parquet.encrypted',
    'uniform_encryption.parquet.encrypted', 'encrypt_columns_and_footer_ctr.parquet.encrypted']
    .filter((f) => fs.existsSync(path.join(d, f)))
    .map((f) => ({ file: path.join(d, f), about: `corpus ${f} (against upq's full read)`, keys: CORPUS_KEYS,
      self: true, index: null, pages: 20 }));
  return [...plain, ...enc];
}

// ---- checking ---------------------------------------------------------------

// Offsets to start at: ends, page and row group boundaries, the middle.
function offsets(n, rgRows, pages) {
  const set = new Set([0, 1, pages - 1, pages, pages + 1, 3 * pages, Math.floor(n / 2), n - 1]);
  let at = 0;
  for (const r of rgRows) {
    at += r;
    [at - 1, at, at + 1].forEach((x) => set.add(x));
  }
  return [...set].filter((x) => x >= 0 && x < n).sort((a, b) => a - b);
}

// upq's own full reading, as text lines (encrypted corpus files)
async function selfRows(f, proj) {
  const r = await upq(['cat', '--json', ...f.keys, ...(proj ? ['--columns', proj.join(',')] : []), f.file]);
  if (!r.ok) throw new Error(`upq cat (full read): ${r.stderr.trim()}`);
  return r.stdout.split('\n').filter((x) => x);
}

async function expectedRows(f, duck, shape) {
  if (f.self) return selfRows(f, null);
  const rows = [];
  for await (const batch of duck.rows(f.truth || f.file, shape)) rows.push(...batch);
  return rows;
}

const pick = (m, names) => (names ? new Map([...m].filter(([k]) => names.includes(k))) : m);

async function checkFile(f, duck) {
  const keys = f.keys || [];
  const meta = await upq(['meta', '--json', ...keys, f.file]);
  if (!meta.ok) throw new Error(`upq meta: ${meta.stderr.trim()}`);
  const m = JSON.parse(meta.stdout);
  const shape = rowShape(m.schema);
  const rgRows = m.row_groups.map((g) => Number(g.num_rows));
  const hasIndex = m.row_groups.some((g) => g.columns.some((c) => c.offset_index_offset !== undefined &&
    c.offset_index_offset !== null));
  if (f.index === true && !hasIndex) throw new Error('the file has no OffsetIndex');
  const all = await expectedRows(f, duck, shape);
  const n = all.length;
  if (n !== Number(m.num_rows)) throw new Error(`oracle has ${n} rows, the footer ${m.num_rows}`);
  const names = shape.fields.map((x) => x.name);
  const projections = [null];
  if (names.length >= 3) projections.push([names[1], names[2]]);
  let runs = 0, seeks = 0;
  for (const proj of projections) {
    const selfExp = f.self ? await selfRows(f, proj) : null;
    for (const a of offsets(n, rgRows, f.pages)) {
      for (const len of [1, 5, 300, null]) {
        const b = len === null ? n : Math.min(n, a + len);
        const args = ['cat', '--json', '--io-stats', ...keys, '--rows', len === null ? `${a}:` : `${a}:${b}`];
        if (proj) args.push('--columns', proj.join(','));
        args.push(f.file);
        const r = await upq(args);
        const what = `--rows ${a}:${len === null ? '' : b}${proj ? ` --columns ${proj.join(',')}` : ''}`;
        if (!r.ok) throw new Error(`${what}: upq failed: ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
        if (/page index not used/.test(r.stderr) && hasIndex) {
          throw new Error(`${what}: ${r.stderr.split('\n').find((x) => /not used/.test(x))}`);
        }
        const sm = /seek: (\d+) column chunks through the OffsetIndex, (\d+) by page headers/.exec(r.stderr);
        if (sm) seeks += Number(sm[1]);
        if (sm && f.index === false && Number(sm[1]) > 0) throw new Error(`${what}: seeks through an index it has not`);
        const lines = r.stdout.split('\n').filter((x) => x);
        if (lines.length !== b - a) throw new Error(`${what}: upq printed ${lines.length} rows, expected ${b - a}`);
        for (let k = 0; k < lines.length && selfExp; k++) {
          if (lines[k] !== selfExp[a + k]) throw new Error(`${what}: row ${a + k}: upq=${lines[k]} full read=${selfExp[a + k]}`);
        }
        for (let k = 0; k < lines.length && !selfExp; k++) {
          const exp = pick(all[a + k], proj);
          const d = firstDiff(exp, parseJsonLine(lines[k]));
          if (d) throw new Error(`${what}: row ${a + k} column ${d.path}: upq=${show(d.upq)} oracle=${show(d.oracle)}`);
        }
        runs++;
      }
    }
  }
  if (f.index === true && seeks === 0) throw new Error('no column chunk was entered through its OffsetIndex');
  return { runs, seeks, n };
}

async function main() {
  if (!fs.existsSync(opts.upq)) {
    if (opts.skipWithoutUpq) { console.log(`# ${opts.upq} not built: skipped`); return 77; }
    console.error(`rows_vs_duckdb: no ${opts.upq}`);
    return 2;
  }
  fs.mkdirSync(opts.work, { recursive: true });
  const duck = await DuckOracle.open();
  const files = [...await writeUpqFiles(opts.work), ...await writeArrowRs(opts.work),
    ...await writeDuck(duck, opts.work), ...corpusFiles()];
  let pass = 0, fail = 0;
  for (const f of files) {
    try {
      const { runs, seeks, n } = await checkFile(f, duck);
      console.log(`ok ${f.about} (${n} rows; ${runs} ranges; ${seeks} column chunks entered through the OffsetIndex)`);
      pass++;
    } catch (e) {
      console.log(`FAIL ${f.about}: ${e.message}`);
      fail++;
    }
  }
  duck.close();
  console.log(`${pass} passed, ${fail} failed`);
  return fail ? 1 : 0;
}

main().then((rc) => process.exit(rc), (e) => { console.error(e); process.exit(2); });
