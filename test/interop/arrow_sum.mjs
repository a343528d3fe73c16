// arrow-rs' side of bench_vs_duckdb.mjs, in a process of its own so that
// neither its WebAssembly memory nor node's collector threads weigh on the
// DuckDB side's CPU time:
//
//   node arrow_sum.mjs FILE COLUMN REPS [--sum]
//
// opens FILE and reads COLUMN into an Arrow table (parquet-wasm: arrow-rs'
// reader built for WebAssembly) once untimed and then REPS times, and prints
// the best wall time in ms (CPU time would count the collector threads
// running beside it), then, with --sum, the column's sum taken untimed from
// the table exported to arrow JS: in file order for floats (as DuckDB and upq
// sum them), exact for integers, bytes for strings (DuckDB's strlen), set
// bits for booleans; nulls skipped.
import { ParquetFile } from 'parquet-wasm';
import { tableFromIPC, Type } from 'apache-arrow';
import { openAsBlob } from 'node:fs';

const [, , file, col, repsArg, sumArg] = process.argv;
const reps = Number(repsArg || 1);
// file-backed, as DuckDB reads it: arrow-rs fetches only the column's ranges
const blob = await openAsBlob(file);
// one untimed read first: the timed ones then run compiled WebAssembly, as
// they would in a long-running program
(await (await ParquetFile.fromFile(blob)).read({ columns: [col], batchSize: 65536 })).free();
let best = Infinity, value = '-';
for (let k = 0; k < reps; k++) {
  const t0 = performance.now();
  const pf = await ParquetFile.fromFile(blob);
  const table = await pf.read({ columns: [col], batchSize: 65536 });
  best = Math.min(best, performance.now() - t0);
  pf.free();
  if (sumArg === '--sum' && k === reps - 1) value = columnSum(tableFromIPC(table.intoIPCStream()).getChild(col));
  else table.free();
}
console.log(`${best.toFixed(3)} ${value}`);

function columnSum(v) {
  const isFloat = v.type.typeId === Type.Float;
  let f = 0, n = 0n;
  for (const d of v.data) {
    const o = d.offset, nulls = d.nullCount ? d.nullBitmap : null;
    const bit = (bits, i) => (bits[(o + i) >> 3] >> ((o + i) & 7)) & 1;
    for (let i = 0; i < d.length; i++) {
      if (nulls && !bit(nulls, i)) continue;
      if (isFloat) f += d.values[i];
      else if (d.valueOffsets) n += BigInt(d.valueOffsets[i + 1] - d.valueOffsets[i]);
      else if (d.type.typeId === Type.Bool) n += BigInt(bit(d.values, i));
      else n += BigInt(d.values[i]);
    }
  }
  return isFloat ? String(f) : String(n);
}
