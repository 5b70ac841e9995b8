// oncely/mastra from the installed package, with the application's own Mastra (`@mastra/core@1`,
// which says it needs Node 22.13; called by scripts/release-check.sh on Node 22) and AI SDK 7 for
// its scripted model (MockLanguageModelV4 of `ai/test`, no network; Mastra agents take AI SDK
// models). An Agent with memory on a thread (core's own MockMemory: no @mastra/memory needed)
// calls `refund`, whose first reply is lost (the tool times out), and asks again with a new
// tool-call id and the same intent in other words. The provider pays every refund it is asked for.
// Through oncely the lost reply is settled by the provider's lookup (by its key), and the re-ask is
// the same run (the thread): it gets the same refund. One refund, not two.
//
//   node mastra.mjs
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Agent } from '@mastra/core/agent';
import { MockMemory } from '@mastra/core/memory';
import { createTool } from '@mastra/core/tools';
import { MockLanguageModelV4 } from 'ai/test';
import { happened, Ledger, MemoryStore, notHappened } from 'oncely';
import { once } from 'oncely/mastra';
import { z } from 'zod';

const refunds = [];
async function pay(args, { idempotencyKey, signal }) {
  refunds.push({ ...args, idempotencyKey });
  if (refunds.length === 1) await new Promise((_, fail) => signal.addEventListener('abort', () => fail(new Error('timed out'))));
  return { refund_id: `re_${refunds.length}`, ...args };
}

const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };
const turns = [
  [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'refund', input: '{"charge_id":"ch_1","amount_cents":500}' }],
  [{ type: 'tool-call', toolCallId: 'call_2', toolName: 'refund', input: '{"amount_cents":5e2,"charge_id":"ch_1"}' }],
  [{ type: 'text', text: 'Refunded.' }],
];
let turn = 0;
const model = new MockLanguageModelV4({
  doGenerate: async () => {
    const content = turns[turn++];
    return { content, finishReason: { unified: content[0].type === 'text' ? 'stop' : 'tool-calls', raw: undefined }, usage, warnings: [] };
  },
});

const effects = [];
const ledger = new Ledger(new MemoryStore());
ledger.reconciler('refund', async (req) => {
  const i = refunds.findIndex((r) => r.idempotencyKey === req.key);
  return i < 0 ? notHappened() : happened({ refund_id: `re_${i + 1}`, charge_id: refunds[i].charge_id, amount_cents: refunds[i].amount_cents });
});
const refund = once(
  createTool({
    id: 'refund',
    description: 'Refund a charge',
    inputSchema: z.object({ charge_id: z.string(), amount_cents: z.number().int() }),
    execute: async (args, context) => pay(args, { idempotencyKey: context.oncely?.key, signal: AbortSignal.any([context.abortSignal, AbortSignal.timeout(150)].filter(Boolean)) }),
  }),
  { ledger, policy: { class: 'irreversible-external', reconcile: { lookup: 'find_refund' }, maxCallMs: 150, reconcileAfterMs: 1 }, onEffect: (e) => effects.push(e) },
);

const agent = new Agent({ id: 'refunds', name: 'refunds', instructions: 'You refund charges.', model, tools: { refund }, memory: new MockMemory() });
const r = await agent.generate('Refund $5 on ch_1.', { maxSteps: 6, memory: { thread: 'thread-1', resource: 'user-1' } });
const seen = r.steps.flatMap((s) => s.content).filter((c) => c.type === 'tool-result');
const made = { refund_id: 're_1', charge_id: 'ch_1', amount_cents: 500 };
assert.deepEqual(seen.map((c) => [c.toolCallId, c.output]), [['call_1', { type: 'json', value: made }], ['call_2', { type: 'json', value: made }]]);
assert.equal(r.text, 'Refunded.');
assert.equal(refunds.length, 1, 'the re-ask paid again');
assert.deepEqual(effects.map((e) => [e.run, e.toolCallId, e.replayed, e.reconciled]), [['thread-1', 'call_1', true, true], ['thread-1', 'call_2', true, false]]);
const version = createRequire(import.meta.url)('@mastra/core/package.json').version;
console.log(`   mastra (@mastra/core ${version}): call_1 timed out and was found by its key; call_2 on the same thread replayed it; ${refunds.length} refund`);
