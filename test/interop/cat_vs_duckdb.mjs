#!/usr/bin/env node
// Value conformance: `upq cat --json FILE` against DuckDB's reading of the
// same file, row by row, for every plaintext .parquet file under
// $PARQUET_TESTING_DIR/data (files listed in EXCEPTIONS are checked against
// arrow-rs or their description instead, or must be refused by upq), for
// the arrow-testing files named in ARROW_TESTING_FILES (read in place under
// $ARROW_TESTING_DIR/data/parquet, default ../shared/arrow-testing; a missing
// one fails), and for files DuckDB writes with the types the corpus lacks
// (generated.mjs).
//
//   node test/interop/cat_vs_duckdb.mjs [--upq PATH] [--skip-without-upq]
//        [--pass-list FILE] [--oracle-only] [--print] [--cross-check]
//        [--generated-dir DIR | --no-generated] [FILE...]
//
// Prints `ok FILE (N rows)` or `FAIL FILE: first differing row R column C:
// upq=... oracle=...` per file (rows and list positions count from 0) and
// ends with `N passed, N failed`; exits 1 when anything failed.
//
// Both sides are brought to the canonical form `upq cat --json` prints
// (canonical.mjs), formatted from the Parquet schema that `upq meta --json`
// reports; DuckDB's and arrow-rs's values are read exactly (oracle_duckdb.mjs,
// oracle_arrow.mjs).
//
// --pass-list FILE   write the files that passed, one a line (check-chunking
//                    reads it)
// --oracle-only      run no `upq cat`: read every file through its oracle and
//                    say how many rows it gave (schemas from `upq meta --json`,
//                    or from DuckDB's parquet_schema() while upq is not built)
// --print            with --oracle-only: print the oracle's rows as JSON
// --cross-check      compare DuckDB with arrow-rs (and *_expect.csv where a
//                    file has one) to check the oracles themselves
// --skip-without-upq when upq or its `cat` command is missing, do
//                    --oracle-only and exit 77 ("skipped")
// --generated-dir D  where to write the files DuckDB generates for the types
//                    the corpus lacks (generated.mjs; default
//                    build/check/generated); --no-generated: corpus only.
//                    Only when no FILE is given.

import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { rowShape, shapeHas, parseJsonLine, firstDiff, show, Int, fmtTimestamp } from './canonical.mjs';
import { DuckOracle, OracleError } from './oracle_duckdb.mjs';
import { writeGenerated } from './generated.mjs';
import { listParquet, footerMagic } from './corpus.mjs';
import { withV2Compressed } from './v2_flag.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');

// ---- exceptions --------------------------------------------------------------
//
// Every file not compared against DuckDB, and why. `oracle: 'arrow'`: the
// values come from arrow-rs instead. `reject`: upq must exit non-zero with a
// message matching the pattern. A file DuckDB cannot read that is not listed
// here fails.

