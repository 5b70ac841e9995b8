// End to end, both sides of oncely over one SQLite ledger file: an agent's tool call through the
// ledger and oncely/fetch (reconcile: provider-idempotent) to our own Hono provider (oncely/hono in
// a real Node server process) under another scope. The agent's call times out while the handler
// still runs: its entry goes in doubt; reconciliation sends the same key again and gets a 409
// (the provider is still at it: unknown) or the replay; the handler runs once, and the agent ends
// with the refund the handler made.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { InDoubtError, InProgressError, Ledger } from 'oncely';
import { keyedFetch } from 'oncely/fetch';
import { SqliteStore } from 'oncely/sqlite';
import { startServer, until } from './helpers/server.mjs';
import { tempDir } from './helpers/tmp.mjs';
import { fileProbeReader } from './provider/probe.mjs';

let srv;
let probe;
let db;

before(async () => {
  const dir = tempDir('e2e');
  db = join(dir, 'ledger.db');
  probe = fileProbeReader(dir);
  srv = await startServer(fileURLToPath(new URL('./provider/hono-server.mjs', import.meta.url)), [db, dir]);
});

after(() => srv?.stop());

// The agent's side: its refund tool calls the provider with the ledger's key, and is reconciled by
// calling again with the same key (the provider honours it). Reconciled at once, for the test.
const CLIENT_POLICY = { class: 'irreversible-external', reconcile: 'provider-idempotent', reconcileAfterMs: 0 };

test('e2e: oncely/fetch times out against our Hono provider; reconciliation re-sends the key and gets the replay; one refund', async () => {
  const store = await SqliteStore.open(db);
  const agent = new Ledger(store, { owner: 'agent' });
  const intent = { scope: 'agent-1', run: 'run-1', step: 'refund-1', tool: 'refund-client', args: { charge: 'ch_e2e', amount: 500 } };
  const sent = [];
  const tool = (key, call) => {
    sent.push(key);
    // The handler sleeps 1.5 s; the agent waits 300 ms.
    return keyedFetch(`${srv.base}/refunds`, { method: 'POST', json: { ...intent.args, sleepMs: 1500 }, headers: { 'x-tenant': 'provider-tenant' }, call, timeoutMs: 300 });
  };
  const seen = [];
  let result;
  await until('the agent to get its refund', async () => {
    try {
      result = await agent.effect(intent, CLIENT_POLICY, tool, { waitMs: 0 });
      return true;
    } catch (e) {
      if (!(e instanceof InDoubtError || e instanceof InProgressError)) throw e;
      seen.push(e.code);
      return false;
    }
  });
  assert.ok(seen.includes('in-doubt'), `the timed-out call left the agent's entry in doubt first (${seen})`);
  const runs = (await probe.events()).filter((e) => e.charge === 'ch_e2e');
  assert.equal(runs.length, 1, 'the handler ran once');
  // Every send carried the agent's ledger key, the provider's client key.
  assert.ok(sent.length >= 2 && sent.every((k) => k === result.key), JSON.stringify(sent));
  assert.equal(runs[0].key, result.key);
  assert.deepEqual(result.value, { status: 201, body: { id: runs[0].id, charge: 'ch_e2e', amount: 500 } });
  // Settled by reconciliation (the re-send), not by a first call that returned.
  assert.equal(result.reconciled, true, JSON.stringify({ seen, result, sent: sent.length }));
  // Both sides' entries, in the one ledger file, under their own scopes.
  const [mine] = await agent.list('agent-1');
  assert.deepEqual([mine.key, mine.state, JSON.parse(mine.resultJson)], [result.key, 'done', result.value]);
  const [theirs] = await agent.list('provider-tenant', { tool: 'refund' });
  assert.equal(theirs.state, 'done');
  assert.equal(JSON.parse(JSON.parse(theirs.resultJson).body).id, runs[0].id);
  // Once settled, the agent's repeat replays from its own ledger: the provider is not asked again.
  const before = sent.length;
  const again = await agent.effect(intent, CLIENT_POLICY, tool);
  assert.deepEqual([again.value, again.replayed, sent.length], [result.value, true, before]);
  await store.close();
});
