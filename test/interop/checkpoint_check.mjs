// Checks of checkpoint-mode files (`upq write --checkpoint`,
// `--checkpoint-rows N`, `--append`; `upq recover`), shared by
// write_matrix.mjs, write_random.mjs, write_roundtrip.mjs and the power-loss
// stage.
//
// A checkpoint-mode file keeps a journal inside the file and its column
// chunks in regions reserved ahead, so the file may have gaps between chunks:
// readers address chunks by the offsets in the footer. What is checked:
//
//   readersAgree    DuckDB, arrow-rs (parquet-wasm) and hyparquet each read
//                   exactly the given rows (the canonical form of
//                   canonical.mjs; the lines `upq cat --json` prints).
//   rowGroupsWithin every row group holds at most --row-group-rows rows.
//   cutRecover      copies of a closed file cut at byte offsets, each
//                   finished by `upq recover`: the rows are a prefix of the
//                   file's rows that ends at a checkpoint (a multiple of
//                   --checkpoint-rows, a row group's end, or none), a longer
//                   cut never keeps fewer rows, the row groups are the
//                   file's first ones (the last possibly shorter), the three
//                   readers read those rows; a cut inside the first
//                   journal record is an error that writes nothing; the
//                   uncut file is "closed already". Each recovered file is
//                   recovered again: the rows must stay the same (checked
//                   here), and the file should be "closed already" and
//                   unchanged, which is tallied in `recoverTwice` for the
//                   caller to report as one line (recoverTwiceLine()).
//   appendAfterCut  the first rows written with the case's options, a copy
//                   cut at a byte offset, `upq write --append` the rest: the
//                   rows read (upq and the three readers) are exactly the
//                   rows `upq recover` keeps of that cut followed by the
//                   appended ones; appending the rest to the uncut (closed)
//                   file in two sessions gives every row, and `upq recover`
//                   finds that file "closed already" with every row;
//                   appending with another codec, or to a file not written
//                   in checkpoint mode, fails and leaves the file as it was.
//
// Every check throws CheckFailure with the reason; the callers turn it into
// their own failure.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { rowShape, parseJsonLine, firstDiff, show } from './canonical.mjs';
import { ArrowOracle } from './oracle_arrow.mjs';
import { HyparquetOracle } from './oracle_hyparquet.mjs';

export class CheckFailure extends Error {}

// Recovered files recovered a second time: how many, and those that were
// not left as they were ("closed already", the same bytes).
export const recoverTwice = { checked: 0, changed: [] };

// One `ok ...` / `FAIL ...` line about recoverTwice, and whether it passed
// (null when nothing was checked).
export function recoverTwiceLine() {
  const t = recoverTwice;
  if (!t.checked) return null;
  if (!t.changed.length) return { ok: true, line: `ok upq recover twice: ${t.checked} recovered files are "closed already" and unchanged when recovered again` };
  return { ok: false, line: `FAIL upq recover twice: ${t.changed.length} of ${t.checked} recovered files are finished again instead of ` +
    `"closed already" (the same rows, other bytes), e.g. ${t.changed.slice(0, 3).join('; ')}` };
}

export function runUpq(upq, args, { encoding = 'utf8', timeout = 300000 } = {}) {
  return new Promise((resolve) => {
    execFile(upq, args, { encoding, maxBuffer: 1 << 30, timeout }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      const status = err ? (err.killed ? `killed (${err.signal || 'timeout'})`
        : err.signal ? `signal ${err.signal}` : `exit status ${err.code}`) : null;
      resolve({ ok: !err, code, status, stdout, stderr: String(stderr) });
    });
  });
}

const lastLines = (s, n = 3) => (s || '').trim().split('\n').slice(-n).join(' | ');
const splitLines = (text) => text.split('\n').filter((l) => l.length);

async function upqOk(upq, args, what) {
  const r = await runUpq(upq, args);
  if (!r.ok) throw new CheckFailure(`${what}: upq ${args[0]}: ${r.status}: ${lastLines(r.stderr)}`);
  return r;
}

// `upq meta --json`, integers as Numbers (row counts here stay far below 2^53).
export async function upqMeta(upq, file) {
  return JSON.parse((await upqOk(upq, ['meta', '--json', file], path.basename(file))).stdout);
}

