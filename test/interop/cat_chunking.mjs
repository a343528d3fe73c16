#!/usr/bin/env node
// Chunked and interrupted reads give the same rows: for every file that
// passed the value conformance check (cat_vs_duckdb.mjs --pass-list), the
// output of `upq cat --json FILE` must be byte-identical to
//
//   upq cat --json --chunk 1 --again FILE    (1-byte reads, "again" every other call)
//   upq cat --json --chunk 13 FILE           (13-byte reads)
//
//   node test/interop/cat_chunking.mjs [--upq PATH] --files-from LIST
//        [--skip-without-upq] [--max-size BYTES] [FILE...]
//
// Prints `ok FILE (variants)` or `FAIL FILE: ...` per file and ends with
// `N passed, N failed`. --max-size limits the 1-byte run to files up to that
// size (the 13-byte run covers every file); the output says which files were
// sampled out. Files: the LIST (one path a line) and/or the arguments.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');

const opts = { upq: path.join(repoRoot, 'build', 'host', 'upq'), filesFrom: null, skipWithoutUpq: false,
               maxSize: Infinity, files: [] };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--upq') opts.upq = argv[++i];
    else if (a === '--files-from') opts.filesFrom = argv[++i];
    else if (a === '--skip-without-upq') opts.skipWithoutUpq = true;
    else if (a === '--max-size') opts.maxSize = Number(argv[++i]);
    else if (a.startsWith('-')) { console.error(`cat_chunking: unknown option ${a}`); process.exit(2); }
    else opts.files.push(path.resolve(a));
  }
}
const corpusDir = process.env.PARQUET_TESTING_DIR
  ? path.resolve(process.env.PARQUET_TESTING_DIR)
  : path.resolve(repoRoot, '..', 'shared', 'parquet-testing');
const dataDir = path.join(corpusDir, 'data');
const rel = (f) => (f.startsWith(dataDir + path.sep) ? path.relative(dataDir, f) : f);

const TIMEOUT_MS = 300000;
const VARIANTS = [
  { name: 'chunk 1 + again', args: ['--chunk', '1', '--again'], sampled: true },
  { name: 'chunk 13', args: ['--chunk', '13'] },
];

function run(args) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    execFile(opts.upq, args, { encoding: 'buffer', maxBuffer: 1 << 30, timeout: TIMEOUT_MS },
      (err, stdout, stderr) => {
        const status = err ? (err.killed ? `killed (${err.signal || 'timeout'})`
          : err.signal ? `signal ${err.signal}` : `exit status ${err.code}`) : null;
        resolve({ status, stdout, stderr: stderr.toString('utf8').trim().split('\n').slice(-2).join(' | '),
                  ms: Date.now() - t0 });
      });
  });
}

// Where two outputs first differ, as "byte N (row R)".
function whereDiffer(a, b) {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  let row = 0;
  for (let k = 0; k < i; k++) if (a[k] === 10) row++;
  const ctx = (buf) => JSON.stringify(buf.subarray(Math.max(0, i - 20), i + 40).toString('utf8'));
  return `byte ${i} (row ${row}): plain ${ctx(a)}, chunked ${ctx(b)}`;
}

async function main() {
  let files = [...opts.files];
  if (opts.filesFrom) {
    if (!fs.existsSync(opts.filesFrom)) {
      console.log(`# ${opts.filesFrom} does not exist: the conformance check did not run or did not finish`);
      return opts.skipWithoutUpq ? 77 : 2;
    }
    files.push(...fs.readFileSync(opts.filesFrom, 'utf8').split('\n').filter((l) => l.trim()));
  }
  if (!fs.existsSync(opts.upq)) {
    console.log(`# ${opts.upq} is not built: chunking check skipped`);
    if (opts.skipWithoutUpq) return 77;
    return 2;
  }
  if (files.length === 0) {
    // nothing passed conformance (or it was skipped): nothing to compare
    console.log('# no files passed the conformance check: chunking check skipped');
    return opts.skipWithoutUpq ? 77 : 2;
  }

  const big = files.filter((f) => fs.statSync(f).size > opts.maxSize);
  if (big.length) {
    console.log(`# sample: the 1-byte run skips ${big.length} of ${files.length} files over ${opts.maxSize} bytes ` +
      `(${big.map(rel).join(', ')}); the 13-byte run covers all`);
  } else {
    console.log(`# all ${files.length} files that passed conformance, both runs`);
  }

  let pass = 0, fail = 0;
  const t0 = Date.now();
  for (const file of files) {
    const plain = await run(['cat', '--json', file]);
    if (plain.status) {
      console.log(`FAIL ${rel(file)}: plain run: ${plain.status}: ${plain.stderr}`);
      fail++;
      continue;
    }
    const done = [];
    let why = null;
    for (const v of VARIANTS) {
      if (v.sampled && fs.statSync(file).size > opts.maxSize) continue;
      const r = await run(['cat', '--json', ...v.args, file]);
      if (r.status) why = `${v.args.join(' ')}: ${r.status}: ${r.stderr}`;
      else if (!r.stdout.equals(plain.stdout)) {
        why = `${v.args.join(' ')}: output differs at ${whereDiffer(plain.stdout, r.stdout)}`;
      }
      if (why) break;
      done.push(r.ms >= 2000 ? `${v.name} ${(r.ms / 1000).toFixed(1)} s` : v.name);
    }
    if (why) { console.log(`FAIL ${rel(file)}: ${why}`); fail++; }
    else { console.log(`ok ${rel(file)} (${done.join(', ')})`); pass++; }
  }
  console.log(`# ${files.length} files in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  console.log(`${pass} passed, ${fail} failed`);
  return fail ? 1 : 0;
}

const exitAfterFlush = (code) => process.stdout.write('', () => process.exit(code));
main().then(exitAfterFlush, (e) => {
  console.error(e && e.stack ? e.stack : e);
  exitAfterFlush(1);
});
