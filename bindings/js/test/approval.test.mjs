// Approval before an irreversible effect (issue 27), through real stores (SQLite, PostgreSQL):
// an approval holds for exactly the arguments a person saw, one that runs out is asked again, a
// denial is the answer from then on, workers racing on an approved entry pay once, and a process
// killed while awaiting approval resumes into the same request.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { AwaitingApprovalError, ConflictError, DeniedError, Ledger, LedgerError, deriveKey } from 'oncely';
import { SqliteStore } from 'oncely/sqlite';
import { freshDatabase, postgresUnavailable } from './helpers/pg.mjs';
import { tempDir } from './helpers/tmp.mjs';

const SCOPE = 'acme';
const ALWAYS = { class: 'irreversible-external', key: {}, reconcile: 'provider-idempotent', approval: 'always' };
const BY_CHARGE = {
  class: 'irreversible-external',
  key: { only: ['/charge_id'] },
  reconcile: 'provider-idempotent',
  approval: { when: { '/amount': { '>': 100 } }, expiresAfterMs: 60_000 },
};

function asker(ledger, paid) {
  return (args, policy) =>
    ledger.effect({ scope: SCOPE, run: 'r', tool: 'refund', args }, policy, async (key) => {
      paid.push([key, args]);
      return { paid: args.amount };
    });
}

async function rejected(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('expected a rejection');
}

/**
 * The tests, on stores `open()` gives (each call: a store on the same database); `skipped()`
 * the reason they cannot run here, or null.
 */
function approvalTests(open, skipped = () => null) {
  test('an approval for 500 does not let 700 through', async (t) => {
    if (skipped()) return t.skip(skipped());
    const paid = [];
    const ledger = new Ledger(await open(), { owner: 'w1' });
    const ask = asker(ledger, paid);
    const asked = await rejected(ask({ charge_id: 'ch_1', amount: 500 }, BY_CHARGE));
    assert.ok(asked instanceof AwaitingApprovalError, String(asked));
    assert.equal(asked.argsCanonical, '{"amount":500,"charge_id":"ch_1"}');
    await ledger.approve(SCOPE, asked.key, { by: 'alice', version: asked.version });
    const other = await rejected(ask({ charge_id: 'ch_1', amount: 700 }, BY_CHARGE));
    assert.ok(other instanceof ConflictError && other.pointer === '/amount', String(other));
    assert.deepEqual((await ask({ charge_id: 'ch_1', amount: 500 }, BY_CHARGE)).value, { paid: 500 });
    assert.equal((await ask({ charge_id: 'ch_1', amount: 500 }, BY_CHARGE)).replayed, true);
    assert.equal(paid.length, 1);
    // A small amount runs without a person.
    assert.deepEqual((await ask({ charge_id: 'ch_9', amount: 50 }, BY_CHARGE)).value, { paid: 50 });
    assert.equal(paid.length, 2);
  });

  test('an approval that ran out is asked again; a denial is the answer from then on', async (t) => {
    if (skipped()) return t.skip(skipped());
    let now = 1_000_000;
    const paid = [];
    const ledger = new Ledger(await open(), { owner: 'w1', clock: () => now });
    const ask = asker(ledger, paid);
    const args = { charge_id: 'ch_2', amount: 500 };
    const asked = await rejected(ask(args, BY_CHARGE));
    await ledger.approve(SCOPE, asked.key, { by: 'alice', version: asked.version });
    now += 60_000;
    const again = await rejected(ask(args, BY_CHARGE));
    assert.ok(again instanceof AwaitingApprovalError && again.key === asked.key && again.version === 3, String(again));
    const stale = await rejected(ledger.deny(SCOPE, asked.key, { by: 'bob', note: 'no', version: 2 }));
    assert.ok(stale instanceof LedgerError && stale.kind === 'changed', String(stale));
    const id = await ledger.deny(SCOPE, asked.key, { by: 'bob', note: 'over limit', version: again.version });
    for (let i = 0; i < 2; i++) {
      const denied = await rejected(ask(args, BY_CHARGE));
      assert.ok(denied instanceof DeniedError, String(denied));
      assert.deepEqual([denied.by, denied.settlement], ['bob', id]);
    }
    assert.deepEqual(paid, []);
    const states = (await ledger.history(SCOPE, asked.key)).map((r) => r.state);
    assert.deepEqual(states, ['awaiting-approval', 'approved', 'awaiting-approval', 'denied']);
  });

  test('four workers racing on an approved entry pay once', async (t) => {
    if (skipped()) return t.skip(skipped());
    const paid = [];
    const setup = new Ledger(await open(), { owner: 'setup' });
    const args = { charge_id: 'ch_3', amount: 500 };
    const asked = await rejected(asker(setup, [])(args, ALWAYS));
    await setup.approve(SCOPE, asked.key, { by: 'alice', version: asked.version });
    const workers = await Promise.all([0, 1, 2, 3].map(async (n) => new Ledger(await open(), { owner: `w${n}` })));
    const results = await Promise.all(workers.map((w) => asker(w, paid)(args, ALWAYS)));
    assert.equal(paid.length, 1, JSON.stringify(paid));
    assert.equal(results.filter((r) => !r.replayed).length, 1);
  });

  test('a caller that waits gets the decision made meanwhile', async (t) => {
    if (skipped()) return t.skip(skipped());
    const agent = new Ledger(await open(), { owner: 'agent' });
    const person = new Ledger(await open(), { owner: 'inbox' });
    const paid = [];
    for (const [charge, approve] of [['ch_yes', true], ['ch_no', false]]) {
      const args = { charge_id: charge, amount: 500 };
      const intent = { scope: SCOPE, run: 'r', tool: 'refund', args };
      const waiting = agent
        .effect(intent, ALWAYS, async () => (paid.push(args), { paid: 500 }), { approvalWaitMs: 20_000 })
        .then((r) => r, (e) => e);
      const { key } = deriveKey({ ...intent, policy: ALWAYS });
      let entry = null;
      while (entry?.state !== 'awaiting-approval') {
        await new Promise((r) => setTimeout(r, 20));
        entry = await person.get(SCOPE, key);
      }
      if (approve) {
        await person.approve(SCOPE, key, { by: 'dana', version: entry.version });
        const r = await waiting;
        assert.equal(r.replayed, false, String(r));
      } else {
        await person.deny(SCOPE, key, { by: 'dana', note: 'no', version: entry.version });
        const e = await waiting;
        assert.ok(e instanceof DeniedError && e.by === 'dana', String(e));
      }
    }
    assert.deepEqual(paid, [{ charge_id: 'ch_yes', amount: 500 }]);
    // Nobody decides: the wait ends at its limit with the request.
    const started = Date.now();
    const late = await rejected(
      agent.effect({ scope: SCOPE, run: 'r', tool: 'refund', args: { charge_id: 'ch_later', amount: 500 } }, ALWAYS, async () => ({}), {
        approvalWaitMs: 1_500,
      }),
    );
    assert.ok(late instanceof AwaitingApprovalError, String(late));
    assert.ok(Date.now() - started >= 1_500);
  });

  test('asksApproval says what the next ask would meet', async (t) => {
    if (skipped()) return t.skip(skipped());
    const ledger = new Ledger(await open(), { owner: 'w1' });
    const big = { scope: SCOPE, run: 'r', tool: 'refund', args: { charge_id: 'ch_a', amount: 500 } };
    assert.equal(await ledger.asksApproval(big, BY_CHARGE), true);
    assert.equal(await ledger.asksApproval({ ...big, args: { charge_id: 'ch_b', amount: 50 } }, BY_CHARGE), false);
    const asked = await rejected(asker(ledger, [])(big.args, BY_CHARGE));
    assert.ok(asked instanceof AwaitingApprovalError, String(asked));
    assert.equal(await ledger.asksApproval(big, BY_CHARGE), true, 'still asked');
    await ledger.approve(SCOPE, asked.key, { by: 'alice', version: asked.version });
    assert.equal(await ledger.asksApproval(big, BY_CHARGE), false, 'approved');
  });
}

