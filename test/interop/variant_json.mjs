// `upq variant META VALUE` against parquet-testing's variant/data_dictionary.json.
//
//   node variant_json.mjs --upq PATH [--corpus DIR]
//
// Every *.metadata + *.value pair is printed by upq and compared with the
// dictionary's entry as parsed JSON, canonicalising what the two render
// differently on purpose:
//   - numbers: equal, or equal as float32 (the dictionary prints a float
//     widened), or within 1e-15 relative (decimals and doubles printed as
//     doubles);
//   - a decimal: upq prints the exact digits as a string, the dictionary a
//     number: compared as numbers;
//   - dates/timestamps: compared as instants (the dictionary prints a zone
//     offset such as -04:00, upq UTC with Z; no zone means local = no zone);
//   - times: the dictionary separates the fraction with ':' (12:33:54:123456).
// Object keys are compared as sets. A pair the dictionary does not list
// (long_string) is reported and checked only for printing valid JSON.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

const args = process.argv.slice(2);
let upq = null;
let corpus = process.env.PARQUET_TESTING_DIR || path.resolve('../shared/parquet-testing');
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--upq') upq = args[++i];
  else if (args[i] === '--corpus') corpus = args[++i];
  else { console.error(`variant_json: unknown argument ${args[i]}`); process.exit(2); }
}
if (!upq || !fs.existsSync(upq)) { console.log(`variant_json: no upq binary (${upq}); skipped`); process.exit(77); }
const dir = path.join(corpus, 'variant');

// The dictionary has a trailing comma before its closing brace.
const dictText = fs.readFileSync(path.join(dir, 'data_dictionary.json'), 'utf8').replace(/,\s*}\s*$/, '}');
const dict = JSON.parse(dictText);

const DT = /^([+-]?\d{4,})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d):(\d\d)(?:[.:](\d+))?)?(Z|[+-]\d\d:\d\d)?$/;
const TIME = /^(\d\d):(\d\d):(\d\d)[.:](\d+)$/;

// Nanoseconds since the epoch (BigInt) and whether a zone was given.
function instant(s) {
  const m = DT.exec(s);
  if (!m) return null;
  const days = BigInt(Math.floor(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 86400000));
  let ns = days * 86400000000000n;
  if (m[4] !== undefined) {
    ns += BigInt(Number(m[4]) * 3600 + Number(m[5]) * 60 + Number(m[6])) * 1000000000n;
    if (m[7]) ns += BigInt(m[7].padEnd(9, '0').slice(0, 9));
  }
  const zoned = !!m[8];
  if (m[8] && m[8] !== 'Z') {
    const sign = m[8][0] === '-' ? -1n : 1n;
    const off = BigInt(Number(m[8].slice(1, 3)) * 3600 + Number(m[8].slice(4, 6)) * 60) * 1000000000n;
    ns -= sign * off;
  }
  return { ns, zoned, time: m[4] !== undefined };
}

function timeOfDay(s) {
  const m = TIME.exec(s);
  if (!m) return null;
  return BigInt(Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3])) * 1000000000n +
    BigInt(m[4].padEnd(9, '0').slice(0, 9));
}

function numEq(a, b) {
  if (a === b) return true;
  if (Math.fround(a) === Math.fround(b)) return true;
  return Math.abs(a - b) <= 1e-15 * Math.max(Math.abs(a), Math.abs(b));
}

// Returns null when equal, else a description of the first difference.
function diff(ours, want, where) {
  if (want === null || typeof want === 'boolean') return ours === want ? null : `${where}: ${JSON.stringify(ours)} vs ${JSON.stringify(want)}`;
  if (typeof want === 'number') {
    const n = typeof ours === 'string' && /^-?\d+(\.\d+)?$/.test(ours) ? Number(ours) : ours;
    return typeof n === 'number' && numEq(n, want) ? null : `${where}: ${JSON.stringify(ours)} vs ${want}`;
  }
  if (typeof want === 'string') {
    if (ours === want) return null;
    if (typeof ours === 'string') {
      const a = instant(ours), b = instant(want);
      if (a && b && a.ns === b.ns && a.zoned === b.zoned && a.time === b.time) return null;
      const ta = timeOfDay(ours), tb = timeOfDay(want);
      if (ta !== null && tb !== null && ta === tb) return null;
    }
    return `${where}: ${JSON.stringify(ours)} vs ${JSON.stringify(want)}`;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(ours) || ours.length !== want.length) return `${where}: array ${JSON.stringify(ours)} vs ${JSON.stringify(want)}`;
    for (let i = 0; i < want.length; i++) {
      const d = diff(ours[i], want[i], `${where}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (typeof ours !== 'object' || ours === null || Array.isArray(ours)) return `${where}: ${JSON.stringify(ours)} is not an object`;
  const ka = Object.keys(ours).sort(), kb = Object.keys(want).sort();
  if (ka.join('\u0000') !== kb.join('\u0000')) return `${where}: keys ${ka} vs ${kb}`;
  for (const k of kb) {
    const d = diff(ours[k], want[k], `${where}.${k}`);
    if (d) return d;
  }
  return null;
}

let passed = 0, failed = 0;
const names = fs.readdirSync(dir).filter((f) => f.endsWith('.metadata')).map((f) => f.slice(0, -9)).sort();
for (const name of names) {
  let out;
  try {
    out = execFileSync(upq, ['variant', path.join(dir, `${name}.metadata`), path.join(dir, `${name}.value`)], { encoding: 'utf8' });
  } catch (e) {
    console.log(`FAIL ${name}: upq failed: ${e.stderr || e.message}`);
    failed++;
    continue;
  }
  let ours;
  try { ours = JSON.parse(out); } catch (e) {
    console.log(`FAIL ${name}: not JSON: ${out}`);
    failed++;
    continue;
  }
  if (!(name in dict)) {
    console.log(`ok ${name} (not in data_dictionary.json: valid JSON only)`);
    passed++;
    continue;
  }
  const d = diff(ours, dict[name], name);
  if (d) { console.log(`FAIL ${d}`); failed++; } else { console.log(`ok ${name}`); passed++; }
}
const missing = Object.keys(dict).filter((k) => !names.includes(k));
for (const k of missing) { console.log(`FAIL ${k}: in data_dictionary.json but no files`); failed++; }
if (names.length < 29) { console.log(`FAIL only ${names.length} pairs found`); failed++; }
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
