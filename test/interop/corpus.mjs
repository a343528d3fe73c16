// Corpus files for the interop scripts: every *.parquet below a folder, and
// the footer magic that tells encrypted footers ("PARE") apart.
import fs from 'node:fs';
import path from 'node:path';

export function listParquet(dir) {
  const out = [];
  const pending = [dir];
  while (pending.length) {
    const d = pending.pop();
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) pending.push(p);
      else if (e.isFile() && e.name.endsWith('.parquet')) out.push(p);
    }
  }
  return out.sort();
}

export function footerMagic(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    if (size < 4) return '';
    const b = Buffer.alloc(4);
    fs.readSync(fd, b, 0, 4, size - 4);
    return b.toString('latin1');
  } finally {
    fs.closeSync(fd);
  }
}
