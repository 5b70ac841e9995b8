// bench/ledger.mjs (scripts/bench) measures every row of issue 26's table it can here: SQLite
// with one worker and with worker processes on the same files (PostgreSQL likewise when a server
// is given); each row has a rate on both sides, and the bench itself checks that every fresh
// effect left one `done` row and every replay was a replay. The rates are the bench's to report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

test('bench/ledger.mjs measures SQLite with one worker and with worker processes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'oncely-bench-ledger-test-'));
  try {
    const script = fileURLToPath(new URL('../bench/ledger.mjs', import.meta.url));
    const json = join(dir, 'rows.json');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [script, '--rounds', '1', '--seconds', '0.05', '--workers', '2', '--postgres', '', '--json', json],
      { timeout: 120_000 },
    );
    const { rows } = JSON.parse(readFileSync(json, 'utf8'));
    assert.deepEqual(
      rows.map((r) => `${r.backend} ${r.workers} ${r.measure}`).sort(),
      ['sqlite 1 fresh', 'sqlite 1 replay', 'sqlite 2 fresh', 'sqlite 2 replay'],
      stdout,
    );
    assert.ok(rows.every((r) => r.oncely > 0 && r.baseline > 0), stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
