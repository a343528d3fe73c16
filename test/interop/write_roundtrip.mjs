#!/usr/bin/env node
// `upq write` against `upq cat --json` and DuckDB.
//
//   node test/interop/write_roundtrip.mjs [--upq PATH] [--skip-without-upq]
//        [--files-from LIST] [--work DIR] [--no-duckdb]
//        [--only schema|roundtrip|errors|sensor]
//        [FILE...]
//
// Three parts, each line `ok ...` or `FAIL ...`, then `N passed, N failed`:
//
// schema     for every .parquet file under $PARQUET_TESTING_DIR that upq can
//            open (and every FILE / LIST entry): `upq schema F` parsed back by
//            `upq write --schema s --schema-json` must give F's footer schema
//            element by element (`upq meta --json`), except for what message
//            syntax does not carry (see SCHEMA_RULES).
// roundtrip  for every file of LIST (the files check-conformance passed: the
//            corpus and the DuckDB-generated ones) and every FILE, in each
//            VARIANTS option set: `upq cat --json F > a.jsonl`, `upq write
//            --schema s a.jsonl out.parquet`, then `upq cat --json out.parquet`
//            must equal a.jsonl byte for byte, `upq schema out.parquet` must
//            equal s, and DuckDB's reading of out.parquet must equal its
//            reading of F (or, where DuckDB cannot read F, upq's: a.jsonl).
//            The checkpoint-mode copy (its chunks in regions with gaps
//            between them, a journal beside them) is read by arrow-rs and
//            hyparquet too: each must read it as it reads F (a reader that
//            cannot read F is noted), and its row groups hold at most
//            --row-group-rows rows.
// errors     a bad JSON line, a value of the wrong type, a missing required
//            field, ...: exit status 1, a message naming the line and the
//            field, and no OUT (nor OUT.tmp) left behind. The same for
//            schemas the format forbids (INTERVAL off fixed(12), VARIANT on
//            a primitive or without value, LIST with two children, two
//            siblings of one name, ...) and --kv without '='; --codec lz4
//            is LZ4_RAW and --help lists only codecs upq writes.
// sensor     the sensor logger beside upq (build/host/sensor_logger), when
//            built: its file (checkpoint mode) reads the same in upq,
//            DuckDB, arrow-rs and hyparquet, its row groups hold at most the
//            rows asked for, and the same seed gives the same bytes, also
//            through a sink that says "again" every other write.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rowShape, parseJsonLine, firstDiff, show } from './canonical.mjs';
import { listParquet } from './corpus.mjs';
import { CheckFailure, readersAgree, rowGroupsWithin } from './checkpoint_check.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');

// ---- what is not compared, and why ----------------------------------------------

// Schema elements: what `upq schema`'s message syntax does not print.
const SCHEMA_RULES = [
  "the root's repetition and field id are not printed (writers differ on them)",
  'an annotation printed as a name that is both a LogicalType and a ConvertedType ' +
    '(DATE, DECIMAL(p,s), LIST, MAP, ENUM, JSON, BSON) is read back as the LogicalType, which ' +
    "brings the same ConvertedType: a file with only the ConvertedType gains the LogicalType",
  'with a LogicalType, the ConvertedType is the one the writer derives from it (for example ' +
    'none for TIMESTAMP(MICROS,false), which some writers still mark TIMESTAMP_MICROS)',
];

// Files the round trip leaves out or checks only in part.
const EXCEPTIONS = [
  { file: 'int96_from_spark.parquet', ref: 'upq',
    why: 'DuckDB reads the year-290000 INT96 of the original as -226413-01-07T22:21:39.416064 ' +
         '(an overflow; see check-conformance): DuckDB\'s reading of the copy is compared with ' +
         "upq's rows instead, which it matches" },
  { file: 'map_no_value.parquet', duckdb: false,
    why: "DuckDB cannot read a MAP without values ('MAP_KEY_VALUE requires two children'), " +
         'neither the original nor the copy: only upq compares them' },
];

// Option sets every round trip runs with.
const VARIANTS = [
  { name: 'defaults', args: [] },
  { name: 'v2+snappy+plain+small groups',
    args: ['--data-page-v2', '--codec', 'SNAPPY', '--no-dictionary', '--row-group-rows', '7',
           '--page-size', '64K'] },
  // short pages and small row groups (many of both, ended by bytes or by
  // rows), checkpoint mode, no CRC/statistics/page index, and a sink that
  // takes at most 13 bytes a call and says "again" every other call
  { name: 'short pages+checkpoints+blocking sink', checkpoint: true, rgRows: 100,
    args: ['--checkpoint', '--page-levels', '64', '--row-group-size', '4K', '--row-group-rows', '100',
           '--dictionary', '--no-crc', '--no-statistics', '--no-page-index', '--chunk', '13', '--again'] },
];

// ---- options ---------------------------------------------------------------------

