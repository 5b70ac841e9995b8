#!/usr/bin/env node
// OpenAI Agents JS (@openai/agents 0.20) with oncely: the Runner's agent loop, a scripted model
// (the SDK's own ScriptedModel, no network) that calls `refund`, reads the SDK's tool timeout, and
// asks again with a new call id and the same intent in other words. The provider is slow, not
// broken: it pays every refund it is asked for. Bare, the re-ask pays again; through oncely, the
// re-ask gets the first refund.
//
//   npm install oncely @openai/agents@0.20 zod@4 && node openai-agents.mjs
import { Agent, run, setTracingDisabled, tool } from '@openai/agents';
import { assistantMessage, functionCall, modelResponder, ScriptedModel } from '@openai/agents/testing';
import { Ledger, MemoryStore } from 'oncely';
import { once } from 'oncely/openai-agents';
import { z } from 'zod';

setTracingDisabled(true); // nothing leaves this machine

// A provider that pays every refund it gets; its first answer takes 300 ms.
function provider() {
  const refunds = [];
  return {
    refunds,
    async refund(args, { idempotencyKey, signal }) {
      refunds.push({ ...args, idempotencyKey });
      const reply = { refund_id: `re_${refunds.length}`, ...args };
      if (refunds.length === 1) await new Promise((ok, fail) => (setTimeout(ok, 300), signal?.addEventListener('abort', () => fail(signal.reason))));
      return reply;
    },
  };
}

// The options of the tool as you write them (the SDK gives it 100 ms); `details.oncely` (the key)
// is there when wrapped.
const refundOptions = (pay) => ({
  name: 'refund',
  description: 'Refund a charge',
  parameters: z.object({ charge_id: z.string(), amount_cents: z.number().int() }),
  timeoutMs: 100,
  execute: async (args, _runContext, details) => pay.refund(args, { idempotencyKey: details?.oncely?.key, signal: details?.signal }),
});

function scriptedModel() {
  return new ScriptedModel([
    [functionCall('refund', '{"charge_id":"ch_1","amount_cents":500}', { callId: 'call_1' })],
    modelResponder(async () => {
      await new Promise((r) => setTimeout(r, 600)); // the model takes its time
      return [functionCall('refund', '{"amount_cents":5e2,"charge_id":"ch_1"}', { callId: 'call_2' })];
    }),
    [assistantMessage('Refunded.')],
  ]);
}

async function chat(refundTool) {
  const model = scriptedModel();
  await run(new Agent({ name: 'support', instructions: 'Refund what is asked.', model, tools: [refundTool] }), 'Refund $5 on ch_1.', { context: { conversationId: 'conv-7' } });
  // What the model was told about each of its calls.
  for (const item of model.lastCall.request.input) {
    if (item.type === 'function_call_result') console.log(`   ${item.callId}: ${typeof item.output === 'string' ? item.output : (item.output?.text ?? JSON.stringify(item.output))}`);
  }
}

console.log('bare tool:');
const barePay = provider();
await chat(tool(refundOptions(barePay)));

console.log('through oncely:');
const pay = provider();
// ---- oncely: wrap the options of tool(), not the built tool --------------------------------------
const ledger = new Ledger(new MemoryStore()); // or SqliteStore / PostgresStore, shared by every worker
const refund = tool(once(refundOptions(pay), { ledger, run: ({ runContext }) => runContext.context.conversationId }));
// -------------------------------------------------------------------------------------------------
await chat(refund);

console.log(`\nrefunds made   bare: ${barePay.refunds.length}   oncely: ${pay.refunds.length}`);
process.exit(pay.refunds.length === 1 ? 0 : 1);
