#!/usr/bin/env node
// Bloom filters against DuckDB's parquet_bloom_probe(file, column, value).
//
//   node test/interop/bloom_duckdb.mjs [--upq PATH] [--skip-without-upq] [--work DIR]
//
// written  for INT32, INT64, FLOAT, DOUBLE, STRING (BYTE_ARRAY) and UUID
//          (FIXED_LEN_BYTE_ARRAY(16)) columns, `upq write --bloom` makes files
//          of three row groups, once with a roomy filter (1 %) and once with a
//          crowded one (50 %, so many absent values answer "maybe"). For a
//          sample of present values and a run of absent ones, `upq bloom`'s
//          answer for every row group must equal DuckDB's (maybe <=> not
//          excluded), and present values must be "maybe" in their row group.
// duckdb   a file DuckDB writes (its own filters): `upq bloom` answers "maybe"
//          for every sampled present value and agrees with DuckDB on absent
//          ones.
// Each (file, column) is one `ok ...` / `FAIL ...` line; then `N passed, N failed`.
//
// Deliberately not compared with DuckDB's probe (SKIPS, printed as `skip`
// lines): BLOB and UUID columns, which the probe does not answer correctly;
// for them `upq bloom` is checked against the values present in DuckDB's
// filters and in its own.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');

const ROWS = 1500;        // rows per file, 500 per row group
const PER_RG = 500;
const PRESENT = 40;       // sampled present values per file and column
const ABSENT = 120;       // absent values per file and column
const PARALLEL = 4;       // upq processes at once

function parseArgs(argv) {
  const o = { upq: path.join(repoRoot, 'build/host/upq'), skipWithoutUpq: false,
              work: path.join(repoRoot, 'build/check/bloom') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--upq') o.upq = argv[++i];
    else if (a === '--skip-without-upq') o.skipWithoutUpq = true;
    else if (a === '--work') o.work = argv[++i];
    else { console.error(`bloom_duckdb: unknown argument ${a}`); process.exit(2); }
  }
  return o;
}

const sq = (s) => `'${s.replaceAll("'", "''")}'`;

// value i of each column type: JSON for `upq write`, text for `upq bloom`,
// a DuckDB literal for the probe
const hex = (n, w) => n.toString(16).padStart(w, '0');
const TYPES = [
  { col: 'i32', schema: 'required int32 i32;', gen: (i) => i * 7919 - 5000000,
    json: (v) => String(v), text: (v) => String(v), duck: (v) => `${v}::INTEGER` },
  { col: 'i64', schema: 'required int64 i64;',
    gen: (i) => BigInt(i) * 1000003n * 1000003n - (1n << 45n),
    json: (v) => v.toString(), text: (v) => v.toString(), duck: (v) => `${v}::BIGINT` },
  { col: 'f32', schema: 'required float f32;', gen: (i) => (i - 700) / 8,
    json: (v) => String(v), text: (v) => String(v), duck: (v) => `${v}::FLOAT` },
  { col: 'f64', schema: 'required double f64;', gen: (i) => i * 0.37 - 100.125,
    json: (v) => String(v), text: (v) => String(v), duck: (v) => `${v}::DOUBLE` },
  { col: 'str', schema: 'required binary str (STRING);', gen: (i) => `s-${i}-${'x'.repeat(i % 7)}`,
    json: (v) => JSON.stringify(v), text: (v) => v, duck: (v) => sq(v) },
  { col: 'uuid', schema: 'required fixed_len_byte_array(16) uuid (UUID);',
    gen: (i) => `${hex(i * 2654435761 % 4294967296, 8)}-0000-4000-8000-${hex(i, 12)}`,
    json: (v) => JSON.stringify(v), text: (v) => v, duck: (v) => `${sq(v)}::UUID` },
];

