// What the scripts that drive the upq CLI share: the common options
// (--upq PATH, --skip-without-upq, --work DIR), running upq, and the
// `ok ...` / `FAIL ...` lines with the closing `N passed, N failed` that
// test/sum_counts.sh reads.

import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..');
// parquet-testing, read in place
export const corpusDir = process.env.PARQUET_TESTING_DIR || path.resolve(repoRoot, '..', 'shared', 'parquet-testing');

// Parses the common options; `extra` maps other option names to handlers
// (opts, nextValue) for a script's own flags; `defaults` overrides the
// defaults (e.g. a work directory).
export function upqOptions(argv = process.argv, extra = {}, defaults = {}) {
  const opts = { upq: path.join(repoRoot, 'build', 'host', 'upq'), skipWithoutUpq: false, work: null, ...defaults };
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--upq') opts.upq = argv[++i];
    else if (a === '--skip-without-upq') opts.skipWithoutUpq = true;
    else if (a === '--work') opts.work = argv[++i];
    else if (extra[a]) extra[a](opts, () => argv[++i]);
    else { console.error(`unknown argument ${a}`); process.exit(2); }
  }
  return opts;
}

// Runs `exe args`; resolves to { ok, code, stdout, stderr } (never rejects;
// code -1 when the program did not exit by itself).
export function runUpq(exe, args, timeout = 120000) {
  return new Promise((resolve) => {
    execFile(exe, args, { encoding: 'utf8', maxBuffer: 1 << 30, timeout }, (err, stdout, stderr) => {
      resolve({ ok: !err, code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

// A command as a shell line, for FAIL messages.
const quote1 = (a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`);
export const cmdline = (exe, args) => [exe, ...args].map(quote1).join(' ');

// Counts results and prints them the way the check stages read them.
export function tally() {
  const t = {
    passed: 0,
    failed: 0,
    result(ok, what, why = '') {
      if (ok) { t.passed++; console.log(`ok ${what}`); } else { t.failed++; console.log(`FAIL ${what}: ${why}`); }
    },
    // Prints the summary line, lets stdout drain, and exits (1 when
    // anything failed).
    async finish() {
      console.log(`${t.passed} passed, ${t.failed} failed`);
      await new Promise((r) => process.stdout.write('', r));
      process.exit(t.failed ? 1 : 0);
    },
  };
  return t;
}
