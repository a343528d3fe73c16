// examples/gateway_reader against DuckDB: a time range and device query over
// non-blocking remote storage in a fixed arena gives exactly the rows (their
// file row numbers and values) of DuckDB's SELECT ... WHERE, and a narrow
// range fetches a small part of the file.
//
// Files: the sensor logger's (upq's writer: 2 row groups, page index, bloom
// filter on the device) and one DuckDB writes (several devices, small row
// groups, sorted by time).
//
//   node gateway_reader.mjs --gateway PATH --sensor PATH [--work DIR] [--skip-without-upq]
//
// Lines `ok ...` / `FAIL ...`, then `N passed, N failed`.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { upqOptions, runUpq, tally } from './upq_harness.mjs';

const t = tally();
const opts = upqOptions(process.argv, {
  '--gateway': (o, next) => { o.gateway = next(); },
  '--sensor': (o, next) => { o.sensor = next(); },
});

const T0 = Date.UTC(2024, 5, 1) * 1000; // the logger's first reading, microseconds

function iso(us) {
  return new Date(Number(us / 1000n)).toISOString().replace('.000Z', 'Z');
}

// The gateway's lines as [row, values...] strings.
function parseLines(out) {
  return out.split('\n').filter((l) => l.length).map((l) => l.split('\t'));
}

function same(a, b) {
  if (a === b) return true;
  if (a === 'null' || b === 'null') return false;
  const x = Number(a), y = Number(b);
  // floats: the gateway prints FLOAT with 9 digits, enough to round-trip
  return Number.isFinite(x) && Number.isFinite(y) && Math.fround(x) === Math.fround(y);
}

async function check(duck, name, file, args, sql, narrow) {
  const g = await runUpq(opts.gateway, ['--stats', ...args, file]);
  if (g.code !== 0) { t.result(false, name, g.stderr.trim()); return; }
  const got = parseLines(g.stdout);
  const r = await duck.con.runAndReadAll(sql);
  const want = r.getRows().map((row) => row.map((v) => (v === null ? 'null' : String(v))));
  let why = '';
  if (got.length !== want.length) why = `${got.length} rows, DuckDB ${want.length}`;
  for (let i = 0; !why && i < want.length; i++) {
    if (got[i].length !== want[i].length || !got[i].every((v, k) => same(v, want[i][k])))
      why = `row ${i}: ${got[i].join(' ')} | DuckDB ${want[i].join(' ')}`;
  }
  t.result(!why, `${name}: ${want.length} rows as DuckDB's`, why);
  const m = /(\d+) range requests, (\d+) bytes of (\d+)/.exec(g.stderr);
  if (narrow && m) {
    const bytes = Number(m[2]), size = Number(m[3]);
    t.result(bytes * 10 < size, `${name}: reads ${bytes} of ${size} bytes (under 10%)`,
      `${m[1]} requests`);
  } else if (narrow) {
    t.result(false, `${name}: --stats`, g.stderr.trim());
  }
}

