#!/usr/bin/env node
// LangChain.js with oncely: `createAgent` (langchain 1.x, a LangGraph loop with a checkpointer),
// a scripted model (@langchain/core's fakeModel(), no network) that calls `refund`, reads a
// timeout, and asks again with a new tool-call id and the same intent in other words. The first
// reply is lost, and the provider cannot be reached to ask about it at first; it pays every refund
// it gets. Bare, the re-ask pays again; through oncely, the re-ask finds the first refund by its
// key (the provider's lookup) and pays nothing.
//
//   npm install oncely langchain@1 @langchain/core@1 @langchain/langgraph@1 zod@4 && node langchain.mjs
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { happened, Ledger, MemoryStore, notHappened } from 'oncely';
import { once } from 'oncely/langchain';
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

// The tool as you write it (a 150 ms client timeout); `config.oncely` (the key) is there when wrapped.
const refundTool = (pay) =>
  tool(
    async (args, config) => pay.refund(args, { idempotencyKey: config.oncely?.key, signal: AbortSignal.any([config.signal, AbortSignal.timeout(150)].filter(Boolean)) }),
    { name: 'refund', description: 'Refund a charge', schema: z.object({ charge_id: z.string(), amount_cents: z.number().int() }) },
  );

async function chat(tools) {
  const model = fakeModel()
    .respondWithTools([{ name: 'refund', args: { charge_id: 'ch_1', amount_cents: 500 }, id: 'call_1' }])
    .respondWithTools([{ name: 'refund', args: JSON.parse('{"amount_cents":5e2,"charge_id":"ch_1"}'), id: 'call_2' }])
    .respond(new AIMessage('Refunded.'));
  const agent = createAgent({ model, tools, checkpointer: new MemorySaver() });
  const r = await agent.invoke({ messages: [{ role: 'user', content: 'Refund $5 on ch_1.' }] }, { configurable: { thread_id: 'thread-1' } });
  for (const m of r.messages.filter((x) => x.type === 'tool')) console.log(`   ${m.tool_call_id}: ${m.content.split('\n')[0]}`);
}

console.log('bare tool:');
const barePay = provider();
await chat([refundTool(barePay)]);

console.log('through oncely:');
const pay = provider();
// ---- oncely: the run is LangGraph's thread_id; an unknown outcome is settled by the lookup -------
const ledger = new Ledger(new MemoryStore()); // or SqliteStore / PostgresStore, shared by every worker
ledger.reconciler('refund', async (req) => {
  const found = await pay.findByKey(req.key);
  return found ? happened(found) : notHappened();
});
const policy = { class: 'irreversible-external', reconcile: { lookup: 'find_refund' }, maxCallMs: 150, reconcileAfterMs: 1 };
const refund = once(refundTool(pay), { ledger, policy });
// -------------------------------------------------------------------------------------------------
await chat([refund]);

console.log(`\nrefunds made   bare: ${barePay.refunds.length}   oncely: ${pay.refunds.length}`);
process.exit(pay.refunds.length === 1 ? 0 : 1);
