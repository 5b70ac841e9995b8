// oncely/dbos against the real DBOS (@dbos-inc/dbos-sdk) on PostgreSQL: a workflow whose step
// refunds a charge. The kill-resume story (examples/js/dbos-workflow.mjs, run here): the worker is
// SIGKILLed inside the step after the provider paid, before DBOS records the step's output; a new
// worker launches DBOS, whose own recovery (`DBOS.launch()` recovers this executor's PENDING
// workflows) re-executes the step. Bare it pays twice; through the ledger, keyed by the workflow id
// and the step's function id, once. DBOS's system tables and the ledger share a fresh PostgreSQL
// database per test (DBOS's schema `dbos`, the ledger's `oncely`). And in one process: the identity
// a step gets, a step DBOS retries after a lost answer, two positions, the refusal outside a step.
//
// Needs ONCELY_TEST_POSTGRES_URL (scripts/with-postgres); without it the tests skip loudly, and
// fail when ONCELY_REQUIRE_POSTGRES=1 or CI is set.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { happened, Ledger, notHappened } from 'oncely';
import { runStep, stepIdentity } from 'oncely/dbos';
import * as compat from './helpers/compat.mjs';
import { REPO } from './helpers/env.mjs';
import { freshDatabase, postgresUnavailable } from './helpers/pg.mjs';

const DBOS_JS = { framework: 'DBOS', package: '@dbos-inc/dbos-sdk', run: "the workflow id (step: the step's function id)" };
const HOW = 'SIGKILL, recovered by DBOS.launch() in a new process';

const examples = join(dirname(fileURLToPath(import.meta.url)), '../.tmp/examples');

/**
 * examples/js/dbos-workflow.mjs, run as a user would (next to the installed package and DBOS) on
 * the database `url`: it runs each story's two workers itself.
 */
function runExample(url) {
  mkdirSync(examples, { recursive: true });
  const file = join(examples, 'dbos-workflow.mjs');
  copyFileSync(join(REPO, 'examples/js/dbos-workflow.mjs'), file);
  const r = spawnSync(process.execPath, [file], { cwd: examples, encoding: 'utf8', timeout: 300_000, env: { ...process.env, DBOS_SYSTEM_DATABASE_URL: url } });
  assert.equal(r.status, 0, `dbos-workflow.mjs:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** What the example printed of one story: DBOS's recovery, the workflow, its result and steps, the refunds. */
function story(out, guarded) {
  const m = new RegExp(`^${guarded}: paid, killed in the step; DBOS recovered (\\d+) workflow\\(s\\) on launch\n {3}(\\S+): (.*), steps (.*), refunds made: (\\d+)$`, 'm').exec(out);
  assert.ok(m, `the ${guarded} story is not in the output:\n${out}`);
  return { recovered: Number(m[1]), workflowID: m[2], result: JSON.parse(m[3]), steps: JSON.parse(m[4]), refunds: Number(m[5]) };
}

describe('DBOS on PostgreSQL', () => {
  let skip = null;
  before(async () => {
    skip = await postgresUnavailable();
  });

  test('examples/js/dbos-workflow.mjs: a worker killed in its step after paying, the workflow recovered by DBOS: twice bare, once with oncely', async (t) => {
    if (skip) return t.skip(skip);
    const db = await freshDatabase('dbos_example');
    try {
      const out = runExample(db.url);
      console.log(`# dbos-workflow.mjs: ${out.trim().split('\n').at(-1)}`);
      for (const guarded of ['bare', 'oncely']) {
        const s = story(out, guarded);
        console.log(`# dbos: killed in its step after paying, recovered by DBOS: ${guarded} -> ${s.refunds} refund(s)`);
        compat.record({ ...DBOS_JS, story: 'kill-resume', paid: s.refunds, bare: guarded === 'bare', how: HOW, engine: true });
        // DBOS, not the test, ran the workflow again: its recovery at launch, of the one step.
        assert.equal(s.recovered, 1, out);
        assert.deepEqual(s.steps, [{ functionID: 0, name: 'refund' }]);
        if (guarded === 'bare') {
          assert.equal(s.refunds, 2);
          assert.deepEqual(s.result, { refund: { refund_id: 're_2', status: 'succeeded' } });
        } else {
          assert.equal(s.refunds, 1);
          // The re-executed step found the dead worker's claim and settled it by the lookup.
          assert.deepEqual(s.result, { refund: { refund_id: 're_1', status: 'succeeded' }, identity: { run: s.workflowID, step: '0' } });
          const entries = await new Ledger(await db.connect({ max: 1 })).list('acme');
          assert.deepEqual(
            entries.map((e) => [e.state, e.runId, e.stepId]),
            [['done', s.workflowID, '0']],
          );
        }
      }
      assert.match(out, /refunds made {3}bare: 2 {3}oncely: 1\n/);
    } finally {
      await db.drop();
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
