// The core marks each write it asks of a store (`row-write`, wit/effect.wit): `history` (the write
// appends to the entry's history) and `claims` (it leaves a claim the tool will be called under:
// what a store that waits for its replicas, a Redis `WAIT`, waits for). The store is given both
// and decides neither.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AwaitingApprovalError, Ledger, MemoryStore } from 'oncely';

class Marks extends MemoryStore {
  seen = [];
  async insert(entry, marks) {
    this.seen.push(['insert', entry.state, marks?.claims]);
    return super.insert(entry, marks);
  }
  async update(version, entry, marks) {
    this.seen.push(['update', entry.state, marks?.claims]);
    return super.update(version, entry, marks);
  }
}

test('a claim is marked, and nothing else is', async () => {
  const store = new Marks();
  const ledger = new Ledger(store, { owner: 'w1' });
  const policy = { class: 'irreversible-external', key: {}, reconcile: 'manual' };
  const intent = (n) => ({ scope: 'acme', run: 'r', tool: 'charge', args: { n } });
  await ledger.effect(intent(1), policy, async () => ({ ok: true }));
  // The claim (pending) waits; the recorded result does not.
  assert.deepEqual(store.seen, [['insert', 'pending', true], ['update', 'done', false]]);

  // A call that awaits a person's approval leaves no claim; the run after the approval does.
  store.seen.length = 0;
  const asking = { ...policy, approval: 'always' };
  const asked = await ledger.effect(intent(2), asking, async () => ({ ok: true })).then(
    () => assert.fail('not asked'),
    (e) => e,
  );
  assert.ok(asked instanceof AwaitingApprovalError, String(asked));
  assert.deepEqual(store.seen, [['insert', 'awaiting-approval', false]]);
  await ledger.approve('acme', asked.key, { by: 'desk', version: asked.version });
  store.seen.length = 0;
  await ledger.effect(intent(2), asking, async () => ({ ok: true }));
  assert.deepEqual(store.seen.filter((s) => s[2]), [['update', 'pending', true]]);
});
