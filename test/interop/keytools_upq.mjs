#!/usr/bin/env node
// Key-tools key material (parquet-java, Spark) through the upq tool.
//
//   node test/interop/keytools_upq.mjs [--upq PATH] [--skip-without-upq] [--work DIR]
//
//  - the corpus's external_key_material_java.parquet.encrypted (parquet-mr,
//    side file beside it) read by `upq cat --json` with KEYS.md's master
//    keys given as text:, hex and base64: (its 100 rows against their
//    generator), by `upq meta` and `upq schema`, and with --key-material
//    naming a copy of the side file elsewhere;
//  - for a few corpus files: `upq write` with --footer-master-key and
//    --column-master-key in single and double wrapping, internal and
//    external storage; `upq cat --json` with the master keys gives the rows
//    back; the key metadata of the footer and of each column (`upq meta`
//    prints the columns') is parquet-java's JSON (fields by name, wrapped
//    sizes) and the side file a map of footerKey, columnKey0, ... that the
//    file's references name exactly;
//  - DuckDB (which takes one key for the whole file and ignores
//    key_metadata) reads a uniformly encrypted key-tools file with the DEK
//    given to `upq write --footer-key`, so the file is an ordinary
//    encrypted Parquet file under its key material; upq reads it with that
//    DEK as --footer-key and no master keys;
//  - failures, each a non-zero exit and a message naming the cause: a wrong
//    master key, an unknown master key id, a missing side file, a wrappedDEK
//    that is not base64, an unknown field, a side file that is not JSON.
// Lines `ok ...` / `FAIL ...`, then `N passed, N failed`.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rowShape, parseJsonLine, firstDiff, show } from './canonical.mjs';
import { upqOptions, runUpq, tally } from './upq_harness.mjs';

const tallied = tally();

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const corpus = process.env.PARQUET_TESTING_DIR || path.resolve(repoRoot, '..', 'shared', 'parquet-testing');

const opts = upqOptions();
const run = (args) => runUpq(opts.upq, args);
const { result } = tallied;

const KF = '0123456789012345', KC1 = '1234567890123450', KC2 = '1234567890123451';
const hex = (s) => Buffer.from(s).toString('hex');
const b64 = (s) => Buffer.from(s).toString('base64');
const CORPUS_KEYS = ['--kms-key', `kf=text:${KF}`, '--kms-key', `kc1=text:${KC1}`, '--kms-key', `kc2=text:${KC2}`];

// parquet-mr's file: integers i, strings "a".."j" (i % 10) followed by i
function corpusRowsWhy(stdout) {
  const lines = stdout.split('\n').filter((l) => l.length);
  if (lines.length !== 100) return `${lines.length} rows, want 100`;
  for (let i = 0; i < 100; i++) {
    const want = JSON.stringify({ integers: i, strings: String.fromCharCode(97 + (i % 10)) + i });
    if (lines[i] !== want) return `row ${i}: ${lines[i]}, want ${want}`;
  }
  return '';
}