async function main() {
  for (const p of [opts.gateway, opts.sensor]) {
    if (!p || !fs.existsSync(p)) {
      if (opts.skipWithoutUpq) { console.log(`# skipped: no ${p}`); console.log('0 passed, 0 failed'); return; }
      console.error(`no ${p}`); process.exit(2);
    }
  }
  const work = opts.work || fs.mkdtempSync(path.join(os.tmpdir(), 'upq-gateway-'));
  fs.mkdirSync(work, { recursive: true });
  const { DuckOracle } = await import('./oracle_duckdb.mjs');
  const duck = await DuckOracle.open();

  // the sensor log: 100,000 rows at 10 Hz
  const log = path.join(work, 'sensor.parquet');
  fs.rmSync(log, { force: true });
  const s = await runUpq(opts.sensor, ['--rows', '100000', log]);
  if (s.code !== 0) { t.result(false, 'sensor log written', s.stderr); await t.finish(); }
  const q = (f) => `read_parquet('${f}', file_row_number = true)`;
  const hour = 3600n * 1000000n, t0 = BigInt(T0);
  for (const [name, a, b, narrow] of [
    ['one second', t0 + hour, t0 + hour + 1000000n, true],
    ['ten minutes', t0 + 2n * hour, t0 + 2n * hour + 600n * 1000000n, false],
    ['before the log', t0 - hour, t0, true],
    ['everything', t0 - hour, t0 + 10n * hour, false],
  ]) {
    for (const arena of ['256K', '64K']) {
      await check(duck, `sensor log, ${name}, arena ${arena}`, log,
        ['--arena', arena, '--columns', 'ts,device,ch0,ch7', '--time', 'ts', '--since', iso(a), '--until', iso(b)],
        `SELECT file_row_number, epoch_us(ts), device, ch0, ch7 FROM ${q(log)}
         WHERE epoch_us(ts) >= ${a} AND epoch_us(ts) < ${b} ORDER BY file_row_number`,
        // in 64 KiB the page index of a 65,536-row chunk does not fit beside
        // the row readers: the rows are right, the whole chunk is tested
        narrow && arena === '256K');
    }
  }
  await check(duck, 'sensor log, device and time', log,
    ['--columns', 'ts,status', '--time', 'ts', '--since', iso(t0 + hour), '--until', iso(t0 + hour + 5000000n),
      '--eq', 'device=sensor-07', '--eq', 'device=other'],
    `SELECT file_row_number, epoch_us(ts), status FROM ${q(log)}
     WHERE epoch_us(ts) >= ${t0 + hour} AND epoch_us(ts) < ${t0 + hour + 5000000n}
       AND device IN ('sensor-07', 'other') ORDER BY file_row_number`, true);
  await check(duck, 'sensor log, a device not logged', log,
    ['--columns', 'ts', '--eq', 'device=sensor-99'],
    `SELECT file_row_number, epoch_us(ts) FROM ${q(log)} WHERE device = 'sensor-99'`, true);

  // DuckDB's file: 8 devices, 200,000 rows sorted by time, 10,000-row groups
  const dk = path.join(work, 'fleet.parquet');
  await duck.con.run(`COPY (SELECT make_timestamp(${T0}::BIGINT + i * 50000) AS ts,
      'dev-' || (i % 8)::VARCHAR AS device, ((i * 7 % 1000) / 10.0)::DOUBLE AS temp,
      CASE WHEN i % 13 = 0 THEN NULL ELSE i END AS seq
      FROM range(200000) r(i)) TO '${dk}' (FORMAT parquet, ROW_GROUP_SIZE 10000)`);
  for (const [name, a, b, devs] of [
    ['one minute, two devices', t0 + hour, t0 + hour + 60000000n, ['dev-1', 'dev-5']],
    ['an hour, one device', t0 + 1n * hour, t0 + 2n * hour, ['dev-3']],
  ]) {
    await check(duck, `DuckDB file, ${name}`, dk,
      ['--arena', '1M', '--columns', 'ts,device,temp,seq', '--time', 'ts', '--since', iso(a), '--until', iso(b),
        ...devs.flatMap((d) => ['--eq', `device=${d}`])],
      `SELECT file_row_number, epoch_us(ts), device, temp, seq FROM ${q(dk)}
       WHERE epoch_us(ts) >= ${a} AND epoch_us(ts) < ${b}
         AND device IN (${devs.map((d) => `'${d}'`).join(', ')}) ORDER BY file_row_number`,
      false); // DuckDB writes no page index: whole row groups are read
  }

  // a bad query is refused with a reason
  const bad = await runUpq(opts.gateway, ['--time', 'device', '--since', '2024-01-01T00:00:00Z', log]);
  t.result(bad.code === 1 && /not an INT64/.test(bad.stderr), 'a time range on a string column is refused',
    `exit ${bad.code}: ${bad.stderr.trim()}`);
  duck.con.closeSync?.();
  if (!opts.work) fs.rmSync(work, { recursive: true, force: true });
  await t.finish();
}

main().catch((e) => { console.error(e); process.exit(2); });
