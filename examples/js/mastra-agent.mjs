#!/usr/bin/env node
// Mastra with oncely: an Agent with memory on a thread, a scripted model (the AI SDK's
// MockLanguageModelV4, no network) that calls `refund`, reads a timeout, and asks again with a new
// tool-call id and the same intent in other words. The first reply is lost, and the provider
// cannot be reached to ask about it at first; it pays every refund it gets. Bare, the re-ask pays
// again; through oncely, the re-ask (same thread, same run) finds the first refund by its key (the
// provider's lookup) and pays nothing.
//
//   npm install oncely @mastra/core@1 @mastra/memory@1 ai@7 zod@4 && node mastra-agent.mjs
import { Agent } from '@mastra/core/agent';
import { InMemoryStore } from '@mastra/core/storage';
import { createTool } from '@mastra/core/tools';
import { Memory } from '@mastra/memory';
import { MockLanguageModelV4 } from 'ai/test';
import { happened, Ledger, MemoryStore, notHappened } from 'oncely';
import { once } from 'oncely/mastra';
import { z } from 'zod';

// A provider that pays every refund it gets; the first reply is lost; the first lookup fails.
function provider() {
  const refunds = [];
  let lookups = 0;
  return {
    refunds,
    async refund(args, { idempotencyKey, signal }) {
      refunds.push({ ...args, idempotencyKey });
      if (refunds.length === 1) {
        // No answer: the call ends when its signal aborts (or the connection drops, 5 s later).
        await new Promise((_, fail) => {
          const t = setTimeout(() => fail(new Error('connection reset')), 5000);
          signal.addEventListener('abort', () => (clearTimeout(t), fail(new Error('timed out'))));
        });
      }
      return { refund_id: `re_${refunds.length}`, ...args };
    },
    async findByKey(idempotencyKey) {
      if (++lookups === 1) throw new Error('the provider cannot be reached');
      const i = refunds.findIndex((r) => r.idempotencyKey === idempotencyKey);
      return i < 0 ? null : { refund_id: `re_${i + 1}`, charge_id: refunds[i].charge_id, amount_cents: refunds[i].amount_cents };
    },
  };
}

// The tool as you write it (a 150 ms client timeout); `context.oncely` (the key) is there when wrapped.
const refundTool = (pay) =>
  createTool({
    id: 'refund',
    description: 'Refund a charge',
    inputSchema: z.object({ charge_id: z.string(), amount_cents: z.number().int() }),
    execute: async (args, context) =>
      pay.refund(args, { idempotencyKey: context.oncely?.key, signal: AbortSignal.any([context.abortSignal, AbortSignal.timeout(150)].filter(Boolean)) }),
  });

// The model: asks, reads the error, asks again (a new id, the members reordered, 500 as 5e2).
function scriptedModel() {
  const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };
  const call = (toolCallId, input) => ({ type: 'tool-call', toolCallId, toolName: 'refund', input });
  const turns = [[call('call_1', '{"charge_id":"ch_1","amount_cents":500}')], [call('call_2', '{"amount_cents":5e2,"charge_id":"ch_1"}')], [{ type: 'text', text: 'Refunded.' }]];
  let n = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => {
      const content = turns[n++];
      return { content, finishReason: { unified: content[0].type === 'tool-call' ? 'tool-calls' : 'stop', raw: undefined }, usage, warnings: [] };
    },
  });
}

async function chat(refund) {
  const memory = new Memory({ storage: new InMemoryStore() }); // or @mastra/libsql's LibSQLStore
  const agent = new Agent({ id: 'refunds', name: 'refunds', instructions: 'You refund charges.', model: scriptedModel(), tools: { refund }, memory });
  const r = await agent.generate('Refund $5 on ch_1.', { maxSteps: 6, memory: { thread: 'thread-1', resource: 'user-1' } });
  // What the model read for each call: Mastra's tool error (its text), or the result.
  for (const c of r.steps.flatMap((s) => s.content).filter((x) => x.type === 'tool-result')) {
    const { type, value } = c.output;
    console.log(`   ${c.toolCallId}: ${type === 'error-text' ? `error: ${value.split('. ')[0]}` : JSON.stringify(value)}`);
  }
}

console.log('bare tool:');
const barePay = provider();
await chat(refundTool(barePay));

console.log('through oncely:');
const pay = provider();
// ---- oncely: the run is Mastra's memory thread; an unknown outcome is settled by the lookup -----
const ledger = new Ledger(new MemoryStore()); // or SqliteStore / PostgresStore, shared by every worker
ledger.reconciler('refund', async (req) => {
  const found = await pay.findByKey(req.key);
  return found ? happened(found) : notHappened();
});
const policy = { class: 'irreversible-external', reconcile: { lookup: 'find_refund' }, maxCallMs: 150, reconcileAfterMs: 1 };
const refund = once(refundTool(pay), { ledger, policy });
// -------------------------------------------------------------------------------------------------
await chat(refund);

console.log(`\nrefunds made   bare: ${barePay.refunds.length}   oncely: ${pay.refunds.length}`);
process.exit(pay.refunds.length === 1 ? 0 : 1);