function run(prog, args) {
  return new Promise((resolve) => {
    execFile(prog, args, { encoding: 'utf8', timeout: 60000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

// upq bloom's answers per row group: array of true (maybe) / false (absent)
async function upqAnswers(opts, file, col, text) {
  const r = await run(opts.upq, ['bloom', '--', file, col, text]);
  if (r.code !== 0) throw new Error(`upq bloom ${col} ${text}: exit ${r.code}: ${r.stderr.trim()}`);
  const out = [];
  for (const line of r.stdout.split('\n').filter((l) => l)) {
    const m = /^row group (\d+): (maybe|absent)$/.exec(line);
    if (!m) throw new Error(`upq bloom ${col} ${text}: unexpected line '${line}'`);
    out[Number(m[1])] = m[2] === 'maybe';
  }
  return out;
}

async function duckAnswers(con, file, col, literal) {
  const r = await con.runAndReadAll(
    `select row_group_id, bloom_filter_excludes from parquet_bloom_probe(${sq(file)}, ${sq(col)}, ${literal}) order by row_group_id`);
  const out = [];
  for (const row of r.getRowObjects()) out[Number(row.row_group_id)] = !row.bloom_filter_excludes;
  return out;
}

async function pool(items, fn) {
  const res = new Array(items.length);
  let next = 0;
  const worker = async () => { while (next < items.length) { const k = next++; res[k] = await fn(items[k]); } };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return res;
}

// Compares upq and DuckDB on `present` (value, row group) and `absent`
// values; returns [maybeAbsentCount, problems].
async function compare(opts, con, file, t, present, absent, duckCompares) {
  const problems = [];
  let absentMaybe = 0, agreeAbsent = 0;
  const items = [...present.map(([v, g]) => ({ v, g })), ...absent.map((v) => ({ v, g: -1 }))];
  const ups = await pool(items, (it) => upqAnswers(opts, file, t.col, t.text(it.v)));
  for (let k = 0; k < items.length; k++) {
    const { v, g } = items[k];
    const u = ups[k];
    if (g === 'all' && (u.length === 0 || u.some((x) => !x)))
      problems.push(`present ${t.text(v)}: upq says [${u.map((x) => (x ? 'maybe' : 'absent'))}]`);
    else if (g >= 0 && u[g] !== true) problems.push(`present ${t.text(v)}: upq says absent in row group ${g}`);
    if (g === -1) absentMaybe += u.filter((x) => x).length;
    if (!duckCompares) continue;
    const d = await duckAnswers(con, file, t.col, t.duck(v));
    if (d.length !== u.length || d.some((x, j) => x !== u[j]))
      problems.push(`${t.text(v)}: upq [${u.map((x) => (x ? 'maybe' : 'absent'))}] DuckDB [${d.map((x) => (x ? 'maybe' : 'excluded'))}]`);
    else if (g === -1) agreeAbsent++;
  }
  return { absentMaybe, agreeAbsent, problems };
}

// Comparisons left out on purpose, and why (printed at the end).
const SKIPS = [
  'BLOB columns vs parquet_bloom_probe: DuckDB\'s probe says "excluded" for BLOB values that are ' +
    'present, even in files DuckDB writes itself; upq bloom is checked to find them in DuckDB\'s filter',
  'UUID (FIXED_LEN_BYTE_ARRAY(16)) vs parquet_bloom_probe: DuckDB\'s probe never excludes a UUID ' +
    '(every row group "maybe", also for values no row group holds); upq bloom is checked to find ' +
    "present UUIDs in DuckDB's filter and in its own files",
];

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(opts.upq)) {
    console.log(`skip: no upq at ${opts.upq}`);
    return opts.skipWithoutUpq ? 77 : 1;
  }
  fs.mkdirSync(opts.work, { recursive: true });
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  let pass = 0, fail = 0;
  const t0 = Date.now();
  const report = (ok, what, detail) => {
    if (ok) { pass++; console.log(`ok ${what}${detail ? ` (${detail})` : ''}`); }
    else { fail++; console.log(`FAIL ${what}: ${detail}`); }
  };

  // ---- written by upq ----
  const schema = path.join(opts.work, 'schema.txt');
  fs.writeFileSync(schema, `message m {\n${TYPES.map((t) => `  ${t.schema}`).join('\n')}\n}\n`);
  const jsonl = path.join(opts.work, 'rows.jsonl');
  const lines = [];
  for (let i = 0; i < ROWS; i++)
    lines.push(`{${TYPES.map((t) => `"${t.col}":${t.json(t.gen(i))}`).join(',')}}`);
  fs.writeFileSync(jsonl, lines.join('\n') + '\n');
  for (const [label, spec] of [['roomy', ':500:0.01'], ['crowded', ':500:0.5']]) {
    const file = path.join(opts.work, `${label}.parquet`);
    const args = ['write', '--schema', schema, '--row-group-rows', String(PER_RG)];
    for (const t of TYPES) args.push('--bloom', `${t.col}${spec}`);
    const w = await run(opts.upq, [...args, jsonl, file]);
    if (w.code !== 0) { report(false, `${label}: upq write`, w.stderr.trim()); continue; }
    for (const t of TYPES) {
      const what = `${label} ${t.col}`;
      try {
        const present = [];
        for (let k = 0; k < PRESENT; k++) {
          const i = (k * 997) % ROWS;
          present.push([t.gen(i), Math.floor(i / PER_RG)]);
        }
        const absent = [];
        for (let k = 0; k < ABSENT; k++) absent.push(t.gen(ROWS + k * 3 + 1));
        const r = await compare(opts, con, file, t, present, absent, t.col !== 'uuid');
        report(r.problems.length === 0, what, r.problems.length ? r.problems.slice(0, 3).join('; ') +
          (r.problems.length > 3 ? ` (+${r.problems.length - 3} more)` : '')
          : `${PRESENT} present maybe; ${ABSENT} absent x 3 row groups: ${r.absentMaybe} maybe` +
            (t.col !== 'uuid' ? ', same as DuckDB for all' : ' (not compared)'));
      } catch (e) {
        report(false, what, String(e.message || e).split('\n')[0]);
      }
    }
  }

  // ---- written by DuckDB ----
  // DuckDB writes filters for dictionary-encoded chunks: DISTINCT values,
  // each in every row group
  const DISTINCT = 256, DROWS = 6144, DPER_RG = 2048;
  const dfile = path.join(opts.work, 'duckdb.parquet');
  await con.run(`COPY (SELECT (j * 7919 - 5000000)::INTEGER AS i32, (j::BIGINT * 1000003 * 1000003 - (1::BIGINT << 45)) AS i64,
                   (j::DOUBLE * 0.37::DOUBLE - 100.125::DOUBLE) AS f64, 's-' || j AS str, ('b' || j)::BLOB AS blob,
                   (printf('%08x', (j * 2654435761) % 4294967296) || '-0000-4000-8000-' || printf('%012x', j))::UUID AS uuid
                 FROM (SELECT i % ${DISTINCT} AS j FROM range(${DROWS}) t(i)))
                 TO ${sq(dfile)} (FORMAT parquet, ROW_GROUP_SIZE ${DPER_RG})`);
  const dtypes = [
    TYPES[0], TYPES[1], TYPES[3],
    { col: 'str', gen: (i) => `s-${i}`, text: (v) => v, duck: (v) => sq(v) },
    { ...TYPES[5], duck: null },
    { col: 'blob', gen: (i) => Buffer.from(`b${i}`).toString('base64'), text: (v) => v, duck: null },
  ];
  for (const t of dtypes) {
    const what = `duckdb ${t.col}`;
    try {
      const present = [];
      for (let k = 0; k < PRESENT; k++) present.push([t.gen((k * 97) % DISTINCT), 'all']);
      const absent = [];
      for (let k = 0; k < ABSENT / 2; k++) absent.push(t.gen(DISTINCT + k * 3 + 1));
      const r = await compare(opts, con, dfile, t, present, absent, t.duck !== null);
      report(r.problems.length === 0, what, r.problems.length ? r.problems.slice(0, 3).join('; ')
        : t.duck ? `${PRESENT} present maybe in all row groups; ${ABSENT / 2} absent: ${r.absentMaybe} maybe, same as DuckDB for all`
                 : `${PRESENT} present maybe in all row groups; ${ABSENT / 2} absent: ${r.absentMaybe} maybe (not compared)`);
    } catch (e) {
      report(false, what, String(e.message || e).split('\n')[0]);
    }
  }
  for (const s of SKIPS) console.log(`skip ${s}`);
  console.log(`# ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  console.log(`${pass} passed, ${fail} failed`);
  return fail ? 1 : 0;
}

const exitAfterFlush = (code) => process.stdout.write('', () => process.exit(code));
main().then(exitAfterFlush, (e) => {
  console.error(e && e.stack ? e.stack : e);
  exitAfterFlush(1);
});