async function corpusFile(work) {
  const f = path.join(corpus, 'data', 'external_key_material_java.parquet.encrypted');
  const keyForms = [
    ['text:', CORPUS_KEYS],
    ['hex', ['--kms-key', `kf=${hex(KF)}`, '--kms-key', `kc1=${hex(KC1)}`, '--kms-key', `kc2=${hex(KC2)}`]],
    ['base64:', ['--kms-key', `kf=base64:${b64(KF)}`, '--kms-key', `kc1=base64:${b64(KC1)}`, '--kms-key', `kc2=base64:${b64(KC2)}`]],
  ];
  for (const [form, keys] of keyForms) {
    const c = await run(['cat', '--json', ...keys, f]);
    const why = c.code ? c.stderr.trim() : corpusRowsWhy(c.stdout);
    result(!why, `external_key_material_java: upq cat --json with master keys as ${form}: the 100 rows`, why);
  }
  const m = await run(['meta', ...CORPUS_KEYS, f]);
  result(m.code === 0 && /num_rows: 100/.test(m.stdout) && /encryption: column key/.test(m.stdout),
    'external_key_material_java: upq meta', m.stderr.trim());
  const s = await run(['schema', ...CORPUS_KEYS, f]);
  result(s.code === 0 && /required binary strings \(STRING\)/.test(s.stdout), 'external_key_material_java: upq schema',
    s.stderr.trim() || s.stdout);
  // the parquet file alone, its side file elsewhere
  const dir = path.join(work, 'corpus');
  fs.mkdirSync(dir, { recursive: true });
  const copy = path.join(dir, 'x.parquet.encrypted');
  fs.copyFileSync(f, copy);
  const none = await run(['cat', '--json', ...CORPUS_KEYS, copy]);
  result(none.code !== 0 && /_KEY_MATERIAL_FOR_x\.parquet\.encrypted\.json: cannot open it/.test(none.stderr),
    'external_key_material_java without its side file: refused, the side file named', none.stderr.trim());
  const side = path.join(dir, 'elsewhere.json');
  fs.copyFileSync(path.join(corpus, 'data', '_KEY_MATERIAL_FOR_external_key_material_java.parquet.encrypted.json'), side);
  const given = await run(['cat', '--json', ...CORPUS_KEYS, '--key-material', side, copy]);
  const why = given.code ? given.stderr.trim() : corpusRowsWhy(given.stdout);
  result(!why, 'external_key_material_java with --key-material naming its side file', why);
  const wrong = await run(['cat', '--json', '--kms-key', `kf=text:${KC1}`, '--kms-key', `kc1=text:${KC1}`,
    '--kms-key', `kc2=text:${KC2}`, f]);
  result(wrong.code !== 0 && /GCM tag does not verify under master key 'kf'/.test(wrong.stderr),
    'external_key_material_java with a wrong kf: refused, the GCM tag named', wrong.stderr.trim());
}

const FILES = ['alltypes_plain.parquet', 'nested_lists.snappy.parquet', 'datapage_v2.snappy.parquet'];
const MASTER = ['--kms-key', 'mf=text:master-footer-k!', '--kms-key', `mc=${hex('master-column-key-of-32-bytes!!!')}`];
const MODES = [
  { name: 'double wrapping, internal', args: [] },
  { name: 'single wrapping, internal', args: ['--single-wrapping'] },
  { name: 'double wrapping, external', args: ['--external-key-material'], external: true },
  { name: 'single wrapping, external', args: ['--single-wrapping', '--external-key-material'], external: true },
];

// Leaf column paths of `upq meta --json`'s schema (dotted), at most n.
function leafPaths(meta, n) {
  const paths = [];
  const schema = meta.schema;
  let i = 1;
  function walk(prefix) {
    const e = schema[i++];
    const p = prefix ? `${prefix}.${e.name}` : e.name;
    if (e.num_children) for (let c = 0; c < e.num_children; c++) walk(p);
    else paths.push(p);
  }
  while (i < schema.length) walk('');
  return paths.slice(0, n);
}

// The key-tools JSON a file stores: the footer key's (plaintext
// FileCryptoMetaData: a printable run beginning with {"keyMaterialType") and
// the columns' as `upq meta` prints them (key_metadata: "...").
async function storedMaterial(file, keys) {
  const text = fs.readFileSync(file).toString('latin1');
  const found = [...text.matchAll(/\{"keyMaterialType":[\x20-\x7e]*?\}/g)].map((m) => m[0]);
  const meta = await run(['meta', ...keys, file]);
  for (const m of meta.stdout.matchAll(/^ {4}key_metadata: (".*")$/gm)) found.push(JSON.parse(m[1]));
  return found;
}

