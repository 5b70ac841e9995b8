// Python and JavaScript on one DynamoDB table: the same items, byte for byte, and one execution
// when workers of both languages race one intent. The Python side is the package's sources run by
// the Python of the DynamoDB test environment ($ONCELY_DYNAMODB_VENV, default
// target/dynamodb-venv, made by scripts/setup --all: boto3 and wasmtime are in it).
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { Ledger } from 'oncely';
import { DynamoDBStore } from 'oncely/dynamodb';
import { dropTables, dynamodbUnavailable, freshTable, rawClient } from './helpers/dynamodb.mjs';
import { REPO } from './helpers/env.mjs';
import { tempDir } from './helpers/tmp.mjs';

const PYTHON = join(process.env.ONCELY_DYNAMODB_VENV ?? join(REPO, 'target/dynamodb-venv'), 'bin/python');
const PY_ENV = { ...process.env, PYTHONPATH: join(REPO, 'bindings/python/src') };
const run = promisify(execFile);

/** Run Python code with the package's sources; its stdout parsed as JSON. */
async function python(code, ...args) {
  const { stdout } = await run(PYTHON, ['-c', code, ...args], { env: PY_ENV, timeout: 120_000 });
  return JSON.parse(stdout);
}

// Copy the entry of (scope, key) at FROM into the table TO with the Python store: insert it, then
// one update that keeps a history record (the version + 1, the state done).
const PY_COPY = `
import dataclasses, json, sys
from oncely.store.dynamodb import DynamoDBStore
src, dst = DynamoDBStore(sys.argv[1]), DynamoDBStore(sys.argv[2])
e = src.get(sys.argv[3], sys.argv[4])
assert dst.insert(e)
done = dataclasses.replace(e, version=e.version + 1, state=type(e.state)("done"), result_json='{"n":1}',
                           updated_at=e.updated_at + 7, in_doubt_since=None)
assert dst.update(e.version, done, history=True)
print(json.dumps({"version": done.version}))
`;

describe('DynamoDB: Python and JavaScript on one table', () => {
  let skip = null;
  before(async () => {
    skip = await dynamodbUnavailable();
    if (!skip && !existsSync(PYTHON)) {
      const reason = `${PYTHON} is missing (scripts/setup --all makes it)`;
      if (process.env.ONCELY_REQUIRE_DYNAMODB === '1' || process.env.CI) throw new Error(`DynamoDB is required but ${reason}`);
      console.warn(`\n*** SKIPPING the cross-language DynamoDB tests: ${reason} ***\n`);
      skip = reason;
    }
  });
  after(async () => {
    if (!skip) await dropTables();
  });

  test('both stores write the same items and read each other\'s', async (t) => {
    if (skip) return t.skip(skip);
    const shared = freshTable('shared');
    const store = await DynamoDBStore.open(shared);
    const l = new Ledger(store, { owner: 'js' });
    const r = await l.effect({ scope: 'x', run: 'r', step: 's', tool: 'charge', args: { amount: 5 } }, { class: 'irreversible-external', reconcile: 'provider-idempotent' }, async () => ({ id: 'ch_1' }));
    const written = await store.get('x', r.key);
    // Python reads what JavaScript wrote.
    const seen = await python(`
import json, sys
from oncely.store.dynamodb import DynamoDBStore
s = DynamoDBStore(sys.argv[1])
e = s.get("x", sys.argv[2])
print(json.dumps({"state": e.state.value, "version": e.version, "result": e.result_json, "due_at": e.due_at,
                  "history": [[h.version, h.state.value] for h in s.history("x", sys.argv[2])]}))
`, shared, r.key);
    assert.deepEqual(seen, { state: 'done', version: written.version, result: written.resultJson, due_at: written.dueAt, history: (await store.history('x', r.key)).map((h) => [h.version, h.state]) });
    // The same writes by each language leave the same items.
    const byJs = freshTable('by_js');
    const byPy = freshTable('by_py');
    const mine = await DynamoDBStore.open(byJs);
    await (await DynamoDBStore.open(byPy)).close(); // the table made by JavaScript, written by Python
    assert.equal(await mine.insert(written), true);
    const done = { ...written, version: written.version + 1, state: 'done', resultJson: '{"n":1}', updatedAt: written.updatedAt + 7, inDoubtSince: null };
    assert.equal(await mine.update(written.version, done, { history: true }), true);
    await python(PY_COPY, shared, byPy, 'x', r.key);
    const c = rawClient();
    const raw = async (loc) => (await c.send(new GetItemCommand({ TableName: new URL(loc).host, Key: { scope: { S: 'x' }, key: { S: r.key } }, ConsistentRead: true }))).Item;
    try {
      const [a, b] = [await raw(byJs), await raw(byPy)];
      assert.ok(a.history.L.length === 2 && a.due_shard.S.length === 1);
      assert.deepEqual(a, b);
    } finally {
      c.destroy();
      await mine.close();
      await store.close();
    }
  });

  test('Python and JavaScript worker processes racing one intent execute it once', async (t) => {
    if (skip) return t.skip(skip);
    const location = freshTable('race');
    await (await DynamoDBStore.open(location)).close();
    const marker = join(tempDir('dynamodb-race'), 'marker.txt');
    const common = ['--db', location, '--scope', 'acme', '--run', 'r', '--step', 's', '--tool', 'charge', '--args', '{"amount":1}',
      '--policy', JSON.stringify({ class: 'irreversible-external', key: {}, reconcile: 'provider-idempotent' }), '--marker', marker, '--sleep-ms', '300'];
    const worker = (cmd, args) =>
      new Promise((resolve, reject) => {
        const p = spawn(cmd, args, { env: PY_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        p.stdout.on('data', (d) => (out += d));
        p.stderr.on('data', (d) => (err += d));
        p.on('error', reject);
        p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${cmd} exited ${code}: ${err}`))));
      });
    const results = await Promise.all([
      ...[0, 1, 2].map((i) => worker(PYTHON, [join(REPO, 'bindings/python/tests/workers/exec_worker.py'), ...common, '--owner', `py${i}`])),
      ...[0, 1, 2].map((i) => worker(process.execPath, [join(REPO, 'bindings/js/test/helpers/worker.mjs'), ...common, '--owner', `js${i}`])),
    ]);
    assert.equal(readFileSync(marker, 'utf8').trim().split('\n').length, 1, 'the tool ran once');
    assert.equal(results.filter((r) => !r.replayed).length, 1);
    assert.equal(new Set(results.map((r) => r.key)).size, 1);
    assert.ok(results.every((r) => JSON.stringify(r.value) === JSON.stringify(results[0].value)));
  });
});
