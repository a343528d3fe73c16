// Parquet files DuckDB writes for the value conformance check: the types
// and layouts the parquet-testing corpus lacks (DATE, TIME and TIMESTAMP in
// every unit, UUID, INTERVAL, unsigned and narrow integers, decimals up to
// 38 digits, JSON, signed zeros and infinities, deep nesting, data page v2
// with DELTA and BYTE_STREAM_SPLIT encodings, several row groups). DuckDB
// writes ENUM as plain UTF8 and TIME WITH TIME ZONE as TIME(MICROS,true).
// They are written under the build directory on every run (a few
// milliseconds) and read back by both DuckDB and upq like the corpus files.

import fs from 'node:fs';
import path from 'node:path';

// `{out}` is replaced by the file's path.
const GENERATED = [
  {
    name: 'types.parquet',
    sql: `COPY (SELECT * FROM (VALUES
      (DATE '2024-02-29', TIME '23:59:59.999999', TIMESTAMP '1900-01-01 00:00:00.000001',
       TIMESTAMPTZ '2000-01-01 12:00:00+00', TIMESTAMP_NS '2262-04-11 23:47:16.854775',
       TIMESTAMP_MS '1960-05-05 05:05:05.123', TIMESTAMP_S '2020-01-01 00:00:01',
       UUID 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', INTERVAL '14 months 3 days 4 seconds 5 milliseconds',
       255::UTINYINT, 65535::USMALLINT, 4294967295::UINTEGER, 18446744073709551615::UBIGINT,
       (-128)::TINYINT, (-32768)::SMALLINT, (-9223372036854775808)::BIGINT,
       1.5::DECIMAL(4,1), (-12345678901234567.89)::DECIMAL(19,2),
       123456789012345678901234567890.12345678::DECIMAL(38,8), (-0.001)::DECIMAL(9,3),
       '{"a":1}'::JSON, '\\x00\\xFF'::BLOB, 'h\u00e9llo\n"q"\\'::VARCHAR,
       'inf'::DOUBLE, '-inf'::FLOAT, 'nan'::DOUBLE, 'nan'::FLOAT, 1e-7::DOUBLE, 1e300::DOUBLE,
       3.4028235e38::FLOAT, 1e-45::FLOAT, 0.1::FLOAT, DATE '0001-01-01', TIME '00:00:00',
       TIMESTAMP '1677-09-21 00:12:43.145225'),
      (DATE '1969-12-31', TIME '12:00:00', TIMESTAMP '9999-12-31 23:59:59.999999',
       TIMESTAMPTZ '1969-12-31 23:59:59.999999+00', TIMESTAMP_NS '1677-09-22 00:00:00',
       TIMESTAMP_MS '1970-01-01 00:00:00', TIMESTAMP_S '1970-01-01 00:00:00',
       UUID '00000000-0000-0000-0000-000000000000', INTERVAL '0 days',
       0::UTINYINT, 0::USMALLINT, 0::UINTEGER, 0::UBIGINT, 127::TINYINT, 32767::SMALLINT,
       9223372036854775807::BIGINT, (-999.9)::DECIMAL(4,1), 0::DECIMAL(19,2),
       (-99999999999999999999999999999.99999999)::DECIMAL(38,8), 0::DECIMAL(9,3),
       '[]'::JSON, ''::BLOB, ''::VARCHAR,
       -1.5::DOUBLE, 2.5::FLOAT, 5e-324::DOUBLE, -3.4028235e38::FLOAT, -1e-300::DOUBLE, 123456789.0::DOUBLE,
       16777217::FLOAT, -1.17549435e-38::FLOAT, -0.1::FLOAT, DATE '9999-12-31', TIME '23:59:59.999999',
       TIMESTAMP '2262-04-11 23:47:16.854775'),
      (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL)
    ) t(d, t, ts, tstz, tsns, tsms, tss, u, iv, u8, u16, u32, u64, i8, i16, i64, dec1, dec2, dec3, dec4,
        j, b, s, dinf, fninf, dnan, fnan, dsmall, dbig, fmax, fmin, f01, dmin, tmin, tsmin))
    TO '{out}' (FORMAT parquet)`,
  },
  {
    // -0.0 written from a computed value (a literal would be folded to 0)
    name: 'signed_zero.parquet',
    sql: `COPY (SELECT -x AS d, (-x)::FLOAT AS f, x AS z FROM (SELECT 0.0::DOUBLE + range * 0 AS x FROM range(2)))
      TO '{out}' (FORMAT parquet)`,
  },
  {
    name: 'times.parquet',
    sql: `COPY (SELECT * FROM (VALUES
      (TIME_NS '12:34:56.123456789', TIMETZ '12:00:00+00'),
      (TIME_NS '00:00:00', TIMETZ '23:59:59.999999+00'),
      (NULL, NULL)) t(tn, ttz))
      TO '{out}' (FORMAT parquet)`,
  },
  {
    name: 'nested.parquet',
    sql: `COPY (
      SELECT [1, NULL, 3]::INTEGER[] l, {'a': 1, 'b': [{'c': 'x'}, NULL]} s, MAP {'k': [1.5, NULL], 'n': NULL} m,
             [[]]::INT[][] e, NULL::INT[] n, ['a', 'b']::ENUM('a', 'b')[] en,
             [MAP {1: {'x': [TIMESTAMP '2000-01-01']}}] deep
      UNION ALL
      SELECT [], NULL, MAP {}, [], [NULL], NULL, NULL
      UNION ALL
      SELECT NULL, {'a': NULL, 'b': []}, NULL, [NULL, [NULL]], NULL, [], [NULL, MAP {}])
      TO '{out}' (FORMAT parquet)`,
  },
  {
    name: 'v2_delta.parquet',
    sql: `COPY (
      SELECT range::INTEGER AS i32, (range * range * 1000003 - 77)::BIGINT AS i64,
             CASE WHEN range % 7 = 0 THEN NULL ELSE 'prefix-' || (range // 3)::VARCHAR END AS s,
             (range * 0.25 - 100)::DOUBLE AS d, (range / 3)::FLOAT AS f,
             (DATE '2000-01-01' + range::INTEGER) AS dt,
             (range * 12345 - 99999)::DECIMAL(18,3) AS dc, (range * 7)::DECIMAL(9,2) AS dc32,
             range % 2 = 0 AS b
      FROM range(20000))
      TO '{out}' (FORMAT parquet, PARQUET_VERSION V2, ROW_GROUP_SIZE 6000, COMPRESSION zstd)`,
  },
];

// Writes the files into `dir` with DuckDB connection `con`; returns their
// paths, or throws.
export async function writeGenerated(con, dir) {
  fs.mkdirSync(dir, { recursive: true });
  const out = [];
  for (const g of GENERATED) {
    const file = path.join(dir, g.name);
    fs.rmSync(file, { force: true });
    await con.run(g.sql.replaceAll('{out}', file.replaceAll("'", "''")));
    out.push(file);
  }
  return out;
}
