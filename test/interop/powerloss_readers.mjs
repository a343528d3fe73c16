#!/usr/bin/env node
// DuckDB reads the files upq_recover made of power-cut logging runs.
//
//   node test/interop/powerloss_duckdb.mjs DIR
//
// DIR holds NAME.parquet (a recovered file: the longest prefix of a cut
// file that ends with a whole checkpoint) and NAME.jsonl (the rows the
// logging run generated up to that checkpoint, as `upq cat --json` prints
// them), written by `test_powerloss --samples DIR`. DuckDB must read every
// file, with exactly those rows and values (compared in canonical form,
// canonical.mjs; the schema from DuckDB's parquet_schema()).
// Prints `ok NAME (N rows)` or `FAIL NAME: ...`, then `N passed, N failed`.

import fs from 'node:fs';
import path from 'node:path';
import { rowShape, parseJsonLine, firstDiff, show } from './canonical.mjs';
import { DuckOracle } from './oracle_duckdb.mjs';

async function main() {
  const dir = process.argv[2];
  if (!dir || !fs.existsSync(dir)) {
    console.error('usage: powerloss_duckdb.mjs DIR (written by test_powerloss --samples DIR)');
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
      const want = fs.readFileSync(path.join(dir, `${name}.jsonl`), 'utf8').split('\n').filter((l) => l.length);
      const shape = rowShape(await duck.schema(file));
      let row = 0;
      for await (const batch of duck.rows(file, shape)) {
        for (const exp of batch) {
          if (row >= want.length) throw new Error(`DuckDB reads more than the ${want.length} checkpointed rows`);
          const d = firstDiff(exp, parseJsonLine(want[row]));
          if (d) throw new Error(`row ${row} ${d.path}: generated ${show(d.upq)}, DuckDB ${show(d.oracle)}`);
          row++;
        }
      }
      if (row !== want.length) throw new Error(`DuckDB reads ${row} rows, ${want.length} were checkpointed`);
      console.log(`ok ${name} (${row} rows)`);
      pass++;
    } catch (e) {
      console.log(`FAIL ${name}: ${String(e.message || e).split('\n')[0]}`);
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
