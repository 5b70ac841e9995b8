#!/usr/bin/env node
// A scripted agent loop (no LLM) that retries a tool call after a timeout — the way agent
// runtimes and models do — against a payment provider whose reply gets lost after it made the
// refund. Run twice over the same script: with a naive retry, and with the tool wrapped by oncely's
// ledger. The naive loop refunds four times; oncely refunds once.
//
//   node agent-loop.mjs [--db ledger.db]      (SQLite via better-sqlite3; default: in memory)
//
// Needs the oncely package (`oncely`) installed next to it.
import { parseArgs } from 'node:util';
import { AmbiguousFailure, checkTools, happened, Ledger, MemoryStore, notHappened, resolveTool } from 'oncely';

// ---- the provider: makes every refund it is asked for; loses the reply of the first one -------
function flakyPay() {
  const refunds = [];
  let replyLost = false;
  return {
    refunds,
    async refund({ charge_id, amount_cents }, idempotencyKey) {
      refunds.push({ charge_id, amount_cents, idempotencyKey });
      const reply = { refund_id: `re_${refunds.length}`, charge_id, amount_cents };
      if (!replyLost) {
        replyLost = true;
        await new Promise((r) => setTimeout(r, 200)); // the reply never makes it in time
      }
      return reply;
    },
    /** What a reconciler asks: the refund made with this key, if any. */
    findByKey(key) {
      const i = refunds.findIndex((r) => r.idempotencyKey === key);
      return i < 0 ? null : { refund_id: `re_${i + 1}`, charge_id: refunds[i].charge_id, amount_cents: refunds[i].amount_cents };
    },
  };
}

// ---- the tool, as an MCP server would list it, with its oncely policy -----------------------------
const REFUND_TOOL = {
  name: 'refund',
  description: 'Refund a charge',
  inputSchema: { type: 'object', properties: { charge_id: { type: 'string' }, amount_cents: { type: 'integer' }, reason: { type: 'string' } } },
  annotations: { destructiveHint: true, openWorldHint: true },
  _meta: { 'oncely/policy': { key: { only: ['/charge_id'], identity: 'scope' }, reconcile: { lookup: 'find_refund' }, leaseMs: 30000 } },
};
const LOOKUP_TOOL = { name: 'find_refund', annotations: { readOnlyHint: true } };

/** Call with a deadline: past it, the caller cannot tell whether the call took effect. */
async function withTimeout(promise, ms) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new AmbiguousFailure(`no reply within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// ---- the script the "model" follows -----------------------------------------------------------
// turn 1: call refund; the runtime retries the call once after a timeout.
// turn 2: the model, seeing no confirmation, asks for the refund again (a new step).
// turn 3: the run is redelivered to another worker, which replays the same step.
const SCRIPT = [
  { step: 'turn-1', note: 'model calls refund(ch_123, $50); the reply times out; the runtime retries' },
  { step: 'turn-2', note: 'the model, unsure it worked, calls refund again' },
  { step: 'turn-1', note: 'the queue redelivers turn 1 to another worker' },
];
const ARGS = { charge_id: 'ch_123', amount_cents: 5000, reason: 'damaged on arrival' };

async function agent(callTool) {
  const log = [];
  for (const turn of SCRIPT) {
    let result;
    for (let attempt = 1; attempt <= 2; attempt++) {
      try {
        result = await callTool(turn.step, ARGS);
        break;
      } catch (e) {
        result = { error: e.message };
      }
    }
    log.push({ ...turn, result });
  }
  return log;
}

const { values } = parseArgs({ options: { db: { type: 'string' } } });

// The release gate: the tool list declares how the refund is guarded.
const report = checkTools({ tools: [REFUND_TOOL, LOOKUP_TOOL] });
if (!report.passed) {
  console.error('tool list check failed:', report.findings);
  process.exit(1);
}

// 1. naive: the tool as it is.
const naivePay = flakyPay();
const naive = await agent((step, args) => withTimeout(naivePay.refund(args), 50));

// 2. oncely: the same tool, through the ledger.
const oncelyPay = flakyPay();
let store;
if (values.db) {
  const { SqliteStore } = await import('oncely/sqlite');
  store = await SqliteStore.open(values.db);
} else store = new MemoryStore();
const ledger = new Ledger(store, { owner: 'agent-worker-1' });
ledger.reconciler('refund', async (req) => {
  const found = oncelyPay.findByKey(req.key);
  return found ? happened(found) : notHappened();
});
const { policy } = resolveTool(REFUND_TOOL);
const guarded = await agent(async (step, args) => {
  const r = await ledger.effect({ scope: 'shop-42', run: 'conv-7', step, tool: 'refund', args }, policy, (key) =>
    withTimeout(oncelyPay.refund(args, key), 50),
  );
  return { ...r.value, replayed: r.replayed, reconciled: r.reconciled };
});
await store.close?.();

const show = (r) => (r.error ? `error: ${r.error}` : `${r.refund_id}${r.replayed ? ' (replayed' + (r.reconciled ? ', reconciled' : '') + ')' : ''}`);
console.log('scripted agent: refund $50.00 on ch_123, with a reply lost to a timeout\n');
SCRIPT.forEach((t, i) => {
  console.log(`${i + 1}. ${t.note}`);
  console.log(`   naive : ${show(naive[i].result)}`);
  console.log(`   oncely  : ${show(guarded[i].result)}`);
});
const dollars = (n) => `$${(n * 50).toFixed(2)}`;
console.log(`\nrefunds made   naive: ${naivePay.refunds.length} (${dollars(naivePay.refunds.length)})   oncely: ${oncelyPay.refunds.length} (${dollars(oncelyPay.refunds.length)})`);
const ok = oncelyPay.refunds.length === 1 && guarded.every((g) => !g.result.error);
console.log(ok ? 'oncely: refunded exactly once.' : 'oncely: REFUNDED MORE THAN ONCE (bug)');
process.exit(ok ? 0 : 1);