const KILLED = `
import { Ledger } from 'oncely';
import { SqliteStore } from 'oncely/sqlite';
import { PostgresStore } from 'oncely/postgres';
const [where, policy] = process.argv.slice(1);
const store = where.startsWith('postgres') ? await PostgresStore.connect(where) : await SqliteStore.open(where);
try {
  await new Ledger(store, { owner: 'doomed' }).effect(
    { scope: 'acme', run: 'r', tool: 'refund', args: { charge_id: 'ch_4', amount: 500 } }, JSON.parse(policy), async () => ({ paid: 500 }));
} catch (e) {
  console.log(e.key, e.version);
}
process.kill(process.pid, 'SIGKILL');
`;

function killedTest(where, open, skipped = () => null) {
  test('a process killed while awaiting approval resumes into the same request', async (t) => {
    if (skipped()) return t.skip(skipped());
    const died = spawnSync(process.execPath, ['--input-type=module', '-e', KILLED, where(), JSON.stringify(ALWAYS)], {
      encoding: 'utf8',
      timeout: 120_000,
      cwd: fileURLToPath(new URL('..', import.meta.url)), // where 'oncely' resolves to this package
    });
    assert.equal(died.signal, 'SIGKILL', died.stderr);
    const [key, version] = died.stdout.trim().split(' ');
    const paid = [];
    const events = [];
    const ledger = new Ledger(await open(), { owner: 'resumed', onEvent: (e) => events.push(e) });
    const again = await rejected(asker(ledger, paid)({ charge_id: 'ch_4', amount: 500 }, ALWAYS));
    assert.ok(again instanceof AwaitingApprovalError, String(again));
    assert.deepEqual([again.key, again.version], [key, Number(version)]);
    assert.deepEqual(events, [], 'no second request, no second notice');
    assert.deepEqual((await ledger.history(SCOPE, key)).map((r) => r.state), ['awaiting-approval']);
    await ledger.approve(SCOPE, key, { by: 'alice', version: Number(version) });
    assert.deepEqual((await asker(ledger, paid)({ charge_id: 'ch_4', amount: 500 }, ALWAYS)).value, { paid: 500 });
    assert.equal(paid.length, 1);
  });
}

describe('approval on SQLite (better-sqlite3)', () => {
  const file = join(tempDir('approval'), 'ledger.db');
  const stores = [];
  const open = async () => {
    const s = await SqliteStore.open(file);
    stores.push(s);
    return s;
  };
  after(async () => {
    for (const s of stores) await s.close?.();
  });
  approvalTests(open);
  killedTest(() => file, open);
});

describe('approval on PostgreSQL', () => {
  let skip = null;
  let db = null;
  before(async () => {
    skip = await postgresUnavailable();
    if (!skip) db = await freshDatabase('approval');
  });
  after(async () => {
    await db?.drop();
  });
  const open = async () => db.connect();
  approvalTests(open, () => skip);
  killedTest(() => db.url, open, () => skip);
});
