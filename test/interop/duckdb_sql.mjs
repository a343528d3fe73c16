// One SQL statement through DuckDB, its rows printed one per line as JSON
// arrays (DuckDB's JSON forms: big integers and decimals as strings):
//   node duckdb_sql.mjs "SELECT count(*) FROM 'f.parquet'"
import { DuckDBInstance } from '@duckdb/node-api';

const sql = process.argv[2];
if (!sql) {
  console.error('usage: node duckdb_sql.mjs SQL');
  process.exit(2);
}
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const reader = await con.runAndReadAll(sql);
for (const row of reader.getRowsJson()) console.log(JSON.stringify(row));
