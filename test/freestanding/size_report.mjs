#!/usr/bin/env node
// The `make size` table and the `make size-check` verdict (see size.mk).
//
// Flash: each size image's linker map is read input section by input
// section: .text* is text, .rodata* rodata, .data* data, .bss*/COMMON bss;
// a section from a package library (a path with /deps/) counts as package
// code, the image's own harness (image_main.o, refs.o) not at all, the rest
// (the library and the libgcc helpers it calls) as our code. Alignment fill
// is not counted.
//
// Stack: the Cortex-M4 objects' call graphs (-fcallgraph-info=su: a .ci file
// beside each object, frame sizes included) are joined into one graph; the
// worst case of a function is its frame plus the worst of its callees. An
// indirect call is resolved conservatively through stack_indirect.txt, which
// must name every function that makes one and what it can reach: library
// functions whose address is taken (their worst case is added) and/or
// "callback", a caller's I/O callback, whose own frames are the caller's to
// add (the figure includes the library's frames down to the call). A call
// to a function without a call graph (libgcc helpers) is charged
// HELPER_ALLOWANCE bytes. A cycle through library code is recursion and fails
// the check; so does an indirect call of library code that the file does not
// describe, and a frame of dynamic size.
//
// Options: --size-dir D --targets 'T..' --configs 'C..' --budgets F [--read F]
//          --stack-objs 'O..' --stack-deps 'DIR..' --indirect F --probe F
//          --entries F [--check]
import fs from 'node:fs';
import path from 'node:path';

const HELPER_ALLOWANCE = 64;
const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--check') args.check = true;
  else if (a.startsWith('--')) args[a.slice(2)] = process.argv[++i];
}
const words = (s) => (s || '').split(/\s+/).filter(Boolean);
const targets = words(args.targets);
const configs = words(args.configs);
const problems = [];
const out = [];
const say = (s = '') => out.push(s);

