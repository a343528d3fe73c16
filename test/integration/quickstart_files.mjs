// Files other writers make for the README's predicate-sum quick start, and
// DuckDB's answer on each (check-integration, test/integration/run.sh):
//
//   node test/integration/quickstart_files.mjs DIR
//
// writes DIR/duckdb.parquet (DuckDB: 200,000 rows sorted by distance, row
// groups of 20,000, so statistics prune) and DIR/arrow.parquet (arrow-rs
// through parquet-wasm: the same rows in file order, 16,384-row row groups,
// SNAPPY, 4 KiB pages) and DIR/many.parquet (DuckDB, 200 row groups, for
// examples/integration/planned.c), then prints one line per query:
//
//   FILE A B X SUM COUNT
//
// where SUM and COUNT are DuckDB's `SELECT sum(A), count(A) FROM FILE WHERE
// B > X`. Every value is a multiple of 0.5, so any summation order gives the
// same double.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../interop/package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');
const { tableFromArrays, tableToIPC, vectorFromArray, Float64 } = require('apache-arrow');
const pw = require('parquet-wasm/node');

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node quickstart_files.mjs DIR');
  process.exit(2);
}
fs.mkdirSync(dir, { recursive: true });
const ROWS = 200000;
// The rows: id, distance (0.0-99.9), fare (multiples of 1.5), tip (null for every 13th row).
const distance = (i) => ((i * 7919) % 1000) / 10;
const fare = (i) => (i % 97) * 1.5;
const tip = (i) => (i % 13 === 0 ? null : i);

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const duck = path.join(dir, 'duckdb.parquet');
await con.run(`COPY (SELECT i AS id, ((i * 7919) % 1000) / 10.0 AS distance, (i % 97)::DOUBLE * 1.5 AS fare,
                 CASE WHEN i % 13 = 0 THEN NULL ELSE i END AS tip
               FROM range(${ROWS}) t(i) ORDER BY distance, id)
               TO '${duck}' (FORMAT parquet, ROW_GROUP_SIZE 20000)`);

const arrow = path.join(dir, 'arrow.parquet');
{
  const id = new Int32Array(ROWS), d = new Float64Array(ROWS), f = new Float64Array(ROWS), t = new Array(ROWS);
  for (let i = 0; i < ROWS; i++) {
    id[i] = i;
    d[i] = distance(i);
    f[i] = fare(i);
    t[i] = tip(i);
  }
  const table = tableFromArrays({ id, distance: d, fare: f });
  const withTip = table.assign(tableFromArrays({ tip: vectorFromArray(t, new Float64()) }));
  const props = new pw.WriterPropertiesBuilder()
    .setCompression(pw.Compression.SNAPPY)
    .setMaxRowGroupSize(16384)
    .setDataPageSizeLimit(4096)
    .build();
  const wt = pw.Table.fromIPCStream(tableToIPC(withTip, 'stream'));
  fs.writeFileSync(arrow, Buffer.from(pw.writeParquet(wt, props)));
}

// The program written from docs/ alone (examples/integration/planned.c) also
// reads a file of many small row groups, whose footer takes more than a first
// arena.
await con.run(`COPY (SELECT i AS id, ((i * 7919) % 1000) / 10.0 AS distance, (i % 97)::DOUBLE * 1.5 AS fare,
                 CASE WHEN i % 13 = 0 THEN NULL ELSE i END AS tip
               FROM range(${ROWS}) t(i))
               TO '${path.join(dir, 'many.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 1000)`);

const queries = [
  ['fare', 'distance', '90'],
  ['tip', 'distance', '99.5'],
  ['fare', 'id', '150000'],
  ['distance', 'fare', '1000'], // no row matches: every row group is pruned
];
for (const file of [duck, arrow]) {
  for (const [a, b, x] of queries) {
    const r = await con.runAndReadAll(`SELECT coalesce(sum(${a}), 0)::DOUBLE, count(${a}) FROM '${file}' WHERE ${b} > ${x}`);
    const [[sum, count]] = r.getRowsJson();
    console.log([file, a, b, x, sum, count].join(' '));
  }
}
