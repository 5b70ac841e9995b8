// oncely/restate against the real Restate: a Restate server (@restatedev/restate-server, started on
// free 127.0.0.1 ports) and a service (@restatedev/restate-sdk) whose handler refunds a charge
// inside `ctx.run`. The kill-resume story: the service process is SIGKILLed inside the run after
// the provider paid, before Restate journals the run's result; Restate retries the invocation on
// the restarted service, which executes the run again. Bare it pays twice; through the ledger,
// keyed by the invocation id and the run's name, once. And in one process: the identity the action
// gets (the invocation id, `<name>#<n>`), and its refusal outside a handler.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { Ledger } from 'oncely';
import { run } from 'oncely/restate';
import { SqliteStore } from 'oncely/sqlite';
import * as compat from './helpers/compat.mjs';
import { freePort, register, startRestate } from './helpers/restate.mjs';
import { tempDir } from './helpers/tmp.mjs';

const RESTATE = { framework: 'Restate', package: '@restatedev/restate-sdk', run: "the invocation id (step: the ctx.run's name and occurrence)" };
const HOW = 'SIGKILL before the journal entry, retried by Restate';

// One service process: the service `refunds_<guarded>` on 127.0.0.1:<port>, its provider's refunds
// in a file (one line each, with its key), the ledger in SQLite. In phase `first` the run pays and
// the process kills itself before the action returns: Restate never gets the run's result.
const SERVICE = String.raw`
import http2 from 'node:http2';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import * as restate from '@restatedev/restate-sdk';
import { happened, Ledger, notHappened } from 'oncely';
import { run } from 'oncely/restate';
import { SqliteStore } from 'oncely/sqlite';
const [dir, guarded, phase, port] = process.argv.slice(1);
// @restatedev/restate-sdk 1.17 calls Promise.withResolvers (Node 22); on Node 20, the same.
Promise.withResolvers ??= () => { let resolve, reject; const promise = new Promise((a, b) => ((resolve = a), (reject = b))); return { promise, resolve, reject }; };
const paid = dir + '/refunds.jsonl';
const refunds = () => (existsSync(paid) ? readFileSync(paid, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
function pay({ charge_id, amount_cents }, key) {
  const refund = { refund_id: 're_' + (refunds().length + 1), charge_id, amount_cents, key };
  appendFileSync(paid, JSON.stringify(refund) + '\n');
  if (phase === 'first') process.kill(process.pid, 'SIGKILL'); // paid; the run's result never reaches Restate
  return { refund_id: refund.refund_id, status: 'succeeded' };
}
const policy = { class: 'irreversible-external', reconcile: { lookup: 'find_refund' }, maxCallMs: 200, reconcileAfterMs: 1 };
const ledger = guarded === 'oncely' ? new Ledger(await SqliteStore.open(dir + '/ledger.db'), { owner: phase }) : null;
ledger?.reconciler('refund', async (req) => {
  const r = refunds().find((x) => x.key === req.key);
  return r ? happened({ refund_id: r.refund_id, status: 'succeeded' }) : notHappened();
});
const service = restate.service({
  name: 'refunds_' + guarded,
  handlers: {
    refund: async (ctx, args) => {
      console.log('handler: ' + phase);
      if (guarded === 'bare') return { refund: await ctx.run('refund', () => pay(args, null)) };
      return run(ctx, 'refund', async (identity) => {
        const { value } = await ledger.effect({ scope: 'acme', ...identity, tool: 'refund', args }, policy, (key) => pay(args, key));
        return { refund: value, identity };
      });
    },
  },
});
http2.createServer(restate.endpoint().bind(service).http2Handler()).listen(Number(port), '127.0.0.1', () => console.log('listening'));
`;

const here = fileURLToPath(new URL('..', import.meta.url)); // where 'oncely' and the SDK resolve

/** Start one service process; resolves once it listens. */
function startService(dir, guarded, phase, port) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SERVICE, dir, guarded, phase, String(port)], { cwd: here, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const listening = new Promise((resolve, reject) => {
    child.stdout.on('data', () => out.includes('listening') && resolve());
    exited.then(() => reject(new Error(`the service exited before listening:\n${out}`)));
  });
  return { child, exited, listening, out: () => out };
}

let server;
before(async () => {
  server = await startRestate();
});
after(() => server?.stop());