function materialWhy(obj, { footer, double, internal }) {
  const want = ['keyMaterialType', 'isFooterKey', 'masterKeyID', 'wrappedDEK', 'doubleWrapping'];
  if (internal) want.push('internalStorage');
  if (footer) want.push('kmsInstanceID', 'kmsInstanceURL');
  if (double) want.push('keyEncryptionKeyID', 'wrappedKEK');
  const got = Object.keys(obj).sort().join(',');
  if (got !== want.sort().join(',')) return `fields ${got}`;
  if (obj.keyMaterialType !== 'PKMT1' || obj.isFooterKey !== footer || obj.doubleWrapping !== double ||
      (internal && obj.internalStorage !== true)) return `values ${JSON.stringify(obj)}`;
  if (obj.masterKeyID !== (footer ? 'mf' : 'mc')) return `masterKeyID ${obj.masterKeyID}`;
  const dek = Buffer.from(obj.wrappedDEK, 'base64');
  if (dek.length !== 12 + 16 + 16) return `wrappedDEK of ${dek.length} bytes`;
  if (double && Buffer.from(obj.keyEncryptionKeyID, 'base64').length !== 16) return 'KEK id not 16 bytes';
  return '';
}

async function written(work, duck) {
  for (const name of FILES) {
    const src = path.join(corpus, 'data', name);
    const cat = await run(['cat', '--json', src]);
    const schema = await run(['schema', src]);
    const meta = await run(['meta', '--json', src]);
    if (cat.code || schema.code || meta.code) { result(false, name, 'upq cannot read the original'); continue; }
    const s = path.join(work, 'schema.txt'), a = path.join(work, 'a.jsonl');
    fs.writeFileSync(s, schema.stdout);
    fs.writeFileSync(a, cat.stdout);
    const cols = leafPaths(JSON.parse(meta.stdout), 2);
    for (const m of MODES) {
      const what = `${name} [${m.name}, columns ${cols.join(', ')} under mc]`;
      const dir = fs.mkdtempSync(path.join(work, 'w-'));
      const out = path.join(dir, 'out.parquet');
      const sideFile = path.join(dir, '_KEY_MATERIAL_FOR_out.parquet.json');
      const w = await run(['write', '--schema', s, ...MASTER, '--footer-master-key', 'mf',
        ...cols.flatMap((c) => ['--column-master-key', `${c}=mc`]), ...m.args, a, out]);
      if (w.code) { result(false, what, `upq write: ${w.stderr.trim()}`); continue; }
      const back = await run(['cat', '--json', ...MASTER, out]);
      result(back.code === 0 && back.stdout === cat.stdout, `${what}: upq reads the rows back`,
        back.stderr.trim() || 'other rows');
      // what the file and the side file hold
      const stored = await storedMaterial(out, MASTER);
      let why = '';
      if (m.external) {
        if (!fs.existsSync(sideFile)) why = 'no side file';
        else {
          const map = JSON.parse(fs.readFileSync(sideFile, 'utf8'));
          const refs = Object.keys(map).sort().join(',');
          const want = ['footerKey', ...cols.map((_, i) => `columnKey${i}`)].sort().join(',');
          if (refs !== want) why = `side file references ${refs}, want ${want}`;
          for (const r of Object.keys(map)) {
            why = why || materialWhy(JSON.parse(map[r]), { footer: r === 'footerKey', double: !m.args.includes('--single-wrapping'), internal: false });
          }
          const refsInFile = stored.map((t) => JSON.parse(t)).filter((o) => o.internalStorage === false).map((o) => o.keyReference);
          if (!why && refsInFile.sort().join(',') !== want) why = `references in the file: ${refsInFile}`;
        }
      } else {
        if (fs.existsSync(sideFile)) why = 'a side file was written';
        const objs = stored.map((t) => JSON.parse(t));
        if (!objs.some((o) => o.isFooterKey)) why = why || 'no footer key material in the file';
        if (objs.filter((o) => !o.isFooterKey).length < cols.length) why = why || 'column key material missing';
        for (const o of objs) why = why || materialWhy(o, { footer: o.isFooterKey, double: !m.args.includes('--single-wrapping'), internal: true });
      }
      result(!why, `${what}: key metadata and side file as parquet-java writes them`, why);
      if (m.external) {
        const moved = path.join(work, 'moved.json');
        fs.renameSync(sideFile, moved);
        const miss = await run(['cat', '--json', ...MASTER, out]);
        result(miss.code !== 0 && miss.stderr.includes(`${sideFile}: cannot open it`),
          `${what}: without the side file: refused, the side file named`, miss.stderr.trim());
        const given = await run(['cat', '--json', ...MASTER, '--key-material', moved, out]);
        result(given.code === 0 && given.stdout === cat.stdout, `${what}: --key-material names the moved side file`,
          given.stderr.trim());
      }
    }
  }
  // DuckDB reads a uniformly encrypted key-tools file with its DEK
  {
    const src = path.join(corpus, 'data', 'alltypes_plain.parquet');
    const cat = await run(['cat', '--json', src]);
    const s = path.join(work, 'schema.txt'), a = path.join(work, 'a.jsonl');
    fs.writeFileSync(s, (await run(['schema', src])).stdout);
    fs.writeFileSync(a, cat.stdout);
    const DEK = 'uparquet-dek-128';
    await duck.addKey('dek', DEK);
    for (const m of MODES) {
      const dir = fs.mkdtempSync(path.join(work, 'd-'));
      const out = path.join(dir, 'u.parquet');
      const w = await run(['write', '--schema', s, ...MASTER, '--footer-master-key', 'mf', '--footer-key', `text:${DEK}`, ...m.args, a, out]);
      if (w.code) { result(false, `DuckDB [${m.name}]`, `upq write: ${w.stderr.trim()}`); continue; }
      const meta = await run(['meta', '--json', ...MASTER, out]);
      if (meta.code) { result(false, `DuckDB [${m.name}]`, `upq meta: ${meta.stderr.trim()}`); continue; }
      const shape = rowShape(JSON.parse(meta.stdout).schema);
      const lines = cat.stdout.split('\n').filter((l) => l.length);
      let why = '', row = 0;
      try {
        for await (const batch of duck.rows(out, shape, 'dek')) {
          for (const got of batch) {
            const d = row < lines.length ? firstDiff(got, parseJsonLine(lines[row])) : { path: '', upq: '', oracle: 'extra row' };
            if (d && !why) why = `row ${row} ${d.path}: upq=${show(d.upq)} DuckDB=${show(d.oracle)}`;
            row++;
          }
        }
      } catch (e) { why = `DuckDB: ${String(e.message).split('\n')[0]}`; }
      if (!why && row !== lines.length) why = `DuckDB reads ${row} rows, want ${lines.length}`;
      result(!why, `DuckDB reads upq's key-tools file [uniform, ${m.name}] with the DEK`, why);
      // upq too, with the DEK and no master keys (the side file moved away)
      if (m.external) fs.renameSync(path.join(dir, '_KEY_MATERIAL_FOR_u.parquet.json'), path.join(dir, 'gone.json'));
      const plain = await run(['cat', '--json', '--footer-key', `text:${DEK}`, out]);
      result(plain.code === 0 && plain.stdout === cat.stdout, `upq reads it [uniform, ${m.name}] with the DEK as --footer-key`,
        plain.stderr.trim() || 'other rows');
    }
  }
}

