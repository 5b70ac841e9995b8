// bench/provider.mjs (scripts/bench) still runs: its Hono server answers bare and through
// oncely/hono, every answer a 201 and every keyed one a fresh effect (the bench fails
// otherwise). The rates are the bench's to report, not this test's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

test('bench/provider.mjs measures Hono bare and through oncely', async () => {
  const script = fileURLToPath(new URL('../bench/provider.mjs', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, [script, '--only', 'hono', '--rounds', '1', '--seconds', '1', '--connections', '2'], { timeout: 120_000 });
  const row = stdout.split('\n').find((l) => l.startsWith('hono'));
  assert.ok(row, stdout);
  const [, bare, oncely] = row.split(/\s+/);
  assert.ok(Number(bare.replace(/,/g, '')) > 0 && Number(oncely.replace(/,/g, '')) > 0, stdout);
});
