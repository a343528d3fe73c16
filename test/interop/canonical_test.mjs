#!/usr/bin/env node
// Checks the canonical-form helpers the value oracle relies on (canonical.mjs):
// half-precision rounding, dates, timestamps, decimals, the JSON line parser
// and the comparison. Ends with `N passed, N failed`.

import {
  roundHalf, shortestFloat, fmtDate, fmtTimestamp, fmtTime, fmtDecimal, beSigned, fmtUuid,
  parseJsonLine, firstDiff, Int, Flt, Num, rowShape,
} from './canonical.mjs';

let pass = 0, fail = 0;
function check(name, ok, detail = '') {
  if (ok) { pass++; return; }
  fail++;
  console.log(`FAIL ${name}${detail ? `: ${detail}` : ''}`);
}
function eq(name, got, want) {
  check(name, Object.is(got, want) || got === want, `got ${String(got)}, want ${String(want)}`);
}

// ---- binary16 ---------------------------------------------------------------------

function halfValue(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0x1f) return m ? NaN : s * Infinity;
  if (e === 0) return s * m * 2 ** -24;
  return s * (1024 + m) * 2 ** (e - 25);
}
{
  let bad = 0, badTie = 0, badShort = 0;
  for (let h = 0; h < 0x7c00; h++) {
    const v = halfValue(h);
    if (!Object.is(roundHalf(v), v)) bad++;
    if (!Object.is(roundHalf(-v), -v)) bad++;
    if (roundHalf(Number(shortestFloat(v, 16))) !== v) badShort++;
    if (h < 0x7bff) {
      const next = halfValue(h + 1);
      const mid = (v + next) / 2; // exact in double
      const even = (h & 1) === 0 ? v : next;
      if (roundHalf(mid) !== even) badTie++;
      // just off the midpoint goes to the nearer one
      if (roundHalf(mid - (next - v) / 8) !== v || roundHalf(mid + (next - v) / 8) !== next) badTie++;
    }
  }
  check('every finite half value rounds to itself', bad === 0, `${bad} did not`);
  check('midpoints round to even, others to nearest', badTie === 0, `${badTie} did not`);
  check('shortest half text reads back', badShort === 0, `${badShort} did not`);
  eq('65504 is the largest half', roundHalf(65519.99), 65504);
  eq('65520 overflows to Infinity', roundHalf(65520), Infinity);
  eq('smallest subnormal', roundHalf(2 ** -24), 2 ** -24);
  eq('half of the smallest subnormal rounds to 0 (even)', roundHalf(2 ** -25), 0);
  eq('10.305 as half', roundHalf(10.305), 10.3046875);
  eq('shortest half of 10.3046875', shortestFloat(10.3046875, 16), '10.305');
  eq('shortest float of fround(0.1)', shortestFloat(Math.fround(0.1), 32), '0.1');
  eq('shortest of -0', shortestFloat(-0, 32), '-0');
}

// ---- dates and times --------------------------------------------------------------

{
  let bad = 0;
  for (let d = -800000; d <= 2932896; d += 997) {
    const js = new Date(d * 86400000).toISOString().slice(0, 10);
    const y = Number(js.startsWith('-') || js.startsWith('+') ? js.slice(0, 7) : js.slice(0, 4));
    if (y >= 0 && y <= 9999 && fmtDate(d) !== js) bad++;
  }
  check('fmtDate agrees with Date for years 0..9999', bad === 0, `${bad} differ`);
  eq('epoch', fmtDate(0), '1970-01-01');
  eq('year 0', fmtDate(-719528), '0000-01-01');
  eq('year -1', fmtDate(-719529), '-0001-12-31');
  eq('year 10000', fmtDate(2932897), '+10000-01-01');
  eq('timestamp before the epoch', fmtTimestamp(-1n, 'MILLIS', true), '1969-12-31T23:59:59.999Z');
  eq('timestamp micros', fmtTimestamp(1704141296123456n, 'MICROS', false), '2024-01-01T20:34:56.123456');
  eq('timestamp nanos', fmtTimestamp(1n, 'NANOS', true), '1970-01-01T00:00:00.000000001Z');
  eq('year 290000', fmtTimestamp(9089380393200000000n * 1000n, 'NANOS', false), '+290000-12-30T23:00:00.000000000');
  eq('time millis', fmtTime(86399999n, 'MILLIS'), '23:59:59.999');
  eq('time nanos', fmtTime(1n, 'NANOS'), '00:00:00.000000001');
}

// ---- decimals and bytes ---------------------------------------------------------------

eq('decimal -12.30', fmtDecimal(-1230n, 2), '-12.30');
eq('decimal 0.00', fmtDecimal(0n, 2), '0.00');
eq('decimal -0.005', fmtDecimal(-5n, 3), '-0.005');
eq('decimal scale 0', fmtDecimal(123n, 0), '123');
eq('decimal 38 digits', fmtDecimal(-(10n ** 38n - 1n), 10), `-${'9'.repeat(28)}.${'9'.repeat(10)}`);
eq('big-endian -1', beSigned(Uint8Array.of(0xff, 0xff)), -1n);
eq('big-endian 0x0100', beSigned(Uint8Array.of(0x01, 0x00)), 256n);
eq('uuid', fmtUuid(Uint8Array.from({ length: 16 }, (_, i) => i * 17)),
  '00112233-4455-6677-8899-aabbccddeeff');