async function ingress(path, init = {}) {
  const res = await fetch(`${server.ingress}${path}`, { signal: AbortSignal.timeout(90_000), ...init, headers: { 'content-type': 'application/json', ...init.headers } });
  const text = await res.text();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

test('a service killed inside ctx.run after paying, the invocation retried by Restate: once with oncely, twice bare', async () => {
  for (const guarded of ['bare', 'oncely']) {
    const dir = tempDir(`restate-${guarded}`);
    const port = await freePort();
    const first = startService(dir, guarded, 'first', port);
    await first.listening;
    await register(server, `http://127.0.0.1:${port}`);
    const sent = await ingress(`/refunds_${guarded}/refund/send`, {
      method: 'POST',
      headers: { 'idempotency-key': `refund-7-${guarded}` },
      body: JSON.stringify({ charge_id: 'ch_1', amount_cents: 500 }),
    });
    const died = await first.exited;
    assert.equal(died.signal, 'SIGKILL', first.out());
    const second = startService(dir, guarded, 'resume', port);
    try {
      await second.listening;
      // Restate, not the test, runs the handler again: the attach waits for the retried invocation.
      const out = await ingress(`/restate/invocation/${sent.invocationId}/attach`);
      assert.match(second.out(), /handler: resume/, 'Restate retried the invocation on the restarted service');
      const refunds = readFileSync(join(dir, 'refunds.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      console.log(`# restate: killed inside ctx.run after paying, retried by Restate: ${guarded} -> ${refunds.length} refund(s)`);
      compat.record({ ...RESTATE, story: 'kill-resume', paid: refunds.length, bare: guarded === 'bare', how: HOW, engine: true });
      if (guarded === 'bare') {
        assert.equal(refunds.length, 2);
        assert.deepEqual(out.refund, { refund_id: 're_2', status: 'succeeded' });
      } else {
        assert.equal(refunds.length, 1);
        // The retried run found the dead attempt's claim and settled it by the lookup: the first refund.
        assert.deepEqual(out.refund, { refund_id: 're_1', status: 'succeeded' });
        assert.deepEqual(out.identity, { run: sent.invocationId, step: 'refund#1' });
        // The same request sent again with its idempotency key is the same invocation: the same run.
        const again = await ingress(`/refunds_${guarded}/refund/send`, {
          method: 'POST',
          headers: { 'idempotency-key': `refund-7-${guarded}` },
          body: JSON.stringify({ charge_id: 'ch_1', amount_cents: 500 }),
        });
        assert.equal(again.invocationId, sent.invocationId);
        const store = await SqliteStore.open(join(dir, 'ledger.db'));
        const [entry] = await new Ledger(store).list('acme');
        assert.deepEqual([entry.state, entry.key, entry.runId, entry.stepId], ['done', refunds[0].key, sent.invocationId, 'refund#1']);
        store.close?.();
      }
    } finally {
      second.child.kill('SIGKILL');
      await second.exited;
    }
  }
});

// ---- in one process: the identity, without a server --------------------------------------------

/** A stand-in for Restate's context: what run() reads (`request().id`) and calls (`run`). */
function fakeContext(id) {
  const calls = [];
  return {
    calls,
    request: () => ({ id }),
    run: (name, action, options) => {
      calls.push({ name, options });
      return Promise.resolve(action());
    },
  };
}

test('each run of a name is a step of its own: <name>#<n>, counted per invocation', async () => {
  const ctx = fakeContext('inv_1');
  assert.deepEqual(await run(ctx, 'refund', (id) => id), { run: 'inv_1', step: 'refund#1' });
  assert.deepEqual(await run(ctx, 'email', (id) => id), { run: 'inv_1', step: 'email#1' });
  assert.deepEqual(await run(ctx, 'refund', (id) => id), { run: 'inv_1', step: 'refund#2' });
  // A retry of the invocation is a new context: the count starts again, the steps are the same.
  const retry = fakeContext('inv_1');
  assert.deepEqual(await run(retry, 'refund', (id) => id), { run: 'inv_1', step: 'refund#1' });
  assert.deepEqual(ctx.calls.map((c) => c.name), ['refund', 'email', 'refund']);
});

test('byStep: false gives the run only; the other options are ctx.run\'s', async () => {
  const ctx = fakeContext('inv_2');
  assert.deepEqual(await run(ctx, 'refund', (id) => id, { byStep: false, maxRetryAttempts: 3 }), { run: 'inv_2' });
  assert.deepEqual(ctx.calls, [{ name: 'refund', options: { maxRetryAttempts: 3 } }]);
});

test('outside a handler, or without a name, run() refuses', () => {
  assert.throws(() => run({}, 'refund', () => 1), /not a Restate handler's context/);
  assert.throws(() => run(fakeContext('inv_3'), '', () => 1), /needs the run's name/);
  assert.throws(() => run(fakeContext('inv_3'), 'refund'), /action must be a function/);
});
