// The sensor logger firmware's file read by DuckDB against the rows the
// logger's generator makes, re-implemented here (xorshift64*, single
// precision arithmetic through Math.fround), so the truth owes nothing to
// µparquet.
//
//   node test/interop/firmware_logger.mjs FILE --rows N --seed S --row-group-rows R
//
// Prints `ok ...` or `FAIL ...` and `N passed, N failed`; exit status 1 on a failure.
import { DuckDBInstance } from '@duckdb/node-api';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const file = args[0];
const ROWS = Number(opt('--rows', '10000'));
const SEED = BigInt(opt('--seed', '42'));
const RG_ROWS = Number(opt('--row-group-rows', '250'));
const DEVICE = opt('--device', 'sensor-07');

const M64 = (1n << 64n) - 1n;
const f = Math.fround;

// examples/sensor_logger/sensor_logger.c: sensor_read()
function* expected() {
  let s = (SEED ^ 0x9E3779B97F4A7C15n) & M64;
  if (s === 0n) s = 1n;
  const next = () => {
    let x = s;
    x ^= x >> 12n;
    x = (x ^ (x << 25n)) & M64;
    x ^= x >> 27n;
    s = x;
    return (x * 0x2545F4914F6CDD1Dn) & M64;
  };
  for (let i = 0; i < ROWS; i++) {
    const r = next(), r2 = next();
    const row = { ts: 1717200000000000n + BigInt(i) * 100000n + (r & 0x3FFn), device: DEVICE, ch: [] };
    let valid = 0;
    for (let k = 0; k < 8; k++) {
      const period = 200 + 50 * k, half = Math.floor(period / 2);
      const phase = (i + 37 * k) % period;
      const tri = phase < half ? phase : period - phase;
      const noise = f(f(f(Number((r >> BigInt(8 * k)) & 0xFFn) / 255) - 0.5) * f(0.2));
      const v = f(f(f(20 + f(2.5 * k)) + f(f(5 * tri) / half)) + noise);
      const dropped = (k === 7 && i % 1000 >= 500 && i % 1000 < 520);
      if (((r2 >> BigInt(4 * k)) & 0xFn) !== 0n && !dropped) {
        row.ch.push(v);
        valid++;
      } else {
        row.ch.push(null);
      }
    }
    row.status = valid >= 7;
    yield row;
  }
}

let pass = 0, fail = 0;
const ok = (m) => { console.log(`ok ${m}`); pass++; };
const bad = (m) => { console.log(`FAIL ${m}`); fail++; };

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run('SET threads = 1');
const q = (sql) => con.runAndReadAll(sql).then((r) => r.getRows());
const src = `'${file.replaceAll("'", "''")}'`;

try {
  // checkpoint mode: a row group ends at its row limit, or earlier when a
  // column's reserved region cannot take another page; never later
  const sizes = (await q(`SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata(${src})`))
    .map((r) => Number(r[1]));
  const total = sizes.reduce((a, b) => a + b, 0);
  if (sizes.length >= Math.ceil(ROWS / RG_ROWS) && sizes.every((n) => n >= 1 && n <= RG_ROWS) && total === ROWS)
    ok(`DuckDB: ${sizes.length} row groups of at most ${RG_ROWS} rows`);
  else bad(`DuckDB: row groups of ${sizes.join(', ')} rows, want at most ${RG_ROWS} each, ${ROWS} in all`);

  const rows = await q(`SELECT epoch_us(ts)::BIGINT, device, ch0, ch1, ch2, ch3, ch4, ch5, ch6, ch7, status
                        FROM read_parquet(${src})`);
  let n = 0, nulls = 0, diff = null;
  for (const e of expected()) {
    const g = rows[n];
    if (!g) break;
    const got = { ts: BigInt(g[0]), device: g[1], ch: g.slice(2, 10), status: g[10] };
    nulls += e.ch.filter((v) => v === null).length;
    const same = got.ts === e.ts && got.device === e.device && got.status === e.status &&
      got.ch.every((v, k) => (v === null ? e.ch[k] === null : e.ch[k] !== null && Object.is(Number(v), e.ch[k])));
    if (!same && !diff) diff = `row ${n}: DuckDB ${JSON.stringify(got, (k, v) => (typeof v === 'bigint' ? String(v) : v))}, ` +
      `want ${JSON.stringify(e, (k, v) => (typeof v === 'bigint' ? String(v) : v))}`;
    n++;
  }
  if (rows.length !== ROWS) bad(`DuckDB reads ${rows.length} rows, want ${ROWS}`);
  else if (diff) bad(`DuckDB ${diff}`);
  else if (nulls === 0) bad('the generator never drops a channel: the check would miss nulls');
  else ok(`DuckDB reads exactly the ${ROWS} generated rows (${nulls} null readings)`);
} catch (e) {
  bad(`DuckDB cannot read ${file}: ${String(e.message).split('\n')[0]}`);
}
con.closeSync();
console.log(`${pass} passed, ${fail} failed`);
process.exit(fail ? 1 : 0);