const EXCEPTIONS = [
  { file: 'datapage_v1-corrupt-checksum.parquet', reject: /checksum/i,
    why: 'a data page CRC does not match: upq must refuse it (DuckDB does not verify page CRCs)' },
  { file: 'rle-dict-uncompressed-corrupt-checksum.parquet', reject: /checksum/i,
    why: 'a page CRC does not match: upq must refuse it (DuckDB does not verify page CRCs)' },
  { file: 'large_string_map.brotli.parquet', oracle: 'runs',
    why: 'each row is a map of one 2^30-character key (BROTLI, a 1 GiB dictionary page): no JS string ' +
         'holds it, so DuckDB says what the key is (its length, its one character) and upq\'s output is ' +
         'matched against that as a stream; upq reads it with --max-page 1100000000',
    upqArgs: ['--max-page', '1100000000'],
    sql: (f) => `SELECT cardinality(arr), length(map_keys(arr)[1]), left(map_keys(arr)[1], 1),
                        map_keys(arr)[1] = repeat(left(map_keys(arr)[1], 1), length(map_keys(arr)[1])::BIGINT),
                        map_values(arr)[1] FROM read_parquet('${f.replace(/'/g, "''")}')`,
    // upq's line for one DuckDB row, as pieces: text, or a run of one character
    pieces: ([n, len, c, uniform, v]) => {
      if (n !== 1n || uniform !== true || typeof c !== 'string' || c.length !== 1 || !/[a-z]/.test(c)) {
        throw new OracleError(`DuckDB: not a map of one key made of one letter: ${n} ${len} ${c} ${uniform}`);
      }
      return [{ text: '{"arr":[{"key":"' }, { run: c, n: Number(len) }, { text: `","value":${v}}]}\n` }];
    } },
  { file: 'byte_stream_split_extended.gzip.parquet', oracle: 'arrow',
    why: 'DuckDB: "BYTE_STREAM_SPLIT encoding is only supported for FLOAT or DOUBLE data" ' +
         '(this file has it on INT32, INT64, FLOAT16, FIXED_LEN_BYTE_ARRAY and DECIMAL too)' },
  { file: 'hadoop_lz4_compressed.parquet', oracle: 'arrow',
    why: 'DuckDB: Unsupported compression codec "LZ4" (the deprecated Hadoop-framed LZ4)' },
  { file: 'hadoop_lz4_compressed_larger.parquet', oracle: 'arrow',
    why: 'DuckDB: Unsupported compression codec "LZ4" (the deprecated Hadoop-framed LZ4)' },
  { file: 'non_hadoop_lz4_compressed.parquet', oracle: 'arrow',
    why: 'DuckDB: Unsupported compression codec "LZ4" (codec LZ4 holding raw LZ4 blocks)' },
  { file: 'int96_from_spark.parquet', oracle: 'expect',
    why: 'DuckDB turns the year-290000 value into -226413-01-07T22:21:39.416064 (overflow) and ' +
         "arrow-rs's timestamp[ns] wraps outside 1677..2262; the values are int96_from_spark.md's " +
         '(microseconds since the epoch, as INT96 nanoseconds without time zone)',
    rows: () => [1704141296123456n, 1704070800000000n, 253402225200000000n, 1735599600000000n, null,
      9089380393200000000n].map((us) => new Map([['a', us === null ? null : fmtTimestamp(us * 1000n, 'NANOS', false)]])) },
  { file: 'arrow-testing/ARROW-17100.parquet', oracle: 'v2flag',
    why: 'pyarrow 2.0 ("parquet-cpp version 1.5.1-SNAPSHOT") compressed its DATA_PAGE_V2 values under ' +
         'is_compressed = false; DuckDB ("Out of buffer"), arrow-rs and hyparquet fail on it, so DuckDB ' +
         'reads a copy whose page headers say true (v2_flag.mjs)' },
  { file: 'map_no_value.parquet', oracle: 'arrow',
    why: "DuckDB: 'MAP_KEY_VALUE requires two children' (a MAP without values is valid); " +
         'arrow-rs reads it as a list of keys, compared as [{"key":k,"value":null}]' },
];

// Rules that apply to columns rather than files.
const COLUMN_RULES = [
  'VARIANT columns: not compared (Variant rendering comes later); the key must be there',
];

// ---- options -----------------------------------------------------------------

const opts = { upq: path.join(repoRoot, 'build', 'host', 'upq'), skipWithoutUpq: false, passList: null,
               oracleOnly: false, print: false, crossCheck: false, files: [],
               generatedDir: path.join(repoRoot, 'build', 'check', 'generated') };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--upq') opts.upq = argv[++i];
    else if (a === '--skip-without-upq') opts.skipWithoutUpq = true;
    else if (a === '--pass-list') opts.passList = argv[++i];
    else if (a === '--oracle-only') opts.oracleOnly = true;
    else if (a === '--print') opts.print = true;
    else if (a === '--cross-check') opts.crossCheck = true;
    else if (a === '--generated-dir') opts.generatedDir = argv[++i];
    else if (a === '--no-generated') opts.generatedDir = null;
    else if (a.startsWith('-')) { console.error(`cat_vs_duckdb: unknown option ${a}`); process.exit(2); }
    else opts.files.push(path.resolve(a));
  }
}
const corpusDir = process.env.PARQUET_TESTING_DIR
  ? path.resolve(process.env.PARQUET_TESTING_DIR)
  : path.resolve(repoRoot, '..', 'shared', 'parquet-testing');