export async function upqLines(upq, file) {
  return splitLines((await upqOk(upq, ['cat', '--json', file], path.basename(file))).stdout);
}

// What a reader cannot read through no fault of the file: a reader that
// fails with a matching message is left out for that file, with a note.
export const READER_LIMITS = [
  { reader: 'hyparquet', match: /lz4 offset out of range 0\b/,
    why: 'hyparquet-compressors cannot decode the empty LZ4 block (the lone 0x00 token, valid LZ4) a ' +
         'DATA_PAGE_V2 with an empty values section compresses to; DuckDB and arrow-rs read it' },
];

// The three readers against `lines`. `duck` is an open DuckOracle (one
// connection, shared by the caller). `shape` defaults to the one of
// `upq meta --json`'s schema. Returns notes (values a reader cannot give).
export async function readersAgree(file, lines, { upq, duck, shape = null, what = path.basename(file) }) {
  if (!shape) shape = rowShape((await upqMeta(upq, file)).schema);
  const want = lines.map((l) => parseJsonLine(l));
  const hyp = new HyparquetOracle();
  const readers = [
    ['DuckDB', () => duck.rows(file, shape)],
    ['arrow-rs', () => new ArrowOracle().rows(file, shape)],
    ['hyparquet', () => hyp.rows(file, shape)],
  ];
  const notes = [];
  for (const [name, rows] of readers) {
    let k = 0;
    try {
      for await (const batch of rows()) {
        for (const got of batch) {
          if (k >= want.length) throw new CheckFailure(`${what}: ${name} reads more than the ${want.length} rows`);
          const d = firstDiff(got, want[k]);
          if (d) {
            throw new CheckFailure(`${what}: ${name} row ${k} ${d.path}: upq ${show(d.upq)}, ${name} ${show(d.oracle)}`);
          }
          k++;
        }
      }
    } catch (e) {
      if (e instanceof CheckFailure) throw e;
      const msg = String(e.message || e).split('\n')[0];
      const limit = READER_LIMITS.find((l) => l.reader === name && l.match.test(msg));
      if (limit) {
        notes.push(`${name} not compared: ${limit.why}`);
        continue;
      }
      throw new CheckFailure(`${what}: ${name} cannot read it: ${msg}`);
    }
    if (k !== want.length) throw new CheckFailure(`${what}: ${name} reads ${k} rows, want ${want.length}`);
  }
  return [...notes, ...hyp.notes()];
}

export function rowGroupsWithin(meta, rgRows, what) {
  const rgs = meta.row_groups.map((g) => Number(g.num_rows));
  const over = rgs.findIndex((n) => n > rgRows);
  if (over >= 0) throw new CheckFailure(`${what}: row group ${over} holds ${rgs[over]} rows, more than --row-group-rows ${rgRows}`);
  if (rgs.some((n) => n === 0)) throw new CheckFailure(`${what}: an empty row group (${rgs.join(', ')})`);
  return rgs;
}

// Where the file's first journal record (FILE) ends: "PAR1", then the
// record "UPQJ" | u32 length | ... A cut before it is no checkpoint-mode
// file yet.
export function firstRecordEnd(file) {
  const b = Buffer.alloc(12);
  const fd = fs.openSync(file, 'r');
  try { fs.readSync(fd, b, 0, 12, 0); } finally { fs.closeSync(fd); }
  if (b.toString('latin1', 0, 4) !== 'PAR1' || b.toString('latin1', 4, 8) !== 'UPQJ') {
    throw new CheckFailure(`${path.basename(file)}: no journal record after "PAR1": not a checkpoint-mode file`);
  }
  return 4 + b.readUInt32LE(8);
}

// Offsets to cut a file of `size` bytes at: inside the first record, just
// after it, evenly spread, near the end, and none (the whole file).
export function cutOffsets(size, first, spread = 6) {
  const out = new Set([Math.max(0, first - 1), first]);
  for (let k = 1; k <= spread; k++) out.add(Math.floor((size * k) / (spread + 1)));
  for (const d of [1, 9, 200]) if (size - d > first) out.add(size - d);
  out.add(size);
  return [...out].filter((x) => x >= 0 && x <= size).sort((a, b) => a - b);
}

