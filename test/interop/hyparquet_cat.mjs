#!/usr/bin/env node
// Prints a Parquet file as hyparquet reads it: one JSON object per row, in
// the canonical form `upq cat --json` prints (canonical.mjs): integers as
// exact literals, floats as the shortest text of their width ("NaN",
// "Infinity" as strings), decimals, dates, times, timestamps and UUIDs as
// strings, binary as base64, LIST as arrays, MAP as [{"key":..,"value":..}],
// groups as objects in schema order.
//
//   node test/interop/hyparquet_cat.mjs [--schema upq|hyparquet] [--upq PATH] FILE
//
// The formatting follows the Parquet schema: by default hyparquet's own parse
// of the footer (no other tool needed); --schema upq takes `upq meta --json`'s
// (PATH default build/host/upq) as cat_vs_duckdb.mjs does. Values the
// canonical form does not compare (VARIANT; see oracle_hyparquet.mjs) print
// as the string "(any)", and a note per such column goes to stderr. Exits 1
// with hyparquet's message when it cannot read the file.

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ANY, Flt, Int, rowShape, shortestFloat } from './canonical.mjs';
import { HyparquetOracle } from './oracle_hyparquet.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

// One canonical value as JSON text (an explicit stack: nesting is unbounded).
export function jsonText(value) {
  const out = [];
  const pending = [value];
  while (pending.length) {
    const x = pending.pop();
    if (typeof x === 'object' && x !== null && x.tok !== undefined) { out.push(x.tok); continue; }
    if (x === null || x === undefined) out.push('null');
    else if (x === ANY) out.push('"(any)"');
    else if (typeof x === 'boolean') out.push(String(x));
    else if (typeof x === 'string') out.push(JSON.stringify(x));
    else if (x instanceof Int) out.push(x.text);
    else if (x instanceof Flt) {
      const s = shortestFloat(x.v, x.bits);
      out.push(/^-?\d/.test(s) ? s : JSON.stringify(s));
    } else if (Array.isArray(x)) {
      out.push('[');
      pending.push({ tok: ']' });
      for (let k = x.length - 1; k >= 0; k--) {
        pending.push(x[k]);
        if (k) pending.push({ tok: ',' });
      }
    } else if (x instanceof Map) {
      out.push('{');
      pending.push({ tok: '}' });
      const ents = [...x];
      for (let k = ents.length - 1; k >= 0; k--) {
        pending.push(ents[k][1]);
        pending.push({ tok: `${k ? ',' : ''}${JSON.stringify(ents[k][0])}:` });
      }
    } else throw new Error(`not a canonical value: ${String(x)}`);
  }
  return out.join('');
}

async function main() {
  const argv = process.argv.slice(2);
  let schemaFrom = 'hyparquet';
  let upq = path.resolve(here, '..', '..', 'build', 'host', 'upq');
  let file = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--schema') schemaFrom = argv[++i];
    else if (a === '--upq') upq = argv[++i];
    else if (a.startsWith('-') || file) {
      console.error('usage: hyparquet_cat.mjs [--schema upq|hyparquet] [--upq PATH] FILE');
      return 2;
    } else file = a;
  }
  if (!file || !['upq', 'hyparquet'].includes(schemaFrom)) {
    console.error('usage: hyparquet_cat.mjs [--schema upq|hyparquet] [--upq PATH] FILE');
    return 2;
  }
  const oracle = new HyparquetOracle();
  let shape = null;
  if (schemaFrom === 'upq') {
    shape = rowShape(JSON.parse(execFileSync(upq, ['meta', '--json', file], { encoding: 'utf8', maxBuffer: 1 << 30 })).schema);
  }
  try {
    for await (const batch of oracle.rows(file, shape)) {
      process.stdout.write(batch.map((r) => `${jsonText(r)}\n`).join(''));
    }
  } catch (e) {
    console.error(`hyparquet_cat: ${file}: ${e.message || e}`);
    return 1;
  }
  for (const n of oracle.notes()) console.error(`hyparquet_cat: note: ${n}`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then((code) => process.stdout.write('', () => process.exit(code)), (e) => {
    console.error(e && e.stack ? e.stack : e);
    process.exit(1);
  });
}
