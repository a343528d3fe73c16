// What the scripts that drive the upq CLI share: the common options
// (--upq PATH, --skip-without-upq, --work DIR), running upq, and the
// `ok ...` / `FAIL ...` lines with the closing `N passed, N failed` that
// test/sum_counts.sh reads.

import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..');

// Parses the common options; `extra` maps other option names to handlers
// (name, nextValue) for a script's own flags.
export function upqOptions(argv = process.argv, extra = {}) {
  const opts = { upq: path.join(repoRoot, 'build', 'host', 'upq'), skipWithoutUpq: false, work: null };
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

// Runs `exe args`; resolves to { code, stdout, stderr } (never rejects).
export function runUpq(exe, args, timeout = 120000) {
  return new Promise((resolve) => {
    execFile(exe, args, { encoding: 'utf8', maxBuffer: 1 << 30, timeout }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

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