function copyPrefix(from, to, n) {
  const fd = fs.openSync(from, 'r');
  const b = Buffer.alloc(n);
  try {
    let done = 0;
    while (done < n) {
      const got = fs.readSync(fd, b, done, n - done, done);
      if (got <= 0) throw new Error(`${from}: short read`);
      done += got;
    }
  } finally { fs.closeSync(fd); }
  fs.writeFileSync(to, b);
}

// The row counts a recovered file may end at: 0, every multiple of
// ckptRows, every row group end of the full file.
function checkpointEnds(fullRgs, ckptRows) {
  const ends = new Set([0]);
  let t = 0;
  for (const n of fullRgs) ends.add(t += n);
  return (n) => ends.has(n) || (ckptRows > 0 && n % ckptRows === 0);
}

// Recovers `file` cut at byte `off` (a copy in `work`); returns the rows kept
// (checked as described above) and the recovered copy's path.
export async function recoverCut({ upq, file, off, work, lines, fullMeta, ckptRows, duck, first, name }) {
  const size = fs.statSync(file).size;
  const cut = path.join(work, `${name}.cut${off}.parquet`);
  copyPrefix(file, cut, off);
  const what = `${name} cut at ${off} of ${size} bytes`;
  const r = await runUpq(upq, ['recover', cut]);
  if (off < first) {
    if (r.code !== 1) throw new CheckFailure(`${what} (inside the first record): upq recover ${r.status || 'succeeded'}, want exit status 1`);
    if (!/cannot recover/.test(r.stderr)) throw new CheckFailure(`${what}: upq recover says ${JSON.stringify(lastLines(r.stderr))}`);
    if (fs.statSync(cut).size !== off) throw new CheckFailure(`${what}: a failed recovery changed the file`);
    fs.rmSync(cut, { force: true });
    return { rows: -1, cut: null };
  }
  if (!r.ok) throw new CheckFailure(`${what}: upq recover: ${r.status}: ${lastLines(r.stderr)}`);
  if (off === size && !/closed already/.test(r.stdout)) throw new CheckFailure(`${what}: the uncut file does not recover as "closed already": ${lastLines(r.stdout)}`);
  const got = await upqLines(upq, cut);
  const n = got.length;
  const m = /: (\d+) rows in (\d+) row groups/.exec(r.stdout);
  if (!m || Number(m[1]) !== n) throw new CheckFailure(`${what}: upq recover reports ${lastLines(r.stdout)}, upq cat reads ${n} rows`);
  for (let k = 0; k < n; k++) {
    if (got[k] !== lines[k]) throw new CheckFailure(`${what}: recovered row ${k} is ${got[k].slice(0, 200)}, the file's is ${(lines[k] ?? '(none)').slice(0, 200)}`);
  }
  const fullRgs = fullMeta.row_groups.map((g) => Number(g.num_rows));
  if (!checkpointEnds(fullRgs, ckptRows)(n)) {
    throw new CheckFailure(`${what}: ${n} rows recovered, not at a checkpoint (every ${ckptRows} rows; row groups ${fullRgs.join(', ')})`);
  }
  const meta = await upqMeta(upq, cut);
  const rgs = meta.row_groups.map((g) => Number(g.num_rows));
  for (let g = 0; g < rgs.length; g++) {
    const last = g === rgs.length - 1;
    if (g >= fullRgs.length || (last ? rgs[g] > fullRgs[g] : rgs[g] !== fullRgs[g]) || rgs[g] === 0) {
      throw new CheckFailure(`${what}: row groups ${rgs.join(', ')} are not a prefix of the file's ${fullRgs.join(', ')}`);
    }
  }
  await readersAgree(cut, got, { upq, duck, what });
  // recovering again: the same rows; "closed already" and the same bytes
  // (tallied apart)
  const before = fs.readFileSync(cut);
  const again = await runUpq(upq, ['recover', cut]);
  if (!again.ok) throw new CheckFailure(`${what}: recovering the recovered file again: ${again.status}: ${lastLines(again.stderr)}`);
  const got2 = await upqLines(upq, cut);
  if (got2.length !== n || got2.some((l, k) => l !== got[k])) {
    throw new CheckFailure(`${what}: recovered again, it reads ${got2.length} rows, ${n} before`);
  }
  recoverTwice.checked++;
  if (!/closed already/.test(again.stdout) || !before.equals(fs.readFileSync(cut))) {
    recoverTwice.changed.push(`${what} (${n} rows): ${lastLines(again.stdout)}`);
  }
  return { rows: n, cut };
}