// ---- parsing upq's lines -------------------------------------------------------------

{
  const m = parseJsonLine('{"a":18446744073709551615,"b":-0,"c":[1.5e3,{"1":"x","0":null}],"d":"\\u00e9\\n","e":{}}');
  check('object keys kept in order', m instanceof Map && [...m.keys()].join() === 'a,b,c,d,e');
  check('integer text kept', m.get('a') instanceof Num && m.get('a').text === '18446744073709551615');
  check('-0 kept', m.get('b').text === '-0');
  check('integer-like keys keep their order', [...m.get('c')[1].keys()].join() === '1,0');
  eq('escapes decoded', m.get('d'), '\u00e9\n');
  for (const bad of ['{"a":1,"a":2}', '{"a":1', '[1,]', '{"a":01}', '{"a":1} x', "{'a':1}", '{"a":NaN}', '']) {
    let threw = false;
    try { parseJsonLine(bad); } catch { threw = true; }
    check(`rejects ${JSON.stringify(bad)}`, threw);
  }
  const deep = '['.repeat(100000) + ']'.repeat(100000);
  let depth = 0;
  for (let v = parseJsonLine(deep); Array.isArray(v) && v.length; v = v[0]) depth++;
  eq('deep nesting without recursion', depth, 99999);
}

// ---- comparing --------------------------------------------------------------------------

{
  const row = (s) => parseJsonLine(s);
  const exp = new Map([['f', new Flt(Math.fround(1.1), 32)], ['d', new Flt(-0, 64)], ['n', new Flt(NaN, 64)],
    ['i', new Int(-5n)], ['l', [new Int(1n), null]]]);
  check('equal rows', firstDiff(exp, row('{"f":1.1,"d":-0,"n":"NaN","i":-5,"l":[1,null]}')) === null);
  check('float32 compared after rounding', firstDiff(exp, row('{"f":1.10000002,"d":-0,"n":"NaN","i":-5,"l":[1,null]}')) === null);
  eq('0 is not -0', firstDiff(exp, row('{"f":1.1,"d":0,"n":"NaN","i":-5,"l":[1,null]}'))?.path, 'd');
  eq('NaN must be the string', firstDiff(exp, row('{"f":1.1,"d":-0,"n":null,"i":-5,"l":[1,null]}'))?.path, 'n');
  eq('integers exactly', firstDiff(exp, row('{"f":1.1,"d":-0,"n":"NaN","i":-5.0,"l":[1,null]}'))?.path, 'i');
  eq('list element', firstDiff(exp, row('{"f":1.1,"d":-0,"n":"NaN","i":-5,"l":[1,0]}'))?.path, 'l[1]');
  check('list length', /length 1/.test(firstDiff(exp, row('{"f":1.1,"d":-0,"n":"NaN","i":-5,"l":[1]}'))?.path));
}

// ---- schema shapes ------------------------------------------------------------------------

{
  const el = (name, type, rep, extra = {}) => ({ name, type, repetition: rep, num_children: null,
    converted_type: null, logical_type: null, scale: null, precision: null, type_length: null, ...extra });
  const grp = (name, rep, n, extra = {}) => el(name, null, rep, { num_children: n, ...extra });
  const shape = rowShape([
    grp('schema', null, 4),
    grp('a', 'REQUIRED', 1, { converted_type: 'LIST', logical_type: 'LIST' }),
    grp('array', 'REPEATED', 1, { converted_type: 'LIST', logical_type: 'LIST' }),
    el('array', 'INT32', 'REPEATED'),
    grp('m', 'OPTIONAL', 1, { converted_type: 'MAP_KEY_VALUE' }),
    grp('map', 'REPEATED', 2),
    el('key', 'BYTE_ARRAY', 'REQUIRED', { converted_type: 'UTF8' }),
    el('value', 'INT64', 'OPTIONAL', { converted_type: 'TIMESTAMP_MILLIS' }),
    grp('t', 'OPTIONAL', 1, { converted_type: 'LIST' }),
    grp('t_tuple', 'REPEATED', 1),
    el('s', 'BYTE_ARRAY', 'REQUIRED', { converted_type: 'UTF8' }),
    el('r', 'FIXED_LEN_BYTE_ARRAY', 'REPEATED', { logical_type: 'DECIMAL(9,2)', type_length: 4 }),
  ]);
  const [a, m, t, r] = shape.fields.map((f) => f.shape);
  check('two-level list of lists', a.t === 'list' && a.elem.t === 'list' && a.elem.elem.kind === 'int');
  check('MAP_KEY_VALUE outside a MAP is a map', m.t === 'map' && m.key.kind === 'string' && m.value.kind === 'timestamp' && m.value.utc);
  check('<name>_tuple is the element', t.t === 'list' && t.elem.t === 'struct' && t.elem.fields[0].name === 's');
  check('repeated leaf outside LIST', r.t === 'list' && r.elem.kind === 'decimal' && r.elem.scale === 2);
}

console.log(`canonical: ${pass} passed, ${fail} failed`);
process.exitCode = fail ? 1 : 0;
