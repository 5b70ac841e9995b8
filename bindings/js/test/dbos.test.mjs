// oncely/dbos against the real DBOS (@dbos-inc/dbos-sdk) on PostgreSQL: a workflow whose step
// refunds a charge. The kill-resume story: the process is SIGKILLed inside the step after the
// provider paid, before DBOS records the step's output; a new process launches DBOS, whose own
// recovery (`DBOS.launch()` recovers this executor's PENDING workflows) re-executes the step. Bare
// it pays twice; through the ledger, keyed by the workflow id and the step's function id, once.
// DBOS's system database and the ledger share a fresh PostgreSQL database per story (DBOS's tables
// in its schema `dbos`, the ledger's in `oncely`). And in one process: the identity a step gets, a
// step DBOS retries after a lost answer, two positions, and the refusal outside a step.
//
// Needs ONCELY_TEST_POSTGRES_URL (scripts/with-postgres); without it the tests skip loudly, and
// fail when ONCELY_REQUIRE_POSTGRES=1 or CI is set.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { happened, Ledger, notHappened } from 'oncely';
import { runStep, stepIdentity } from 'oncely/dbos';
import { PostgresStore } from 'oncely/postgres';
import * as compat from './helpers/compat.mjs';
import { freshDatabase, postgresUnavailable } from './helpers/pg.mjs';
import { tempDir } from './helpers/tmp.mjs';

const DBOS_JS = { framework: 'DBOS', package: '@dbos-inc/dbos-sdk', run: "the workflow id (step: the step's function id)" };
const HOW = 'SIGKILL, recovered by DBOS.launch() in a new process';
const WORKFLOW_ID = 'refund-7';

// One worker process: the workflow `refundWorkflow`, whose step `refund` pays the provider (its
// refunds in a file, one line each, with its key), the ledger in the same database as DBOS's
// system tables. In phase `first` it starts workflow refund-7 and the step kills the process after
// paying: DBOS never records the step's output. In phase `resume` DBOS.launch() recovers the
// pending workflow; the worker waits for its result and prints it with the workflow's steps.
const WORKER = String.raw`
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { happened, Ledger, notHappened } from 'oncely';
import { runStep } from 'oncely/dbos';
import { PostgresStore } from 'oncely/postgres';
const [dir, guarded, phase, url] = process.argv.slice(1);
const paid = dir + '/refunds.jsonl';
const refunds = () => (existsSync(paid) ? readFileSync(paid, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
function pay({ charge_id, amount_cents }, key) {
  const refund = { refund_id: 're_' + (refunds().length + 1), charge_id, amount_cents, key };
  appendFileSync(paid, JSON.stringify(refund) + '\n');
  if (phase === 'first') process.kill(process.pid, 'SIGKILL'); // paid; DBOS never records the step
  return { refund_id: refund.refund_id, status: 'succeeded' };
}
// A short deadline: the recovered step finds the dead worker's claim past it and reconciles.
const policy = { class: 'irreversible-external', reconcile: { lookup: 'find_refund' }, maxCallMs: 200, reconcileAfterMs: 1 };
const store = guarded === 'oncely' ? await PostgresStore.connect(url, { max: 2 }) : null;
const ledger = store ? new Ledger(store, { owner: phase }) : null;
ledger?.reconciler('refund', async (req) => {
  const r = refunds().find((x) => x.key === req.key);
  return r ? happened({ refund_id: r.refund_id, status: 'succeeded' }) : notHappened();
});
const refundWorkflow = DBOS.registerWorkflow(async (args) => {
  console.log('workflow: ' + phase);
  if (guarded === 'bare') return { refund: await DBOS.runStep(async () => pay(args, null), { name: 'refund' }) };
  return runStep(async (identity) => {
    const { value } = await ledger.effect({ scope: 'acme', ...identity, tool: 'refund', args }, policy, (key) => pay(args, key));
    return { refund: value, identity };
  }, { name: 'refund' });
}, { name: 'refundWorkflow' });
DBOS.setConfig({ name: 'oncely-refunds', systemDatabaseUrl: url });
await DBOS.launch(); // in phase resume: recovers refund-7, left PENDING by the killed process
if (phase === 'first') {
  const handle = await DBOS.startWorkflow(refundWorkflow, { workflowID: ${JSON.stringify(WORKFLOW_ID)} })({ charge_id: 'ch_1', amount_cents: 500 });
  await handle.getResult();
  process.exit(3); // not reached: killed in the step
}
const result = await DBOS.retrieveWorkflow(${JSON.stringify(WORKFLOW_ID)}).getResult();
const steps = (await DBOS.listWorkflowSteps(${JSON.stringify(WORKFLOW_ID)})).map((s) => ({ functionID: s.functionID, name: s.name }));
console.log('result: ' + JSON.stringify({ result, steps }));
await DBOS.shutdown();
await store?.close();
`;

const here = fileURLToPath(new URL('..', import.meta.url)); // where 'oncely' and the SDK resolve