// cutRecover over `offsets` (default cutOffsets()). Returns a note.
export async function cutRecover({ upq, file, lines, ckptRows, work, duck, name, offsets = null, keep = false }) {
  const size = fs.statSync(file).size;
  const first = firstRecordEnd(file);
  const fullMeta = await upqMeta(upq, file);
  const offs = offsets ?? cutOffsets(size, first);
  let prev = -1;
  const kept = [];
  for (const off of offs) {
    const { rows, cut } = await recoverCut({ upq, file, off, work, lines, fullMeta, ckptRows, duck, first, name });
    if (rows >= 0 && rows < prev) throw new CheckFailure(`${name}: cut at ${off} keeps ${rows} rows, a shorter cut kept ${prev}`);
    if (rows >= 0) prev = rows;
    kept.push(rows < 0 ? 'err' : String(rows));
    if (cut && !keep) fs.rmSync(cut, { force: true });
  }
  if (prev !== lines.length) throw new CheckFailure(`${name}: the uncut file recovers ${prev} rows of ${lines.length}`);
  return `cuts at ${offs.length} offsets recover ${kept.join('/')} rows`;
}

// The --append check. `schema`: the schema file; `args`: the options the
// file is written with (checkpoint mode); `lines`: every row; the first
// `half` rows are written, a copy cut at `cutAt` (a fraction of the size, or
// bytes when >= 1) and appended the rest. Returns a note.
export async function appendAfterCut({ upq, schema, args, lines, half, cutAt, rgRows = 0, ckptRows, work, duck, name, keep = false }) {
  const base = path.join(work, `${name}.append`);
  const j1 = `${base}.1.jsonl`, j2 = `${base}.2.jsonl`, j2a = `${base}.2a.jsonl`, j2b = `${base}.2b.jsonl`;
  const full = `${base}.parquet`, cut = `${base}.cut.parquet`, rec = `${base}.rec.parquet`;
  const plain = `${base}.plain.parquet`, again = `${base}.again.parquet`;
  const first = lines.slice(0, half), second = lines.slice(half);
  const mid = Math.floor(second.length / 2);
  const text = (ls) => ls.map((l) => `${l}\n`).join('');
  fs.writeFileSync(j1, text(first));
  fs.writeFileSync(j2, text(second));
  fs.writeFileSync(j2a, text(second.slice(0, mid)));
  fs.writeFileSync(j2b, text(second.slice(mid)));
  const files = [j1, j2, j2a, j2b, full, cut, rec, plain, again, `${rec}.tmp`];
  try {
    await upqOk(upq, ['write', '--schema', schema, ...args, j1, full], `${name} first ${half} rows`);
    const size = fs.statSync(full).size;
    const at = cutAt >= 1 ? Math.min(size, Math.floor(cutAt)) : Math.floor(size * cutAt);
    copyPrefix(full, cut, at);
    copyPrefix(full, rec, at);
    const r = await runUpq(upq, ['recover', rec]);
    if (!r.ok) throw new CheckFailure(`${name}: upq recover of the first ${half} rows cut at ${at}: ${r.status}: ${lastLines(r.stderr)}`);
    const kept = await upqLines(upq, rec);
    for (let k = 0; k < kept.length; k++) {
      if (kept[k] !== first[k]) throw new CheckFailure(`${name}: recovered row ${k} differs from the row written`);
    }
    const fullRgs = (await upqMeta(upq, full)).row_groups.map((g) => Number(g.num_rows));
    if (!checkpointEnds(fullRgs, ckptRows)(kept.length)) throw new CheckFailure(`${name}: the cut at ${at} recovers ${kept.length} rows, not at a checkpoint`);

    // a wrong codec, a file not in checkpoint mode: errors, the file unchanged
    const other = args.includes('SNAPPY') ? 'GZIP' : 'SNAPPY';
    const badArgs = [...args.filter((a, i) => a !== '--codec' && args[i - 1] !== '--codec'), '--codec', other];
    const before = fs.readFileSync(cut);
    const bad = await runUpq(upq, ['write', '--schema', schema, ...badArgs, '--append', j2, cut]);
    if (bad.code !== 1 || !/another schema or other options/.test(bad.stderr)) {
      throw new CheckFailure(`${name}: --append with --codec ${other}: ${bad.status || 'succeeded'}: ${lastLines(bad.stderr)}; want exit status 1 and "another schema or other options"`);
    }
    if (!before.equals(fs.readFileSync(cut)) || fs.existsSync(`${cut}.tmp`)) throw new CheckFailure(`${name}: a refused --append changed the file`);
    const plainArgs = args.filter((a, i) => !['--checkpoint', '--checkpoint-rows', '--file-id'].includes(a) &&
      !['--checkpoint-rows', '--file-id'].includes(args[i - 1]));
    await upqOk(upq, ['write', '--schema', schema, ...plainArgs, j1, plain], `${name} without checkpoints`);
    const plainBytes = fs.readFileSync(plain);
    const np = await runUpq(upq, ['write', '--schema', schema, ...args, '--append', j2, plain]);
    if (np.code !== 1 || !/not a checkpoint-mode file/.test(np.stderr) || !plainBytes.equals(fs.readFileSync(plain))) {
      throw new CheckFailure(`${name}: --append to a file written without checkpoints: ${np.status || 'succeeded'}: ${lastLines(np.stderr)}`);
    }

    // the cut copy, appended: the recovered rows, then the new ones
    await upqOk(upq, ['write', '--schema', schema, ...args, '--append', j2, cut], `${name} --append after the cut at ${at}`);
    const want = [...kept, ...second];
    const got = await upqLines(upq, cut);
    if (got.length !== want.length) throw new CheckFailure(`${name}: after --append upq reads ${got.length} rows, want ${kept.length} recovered + ${second.length} appended`);
    for (let k = 0; k < want.length; k++) {
      if (got[k] !== want[k]) throw new CheckFailure(`${name}: after --append row ${k} is ${got[k].slice(0, 200)}, want ${want[k].slice(0, 200)}`);
    }
    const meta = await upqMeta(upq, cut);
    if (rgRows) rowGroupsWithin(meta, rgRows, `${name} after --append`);
    await readersAgree(cut, want, { upq, duck, what: `${name} after --append` });

    // the uncut (closed) file, appended in two sessions: every row
    const sessions = [[j2a, half + mid], [j2b, lines.length]];
    for (const [j, upto] of sessions) {
      const what = `${name}: the closed file appended rows ${half + 1}..${upto}`;
      await upqOk(upq, ['write', '--schema', schema, ...args, '--append', j, full], what);
      const all = await upqLines(upq, full);
      if (all.length !== upto || all.some((l, k) => l !== lines[k])) {
        const k = all.findIndex((l, i) => l !== lines[i]);
        throw new CheckFailure(`${what}: reads ${all.length} rows, want ${upto}` +
          (k >= 0 ? `; row ${k} is ${all[k].slice(0, 120)}, want ${lines[k].slice(0, 120)}` : ''));
      }
    }
    if (rgRows) rowGroupsWithin(await upqMeta(upq, full), rgRows, `${name} closed file after --append`);
    await readersAgree(full, lines, { upq, duck, what: `${name} closed file after --append` });
    // ... which is closed: upq recover leaves it as it is
    fs.copyFileSync(full, again);
    const rr = await runUpq(upq, ['recover', again]);
    const back = rr.ok ? await upqLines(upq, again) : [];
    if (!rr.ok || !/closed already/.test(rr.stdout) || back.length !== lines.length || !fs.readFileSync(full).equals(fs.readFileSync(again))) {
      throw new CheckFailure(`${name}: upq recover of the closed file after two --append sessions: ${rr.status || lastLines(rr.stdout)}; ` +
        `${back.length} rows of ${lines.length} left`);
    }
    return `--append after a cut at ${at} of ${size} bytes: ${kept.length} rows recovered + ${second.length} appended; ` +
      `to the closed file in two sessions: ${lines.length}`;
  } finally {
    if (!keep) for (const f of files) fs.rmSync(f, { force: true });
  }
}
