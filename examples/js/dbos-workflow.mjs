#!/usr/bin/env node
// DBOS with oncely: a durable workflow whose step refunds a charge, and a worker killed (SIGKILL)
// inside that step after the provider paid, before DBOS recorded the step's output. A new worker
// process launches DBOS, whose recovery re-executes the step of the PENDING workflow. Bare, the
// step pays again; through oncely, keyed by the workflow id and the step's function id, the
// re-executed step finds the dead worker's claim, settles it by the provider's lookup and pays
// nothing. DBOS's system tables and the ledger share one PostgreSQL database (schemas `dbos` and
// `oncely`).
//
//   npm install oncely @dbos-inc/dbos-sdk@5 pg
//   DBOS_SYSTEM_DATABASE_URL=postgres://user:pass@localhost:5432/refunds node dbos-workflow.mjs
//
// The script runs its workers itself: `node dbos-workflow.mjs first|resume bare|oncely ID DIR`.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { happened, Ledger, notHappened } from 'oncely';
import { runStep } from 'oncely/dbos';
import { PostgresStore } from 'oncely/postgres';

const url = process.env.DBOS_SYSTEM_DATABASE_URL;
if (!url) {
  console.error('dbos-workflow.mjs: set DBOS_SYSTEM_DATABASE_URL to a PostgreSQL database (DBOS and the ledger use it)');
  process.exit(2);
}

// A provider that pays every refund it gets (kept in a file, so that both workers see them).
const provider = (dir) => {
  const file = join(dir, 'refunds.jsonl');
  const refunds = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
  return {
    refunds,
    refund(args, idempotencyKey) {
      const refund = { refund_id: `re_${refunds().length + 1}`, ...args, idempotencyKey };
      appendFileSync(file, JSON.stringify(refund) + '\n');
      return { refund_id: refund.refund_id, status: 'succeeded' };
    },
    findByKey: (idempotencyKey) => refunds().find((r) => r.idempotencyKey === idempotencyKey) ?? null,
  };
};

/** One worker: `first` starts the workflow and dies in its step; `resume` lets DBOS recover it. */
async function worker(phase, guarded, workflowID, dir) {
  const pay = provider(dir);
  const refund = (args, key) => {
    const paid = pay.refund(args, key);
    if (phase === 'first') process.kill(process.pid, 'SIGKILL'); // paid; DBOS never records the step
    return paid;
  };
  // ---- oncely: the ledger beside DBOS; an unknown outcome is settled by the provider's lookup --
  const store = guarded === 'oncely' ? await PostgresStore.connect(url, { max: 2 }) : null;
  const ledger = store && new Ledger(store);
  ledger?.reconciler('refund', async (req) => {
    const found = pay.findByKey(req.key);
    return found ? happened({ refund_id: found.refund_id, status: 'succeeded' }) : notHappened();
  });
  // A short call deadline: the recovered step may settle the dead worker's claim soon after.
  const policy = { class: 'irreversible-external', reconcile: { lookup: 'find_refund' }, maxCallMs: 200, reconcileAfterMs: 1 };
  // -----------------------------------------------------------------------------------------------
  const refundWorkflow = DBOS.registerWorkflow(
    async (args) => {
      if (guarded === 'bare') return { refund: await DBOS.runStep(async () => refund(args, null), { name: 'refund' }) };
      // The step's effect through the ledger: run = the workflow id, step = the step's function id.
      return runStep(
        async (identity) => {
          const { value } = await ledger.effect({ scope: 'acme', ...identity, tool: 'refund', args }, policy, (key) => refund(args, key));
          return { refund: value, identity };
        },
        { name: 'refund' },
      );
    },
    { name: 'refundWorkflow' },
  );
  DBOS.setConfig({ name: 'refunds', systemDatabaseUrl: url });
  await DBOS.launch(); // recovers this executor's PENDING workflows: in `resume`, the killed one
  if (phase === 'first') {
    await DBOS.startWorkflow(refundWorkflow, { workflowID })({ charge_id: 'ch_1', amount_cents: 500 });
    await DBOS.retrieveWorkflow(workflowID).getResult(); // never returns: killed in the step
  }
  const result = await DBOS.retrieveWorkflow(workflowID).getResult();
  const steps = (await DBOS.listWorkflowSteps(workflowID)).map((s) => ({ functionID: s.functionID, name: s.name }));
  console.log(JSON.stringify({ result, steps }));
  await DBOS.shutdown();
  await store?.close();
}

const [phase, ...rest] = process.argv.slice(2);
if (phase !== undefined) {
  await worker(phase, ...rest);
} else {
  const made = {};
  for (const guarded of ['bare', 'oncely']) {
    const dir = mkdtempSync(join(tmpdir(), `dbos-${guarded}-`));
    const workflowID = `refund-${guarded}-${Date.now()}`; // your business id: one refund request
    const run = (p) => spawnSync(process.execPath, [fileURLToPath(import.meta.url), p, guarded, workflowID, dir], { encoding: 'utf8', timeout: 90_000 });
    const first = run('first');
    if (first.signal !== 'SIGKILL') throw new Error(`the first worker was not killed in its step:\n${first.stdout}${first.stderr}`);
    const resumed = run('resume');
    if (resumed.status !== 0) throw new Error(`the recovering worker failed:\n${resumed.stdout}${resumed.stderr}`);
    const recovered = /Recovering (\d+) workflows/.exec(resumed.stdout + resumed.stderr)?.[1] ?? '0';
    const { result, steps } = JSON.parse(resumed.stdout.trim().split('\n').at(-1));
    made[guarded] = provider(dir).refunds().length;
    console.log(`${guarded}: paid, killed in the step; DBOS recovered ${recovered} workflow(s) on launch`);
    console.log(`   ${workflowID}: ${JSON.stringify(result)}, steps ${JSON.stringify(steps)}, refunds made: ${made[guarded]}`);
  }
  console.log(`\nrefunds made   bare: ${made.bare}   oncely: ${made.oncely}`);
  process.exit(made.oncely === 1 ? 0 : 1);
}
