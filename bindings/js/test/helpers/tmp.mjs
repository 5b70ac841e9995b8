// Temporary directories removed at exit.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dirs = [];
process.on('exit', () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

export function tempDir(tag) {
  const d = mkdtempSync(join(tmpdir(), `oncely-js-${tag}-`));
  dirs.push(d);
  return d;
}
