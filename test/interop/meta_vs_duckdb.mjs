#!/usr/bin/env node
// Compares `upq meta --json FILE` with DuckDB's view of the same footer
// (parquet_file_metadata, parquet_metadata, parquet_schema,
// parquet_kv_metadata) for every plaintext-footer .parquet file under
// $PARQUET_TESTING_DIR/data.
//
//   node test/interop/meta_vs_duckdb.mjs [--upq PATH] [--duckdb-only]
//        [--skip-without-upq] [--verbose] [FILE...]
//
// Prints `ok FILE`, `FAIL FILE: reason` or `skip FILE: DuckDB cannot read it:
// message` per file and ends with `N passed, N failed, N skipped`; exits 1
// when anything failed. A file DuckDB reads but upq does not is a failure;
// files DuckDB cannot read are listed and not compared.
//
// --duckdb-only prints DuckDB's view without running upq. With
// --skip-without-upq, a missing upq binary does the same and exits 77
// ("skipped") so `make check` can run before the tool exists.
//
// Integers are compared exactly: upq's JSON is parsed with a BigInt-aware
// parser and DuckDB's BIGINT columns arrive as BigInt.

import { DuckDBInstance } from '@duckdb/node-api';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listParquet, footerMagic } from './corpus.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');

// ---- options ---------------------------------------------------------------

const opts = { upq: path.join(repoRoot, 'build', 'host', 'upq'), duckdbOnly: false,
               skipWithoutUpq: false, verbose: false, files: [] };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--upq') opts.upq = argv[++i];
    else if (a === '--duckdb-only') opts.duckdbOnly = true;
    else if (a === '--skip-without-upq') opts.skipWithoutUpq = true;
    else if (a === '--verbose' || a === '-v') opts.verbose = true;
    else if (a.startsWith('-')) { console.error(`meta_vs_duckdb: unknown option ${a}`); process.exit(2); }
    else opts.files.push(path.resolve(a));
  }
}
const corpusDir = process.env.PARQUET_TESTING_DIR
  ? path.resolve(process.env.PARQUET_TESTING_DIR)
  : path.resolve(repoRoot, '..', 'shared', 'parquet-testing');

// ---- the files ---------------------------------------------------------------



// ---- JSON with exact integers ------------------------------------------------

// JSON.parse turns integers past 2^53 into nearby doubles; this parser keeps
// every integer literal as a BigInt and other numbers as Number.
function parseJsonExact(text) {
  let i = 0;
  const strRe = /"(?:[^"\\\u0000-\u001f]|\\.)*"/y;
  const numRe = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
  const fail = (what) => { throw new Error(`invalid JSON at offset ${i}: ${what}`); };
  const ws = () => { while (i < text.length && ' \t\n\r'.includes(text[i])) i++; };
  const string = () => {
    strRe.lastIndex = i;
    const m = strRe.exec(text);
    if (!m) fail('bad string');
    i = strRe.lastIndex;
    return JSON.parse(m[0]);
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const o = {};
      ws();
      if (text[i] === '}') { i++; return o; }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a key');
        const k = string();
        ws();
        if (text[i++] !== ':') fail("expected ':'");
        o[k] = value();
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return o; }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const a = [];
      ws();
      if (text[i] === ']') { i++; return a; }
      for (;;) {
        a.push(value());
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return a; }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    for (const [lit, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(lit, i)) { i += lit.length; return v; }
    }
    numRe.lastIndex = i;
    const m = numRe.exec(text);
    if (!m || m[0] === '' || m[0] === '-') fail('unexpected character');
    i = numRe.lastIndex;
    return (m[1] === undefined && m[2] === undefined) ? BigInt(m[0]) : Number(m[0]);
  };
  const v = value();
  ws();
  if (i !== text.length) fail('trailing characters');
  return v;
}

// ---- DuckDB's view -------------------------------------------------------------

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

async function rows(con, sql) {
  const r = await con.runAndReadAll(sql);
  const names = r.columnNames();
  return r.getRows().map((row) => Object.fromEntries(row.map((v, k) => [names[k], v])));
}

async function duckView(con, file) {
  const f = sqlString(file);
  const [fm] = await rows(con, `SELECT * FROM parquet_file_metadata(${f})`);
  const schema = await rows(con, `SELECT * FROM parquet_schema(${f}) ORDER BY column_id`);
  const columns = await rows(con, `SELECT * FROM parquet_metadata(${f}) ORDER BY row_group_id, column_id`);
  const kv = await rows(con, `SELECT key, value FROM parquet_kv_metadata(${f})`);
  return { fm, schema, columns, kv };
}