async function failures(work) {
  const src = path.join(corpus, 'data', 'alltypes_plain.parquet');
  const s = path.join(work, 'schema.txt'), a = path.join(work, 'a.jsonl');
  fs.writeFileSync(s, (await run(['schema', src])).stdout);
  fs.writeFileSync(a, (await run(['cat', '--json', src])).stdout);
  const dir = fs.mkdtempSync(path.join(work, 'f-'));
  const out = path.join(dir, 'e.parquet');
  const sideFile = path.join(dir, '_KEY_MATERIAL_FOR_e.parquet.json');
  const w = await run(['write', '--schema', s, ...MASTER, '--footer-master-key', 'mf', '--column-master-key', 'id=mc',
    '--external-key-material', a, out]);
  if (w.code) { result(false, 'failures: upq write', w.stderr.trim()); return; }
  const good = fs.readFileSync(sideFile, 'utf8');
  const cases = [
    ['a wrong master key mf', ['--kms-key', 'mf=text:master-footer-k?', MASTER[2], MASTER[3]], good, /GCM tag does not verify under master key 'mf'/],
    ['an unknown master key id', ['--kms-key', 'mf=text:master-footer-k!'], good, /no master key 'mc'/],
    ['a wrappedDEK that is not base64', MASTER, good.replace(/(wrappedDEK\\":\\")(....)/, '$1*!*!'), /not base64/],
    ['an unknown field', MASTER, good.replace('{\\"keyMaterialType', '{\\"keyVersion\\":\\"2\\",\\"keyMaterialType'), /unknown field "keyVersion"/],
    ['another key material type', MASTER, good.replaceAll('PKMT1', 'PKMT9'), /key material type "PKMT9"/],
    ['a side file that is not JSON', MASTER, good.slice(0, 40), /bad JSON/],
    ['a side file without the footer key', MASTER, good.replace('"footerKey"', '"footerKez"'), /no key reference 'footerKey'/],
  ];
  for (const [what, keys, side, re] of cases) {
    fs.writeFileSync(sideFile, side);
    const c = await run(['cat', '--json', ...keys, out]);
    result(c.code !== 0 && re.test(c.stderr) && !c.stdout.includes('{"id"'), `upq cat refuses ${what}, saying so`,
      c.stderr.trim() || `exit ${c.code}`);
  }
  // checkpoint mode: a cut copy recovered with the master keys reads as a prefix of the rows
  {
    const big = path.join(dir, 'big.jsonl');
    const rows = fs.readFileSync(a, 'utf8');
    fs.writeFileSync(big, rows.repeat(200));
    const ck = path.join(dir, 'ck.parquet'), cut = path.join(dir, 'cut.parquet');
    const cw = await run(['write', '--schema', s, ...MASTER, '--footer-master-key', 'mf', '--column-master-key', 'id=mc',
      '--checkpoint', '--row-group-rows', '200', big, ck]);
    let why = cw.code ? `upq write: ${cw.stderr.trim()}` : '';
    if (!why) {
      const bytes = fs.readFileSync(ck);
      fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
      const nokey = await run(['recover', '--kms-key', 'mf=text:master-footer-k!', cut]);
      if (nokey.code === 0 || !/no master key 'mc'/.test(nokey.stderr)) why = `recover without mc: ${nokey.stderr.trim() || 'succeeded'}`;
    }
    if (!why) {
      const r = await run(['recover', ...MASTER, cut]);
      const back = await run(['cat', '--json', ...MASTER, cut]);
      const n = back.stdout.split('\n').filter((l) => l.length).length;
      if (r.code || back.code) why = (r.stderr + back.stderr).trim();
      else if (n < 200 || !rows.repeat(200).startsWith(back.stdout)) why = `${n} rows, not a prefix of at least one row group`;
    }
    result(!why, 'checkpoint mode with key material: upq recover of a cut copy needs the master keys, then reads a prefix of the rows', why);
  }
  const stray = await run(['write', '--schema', s, '--column-master-key', 'id=mc', a, path.join(dir, 's.parquet')]);
  result(stray.code !== 0 && /needs --footer-master-key/.test(stray.stderr) && !fs.existsSync(path.join(dir, 's.parquet')),
    'upq write refuses --column-master-key without --footer-master-key, writing nothing', stray.stderr.trim());
  const bad = await run(['write', '--schema', s, ...MASTER, '--footer-master-key', 'nope', a, path.join(dir, 'n.parquet')]);
  result(bad.code !== 0 && /no master key 'nope'/.test(bad.stderr) && !fs.existsSync(path.join(dir, 'n.parquet')),
    'upq write refuses an unknown master key id, writing nothing', bad.stderr.trim());
}

async function main() {
  if (!fs.existsSync(opts.upq)) {
    if (opts.skipWithoutUpq) { console.log(`# skipped: no ${opts.upq}`); console.log('0 passed, 0 failed'); return; }
    console.error(`no ${opts.upq}`); process.exit(2);
  }
  const work = opts.work || fs.mkdtempSync(path.join(os.tmpdir(), 'upq-keytools-'));
  fs.mkdirSync(work, { recursive: true });
  const { DuckOracle } = await import('./oracle_duckdb.mjs');
  const duck = await DuckOracle.open();
  await corpusFile(work);
  await written(work, duck);
  await failures(work);
  duck.close();
  if (!opts.work) fs.rmSync(work, { recursive: true, force: true });
  await tallied.finish();
}

main().catch((e) => { console.error(e); process.exit(2); });