const opts = { upq: path.join(repoRoot, 'build', 'host', 'upq'), skipWithoutUpq: false,
               filesFrom: null, work: path.join(repoRoot, 'build', 'check', 'write'),
               duckdb: true, only: null, files: [] };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--upq') opts.upq = argv[++i];
    else if (a === '--skip-without-upq') opts.skipWithoutUpq = true;
    else if (a === '--files-from') opts.filesFrom = argv[++i];
    else if (a === '--work') opts.work = argv[++i];
    else if (a === '--no-duckdb') opts.duckdb = false;
    else if (a === '--only') opts.only = argv[++i];
    else if (a.startsWith('-')) { console.error(`write_roundtrip: unknown option ${a}`); process.exit(2); }
    else opts.files.push(path.resolve(a));
  }
}
const corpusDir = process.env.PARQUET_TESTING_DIR
  ? path.resolve(process.env.PARQUET_TESTING_DIR)
  : path.resolve(repoRoot, '..', 'shared', 'parquet-testing');
const rel = (f) => {
  const d = path.join(corpusDir, 'data');
  if (f.startsWith(d + path.sep)) return path.relative(d, f);
  if (f.startsWith(corpusDir + path.sep)) return path.relative(corpusDir, f);
  const g = path.join(repoRoot, 'build', 'check', 'generated');
  if (f.startsWith(g + path.sep)) return `generated/${path.relative(g, f)}`;
  return f;
};

const TIMEOUT_MS = 300000;

function run(args, { input = null, encoding = 'buffer' } = {}) {
  return new Promise((resolve) => {
    const child = execFile(opts.upq, args, { encoding, maxBuffer: 1 << 30, timeout: TIMEOUT_MS },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        const status = err ? (err.killed ? `killed (${err.signal || 'timeout'})`
          : err.signal ? `signal ${err.signal}` : `exit status ${err.code}`) : null;
        resolve({ code, status, stdout, stderr: String(stderr) });
      });
    if (input !== null) child.stdin.end(input);
  });
}

const lastLines = (s, n = 3) => (s || '').trim().split('\n').slice(-n).join(' | ');


class Failure extends Error {}

// ---- schema -----------------------------------------------------------------------