/** Run one worker process to its end: `{code, signal, out}`. */
function worker(dir, guarded, phase, url) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', WORKER, dir, guarded, phase, url], { cwd: here, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out });
    }),
  );
}

/** The refunds the provider made in the story in `dir`. */
function refundsIn(dir) {
  const f = join(dir, 'refunds.jsonl');
  return existsSync(f) ? readFileSync(f, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
}

describe('DBOS on PostgreSQL', () => {
  let skip = null;
  before(async () => {
    skip = await postgresUnavailable();
  });

  test('a worker killed in its step after paying, the workflow recovered by DBOS: once with oncely, twice bare', async (t) => {
    if (skip) return t.skip(skip);
    for (const guarded of ['bare', 'oncely']) {
      const db = await freshDatabase(`dbos_${guarded}`);
      try {
        const dir = tempDir(`dbos-${guarded}`);
        const first = await worker(dir, guarded, 'first', db.url);
        assert.equal(first.signal, 'SIGKILL', first.out);
        assert.equal(refundsIn(dir).length, 1, 'paid before the kill');
        const resumed = await worker(dir, guarded, 'resume', db.url);
        assert.equal(resumed.code, 0, resumed.out);
        // DBOS, not the test, ran the workflow again: its recovery at launch.
        assert.match(resumed.out, /Recovering 1 workflows/, resumed.out);
        assert.match(resumed.out, /workflow: resume/, resumed.out);
        const { result, steps } = JSON.parse(resumed.out.split('\n').find((l) => l.startsWith('result: ')).slice('result: '.length));
        const refunds = refundsIn(dir);
        console.log(`# dbos: killed in its step after paying, recovered by DBOS: ${guarded} -> ${refunds.length} refund(s)`);
        compat.record({ ...DBOS_JS, story: 'kill-resume', paid: refunds.length, bare: guarded === 'bare', how: HOW, engine: true });
        assert.deepEqual(steps, [{ functionID: 0, name: 'refund' }]);
        if (guarded === 'bare') {
          assert.equal(refunds.length, 2);
          assert.deepEqual(result.refund, { refund_id: 're_2', status: 'succeeded' });
        } else {
          assert.equal(refunds.length, 1);
          // The re-executed step found the dead worker's claim and settled it by the lookup.
          assert.deepEqual(result.refund, { refund_id: 're_1', status: 'succeeded' });
          assert.deepEqual(result.identity, { run: WORKFLOW_ID, step: '0' });
          const store = await db.connect({ max: 1 });
          const [entry] = await new Ledger(store).list('acme');
          assert.deepEqual([entry.state, entry.key, entry.runId, entry.stepId], ['done', refunds[0].key, WORKFLOW_ID, '0']);
        }
      } finally {
        await db.drop();
      }
    }
  });

  // ---- in one process: DBOS launched on a fresh database, the ledger in it -------------------

  describe('in one process', () => {
    let db = null;
    let store = null;
    let ledger = null;
    let paid = [];
    let seen = [];
    let attempts = [];
    let loseAnswers = 0;
    let lookupDown = 0;
    const POLICY = { class: 'irreversible-external', reconcile: { lookup: 'find_refund' }, reconcileAfterMs: 1 };

    function pay(args, key) {
      const refund = { refund_id: `re_${paid.length + 1}`, ...args, key };
      paid.push(refund);
      if (loseAnswers > 0) {
        loseAnswers -= 1;
        throw new Error('the provider did not answer in time'); // paid; the answer is lost
      }
      return { refund_id: refund.refund_id, status: 'succeeded' };
    }

    // A step DBOS retries: the oncely effect in it, keyed by the step's own identity.
    const oncelyRefund = DBOS.registerStep(
      async (args) => {
        attempts.push(DBOS.stepStatus?.currentAttempt);
        const identity = stepIdentity();
        const { value } = await ledger.effect({ scope: 'acme', ...identity, tool: 'refund', args }, POLICY, (key) => {
          seen.push(identity);
          return pay(args, key);
        });
        return value;
      },
      { name: 'oncelyRefund', retriesAllowed: true, maxAttempts: 3, intervalSeconds: 0.01, backoffRate: 1 },
    );
    const bareRefund = DBOS.registerStep(
      async (args) => {
        attempts.push(DBOS.stepStatus?.currentAttempt);
        return pay(args, null);
      },
      { name: 'bareRefund', retriesAllowed: true, maxAttempts: 3, intervalSeconds: 0.01, backoffRate: 1 },
    );
    const oneRefund = DBOS.registerWorkflow(async (args, bare) => (bare ? bareRefund(args) : oncelyRefund(args)), { name: 'oneRefund' });
    const twoInstallments = DBOS.registerWorkflow(async (args) => [await oncelyRefund(args), await oncelyRefund(args)], { name: 'twoInstallments' });
    const inBody = DBOS.registerWorkflow(async () => stepIdentity(), { name: 'inBody' });
    const runOnly = DBOS.registerWorkflow(async () => runStep((identity) => identity, { byStep: false, name: 'runOnly' }), { name: 'runOnly' });
    const named = DBOS.registerWorkflow(async () => [await runStep((identity) => identity), await runStep(function refundStep(identity) { return identity; })], { name: 'named' });

    const start = (fn, workflowID, ...args) => DBOS.startWorkflow(fn, { workflowID })(...args).then((h) => h.getResult());

    before(async () => {
      if (skip) return;
      db = await freshDatabase('dbos_one');
      store = await db.connect({ max: 2 });
      ledger = new Ledger(store, { owner: 'w1' });
      ledger.reconciler('refund', async (req) => {
        if (lookupDown > 0) {
          lookupDown -= 1;
          throw new Error('the provider cannot be reached');
        }
        const r = paid.find((x) => x.key === req.key);
        return r ? happened({ refund_id: r.refund_id, status: 'succeeded' }) : notHappened();
      });
      DBOS.setConfig({ name: 'oncely-dbos-tests', systemDatabaseUrl: db.url, logLevel: 'warn' });
      await DBOS.launch();
    });
    after(async () => {
      if (db === null) return;
      await DBOS.shutdown();
      await db.drop();
    });
    const fresh = () => {
      paid = [];
      seen = [];
      attempts = [];
      loseAnswers = 0;
      lookupDown = 0;
    };

    test('a step is keyed by its workflow id and its function id', async (t) => {
      if (skip) return t.skip(skip);
      fresh();
      const out = await start(oneRefund, 'wf-identity', { charge_id: 'ch_1', amount_cents: 500 }, false);
      assert.deepEqual(out, { refund_id: 're_1', status: 'succeeded' });
      assert.deepEqual(seen, [{ run: 'wf-identity', step: '0' }]);
      const [entry] = (await ledger.list('acme')).filter((e) => e.runId === 'wf-identity');
      assert.deepEqual([entry.runId, entry.stepId, entry.key], ['wf-identity', '0', paid[0].key]);
    });

    test('a step DBOS retries after a lost answer pays once; bare, twice', async (t) => {
      if (skip) return t.skip(skip);
      fresh();
      loseAnswers = 1; // paid, then the answer is lost
      lookupDown = 1; // and the lookup cannot tell yet: in doubt, the step fails and DBOS retries it
      const out = await start(oneRefund, `wf-retry-${process.pid}`, { charge_id: 'ch_1', amount_cents: 500 }, false);
      assert.deepEqual(attempts, [1, 2], 'DBOS ran the step again (its attempts count from 1)');
      assert.equal(paid.length, 1);
      assert.deepEqual(out, { refund_id: 're_1', status: 'succeeded' });
      assert.equal(seen.length, 1, 'the retry settled the call by the lookup; it did not pay again');
      console.log(`# dbos: a step retried by DBOS after a lost answer: oncely -> ${paid.length} refund(s)`);

      fresh();
      loseAnswers = 1;
      await start(oneRefund, `wf-retry-bare-${process.pid}`, { charge_id: 'ch_1', amount_cents: 500 }, true);
      assert.deepEqual(attempts, [1, 2]);
      assert.equal(paid.length, 2);
      console.log(`# dbos: a step retried by DBOS after a lost answer: bare -> ${paid.length} refund(s)`);
    });

    test('the same call at two positions of a workflow is two effects', async (t) => {
      if (skip) return t.skip(skip);
      fresh();
      const [a, b] = await start(twoInstallments, 'wf-two', { charge_id: 'ch_1', amount_cents: 500 });
      assert.deepEqual(seen, [{ run: 'wf-two', step: '0' }, { run: 'wf-two', step: '1' }]);
      assert.equal(paid.length, 2);
      assert.notEqual(a.refund_id, b.refund_id);
    });

    test('runStep hands the identity to its action; byStep: false gives the run only', async (t) => {
      if (skip) return t.skip(skip);
      assert.deepEqual(await start(runOnly, 'wf-run-only'), { run: 'wf-run-only' });
      assert.deepEqual(await start(named, 'wf-named'), [{ run: 'wf-named', step: '0' }, { run: 'wf-named', step: '1' }]);
      // The step's name in DBOS: the config's, else the action's, else 'oncely'.
      const steps = await DBOS.listWorkflowSteps('wf-named');
      assert.deepEqual(steps.map((s) => s.name), ['oncely', 'refundStep']);
    });

    test('outside a step of a workflow the identity is refused', async (t) => {
      if (skip) return t.skip(skip);
      assert.throws(() => stepIdentity(), { name: 'TypeError', message: /outside any DBOS workflow/ });
      await assert.rejects(start(inBody, 'wf-in-body'), { message: /in a workflow, not in a step/ });
      // A step called outside any workflow runs as a plain function: no workflow id to key by.
      await assert.rejects(runStep((identity) => identity), { name: 'TypeError', message: /outside any DBOS workflow/ });
      assert.throws(() => runStep('refund'), { name: 'TypeError', message: /action must be a function/ });
    });
  });
});