// ---- DuckDB's renderings, mapped to upq's ---------------------------------------
//
// Enums come from Thrift's operator<<: the enum name, or the number for a
// value the Thrift definition DuckDB was built with lacks (upq says "?").
// Lists (encodings, path_in_schema) are joined with ", ". Logical types come
// from Thrift's printTo ("DecimalType(scale=2, precision=10)", "IntType(
// bitWidth=<the width as a raw char>, isSigned=1)"); members DuckDB's Thrift
// does not know (VARIANT, future ones) print as NULL. Column orders print as
// "ColumnOrder(TYPE_ORDER=TypeDefinedOrder())", or "ColumnOrder(TYPE_ORDER=
// <null>)" for a member it does not know. type_length is a VARCHAR.
// parquet_metadata.file_offset is ColumnChunk.file_offset, shown only when
// the row group has its own file_offset.

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
  if (s.startsWith('GeometryType(')) return 'GEOMETRY(*)';
  if (s.startsWith('GeographyType(')) return 'GEOGRAPHY(*)';
  return `?${s}`;
}

function duckColumnOrder(s) {
  if (/^ColumnOrder\(TYPE_ORDER=TypeDefinedOrder\(\)\)$/.test(s)) return 'TYPE_ORDER';
  return '*not TYPE_ORDER*';
}

// ---- comparison ---------------------------------------------------------------------

const show = (v) => (v === undefined ? 'missing' : typeof v === 'bigint' ? v.toString()
  : JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? x.toString() : x)));

function norm(v) {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  return v;
}

class Diff {
  constructor() { this.list = []; }
  add(where, upq, duck) { this.list.push(`${where}: upq ${show(upq)}, duckdb ${show(duck)}`); }
  eq(where, upq, duck) {
    const a = norm(upq), b = norm(duck);
    if (a === b) return;
    if (typeof a === 'bigint' && typeof b === 'bigint' && a === b) return;
    this.add(where, upq, duck);
  }
  // An enum name; DuckDB prints unknown values as numbers, upq as "?".
  eqEnum(where, upq, duck) {
    if (duck !== null && /^-?\d+$/.test(duck) && (upq === '?' || upq === duck)) return;
    this.eq(where, upq, duck);
  }
}

