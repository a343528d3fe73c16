#!/usr/bin/env node
// Statistics of files µparquet wrote, checked by DuckDB: for every row group
// and every top-level leaf column, the min/max/null count in the footer
// (parquet_metadata) must match what DuckDB computes from the rows of that
// row group (selected by file_row_number). Bounds that µparquet truncated
// (long strings) must still bound the values. A column without bounds is
// fine (no order, NaN only, or not representable); wrong bounds are not.
//
//   node test/interop/writer_stats_duckdb.mjs FILE...
//
// Prints `ok FILE (N checks)` or `FAIL FILE: ...` per file and ends with
// `N passed, N failed`; exits 1 when anything failed.

import { DuckDBInstance } from '@duckdb/node-api';

const files = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();

const q = (s) => `'${s.replaceAll("'", "''")}'`;
const id = (s) => `"${s.replaceAll('"', '""')}"`;

async function rows(sql) {
  const r = await con.runAndReadAll(sql);
  return r.getRowObjectsJson();
}

let pass = 0, fail = 0;
for (const file of files) {
  const problems = [];
  let checks = 0;
  try {
    const meta = await rows(`SELECT row_group_id, row_group_num_rows, path_in_schema,
        stats_min_value, stats_max_value, stats_null_count
      FROM parquet_metadata(${q(file)}) ORDER BY row_group_id, column_id`);
    const types = new Map((await rows(`DESCRIBE SELECT * FROM read_parquet(${q(file)})`))
      .map((r) => [r.column_name, r.column_type]));
    /* the rows of each row group, by file_row_number */
    const ranges = [];
    let at = 0;
    for (const m of meta) {
      const g = Number(m.row_group_id);
      if (ranges.length === g) { ranges.push(`(${g}, ${at}, ${at + Number(m.row_group_num_rows)})`); at += Number(m.row_group_num_rows); }
    }
    const cols = [...new Set(meta.map((m) => m.path_in_schema))];
    for (const col of cols) {
      const t = types.get(col);
      if (!t || col.includes('.') || /[\[\]]|STRUCT|MAP/.test(t)) continue; /* flat columns only */
      const isFloat = /^(FLOAT|DOUBLE)$/.test(t);
      const text = /^(VARCHAR|BLOB)$/.test(t);
      const v = isFloat ? `CASE WHEN isnan(${id(col)}) THEN NULL ELSE ${id(col)} END` : id(col);
      const res = await rows(`WITH
        rg(g, a, b) AS (VALUES ${ranges.join(', ')}),
        m AS (SELECT row_group_id AS g, stats_min_value AS smin, stats_max_value AS smax,
                     stats_null_count AS sn
              FROM parquet_metadata(${q(file)}) WHERE path_in_schema = ${q(col)}),
        d AS (SELECT file_row_number AS r, ${id(col)} AS raw, ${v} AS v
              FROM read_parquet(${q(file)}, file_row_number = true)),
        agg AS (SELECT rg.g, count(*) FILTER (WHERE raw IS NULL) AS nulls, min(v) AS mn, max(v) AS mx
                FROM d JOIN rg ON d.r >= rg.a AND d.r < rg.b GROUP BY rg.g)
        SELECT agg.g, sn, nulls, smin, smax, mn::VARCHAR AS amin, mx::VARCHAR AS amax,
          CAST(smin AS ${t}) = mn AS min_eq, CAST(smin AS ${t}) <= mn AS min_le,
          CAST(smax AS ${t}) = mx AS max_eq, CAST(smax AS ${t}) >= mx AS max_ge
        FROM agg JOIN m USING (g) ORDER BY agg.g`);
      if (res.length !== ranges.length)
        problems.push(`column ${col}: ${res.length} row groups compared, ${ranges.length} in the file`);
      for (const r of res) {
        const where = `row group ${r.g} column ${col} (${t})`;
        checks++;
        if (r.sn !== null && String(r.sn) !== String(r.nulls))
          problems.push(`${where}: null_count ${r.sn}, rows have ${r.nulls}`);
        /* exact bounds must equal; truncated text bounds must still bound */
        if (r.smin !== null && !(r.min_eq || (text && r.min_le)))
          problems.push(`${where}: min ${JSON.stringify(r.smin)}, rows have ${JSON.stringify(r.amin)}`);
        if (r.smax !== null && !(r.max_eq || (text && r.max_ge)))
          problems.push(`${where}: max ${JSON.stringify(r.smax)}, rows have ${JSON.stringify(r.amax)}`);
      }
    }
  } catch (e) {
    problems.push(`DuckDB: ${e.message}`);
  }
  if (problems.length) {
    fail++;
    console.log(`FAIL ${file}: ${problems.slice(0, 3).join('; ')}`);
  } else {
    pass++;
    console.log(`ok ${file} (${checks} column chunks)`);
  }
}
console.log(`${pass} passed, ${fail} failed`);
process.exit(fail ? 1 : 0);
