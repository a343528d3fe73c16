#!/usr/bin/env node
// DuckDB, arrow-rs and hyparquet read the files `upq recover` made of cut
// copies of checkpoint-mode files (test/powerloss/run.sh).
//
//   node test/interop/powerloss_readers.mjs [--upq PATH] DIR
//
// DIR holds NAME.parquet (a recovered file) and NAME.jsonl (its rows as
// `upq cat --json` prints them, which run.sh has checked to be a prefix of
// the uncut file's rows ending at a checkpoint). Each of the three readers
// must read every file with exactly those rows and values (canonical form,
// canonical.mjs; the row shape from `upq meta --json`): the checks of
// checkpoint_check.mjs's readersAgree().
// Prints `ok NAME (N rows)` or `FAIL NAME: ...`, then `N passed, N failed`.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckOracle } from './oracle_duckdb.mjs';
import { CheckFailure, readersAgree } from './checkpoint_check.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

async function main() {
  const argv = process.argv.slice(2);
  let upq = path.resolve(here, '..', '..', 'build', 'host', 'upq'), dir = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--upq') upq = argv[++i];
    else if (!dir && !argv[i].startsWith('-')) dir = argv[i];
    else dir = null;
  }
  if (!dir || !fs.existsSync(dir)) {
    console.error('usage: powerloss_readers.mjs [--upq PATH] DIR (NAME.parquet + NAME.jsonl, written by test/powerloss/run.sh)');
    return 2;
  }
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.parquet')).sort();
  const duck = await DuckOracle.open();
  let pass = 0, fail = 0;
  const t0 = Date.now();
  for (const f of files) {
    const file = path.join(dir, f);
    const name = f.replace(/\.parquet$/, '');
    try {
      const lines = fs.readFileSync(path.join(dir, `${name}.jsonl`), 'utf8').split('\n').filter((l) => l.length);
      const notes = await readersAgree(file, lines, { upq, duck, what: name });
      console.log(`ok ${name} (${lines.length} rows; DuckDB, arrow-rs, hyparquet${notes.length ? `; ${notes.join('; ')}` : ''})`);
      pass++;
    } catch (e) {
      const msg = e instanceof CheckFailure ? e.message : String(e && e.stack ? e.stack : e).split('\n').slice(0, 3).join(' | ');
      console.log(`FAIL ${name}: ${msg}`);
      fail++;
    }
  }
  duck.close();
  if (files.length === 0) {
    console.log(`FAIL no recovered files in ${dir}`);
    fail++;
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