// The ConvertedType a LogicalType's text implies (the writer sets it).
function convertedOf(lt) {
  if (!lt) return null;
  const simple = { STRING: 'UTF8', ENUM: 'ENUM', JSON: 'JSON', BSON: 'BSON', DATE: 'DATE',
                   LIST: 'LIST', MAP: 'MAP' };
  if (simple[lt]) return simple[lt];
  let m;
  if (/^DECIMAL\(/.test(lt)) return 'DECIMAL';
  if ((m = /^INTEGER\((\d+),(true|false)\)$/.exec(lt))) return `${m[2] === 'true' ? '' : 'U'}INT_${m[1]}`;
  if ((m = /^(TIME|TIMESTAMP)\((MILLIS|MICROS),true\)$/.exec(lt))) return `${m[1]}_${m[2]}`;
  return null;
}

// The LogicalType text a ConvertedType name reads back as, for the names
// that are both.
function logicalOf(e) {
  switch (e.converted_type) {
    case 'DATE': case 'LIST': case 'MAP': case 'ENUM': case 'JSON': case 'BSON': return e.converted_type;
    case 'DECIMAL': return `DECIMAL(${e.precision ?? 0},${e.scale ?? 0})`;
    default: return null;
  }
}

function compareSchema(orig, got) {
  if (orig.length !== got.length) return `${got.length} elements, the file has ${orig.length}`;
  for (let i = 0; i < orig.length; i++) {
    const a = orig[i], b = got[i];
    const where = `element ${i} (${a.path || '(root)'})`;
    const keys = i === 0 ? ['name', 'num_children']
      : ['name', 'path', 'type', 'type_length', 'repetition', 'num_children', 'field_id',
         'max_definition_level', 'max_repetition_level'];
    for (const k of keys) {
      if (a[k] !== b[k]) return `${where}: ${k} ${JSON.stringify(b[k])}, the file has ${JSON.stringify(a[k])}`;
    }
    if (i === 0) continue;
    const aLt = a.logical_type ?? null, bLt = b.logical_type ?? null;
    if (aLt !== bLt && !(aLt === null && bLt === logicalOf(a))) {
      return `${where}: logical_type ${bLt}, the file has ${aLt}`;
    }
    const aCt = a.converted_type ?? null, bCt = b.converted_type ?? null;
    if (aLt === null || aCt === bCt) {
      if (aCt !== bCt) return `${where}: converted_type ${bCt}, the file has ${aCt}`;
      if (aCt === 'DECIMAL' && (a.scale !== b.scale || a.precision !== b.precision)) {
        return `${where}: DECIMAL(${b.precision},${b.scale}), the file has DECIMAL(${a.precision},${a.scale})`;
      }
    } else if (bCt !== null && bCt !== convertedOf(aLt)) {
      return `${where}: converted_type ${bCt} for ${aLt}, the file has ${aCt}`;
    }
  }
  return null;
}

async function schemaCheck(file, work) {
  const meta = await run(['meta', '--json', file], { encoding: 'utf8' });
  if (meta.code !== 0) return 'skip';
  const text = await run(['schema', file]);
  if (text.code !== 0) throw new Failure(`upq schema: ${text.status}: ${lastLines(text.stderr)}`);
  const s = path.join(work, 'schema.txt');
  fs.writeFileSync(s, text.stdout);
  const parsed = await run(['write', '--schema', s, '--schema-json'], { encoding: 'utf8' });
  if (parsed.code !== 0) throw new Failure(`upq write --schema-json: ${parsed.status}: ${lastLines(parsed.stderr)}`);
  const why = compareSchema(JSON.parse(meta.stdout).schema, JSON.parse(parsed.stdout).schema);
  if (why) throw new Failure(why);
  return 'ok';
}

// ---- round trip ---------------------------------------------------------------------

let duck = null;

async function* duckRows(file) {
  const meta = await run(['meta', '--json', file], { encoding: 'utf8' });
  if (meta.code !== 0) throw new Failure(`upq meta --json ${rel(file)}: ${meta.status}`);
  const shape = rowShape(JSON.parse(meta.stdout).schema);
  for await (const batch of duck.rows(file, shape)) yield* batch;
}

// DuckDB's rows of `out` against its rows of `orig`, or, when DuckDB cannot
// read `orig` (or the file is listed with ref 'upq'), against upq's: the
// lines of a.jsonl. The original is read first and kept as text: one
// connection streams one result at a time. Returns a note.
async function compareDuck(orig, out, lines, ex) {
  let ref = null, note = 'DuckDB: copy = original';
  if (ex && ex.ref === 'upq') {
    note = "DuckDB: copy = upq's rows";
  } else {
    try {
      ref = [];
      for await (const r of duckRows(orig)) ref.push(show(r, Infinity));
    } catch (e) {
      if (e instanceof Failure) throw e;
      ref = null;
      note = `DuckDB cannot read the original (${String(e.message).split('\n')[0].slice(0, 80)}): copy = upq's rows`;
    }
  }
  let row = 0;
  try {
    for await (const got of duckRows(out)) {
      if (ref) {
        if (row >= ref.length) throw new Failure(`DuckDB reads more rows from the copy than the original's ${ref.length}`);
        const b = show(got, Infinity);
        if (ref[row] !== b) throw new Failure(`DuckDB row ${row}: copy ${b.slice(0, 200)}, original ${ref[row].slice(0, 200)}`);
      } else {
        if (row >= lines.length) throw new Failure(`DuckDB reads more rows from the copy than upq's ${lines.length}`);
        const d = firstDiff(got, parseJsonLine(lines[row]));
        if (d) throw new Failure(`DuckDB row ${row} ${d.path}: upq=${show(d.upq)} DuckDB=${show(d.oracle)}`);
      }
      row++;
    }
  } catch (e) {
    if (e instanceof Failure) throw e;
    throw new Failure(`DuckDB cannot read the copy: ${String(e.message).split('\n')[0]}`);
  }
  const want = ref ? ref.length : lines.length;
  if (row !== want) throw new Failure(`DuckDB reads ${row} rows from the copy, want ${want}`);
  return note;
}

// arrow-rs and hyparquet read the copy `out` as they read the original
// (one reader against itself, so each one's own ways do not matter; a value
// a reader cannot give, canonical ANY, matches anything). Where a reader
// reads the original otherwise than upq does (another row count: a footer
// whose num_rows is wrong) or not at all, the copy is compared with upq's
// rows (`lines`) instead; a reader that cannot read either is noted.
// Returns a note.
async function compareOthers(orig, out, shape, vname, lines) {
  const { ArrowOracle } = await import('./oracle_arrow.mjs');
  const { HyparquetOracle, diffCanonical } = await import('./oracle_hyparquet.mjs');
  const read = async (oracle, file) => {
    const rows = [];
    for await (const batch of oracle.rows(file, shape)) for (const r of batch) rows.push(r);
    return rows;
  };
  const notes = [];
  for (const [name, make] of [['arrow-rs', () => new ArrowOracle()], ['hyparquet', () => new HyparquetOracle()]]) {
    let ref = null, why = '';
    try {
      ref = await read(make(), orig);
      if (ref.length !== lines.length) {
        why = `reads ${ref.length} rows from the original, upq ${lines.length}`;
        ref = null;
      }
    } catch (e) {
      why = `cannot read the original (${String(e.message || e).split('\n')[0].slice(0, 80)})`;
    }
    let got;
    try {
      got = await read(make(), out);
    } catch (e) {
      const msg = String(e.message || e).split('\n')[0];
      if (ref) throw new Failure(`[${vname}] ${name} reads the original but not the copy: ${msg}`);
      notes.push(`${name} ${why} nor the copy (${msg.slice(0, 80)})`);
      continue;
    }
    if (ref) {
      if (got.length !== ref.length) throw new Failure(`[${vname}] ${name} reads ${got.length} rows from the copy, ${ref.length} from the original`);
      for (let k = 0; k < got.length; k++) {
        const d = diffCanonical(got[k], ref[k]);
        if (d) throw new Failure(`[${vname}] ${name} row ${k} ${d.path}: copy ${show(d.a)}, original ${show(d.b)}`);
      }
      notes.push(`${name}: copy = original`);
      continue;
    }
    if (got.length !== lines.length) throw new Failure(`[${vname}] ${name} ${why}; from the copy ${got.length}`);
    for (let k = 0; k < got.length; k++) {
      const d = firstDiff(got[k], parseJsonLine(lines[k]));
      if (d) throw new Failure(`[${vname}] ${name} ${why}; the copy's row ${k} ${d.path}: upq ${show(d.upq)}, ${name} ${show(d.oracle)}`);
    }
    notes.push(`${name} ${why}: copy = upq's rows`);
  }
  return notes.join(', ');
}

function firstDifference(a, b) {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  let line = 1;
  for (let k = 0; k < i; k++) if (a[k] === 10) line++;
  const ctx = (buf) => JSON.stringify(buf.subarray(Math.max(0, i - 30), i + 50).toString('utf8'));
  return `line ${line}: original ${ctx(a)}, copy ${ctx(b)}`;
}

async function roundTrip(file, work) {
  const ex = EXCEPTIONS.find((e) => e.file === rel(file));
  const s = path.join(work, 'schema.txt');
  const a = path.join(work, 'a.jsonl');
  const schema = await run(['schema', file]);
  if (schema.code !== 0) throw new Failure(`upq schema: ${schema.status}: ${lastLines(schema.stderr)}`);
  fs.writeFileSync(s, schema.stdout);
  const cat = await run(['cat', '--json', file]);
  if (cat.code !== 0) throw new Failure(`upq cat --json: ${cat.status}: ${lastLines(cat.stderr)}`);
  fs.writeFileSync(a, cat.stdout);
  const lines = cat.stdout.toString('utf8').split('\n').filter((l) => l.length);
  const notes = [];
  for (const v of VARIANTS) {
    const out = path.join(work, 'out.parquet');
    fs.rmSync(out, { force: true });
    const w = await run(['write', '--schema', s, ...v.args, a, out]);
    if (w.code !== 0) throw new Failure(`[${v.name}] upq write: ${w.status}: ${lastLines(w.stderr)}`);
    const back = await run(['cat', '--json', out]);
    if (back.code !== 0) throw new Failure(`[${v.name}] upq cat --json of the copy: ${back.status}: ${lastLines(back.stderr)}`);
    if (!back.stdout.equals(cat.stdout)) {
      throw new Failure(`[${v.name}] upq cat --json differs at ${firstDifference(cat.stdout, back.stdout)}`);
    }
    const schema2 = await run(['schema', out]);
    if (!schema2.stdout.equals(schema.stdout)) {
      throw new Failure(`[${v.name}] upq schema of the copy differs at ${firstDifference(schema.stdout, schema2.stdout)}`);
    }
    if (duck && !(ex && ex.duckdb === false)) notes.push(`${v.name}: ${await compareDuck(file, out, lines, ex)}`);
    if (v.checkpoint) {
      const meta = JSON.parse((await run(['meta', '--json', out], { encoding: 'utf8' })).stdout);
      try {
        rowGroupsWithin(meta, v.rgRows, `[${v.name}]`);
      } catch (e) {
        if (e instanceof CheckFailure) throw new Failure(e.message);
        throw e;
      }
      notes.push(`${v.name}: ${await compareOthers(file, out, rowShape(meta.schema), v.name, lines)}`);
    }
  }
  const uniq = [...new Set(notes.map((n) => n.replace(/^[^:]*: /, '')))];
  return `${lines.length} rows, ${VARIANTS.length} option sets${uniq.length ? `; ${uniq.join('; ')}` : ''}` +
    (ex ? `; listed: ${ex.why}` : '');
}

// ---- error cases ------------------------------------------------------------------------

const ERR_SCHEMA = `message m {
  required int64 id;
  optional group s {
    required binary name (STRING);
    optional int32 n (INTEGER(8,true));
  }
  optional group l (LIST) {
    repeated group list {
      optional double element;
    }
  }
}
`;
const GOOD = '{"id":1,"s":{"name":"a","n":5},"l":[1.5,null]}';

const ERROR_CASES = [
  { name: 'bad JSON', line: '{"id":2,"s":{"name":"b",}}', want: /:2:\d+: invalid JSON/ },
  { name: 'wrong type', line: '{"id":"x"}', want: /:2: field "id": expected an integer/ },
  { name: 'wrong type, nested', line: '{"id":2,"s":{"name":"b","n":1.5}}', want: /:2: field "s\.n": expected an integer/ },
  { name: 'out of range', line: '{"id":2,"s":{"name":"b","n":300}}', want: /:2: field "s\.n": 300 is out of range/ },
  { name: 'missing required field', line: '{"s":null}', want: /:2: field "id": missing/ },
  { name: 'missing required nested field', line: '{"id":2,"s":{"n":1}}', want: /:2: field "s\.name": missing/ },
  { name: 'null in a required field', line: '{"id":null}', want: /:2: field "id": null/ },
  { name: 'unknown field', line: '{"id":2,"zz":1}', want: /:2: field "zz": not in the schema/ },
  { name: 'list element of the wrong type', line: '{"id":2,"l":[1,"a"]}', want: /:2: field "l\[1\]": expected a number/ },
  { name: 'not an object', line: '[1,2]', want: /:2: a row must be a JSON object/ },
  { name: 'nesting too deep', line: `{"id":${'['.repeat(5000)}${']'.repeat(5000)}}`, want: /:2:\d+: invalid JSON: nested too deeply/ },
];

async function errorCase(c, work) {
  const s = path.join(work, 'err_schema.txt');
  const inp = path.join(work, 'err.jsonl');
  const out = path.join(work, 'err.parquet');
  fs.writeFileSync(s, ERR_SCHEMA);
  fs.writeFileSync(inp, `${GOOD}\n${c.line}\n${GOOD}\n`);
  fs.rmSync(out, { force: true });
  const r = await run(['write', '--schema', s, inp, out], { encoding: 'utf8' });
  if (r.code !== 1) throw new Failure(`exit ${r.status || 'status 0'}, want 1`);
  if (!c.want.test(r.stderr)) throw new Failure(`message ${JSON.stringify(lastLines(r.stderr))} does not match ${c.want}`);
  if (fs.existsSync(out)) throw new Failure(`${out} was left behind`);
  if (fs.existsSync(`${out}.tmp`)) throw new Failure(`${out}.tmp was left behind`);
}

// Schemas the format forbids, refused before anything is written: exit
// status 1, the line and what is wrong on stderr, no OUT. `fields` go inside
// `message m { ... }`, so line 2 is the first of them.
const msg = (fields) => `message m {\n${fields.join('\n')}\n}\n`;
const SCHEMA_ERROR_CASES = [
  { name: 'INTERVAL on int32', schema: msg(['  optional int32 a (INTERVAL);']),
    want: /line 2: 'a': INTERVAL off fixed_len_byte_array\(12\)/ },
  { name: 'INTERVAL on fixed_len_byte_array(8)', schema: msg(['  optional fixed_len_byte_array(8) a (INTERVAL);']),
    want: /line 2: 'a': INTERVAL off fixed_len_byte_array\(12\)/ },
  { name: 'GEOMETRY on int32', schema: msg(['  optional int32 a (GEOMETRY);']),
    want: /line 2: 'a': GEOMETRY does not fit int32/ },
  { name: 'GEOGRAPHY on fixed_len_byte_array', schema: msg(['  optional fixed_len_byte_array(4) a (GEOGRAPHY);']),
    want: /line 2: 'a': GEOGRAPHY does not fit fixed_len_byte_array\(4\)/ },
  { name: 'GEOGRAPHY with an unknown edge algorithm', schema: msg(['  optional binary a (GEOGRAPHY(OGC:CRS84,bogus));']),
    want: /line 2: unknown GEOGRAPHY edge algorithm 'bogus'/ },
  { name: 'GEOGRAPHY with an algorithm number the format lacks', schema: msg(['  optional binary a (GEOGRAPHY(OGC:CRS84,UNKNOWN(9)));']),
    want: /line 2: 'a': GEOGRAPHY does not fit binary/ },
  { name: 'VARIANT on a primitive', schema: msg(['  optional binary a (VARIANT(1));']),
    want: /line 2: 'a': VARIANT annotates a group, not binary/ },
  { name: 'VARIANT version 2', schema: msg(['  optional group a (VARIANT(2)) {', '    required binary metadata;', '    required binary value;', '  }']),
    want: /line 2: 'a': VARIANT specification version other than 1/ },
  { name: 'VARIANT without value', schema: msg(['  optional group a (VARIANT(1)) {', '    required binary metadata;', '  }']),
    want: /line 4: group 'a': a VARIANT group needs a binary 'value'/ },
  { name: 'VARIANT without metadata', schema: msg(['  optional group a (VARIANT(1)) {', '    required binary value;', '  }']),
    want: /line 4: group 'a': a VARIANT group needs a required binary 'metadata'/ },
  { name: 'LIST with two repeated children', schema: msg(['  optional group a (LIST) {', '    repeated int32 x;', '    repeated int32 y;', '  }']),
    want: /line 5: group 'a': a LIST group needs exactly one child, a repeated one/ },
  { name: 'duplicate sibling names', schema: msg(['  optional int32 a;', '  optional int64 a;']),
    want: /line 3: 'a': two fields of one name in a group/ },
  { name: 'duplicate names in a group', schema: msg(['  optional group g {', '    optional int32 a;', '    optional group a {', '      optional int32 b;', '    }', '  }']),
    want: /line 4: 'a': two fields of one name in a group/ },
  { name: 'an annotation not closed', schema: msg(['  optional int32 a (DECIMAL(5,2;']),
    want: /line 2: 'a \(DECIMAL\(5,2': an annotation not closed with '\)'/ },
  { name: 'a field id that is no number, no name', schema: msg(['  optional int32 = x;']),
    want: /line 2: missing field name, or '= x': want '= FIELD_ID'/ },
  { name: 'a field id that is no number', schema: msg(['  optional int32 a = x;']),
    want: /line 2: 'a = x': want '= FIELD_ID'/ },
  { name: '--kv without =', schema: msg(['  optional int32 a;']), args: ['--kv', 'abc'],
    want: /--kv 'abc': want KEY=VALUE/ },
  // not a schema error, but refused as early: no page size helps a row
  // with more level entries in one column than a page holds
  { name: 'a row of 70000 list entries', schema: msg(['  optional group l (LIST) {', '    repeated group list {', '      optional int64 element;', '    }', '  }']),
    input: `{"l":[${Array.from({ length: 70000 }, (_, i) => i).join(',')}]}\n`,
    want: /bad\.jsonl:1:\d+: an array or object of more than 65535 members: a row holds at most 65535 entries in one column/ },
  { name: 'a row of 70000 entries in two lists of one column',
    schema: msg(['  optional group l (LIST) {', '    repeated group list {', '      optional group element (LIST) {',
                 '        repeated group list {', '          optional int64 element;', '        }', '      }', '    }', '  }']),
    input: `{"l":[[${Array.from({ length: 60000 }, (_, i) => i).join(',')}],[${Array.from({ length: 10000 }, (_, i) => i).join(',')}]]}\n`,
    want: /line 1: a row with 70000 entries in one column; a data page holds at most 65535/ },
];

async function schemaErrorCase(c, work) {
  const s = path.join(work, 'bad_schema.txt');
  const inp = path.join(work, 'bad.jsonl');
  const out = path.join(work, 'bad.parquet');
  fs.writeFileSync(s, c.schema);
  fs.writeFileSync(inp, c.input ?? '{}\n');
  fs.rmSync(out, { force: true });
  const r = await run(['write', '--schema', s, ...(c.args || []), inp, out], { encoding: 'utf8' });
  if (r.code !== 1) throw new Failure(`exit ${r.code === 0 ? 'status 0' : r.code}, want 1`);
  if (!c.want.test(r.stderr)) throw new Failure(`message ${JSON.stringify(lastLines(r.stderr))} does not match ${c.want}`);
  if (fs.existsSync(out)) throw new Failure(`${out} was left behind`);
  if (fs.existsSync(`${out}.tmp`)) throw new Failure(`${out}.tmp was left behind`);
}

// --codec lz4 is LZ4_RAW (the Hadoop framing, which DuckDB cannot read, is
// LZ4_HADOOP), and --help lists only codecs this build writes.
async function codecCase(work) {
  const s = path.join(work, 'codec_schema.txt');
  const inp = path.join(work, 'codec.jsonl');
  fs.writeFileSync(s, msg(['  optional int32 a;']));
  fs.writeFileSync(inp, '{"a":1}\n{"a":null}\n');
  for (const [name, want] of [['lz4', 'LZ4_RAW'], ['LZ4_HADOOP', 'LZ4'], ['LZ4_RAW', 'LZ4_RAW']]) {
    const out = path.join(work, `codec-${name}.parquet`);
    const r = await run(['write', '--schema', s, '--codec', name, inp, out], { encoding: 'utf8' });
    if (r.code !== 0) throw new Failure(`--codec ${name}: ${r.status}: ${lastLines(r.stderr)}`);
    const meta = (await run(['meta', out], { encoding: 'utf8' })).stdout;
    if (!new RegExp(`\\b${want}\\b`).test(meta) || (want === 'LZ4' && /LZ4_RAW/.test(meta))) {
      throw new Failure(`--codec ${name}: upq meta does not say ${want}`);
    }
  }
  const help = (await run(['write', '--help'], { encoding: 'utf8' })).stdout;
  const line = help.split('\n').find((l) => l.includes('--codec NAME')) || '';
  for (const c of ['ZSTD', 'BROTLI', 'LZO']) {
    if (line.includes(c)) throw new Failure(`--help lists ${c}, which upq write cannot write: ${line.trim()}`);
  }
  if (!/LZ4_HADOOP/.test(line)) throw new Failure(`--help does not list LZ4_HADOOP: ${line.trim()}`);
}

// A BYTE_ARRAY value past the default page (600,000 bytes): upq write
// grows its pages and their buffer, and every reader gets the value back.
async function bigValueCase(work, duck) {
  const s = path.join(work, 'big_schema.txt');
  const inp = path.join(work, 'big.jsonl');
  const out = path.join(work, 'big.parquet');
  fs.writeFileSync(s, msg(['  optional binary s (STRING);', '  optional int32 i;']));
  const lines = [JSON.stringify({ s: 'x'.repeat(600000) + 'end', i: 1 }), JSON.stringify({ s: 'y', i: 2 })];
  fs.writeFileSync(inp, lines.join('\n') + '\n');
  fs.rmSync(out, { force: true });
  const r = await run(['write', '--schema', s, inp, out], { encoding: 'utf8' });
  if (r.code !== 0) throw new Failure(`upq write: ${r.status}: ${lastLines(r.stderr)}`);
  const cat = await run(['cat', '--json', out], { encoding: 'utf8' });
  const got = cat.stdout.split('\n').filter((l) => l.length);
  if (got.length !== 2 || got[0] !== lines[0] || got[1] !== lines[1]) throw new Failure('upq cat --json differs from the input');
  if (duck) {
    try {
      await readersAgree(out, lines, { upq: opts.upq, duck });
    } catch (e) {
      if (e instanceof CheckFailure) throw new Failure(e.message);
      throw e;
    }
  }
}

async function goodCase(work) {
  const s = path.join(work, 'err_schema.txt');
  const inp = path.join(work, 'good.jsonl');
  const out = path.join(work, 'good.parquet');
  fs.writeFileSync(s, ERR_SCHEMA);
  fs.writeFileSync(inp, `${GOOD}\n{"id":2}\n`);
  const r = await run(['write', '--schema', s, inp, out], { encoding: 'utf8' });
  if (r.code !== 0) throw new Failure(`upq write: ${r.status}: ${lastLines(r.stderr)}`);
  const back = await run(['cat', '--json', out], { encoding: 'utf8' });
  const want = `${GOOD}\n{"id":2,"s":null,"l":null}\n`;
  if (back.stdout !== want) throw new Failure(`read back ${JSON.stringify(back.stdout)}, want ${JSON.stringify(want)}`);
}

// ---- the sensor logger --------------------------------------------------------------------

function runProgram(prog, args) {
  return new Promise((resolve) => {
    execFile(prog, args, { encoding: 'utf8', timeout: TIMEOUT_MS }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
}

async function sensorCheck(prog, work) {
  const f1 = path.join(work, 'sensor1.parquet'), f2 = path.join(work, 'sensor2.parquet');
  // 250 rows fit the logger's 4 KiB pages (its string column fills one in
  // 315 rows), so the row limit alone ends row groups
  const args = ['--rows', '10000', '--row-group-rows', '250', '--seed', '7'];
  // the logger creates its file (it resumes or refuses an existing one)
  for (const f of [f1, f2]) fs.rmSync(f, { force: true });
  const r = await runProgram(prog, [...args, f1]);
  if (r.code !== 0) throw new Failure(`sensor_logger: exit ${r.code}: ${lastLines(r.stderr)}`);
  if (!/^arena: \d+ bytes static, the writer needs \d+$/m.test(r.stdout)) {
    throw new Failure(`sensor_logger does not report its arena: ${lastLines(r.stdout)}`);
  }
  const r2 = await runProgram(prog, [...args, '--again', f2]);
  if (r2.code !== 0 || !fs.readFileSync(f1).equals(fs.readFileSync(f2))) {
    throw new Failure('the same seed gave different files (the second with a sink that blocks every other write)');
  }
  const m = await run(['meta', '--json', f1], { encoding: 'utf8' });
  if (m.code !== 0) throw new Failure(`upq meta --json: ${m.status}: ${lastLines(m.stderr)}`);
  const meta = JSON.parse(m.stdout);
  // checkpoint mode: a row group may end before its row limit (when a
  // column's region is full), never after
  let sizes;
  try {
    sizes = rowGroupsWithin(meta, 250, 'sensor');
  } catch (e) {
    if (e instanceof CheckFailure) throw new Failure(e.message);
    throw e;
  }
  if (Number(meta.num_rows) !== 10000 || sizes.reduce((x, y) => x + y, 0) !== 10000) {
    throw new Failure(`${meta.num_rows} rows in row groups of ${sizes.join(', ')}, want 10000`);
  }
  const cat = await run(['cat', '--json', f1], { encoding: 'utf8' });
  if (cat.code !== 0) throw new Failure(`upq cat --json: ${cat.status}: ${lastLines(cat.stderr)}`);
  const lines = cat.stdout.split('\n').filter((l) => l.length);
  let nulls = 0;
  for (const l of lines) nulls += (l.match(/:null/g) || []).length;
  if (nulls === 0) throw new Failure('no channel is ever null');
  if (duck) {
    try {
      await readersAgree(f1, lines, { upq: opts.upq, duck });
    } catch (e) {
      if (e instanceof CheckFailure) throw new Failure(e.message);
      throw e;
    }
  }
  return `10000 rows in ${sizes.length} row groups (of at most 250 rows), ${nulls} null readings, the same bytes ` +
    `from the same seed with a blocking sink${duck ? ', DuckDB = arrow-rs = hyparquet = upq' : ''}`;
}

// ---- main --------------------------------------------------------------------------------

async function main() {
  if (!fs.existsSync(opts.upq)) {
    console.log(`# ${opts.upq} is not built`);
    return opts.skipWithoutUpq ? 77 : 2;
  }
  const help = await run(['help'], { encoding: 'utf8' });
  if (!/^\s+write\b/m.test(help.stdout)) {
    console.log(`# ${opts.upq} has no write command yet: skipped`);
    return opts.skipWithoutUpq ? 77 : 2;
  }
  fs.mkdirSync(opts.work, { recursive: true });
  let listed = [];
  if (opts.filesFrom) {
    if (!fs.existsSync(opts.filesFrom)) {
      console.log(`# ${opts.filesFrom} does not exist: the conformance check did not run; round trips skipped`);
    } else {
      listed = fs.readFileSync(opts.filesFrom, 'utf8').split('\n').filter((l) => l.trim());
    }
  }
  const rtFiles = [...listed, ...opts.files];
  const schemaFiles = opts.files.length ? [...opts.files]
    : [...new Set([...(fs.existsSync(corpusDir) ? listParquet(corpusDir) : []), ...listed])];

  let pass = 0, fail = 0;
  const t0 = Date.now();
  const part = (p) => !opts.only || opts.only === p;

  if (part('schema')) {
    console.log('# schema: `upq schema F` read back by `upq write --schema-json` = F\'s footer schema; not carried by message syntax:');
    for (const r of SCHEMA_RULES) console.log(`#   ${r}`);
    let skipped = 0;
    for (const f of schemaFiles) {
      try {
        const r = await schemaCheck(f, opts.work);
        if (r === 'skip') { skipped++; continue; }
        console.log(`ok schema ${rel(f)}`);
        pass++;
      } catch (e) {
        if (!(e instanceof Failure)) throw e;
        console.log(`FAIL schema ${rel(f)}: ${e.message}`);
        fail++;
      }
    }
    if (skipped) console.log(`# schema: ${skipped} files upq cannot open were left out`);
  }

  if (part('roundtrip')) {
    console.log(`# round trip: option sets ${VARIANTS.map((v) => `${v.name} (${v.args.join(' ') || 'none'})`).join(', ')}`);
    for (const e of EXCEPTIONS) console.log(`#   ${e.file}: ${e.why}`);
    if (opts.duckdb && rtFiles.length) {
      const { DuckOracle } = await import('./oracle_duckdb.mjs');
      duck = await DuckOracle.open();
    }
    for (const f of rtFiles) {
      const t1 = Date.now();
      try {
        const note = await roundTrip(f, opts.work);
        const ms = Date.now() - t1;
        console.log(`ok roundtrip ${rel(f)} (${note}${ms >= 2000 ? `; ${(ms / 1000).toFixed(1)} s` : ''})`);
        pass++;
      } catch (e) {
        if (!(e instanceof Failure)) throw e;
        console.log(`FAIL roundtrip ${rel(f)}: ${e.message}`);
        fail++;
      }
    }
  }

  if (part('errors')) {
    try {
      await goodCase(opts.work);
      console.log('ok errors: the good lines alone write and read back');
      pass++;
    } catch (e) {
      if (!(e instanceof Failure)) throw e;
      console.log(`FAIL errors: the good lines alone: ${e.message}`);
      fail++;
    }
    for (const c of ERROR_CASES) {
      try {
        await errorCase(c, opts.work);
        console.log(`ok errors: ${c.name}`);
        pass++;
      } catch (e) {
        if (!(e instanceof Failure)) throw e;
        console.log(`FAIL errors: ${c.name}: ${e.message}`);
        fail++;
      }
    }
    for (const c of SCHEMA_ERROR_CASES) {
      try {
        await schemaErrorCase(c, opts.work);
        console.log(`ok errors: schema refused: ${c.name}`);
        pass++;
      } catch (e) {
        if (!(e instanceof Failure)) throw e;
        console.log(`FAIL errors: schema refused: ${c.name}: ${e.message}`);
        fail++;
      }
    }
    try {
      await codecCase(opts.work);
      console.log('ok errors: --codec lz4 writes LZ4_RAW, LZ4_HADOOP the Hadoop framing; --help lists writable codecs');
      pass++;
    } catch (e) {
      if (!(e instanceof Failure)) throw e;
      console.log(`FAIL errors: codecs: ${e.message}`);
      fail++;
    }
    try {
      if (opts.duckdb && !duck) {
        const { DuckOracle } = await import('./oracle_duckdb.mjs');
        duck = await DuckOracle.open();
      }
      await bigValueCase(opts.work, duck);
      console.log(`ok errors: a 600,000-byte value written with default options${duck ? ', DuckDB = arrow-rs = hyparquet = upq' : ''}`);
      pass++;
    } catch (e) {
      if (!(e instanceof Failure)) throw e;
      console.log(`FAIL errors: a 600,000-byte value: ${e.message}`);
      fail++;
    }
  }

  const sensor = path.join(path.dirname(opts.upq), 'sensor_logger');
  if (part('sensor') && fs.existsSync(sensor)) {
    if (opts.duckdb && !duck) {
      const { DuckOracle } = await import('./oracle_duckdb.mjs');
      duck = await DuckOracle.open();
    }
    try {
      console.log(`ok sensor: ${await sensorCheck(sensor, opts.work)}`);
      pass++;
    } catch (e) {
      if (!(e instanceof Failure)) throw e;
      console.log(`FAIL sensor: ${e.message}`);
      fail++;
    }
  } else if (part('sensor')) {
    console.log(`# ${sensor} is not built: sensor logger check skipped`);
  }
  if (duck) duck.close();

  console.log(`# ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  console.log(`${pass} passed, ${fail} failed`);
  return fail ? 1 : 0;
}

const exitAfterFlush = (code) => process.stdout.write('', () => process.exit(code));
main().then(exitAfterFlush, (e) => {
  console.error(e && e.stack ? e.stack : e);
  exitAfterFlush(1);
});