const dataDir = path.join(corpusDir, 'data');
const rel = (f) => {
  if (f.startsWith(dataDir + path.sep)) return path.relative(dataDir, f);
  if (f.startsWith(arrowTestingDir + path.sep)) return `arrow-testing/${path.relative(arrowTestingDir, f)}`;
  if (opts.generatedDir && f.startsWith(path.resolve(opts.generatedDir) + path.sep)) {
    return `generated/${path.relative(path.resolve(opts.generatedDir), f)}`;
  }
  return f;
};

const UPQ_TIMEOUT_MS = 120000;

// ---- the files ---------------------------------------------------------------

// Files of apache/arrow-testing that show what other writers produce.
const ARROW_TESTING_FILES = [
  'ARROW-17100.parquet', // v2 pages compressed whatever is_compressed says
  'alltypes-java.parquet', // Arrow Java's dataset writer; must not be taken for the above
];
const arrowTestingDir = path.join(process.env.ARROW_TESTING_DIR
  ? path.resolve(process.env.ARROW_TESTING_DIR)
  : path.resolve(repoRoot, '..', 'shared', 'arrow-testing'), 'data', 'parquet');


// ---- running upq -------------------------------------------------------------

const lastLines = (s, n = 3) => (s || '').trim().split('\n').slice(-n).join(' | ');

function runUpqBuffered(args) {
  return new Promise((resolve) => {
    execFile(opts.upq, args, { encoding: 'utf8', maxBuffer: 1 << 30, timeout: UPQ_TIMEOUT_MS },
      (err, stdout, stderr) => {
        const status = err ? (err.killed ? `killed (${err.signal || 'timeout'})`
          : err.signal ? `signal ${err.signal}` : `exit status ${err.code}`) : null;
        resolve({ ok: !err, status, stdout, stderr });
      });
  });
}

async function upqSchema(file) {
  const r = await runUpqBuffered(['meta', '--json', file]);
  if (!r.ok) throw new Error(`upq meta --json failed: ${r.status}: ${lastLines(r.stderr)}`);
  return JSON.parse(r.stdout).schema;
}

async function upqHasCat() {
  if (!fs.existsSync(opts.upq)) return false;
  const r = await runUpqBuffered(['help']);
  return /^\s+cat\b/m.test(r.stdout);
}