// ---- flash from the maps ------------------------------------------------------------
const KINDS = ['text', 'rodata', 'data', 'bss'];
function kindOf(sec) {
  if (/^\.text/.test(sec) || /^\.ARM\.exidx/.test(sec)) return 'text';
  // (.srodata, .sdata, .sbss: RISC-V's small-data forms)
  if (/^\.s?rodata/.test(sec)) return 'rodata';
  if (/^\.s?data/.test(sec)) return 'data';
  if (/^\.s?bss/.test(sec) || sec === 'COMMON') return 'bss';
  return null;
}
function readMap(file) {
  const sum = { own: {}, pkg: {} };
  for (const k of KINDS) sum.own[k] = sum.pkg[k] = 0;
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  let i = lines.findIndex((l) => l.startsWith('Linker script and memory map'));
  if (i < 0) throw new Error(`${file}: not a GNU ld map`);
  let pending = null;
  for (i++; i < lines.length; i++) {
    const l = lines[i];
    let sec, size, obj;
    let m = /^ (\S+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$/.exec(l);
    if (m) {
      [sec, size, obj] = [m[1], parseInt(m[3], 16), m[4]];
    } else if (pending && (m = /^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$/.exec(l))) {
      [sec, size, obj] = [pending, parseInt(m[2], 16), m[3]];
    } else {
      m = /^ (\S+)$/.exec(l);
      pending = m && !m[1].startsWith('*') ? m[1] : null;
      continue;
    }
    pending = null;
    const kind = kindOf(sec);
    if (!kind || sec.startsWith('*') || /image_main\.o|refs\.o/.test(obj)) continue;
    sum[/\/deps\//.test(obj) ? 'pkg' : 'own'][kind] += size;
  }
  return sum;
}
const flash = (s) => s.text + s.rodata + s.data;

// ---- budgets ------------------------------------------------------------------------
const budgets = new Map();
for (const l of fs.readFileSync(args.budgets, 'utf8').split('\n')) {
  const t = l.replace(/#.*/, '').trim();
  if (!t) continue;
  const [key, target, limit] = t.split(/\s+/);
  budgets.set(`${key}@${target}`, Number(limit));
}
function verdict(key, target, value) {
  const b = budgets.get(`${key}@${target}`);
  if (b === undefined) return ['-', ''];
  const ok = value <= b;
  if (!ok) problems.push(`${key} on ${target}: ${value} bytes, budget ${b}`);
  return [String(b), ok ? 'OK' : 'OVER'];
}
const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);

say('Flash and RAM of our code per configuration (bytes; images linked with --gc-sections');
say('from each configuration\'s entry points; package code apart; budgets: budgets.txt)');
say();
say(`${pad('configuration', 13)} ${pad('target', 14)} ${lpad('text', 7)} ${lpad('rodata', 7)} ` +
    `${lpad('data', 5)} ${lpad('bss', 5)} ${lpad('flash', 7)} ${lpad('budget', 7)} ${pad('', 4)} ` +
    `${lpad('packages', 9)}`);
for (const c of configs) {
  for (const t of targets) {
    const f = path.join(args['size-dir'], t, c, 'image.map');
    let s;
    try {
      s = readMap(f);
    } catch (e) {
      problems.push(`${c} on ${t}: ${e.message}`);
      continue;
    }
    const fl = flash(s.own);
    const [b, v] = verdict(c, t, fl);
    const pk = flash(s.pkg);
    say(`${pad(c, 13)} ${pad(t, 14)} ${lpad(s.own.text, 7)} ${lpad(s.own.rodata, 7)} ` +
        `${lpad(s.own.data, 5)} ${lpad(s.own.bss, 5)} ${lpad(fl, 7)} ${lpad(b, 7)} ${pad(v, 4)} ` +
        `${lpad(pk ? pk : '-', 9)}`);
    if (s.own.data || s.own.bss) problems.push(`${c} on ${t}: our code holds writable data`);
  }
}
say('(packages: flash of lz4/zstd/zlib/mbedtls/brotli code the configuration reaches)');

// ---- stack ------------------------------------------------------------------------------
const nodes = new Map(); // title -> {name, file, stack, dyn, own, edges: [title]}
const globals = new Map(); // name -> title
function readCi(file, own) {
  const text = fs.readFileSync(file, 'utf8');
  for (const m of text.matchAll(/node: \{ title: "([^"]+)" label: "([^"]*)"( shape : ellipse)? \}/g)) {
    const [, title, label, ext] = m;
    if (ext) continue; // a reference, defined elsewhere
    const parts = label.split('\\n');
    const st = /^(\d+) bytes \(([^)]*)\)/.exec(parts[2] || '');
    const name = parts[0];
    nodes.set(title, {
      title, name, file: path.basename(file, '.ci'), own, edges: [],
      stack: st ? Number(st[1]) : 0, qual: st ? st[2] : 'unknown',
    });
    if (!title.includes(':')) globals.set(name, title);
  }
  for (const m of text.matchAll(/edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"/g)) {
    const n = nodes.get(m[1]);
    if (n) n.edges.push(m[2]);
  }
}
function findCi(dir, acc) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) findCi(p, acc);
    else if (e.name.endsWith('.ci')) acc.push(p);
  }
  return acc;
}
const stackRows = [];
let stackMax = null;
try {
  for (const o of words(args['stack-objs'])) readCi(o.replace(/\.o$/, '.ci'), true);
  for (const d of words(args['stack-deps'])) if (fs.existsSync(d)) for (const f of findCi(d, [])) readCi(f, false);
} catch (e) {
  problems.push(`stack: ${e.message} (build with -fcallgraph-info=su)`);
}
// a function's key in stack_indirect.txt: its name, or file:name when static;
// without the suffix of a GCC clone (fetch_key.isra.0, f.constprop.0,
// f.part.0), whose name depends on the compiler's mood, not on the source
const srcName = (name) => name.replace(/\.(isra|constprop|part|cold)(\.\d+)*$/, '');
const keyOf = (n) => (n.title.includes(':') ? `${n.file}.c:${srcName(n.name)}` : srcName(n.name));
const byKey = new Map([...nodes.values()].map((n) => [keyOf(n), n]));
const indirect = new Map();
for (const l of fs.readFileSync(args.indirect, 'utf8').split('\n')) {
  const t = l.replace(/#.*/, '').trim();
  if (t) {
    const [fn, ...tg] = t.split(/\s+/);
    indirect.set(fn, tg);
  }
}
const RENAMED = { memcpy: 'upq_memcpy', memmove: 'upq_memmove', memset: 'upq_memset', memcmp: 'upq_memcmp' };
const unresolved = new Set();
function callees(n) {
  const r = [];
  for (const t of n.edges) {
    if (t === '__indirect_call') {
      const tg = indirect.get(keyOf(n));
      if (!tg) {
        if (n.own) problems.push(`stack: ${keyOf(n)} makes an indirect call stack_indirect.txt does not describe`);
        else unresolved.add(`${keyOf(n)} (indirect)`);
        continue;
      }
      for (const x of tg) {
        if (x === 'callback') continue;
        const d = byKey.get(x);
        if (d) r.push(d.title);
        else problems.push(`stack: stack_indirect.txt: ${x} (for ${keyOf(n)}) is no known function`);
      }
      continue;
    }
    if (nodes.has(t)) r.push(t);
    else {
      const g = globals.get(RENAMED[t] || t);
      if (g) r.push(g);
      else r.push(`?${t}`);
    }
  }
  return r;
}
const memo = new Map();
const path_ = [];
function worst(title) {
  if (title.startsWith('?')) {
    const name = title.slice(1);
    if (!/^__(aeabi_|gnu_|[a-z]+[sdt]i[0-9])/.test(name) && !/^__/.test(name)) unresolved.add(name);
    return { bytes: HELPER_ALLOWANCE, chain: [name] };
  }
  if (memo.has(title)) {
    const m = memo.get(title);
    if (m === 'busy') {
      const from = path_.indexOf(title);
      const cyc = path_.slice(from).map((t) => keyOf(nodes.get(t)));
      const own = path_.slice(from).some((t) => nodes.get(t).own);
      if (own) problems.push(`stack: recursion: ${cyc.join(' -> ')} -> ${cyc[0]}`);
      else unresolved.add(`package recursion: ${cyc.join(' -> ')}`);
      return { bytes: 0, chain: ['(cycle)'] };
    }
    return m;
  }
  const n = nodes.get(title);
  memo.set(title, 'busy');
  path_.push(title);
  if (n.qual.startsWith('dynamic') && !n.qual.includes('bounded') && n.own)
    problems.push(`stack: ${keyOf(n)} has a frame of dynamic size`);
  let best = { bytes: 0, chain: [] };
  for (const c of callees(n)) {
    const w = worst(c);
    if (w.bytes > best.bytes) best = w;
  }
  path_.pop();
  const r = { bytes: n.stack + best.bytes, chain: [n.name, ...best.chain] };
  memo.set(title, r);
  return r;
}
// every node once: recursion anywhere in library code is found, reachable or not
for (const t of nodes.keys()) worst(t);

let entries = [];
try {
  entries = words(fs.readFileSync(args.entries, 'utf8'));
} catch (e) {
  problems.push(`stack: no entry list (${e.message})`);
}
const shown = new Set();
for (const f of ['reader-min', 'writer-min']) {
  try {
    for (const e of words(fs.readFileSync(path.join(args['size-dir'], 'cortex-m4', f, 'refs.list'), 'utf8')))
      shown.add(e);
  } catch {
    /* the table then shows the maximum only */
  }
}
shown.add('upq_recover');
for (const e of entries) {
  const t = globals.get(e);
  if (!t) continue;
  const w = worst(t);
  if (!stackMax || w.bytes > stackMax.bytes) stackMax = { name: e, ...w };
  if (shown.has(e)) stackRows.push({ name: e, ...w });
}
say();
say('Worst-case stack per entry point, Cortex-M4 (bytes; call graph of -fcallgraph-info=su;');
say('I/O callbacks\' own frames not included; stack_indirect.txt resolves indirect calls)');
say();
for (const r of stackRows.sort((a, b) => b.bytes - a.bytes))
  say(`  ${pad(r.name, 28)} ${lpad(r.bytes, 6)}   ${r.chain.slice(0, 6).join(' > ')}${r.chain.length > 6 ? ' > ...' : ''}`);
if (stackMax) {
  const [b, v] = verdict('stack', 'cortex-m4', stackMax.bytes);
  say(`  ${pad(`max of ${entries.length} public functions`, 28)} ${lpad(stackMax.bytes, 6)}   ` +
      `(${stackMax.name}) budget ${b} ${v}`);
}
// UPQ_STACK_DETAIL=N: every entry point of N bytes or more, its whole chain
// with each frame's own bytes (what to shrink first)
if (process.env.UPQ_STACK_DETAIL) {
  const min = Number(process.env.UPQ_STACK_DETAIL) || 0;
  const frame = (name) => {
    const t = globals.get(name) || [...nodes.keys()].find((k) => nodes.get(k).name === name);
    return t && nodes.get(t) ? nodes.get(t).stack : '?';
  };
  for (const e of entries) {
    const t = globals.get(e);
    if (!t) continue;
    const w = worst(t);
    if (w.bytes >= min) say(`  ${pad(e, 28)} ${lpad(w.bytes, 6)}   ${w.chain.map((c) => `${c}(${frame(c)})`).join(' > ')}`);
  }
}
say(`  recursion in library code: ${problems.some((p) => p.includes('recursion')) ? 'FOUND' : 'none'}` +
    ` (${[...nodes.values()].filter((n) => n.own).length} functions checked)`);
if (unresolved.size) say(`  not resolved (package code; not counted): ${[...unresolved].sort().join(', ')}`);

// ---- the probe: structs and arenas ------------------------------------------------------
let probe = '';
try {
  probe = fs.readFileSync(args.probe, 'utf8').replace(/\r/g, '');
} catch (e) {
  problems.push(`probe: ${e.message}`);
}
if (probe && !probe.includes('probe done')) problems.push('probe: incomplete output');
const structs = [...probe.matchAll(/^struct (\S+) (\d+)$/gm)].map((m) => [m[1], Number(m[2])]);
const arenas = new Map();
for (const m of probe.matchAll(/^arena (\S+) (\d+) (\S+)( \d+)?$/gm)) arenas.set(`${m[1]}@${m[2]}`, m[3]);
say();
say('Writer arena for the sensor logger\'s schema (11 columns, uncompressed, checkpoint mode),');
say('Cortex-M4, upq_writer_workspace_size(), by page size:');
say();
say(`  ${pad('page size', 10)} ${lpad('logger', 10)} ${lpad('defaults', 10)}`);
for (const p of ['512', '1024', '4096'])
  say(`  ${pad(p, 10)} ${lpad(arenas.get(`logger@${p}`) ?? '?', 10)} ${lpad(arenas.get(`defaults@${p}`) ?? '?', 10)}`);
say('  (logger: its options; defaults: every option by default but checkpoint mode)');
say();
// The logging figures: the writer's arena as the logger runs, the least
// arena recovery succeeds in at any cut, the largest arena high-water mark
// of reading the closed 24 h file one column at a time.
let read = '';
if (args.read) {
  try {
    read = fs.readFileSync(args.read, 'utf8');
  } catch (e) {
    problems.push(`logger read: ${e.message}`);
  }
}
const perCol = [...read.matchAll(/^logger-read (\d+) (\d+)$/gm)].map((m) => Number(m[2]));
const fig = (re) => {
  const m = probe.match(re);
  return m ? Number(m[1]) : undefined;
};
const logging = [
  ['logger-arena', fig(/^logger-arena (\d+)$/m), 'the sensor logger\'s writer (512-byte pages, any row group size)'],
  ['recover-arena', fig(/^recover-arena (\d+)$/m), 'upq_recover on its file, the largest over cuts'],
  ['logger-read-arena', perCol.length ? Math.max(...perCol) : undefined,
    'reading its closed 24 h file (864,000 rows), one column at a time'],
];
say('Logging on Cortex-M4 (bytes; budgets: budgets.txt):');
say();
for (const [key, v, what] of logging) {
  if (v === undefined) {
    if (key !== 'logger-read-arena' || args.read) problems.push(`${key}: not measured`);
    say(`${key}: ?`);
    continue;
  }
  const [b, verd] = verdict(key, 'cortex-m4', v);
  say(`${key}: ${v}`);
  say(`  ${what}; budget ${b} ${verd}`);
}
if (perCol.length) say(`  per column: ${perCol.join(' ')}`);
const cuts = [...probe.matchAll(/^recover-cut (\d+) (\d+) (\d+)$/gm)];
if (cuts.length) say(`  recovery cuts (bytes kept: rows, arena): ${cuts.map((m) => `${m[1]}: ${m[2]}, ${m[3]}`).join('; ')}`);
// upq_recover_workspace_size on the logger's schema and options: the probe
// fails unless recovery succeeds in it at every cut
const plan = fig(/^recover-plan (\d+)$/m);
if (plan !== undefined) say(`  upq_recover_workspace_size: ${plan} (the least that works: ${fig(/^recover-arena (\d+)$/m)})`);
else if (/^recover-plan error/m.test(probe)) problems.push('recover-plan: the planner gives less than recovery needs');
say();
say('Public structs on Cortex-M4 (sizeof, bytes):');
const cols = 3;
for (let i = 0; i < structs.length; i += cols)
  say('  ' + structs.slice(i, i + cols).map(([n, s]) => `${pad(n, 28)}${lpad(s, 6)}`).join('   '));

say();
if (problems.length) {
  say(`size: ${problems.length} problem(s):`);
  for (const p of problems) say(`  FAIL ${p}`);
}
console.log(out.join('\n'));
if (args.check) {
  console.log(`${problems.length ? 0 : 1} passed, ${problems.length ? 1 : 0} failed`);
  process.exit(problems.length ? 1 : 0);
}