function utf8(bytes) {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function compare(file, u, d) {
  const diff = new Diff();
  const { fm } = d;

  // file
  diff.eq('num_rows', u.num_rows, fm.num_rows);
  diff.eq('number of row groups', BigInt((u.row_groups || []).length), fm.num_row_groups);
  diff.eq('version', u.version, fm.format_version);
  diff.eq('file_size', u.file_size, fm.file_size_bytes);
  diff.eq('footer_length', u.footer_length, fm.footer_size);
  diff.eq('created_by', u.created_by, fm.created_by);
  {
    const dco = fm.column_orders ? fm.column_orders.items.map(duckColumnOrder) : null;
    const uco = u.column_orders;
    if (dco === null || uco === null || uco === undefined) diff.eq('column_orders', uco, dco);
    else if (dco.length !== uco.length) diff.add('number of column_orders', uco.length, dco.length);
    else {
      dco.forEach((dv, k) => {
        const ok = dv === 'TYPE_ORDER' ? uco[k] === 'TYPE_ORDER' : uco[k] !== 'TYPE_ORDER';
        if (!ok) diff.add(`column_orders[${k}]`, uco[k], dv);
      });
    }
  }

  // key/value metadata (DuckDB cannot tell an absent value from an empty one)
  {
    const ukv = u.key_value_metadata || [];
    if (ukv.length !== d.kv.length) diff.add('number of key_value_metadata', ukv.length, d.kv.length);
    else {
      d.kv.forEach((e, k) => {
        const key = utf8(e.key.bytes), value = utf8(e.value.bytes);
        if (key !== undefined) diff.eq(`key_value_metadata[${k}].key`, ukv[k].key, key);
        if (value !== undefined) diff.eq(`key_value_metadata[${k}].value`, ukv[k].value ?? '', value);
      });
    }
  }

  // schema
  const us = u.schema || [];
  if (us.length !== d.schema.length) {
    diff.add('number of schema elements', us.length, d.schema.length);
  } else {
    d.schema.forEach((ds, k) => {
      const e = us[k], w = `schema[${k}] (${ds.name})`;
      diff.eq(`${w}.name`, e.name, ds.name);
      diff.eqEnum(`${w}.type`, e.type, ds.type);
      diff.eq(`${w}.type_length`, e.type_length, ds.type_length === null ? null : BigInt(ds.type_length));
      diff.eqEnum(`${w}.repetition`, e.repetition, ds.repetition_type);
      diff.eq(`${w}.num_children`, e.num_children, ds.num_children);
      diff.eqEnum(`${w}.converted_type`, e.converted_type, ds.converted_type);
      diff.eq(`${w}.scale`, e.scale, ds.scale);
      diff.eq(`${w}.precision`, e.precision, ds.precision);
      diff.eq(`${w}.field_id`, e.field_id, ds.field_id);
      const dl = duckLogicalType(ds.logical_type);
      if (dl !== null) {
        const ul = e.logical_type === null || e.logical_type === undefined
          ? null : String(e.logical_type).replaceAll(' ', '');
        const same = dl.endsWith('(*)')
          ? ul !== null && ul.split('(')[0] === dl.slice(0, -3)
          : ul === dl;
        if (!same) diff.add(`${w}.logical_type`, e.logical_type, dl);
      }
    });
  }

  // row groups and column chunks
  const byRg = new Map();
  for (const c of d.columns) {
    const k = Number(c.row_group_id);
    if (!byRg.has(k)) byRg.set(k, []);
    byRg.get(k)[Number(c.column_id)] = c;
  }
  (u.row_groups || []).forEach((rg, r) => {
    const dcols = byRg.get(r) || [];
    const ucols = rg.columns || [];
    if (dcols.length !== ucols.length) {
      diff.add(`row_groups[${r}] number of columns`, ucols.length, dcols.length);
      return;
    }
    if (dcols.length > 0) {
      const first = dcols[0];
      diff.eq(`row_groups[${r}].num_rows`, rg.num_rows, first.row_group_num_rows);
      diff.eq(`row_groups[${r}].columns`, BigInt(ucols.length), first.row_group_num_columns);
      diff.eq(`row_groups[${r}].total_byte_size`, rg.total_byte_size, first.row_group_bytes);
      diff.eq(`row_groups[${r}].total_compressed_size`, rg.total_compressed_size,
        first.row_group_compressed_bytes);
    }
    ucols.forEach((c, j) => {
      const dc = dcols[j];
      const w = `row_groups[${r}].columns[${j}] (${dc.path_in_schema})`;
      diff.eq(`${w}.path`, c.path, dc.path_in_schema.split(', ').join('.'));
      diff.eqEnum(`${w}.type`, c.type, dc.type);
      diff.eqEnum(`${w}.codec`, c.codec, dc.compression);
      {
        const ue = [...new Set((c.encodings || []).map(String))].sort();
        const de = [...new Set(dc.encodings === '' ? [] : dc.encodings.split(', '))].sort();
        const ok = ue.length === de.length && ue.every((x, k) => x === de[k] ||
          (x === '?' && /^-?\d+$/.test(de[k])));
        if (!ok) diff.add(`${w}.encodings`, ue, de);
      }
      diff.eq(`${w}.num_values`, c.num_values, dc.num_values);
      diff.eq(`${w}.total_uncompressed_size`, c.total_uncompressed_size, dc.total_uncompressed_size);
      diff.eq(`${w}.total_compressed_size`, c.total_compressed_size, dc.total_compressed_size);
      diff.eq(`${w}.data_page_offset`, c.data_page_offset, dc.data_page_offset);
      diff.eq(`${w}.dictionary_page_offset`, c.dictionary_page_offset, dc.dictionary_page_offset);
      diff.eq(`${w}.index_page_offset`, c.index_page_offset, dc.index_page_offset);
      diff.eq(`${w}.file_offset`, rg.file_offset === null || rg.file_offset === undefined
        ? null : c.file_offset, dc.file_offset);
      diff.eq(`${w}.bloom_filter_offset`, c.bloom_filter_offset, dc.bloom_filter_offset);
      diff.eq(`${w}.bloom_filter_length`, c.bloom_filter_length, dc.bloom_filter_length);
      const st = c.statistics || {};
      diff.eq(`${w}.statistics.null_count`, st.null_count, dc.stats_null_count);
      diff.eq(`${w}.statistics.distinct_count`, st.distinct_count, dc.stats_distinct_count);
      diff.eq(`${w}.statistics.is_min_value_exact`, st.is_min_value_exact, dc.min_is_exact);
      diff.eq(`${w}.statistics.is_max_value_exact`, st.is_max_value_exact, dc.max_is_exact);
    });
  });
  for (const r of byRg.keys()) {
    if (r >= (u.row_groups || []).length) diff.add(`row_groups[${r}]`, undefined, 'present');
  }
  return diff.list;
}

// ---- running upq ------------------------------------------------------------------

function runUpq(file) {
  return new Promise((resolve) => {
    execFile(opts.upq, ['meta', '--json', file],
      { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, timeout: 120000 },
      (err, stdout, stderr) => {
        if (err) {
          const why = err.killed ? `killed (${err.signal || 'timeout'})`
            : err.signal ? `signal ${err.signal}` : `exit status ${err.code}`;
          const msg = (stderr || '').trim().split('\n').slice(-3).join(' | ');
          resolve({ error: `upq meta --json failed: ${why}${msg ? `: ${msg}` : ''}` });
          return;
        }
        try {
          resolve({ json: parseJsonExact(stdout) });
        } catch (e) {
          resolve({ error: `upq meta --json printed ${e.message}` });
        }
      });
  });
}

function describe(d) {
  const codecs = [...new Set(d.columns.map((c) => c.compression))].join('/');
  const encs = [...new Set(d.columns.flatMap((c) => (c.encodings ? c.encodings.split(', ') : [])))];
  return `${d.fm.num_rows} rows, ${d.fm.num_row_groups} row groups, ` +
    `${d.schema.length} schema elements, codecs ${codecs || '-'}, encodings ${encs.join('/') || '-'}`;
}

// ---- main -------------------------------------------------------------------------

async function main() {
  let files = opts.files;
  if (files.length === 0) {
    const dataDir = path.join(corpusDir, 'data');
    if (!fs.existsSync(dataDir)) {
      console.error(`meta_vs_duckdb: no corpus at ${dataDir} (set PARQUET_TESTING_DIR)`);
      return 2;
    }
    files = listParquet(dataDir).filter((f) => footerMagic(f) !== 'PARE');
  }
  let duckdbOnly = opts.duckdbOnly;
  let skipped = false;
  if (!duckdbOnly && !fs.existsSync(opts.upq)) {
    if (!opts.skipWithoutUpq) {
      console.error(`meta_vs_duckdb: ${opts.upq} does not exist (build it, or use --duckdb-only)`);
      return 2;
    }
    console.log(`# ${opts.upq} is not built yet: showing DuckDB's side only; comparison skipped`);
    duckdbOnly = true;
    skipped = true;
  }

  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  const rel = (f) => path.relative(corpusDir, f) || f;
  let pass = 0, fail = 0;
  const exceptions = [];

  for (const file of files) {
    let d = null, derr = null;
    try {
      d = await duckView(con, file);
    } catch (e) {
      derr = String(e.message || e).split('\n')[0];
    }
    if (duckdbOnly) {
      if (d) { if (!skipped || opts.verbose) console.log(`duckdb ${rel(file)}: ${describe(d)}`); }
      else {
        console.log(`skip ${rel(file)}: DuckDB cannot read it: ${derr}`);
        exceptions.push([file, derr]);
      }
      continue;
    }
    const u = await runUpq(file);
    if (!d) {
      const ustate = u.error ? `upq: ${u.error}` : 'upq reads it';
      console.log(`skip ${rel(file)}: DuckDB cannot read it: ${derr} (${ustate})`);
      exceptions.push([file, derr]);
      continue;
    }
    if (u.error) {
      console.log(`FAIL ${rel(file)}: ${u.error}`);
      fail++;
      continue;
    }
    const diffs = compare(file, u.json, d);
    if (diffs.length === 0) {
      console.log(`ok ${rel(file)}`);
      pass++;
    } else {
      const shown = opts.verbose ? diffs : diffs.slice(0, 4);
      const more = diffs.length > shown.length ? ` (+${diffs.length - shown.length} more; --verbose shows all)` : '';
      console.log(`FAIL ${rel(file)}: ${shown.join('; ')}${more}`);
      fail++;
    }
  }

  if (skipped) console.log(`# DuckDB read ${files.length - exceptions.length} of ${files.length} file(s)`);
  if (exceptions.length) {
    console.log(`# DuckDB ${DUCKDB_VERSION} could not read ${exceptions.length} file(s); not compared:`);
    for (const [f, m] of exceptions) console.log(`#   ${rel(f)}: ${m}`);
  }
  console.log(`${pass} passed, ${fail} failed, ${exceptions.length + (duckdbOnly ? files.length - exceptions.length : 0)} skipped`);
  if (skipped) return 77;
  return fail ? 1 : 0;
}

let DUCKDB_VERSION = '?';
try {
  const pkg = JSON.parse(fs.readFileSync(path.join(here, 'node_modules', '@duckdb', 'node-api', 'package.json'), 'utf8'));
  DUCKDB_VERSION = pkg.version;
} catch { /* only used in messages */ }

// exit only once stdout has drained: through a pipe, an immediate exit can
// drop the tail of the output, summary line included
const exitAfterFlush = (code) => process.stdout.write('', () => process.exit(code));
main().then(exitAfterFlush, (e) => {
  console.error(e && e.stack ? e.stack : e);
  exitAfterFlush(1);
});