// `upq cat --json FILE` as a stream of lines, plus its exit.
function spawnCat(file) {
  const child = spawn(opts.upq, ['cat', '--json', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => { if (stderr.length < 65536) stderr += d; });
  const exited = new Promise((resolve) => {
    child.on('error', (e) => resolve({ code: null, signal: null, error: e.message }));
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), UPQ_TIMEOUT_MS);
  exited.then(() => clearTimeout(timer));
  const rl = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
  return { child, lines: rl[Symbol.asyncIterator](), exited, stderr: () => stderr, rl };
}

const exitText = (x) => (x.error ? `could not run: ${x.error}` : x.signal ? `killed by ${x.signal}`
  : `exit status ${x.code}`);

// ---- comparing one file ----------------------------------------------------------

class Failure extends Error {}

async function compareFile(file, shape, oracle) {
  const cat = spawnCat(file);
  let row = 0;
  try {
    for await (const batch of oracle.rows(file, shape)) {
      for (const exp of batch) {
        const next = await cat.lines.next();
        if (next.done) {
          const x = await cat.exited;
          throw new Failure(`upq printed ${row} rows, the oracle has more` +
            (x.code === 0 ? '' : ` (${exitText(x)}: ${lastLines(cat.stderr())})`));
        }
        let got;
        try {
          got = parseJsonLine(next.value);
        } catch (e) {
          throw new Failure(`row ${row}: ${e.message}: ${next.value.slice(0, 120)}`);
        }
        const d = firstDiff(exp, got);
        if (d) {
          const col = !d.path || d.path.startsWith(' ') ? `(the row)${d.path}` : d.path;
          throw new Failure(`first differing row ${row} column ${col}: ` +
            `upq=${show(d.upq)} oracle=${show(d.oracle)}`);
        }
        row++;
      }
    }
    const extra = await cat.lines.next();
    if (!extra.done) throw new Failure(`upq printed more than the oracle's ${row} rows: ${extra.value.slice(0, 120)}`);
    const x = await cat.exited;
    if (x.code !== 0) throw new Failure(`upq cat --json: ${exitText(x)}: ${lastLines(cat.stderr())}`);
    return row;
  } finally {
    cat.rl.close();
    if (cat.child.exitCode === null && cat.child.signalCode === null) cat.child.kill('SIGKILL');
    await cat.exited;
  }
}

// `upq cat --json` against the pieces ex.pieces() makes of each row of
// ex.sql (DuckDB), compared as the bytes stream in: for values too long to
// hold as a string.
async function compareRuns(file, ex, duck) {
  const rows = (await duck.con.runAndReadAll(ex.sql(file))).getRows();
  const want = rows.flatMap((r) => ex.pieces(r));
  const child = spawn(opts.upq, [...(ex.upqArgs || []), 'cat', '--json', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => { if (stderr.length < 65536) stderr += d; });
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const timer = setTimeout(() => child.kill('SIGKILL'), 4 * UPQ_TIMEOUT_MS);
  let k = 0, at = 0, bytes = 0, bad = null, runFill = null;
  for await (const chunk of child.stdout) {
    for (let i = 0; i < chunk.length && !bad; ) {
      const p = want[k];
      if (!p) { bad = `upq printed more than the ${rows.length} rows DuckDB has`; break; }
      if (p.text !== undefined) {
        const t = Buffer.from(p.text);
        while (i < chunk.length && at < t.length) {
          if (chunk[i] !== t[at]) { bad = `byte ${bytes}: upq printed ${JSON.stringify(String.fromCharCode(chunk[i]))}, expected ${JSON.stringify(p.text)} at ${at}`; break; }
          i++; at++; bytes++;
        }
        if (at === t.length) { k++; at = 0; }
      } else {
        const c = p.run.charCodeAt(0);
        if (!runFill || runFill[0] !== c) runFill = Buffer.alloc(1 << 20, c);
        // whole slices compared at once (memcmp), bytes one by one only where they differ
        for (;;) {
          const m = Math.min(chunk.length - i, p.n - at, runFill.length);
          if (m === 0 || !chunk.subarray(i, i + m).equals(runFill.subarray(0, m))) break;
          i += m; at += m; bytes += m;
        }
        while (i < chunk.length && at < p.n && chunk[i] === c) { i++; at++; bytes++; }
        if (at === p.n) { k++; at = 0; } else if (i < chunk.length) {
          bad = `byte ${bytes}: a run of ${at} '${p.run}' where DuckDB has ${p.n}`;
        }
      }
    }
    if (bad) { child.kill('SIGKILL'); break; }
  }
  const x = await exited;
  clearTimeout(timer);
  if (bad) throw new Failure(bad);
  if (x.code !== 0) throw new Failure(`upq cat --json: ${exitText(x)}: ${lastLines(stderr)}`);
  if (k !== want.length) throw new Failure(`upq's output ends early (piece ${k} of ${want.length})`);
  return rows.length;
}

async function checkReject(file, ex) {
  const r = await runUpqBuffered(['cat', '--json', file]);
  if (r.ok) return `upq read it (${r.stdout.split('\n').length - 1} rows) but must refuse it`;
  if (/killed|signal/.test(r.status)) return `upq cat --json: ${r.status}: ${lastLines(r.stderr)}`;
  if (!ex.reject.test(r.stderr)) return `upq's message does not match ${ex.reject}: ${lastLines(r.stderr)}`;
  return null;
}

// ---- oracle-only and cross-check modes -----------------------------------------------

function rowJson(m) {
  return show(m, Infinity);
}

async function drain(oracle, file, shape, sink) {
  let n = 0;
  for await (const batch of oracle.rows(file, shape)) {
    for (const r of batch) { if (sink) sink(r, n); n++; }
  }
  return n;
}

// *_expect.csv beside a file: a header of column names, one row per line,
// empty unquoted fields are nulls. Flat files only.
function expectCsvRows(file) {
  const csv = file.replace(/\.parquet$/, '_expect.csv');
  if (!fs.existsSync(csv)) return null;
  const lines = fs.readFileSync(csv, 'utf8').split(/\r?\n/).filter((l) => l.length);
  const parse = (line) => {
    const out = [];
    let i = 0;
    while (i <= line.length) {
      if (line[i] === '"') {
        let s = '';
        i++;
        for (;;) {
          const j = line.indexOf('"', i);
          if (j < 0) throw new Error(`unterminated quote in ${csv}`);
          s += line.slice(i, j);
          i = j + 1;
          if (line[i] === '"') { s += '"'; i++; continue; }
          break;
        }
        out.push(s);
      } else {
        const j = line.indexOf(',', i);
        const s = line.slice(i, j < 0 ? line.length : j);
        out.push(s === '' ? null : s);
        i = j < 0 ? line.length : j;
      }
      if (line[i] === ',') i++;
      else break;
    }
    return out;
  };
  return { header: parse(lines[0]), rows: lines.slice(1).map(parse) };
}

// Compares the expected values' text with the CSV's.
function csvText(v) {
  if (v === null) return null;
  if (v instanceof Int) return v.text;
  return typeof v === 'string' ? v : show(v);
}

async function crossCheck(files, duck) {
  const { ArrowOracle } = await import('./oracle_arrow.mjs');
  const arrow = new ArrowOracle();
  let pass = 0, fail = 0;
  for (const file of files) {
    const ex = EXCEPTIONS.find((e) => e.file === rel(file));
    let shape;
    try {
      shape = rowShape(await duckOrUpqSchema(file, duck));
    } catch (e) {
      console.log(`FAIL ${rel(file)}: schema: ${e.message}`);
      fail++;
      continue;
    }
    const got = {};
    for (const [name, o] of [['duckdb', duck], ['arrow-rs', arrow]]) {
      const rows = [];
      try {
        await drain(o, file, shape, (r) => rows.push(r));
        got[name] = rows;
      } catch (e) {
        got[name] = String(e.message || e).split('\n')[0];
      }
    }
    const notes = [];
    let bad = false;
    if (typeof got.duckdb === 'string' || typeof got['arrow-rs'] === 'string') {
      for (const k of ['duckdb', 'arrow-rs']) if (typeof got[k] === 'string') notes.push(`${k}: ${got[k]}`);
    } else if (got.duckdb.length !== got['arrow-rs'].length) {
      notes.push(`row counts differ: duckdb ${got.duckdb.length}, arrow-rs ${got['arrow-rs'].length}`);
      bad = true;
    } else {
      for (let r = 0; r < got.duckdb.length; r++) {
        const a = rowJson(got.duckdb[r]), b = rowJson(got['arrow-rs'][r]);
        if (a !== b) {
          notes.push(`row ${r}: duckdb=${a.slice(0, 200)} arrow-rs=${b.slice(0, 200)}`);
          bad = true;
          break;
        }
      }
    }
    const csv = expectCsvRows(file);
    if (csv && Array.isArray(got.duckdb)) {
      const names = csv.header.map((h) => h.trim());
      let csvBad = csv.rows.length !== got.duckdb.length ? `CSV has ${csv.rows.length} rows` : null;
      for (let r = 0; !csvBad && r < csv.rows.length; r++) {
        names.forEach((n, j) => {
          // delta_encoding_required_column's names end in ':', its CSV's do not
          const row = got.duckdb[r];
          const v = csvText(row.has(n) ? row.get(n) : row.get(`${n}:`));
          if (!csvBad && v !== csv.rows[r][j]) csvBad = `row ${r} ${n}: csv=${csv.rows[r][j]} duckdb=${v}`;
        });
      }
      notes.push(csvBad ? `expect.csv differs: ${csvBad}` : 'expect.csv agrees');
      if (csvBad) bad = true;
    }
    const tag = ex ? ` [listed: ${ex.oracle ? `oracle ${ex.oracle}` : 'reject'}]` : '';
    if (bad) { console.log(`DIFF ${rel(file)}${tag}: ${notes.join('; ')}`); fail++; }
    else { console.log(`same ${rel(file)}${tag}${notes.length ? `: ${notes.join('; ')}` : ''}`); pass++; }
  }
  console.log(`${pass} passed, ${fail} failed`);
  return fail ? 1 : 0;
}

let haveUpq = false;

async function duckOrUpqSchema(file, duck) {
  if (haveUpq) return upqSchema(file);
  return duck.schema(file);
}

// ---- main ------------------------------------------------------------------------

async function main() {
  let files = opts.files;
  if (files.length === 0) {
    if (!fs.existsSync(dataDir)) {
      console.error(`cat_vs_duckdb: no corpus at ${dataDir} (set PARQUET_TESTING_DIR)`);
      return 2;
    }
    files = listParquet(dataDir).filter((f) => footerMagic(f) !== 'PARE');
    // listed by name so that a missing one fails rather than goes unseen
    files.push(...ARROW_TESTING_FILES.map((f) => path.join(arrowTestingDir, f)));
  }

  haveUpq = fs.existsSync(opts.upq);
  const duck = await DuckOracle.open();
  if (opts.files.length === 0 && opts.generatedDir) {
    files.push(...await writeGenerated(duck.con, path.resolve(opts.generatedDir)));
  }
  if (opts.crossCheck) return crossCheck(files, duck);

  let oracleOnly = opts.oracleOnly;
  let skipped = false;
  if (!oracleOnly && !(await upqHasCat())) {
    if (!opts.skipWithoutUpq) {
      console.error(`cat_vs_duckdb: ${opts.upq} has no cat command (build it, or use --oracle-only)`);
      return 2;
    }
    console.log(`# ${opts.upq} has no \`cat\` command yet: reading the oracles only; comparison skipped`);
    oracleOnly = true;
    skipped = true;
  }

  console.log(`# exceptions (${EXCEPTIONS.length} files, ${COLUMN_RULES.length} column rules):`);
  for (const e of EXCEPTIONS) {
    const what = e.reject ? `upq must refuse it (message ${e.reject})`
      : e.oracle === 'expect' ? 'compared against the values its description lists'
        : e.oracle === 'v2flag' ? 'compared against DuckDB on a copy with is_compressed set'
          : e.oracle === 'runs' ? 'compared as a stream against what DuckDB says of its values'
            : `compared against ${e.oracle}`;
    console.log(`#   ${e.file}: ${what}: ${e.why}`);
  }
  for (const r of COLUMN_RULES) console.log(`#   ${r}`);

  let arrow = null;
  const getOracle = async (name, ex) => {
    if (name === 'expect') return { rows: async function* rows() { yield ex.rows(); } };
    if (name === 'v2flag') {
      return {
        rows: async function* rows(file, shape) {
          const dir = path.resolve(opts.generatedDir || path.join(repoRoot, 'build', 'check', 'generated'));
          fs.mkdirSync(dir, { recursive: true });
          const { out } = withV2Compressed(file, path.join(dir, `v2flag-${path.basename(file)}`));
          yield* duck.rows(out, shape);
        },
      };
    }
    if (name === 'arrow') {
      if (!arrow) {
        const { ArrowOracle } = await import('./oracle_arrow.mjs');
        arrow = new ArrowOracle();
      }
      return arrow;
    }
    return duck;
  };

  let pass = 0, fail = 0;
  const passed = [];
  const seen = new Set();
  const t0 = Date.now();

  for (const file of files) {
    const name = rel(file);
    const ex = EXCEPTIONS.find((e) => e.file === name);
    if (ex) seen.add(ex.file);
    const t1 = Date.now();
    try {
      if (ex && ex.reject) {
        if (oracleOnly) { console.log(`skip ${name}: upq must refuse it`); continue; }
        const why = await checkReject(file, ex);
        if (why) throw new Failure(why);
        console.log(`ok ${name} (refused as expected)`);
        pass++;
        continue;
      }
      let schema;
      try {
        schema = await duckOrUpqSchema(file, duck);
      } catch (e) {
        throw new Failure(haveUpq ? e.message : `no schema: DuckDB's parquet_schema(): ${e.message}`);
      }
      let shape;
      try {
        shape = rowShape(schema);
      } catch (e) {
        throw new Failure(`cannot build the row shape from the schema: ${e.message}`);
      }
      const variant = shape.fields.filter((f) => shapeHas(f.shape, (s) => s.t === 'variant')).map((f) => f.name);
      const oname = ex && ex.oracle ? ex.oracle : 'duckdb';
      if (oname === 'runs') {
        if (oracleOnly) { console.log(`skip ${name}: compared as a stream only`); continue; }
        let n;
        try {
          n = await compareRuns(file, ex, duck);
        } catch (e) {
          if (e instanceof Failure) throw e;
          throw new Failure(`DuckDB: ${String(e.message || e).split('\n')[0]}`);
        }
        console.log(`ok ${name} (${n} rows; compared as a stream; ${((Date.now() - t1) / 1000).toFixed(1)} s)`);
        pass++; // not on the pass list: the chunking and write stages would print its gigabyte per run

        continue;
      }
      const oracle = await getOracle(oname, ex);
      let n;
      const note = () => {
        const parts = [];
        if (oname !== 'duckdb') parts.push(`oracle ${oname}`);
        if (variant.length) parts.push(`variant not compared: ${variant.join(', ')}`);
        const ms = Date.now() - t1;
        if (ms >= 2000) parts.push(`${(ms / 1000).toFixed(1)} s`);
        return parts.length ? `; ${parts.join('; ')}` : '';
      };
      try {
        if (oracleOnly) {
          n = await drain(oracle, file, shape, opts.print ? (r) => console.log(rowJson(r)) : null);
          console.log(`oracle ${name} (${n} rows${note()})`);
          pass++;
          continue;
        }
        n = await compareFile(file, shape, oracle);
      } catch (e) {
        if (e instanceof Failure) throw e;
        const who = oname === 'duckdb' ? 'DuckDB' : oname;
        if (e instanceof OracleError) throw new Failure(`oracle ${who}: ${e.message}`);
        throw new Failure(`${who} cannot read it: ${String(e.message || e).split('\n')[0]} ` +
          '(not in the exception table)');
      }
      console.log(`ok ${name} (${n} rows${note()})`);
      passed.push(file);
      pass++;
    } catch (e) {
      if (!(e instanceof Failure)) throw e;
      console.log(`FAIL ${name}: ${e.message}`);
      fail++;
    }
  }
  duck.close();

  for (const e of EXCEPTIONS) {
    if (!seen.has(e.file) && opts.files.length === 0) console.log(`# note: exception for ${e.file}, which is not in the corpus`);
  }
  if (opts.passList) {
    fs.mkdirSync(path.dirname(path.resolve(opts.passList)), { recursive: true });
    fs.writeFileSync(opts.passList, passed.map((f) => `${f}\n`).join(''));
  }
  console.log(`# ${files.length} files in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  console.log(`${pass} passed, ${fail} failed`);
  if (skipped) return 77;
  return fail ? 1 : 0;
}

// process.exit drops what a pipe has not taken yet: exit once stdout drained.
const exitAfterFlush = (code) => process.stdout.write('', () => process.exit(code));

main().then(exitAfterFlush, (e) => {
  console.error(e && e.stack ? e.stack : e);
  exitAfterFlush(1);
});
