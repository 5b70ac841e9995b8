#!/usr/bin/env node
// The Vercel AI SDK (ai 7) with oncely: generateText's agent loop, a scripted model (the SDK's own
// MockLanguageModelV4, no network) that calls `refund`, sees the SDK time the tool out, and asks
// again with a new tool-call id and the same intent in other words. The provider is slow, not
// broken: it pays every refund it is asked for. Bare, the re-ask pays again; through oncely, the
// re-ask gets the first refund.
//
//   npm install oncely ai@7 zod@4 && node ai-sdk.mjs
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { Ledger, MemoryStore } from 'oncely';
import { once } from 'oncely/ai';
import { z } from 'zod';

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

// The tool as you write it; `oncely` (the key) is there when the tool is wrapped.
const refundTool = (pay) =>
  tool({
    description: 'Refund a charge',
    inputSchema: z.object({ charge_id: z.string(), amount_cents: z.number().int() }),
    execute: async (args, { abortSignal, oncely }) => pay.refund(args, { idempotencyKey: oncely?.key, signal: abortSignal }),
  });

function scriptedModel() {
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
  const turns = [
    [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'refund', input: '{"charge_id":"ch_1","amount_cents":500}' }],
    [{ type: 'tool-call', toolCallId: 'call_2', toolName: 'refund', input: '{"amount_cents":5e2,"charge_id":"ch_1"}' }],
    [{ type: 'text', text: 'Refunded.' }],
  ];
  let i = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => {
      if (i > 0) await new Promise((r) => setTimeout(r, 600)); // the model takes its time
      const content = turns[i++];
      return { content, finishReason: { unified: content[0].type === 'text' ? 'stop' : 'tool-calls', raw: undefined }, usage, warnings: [] };
    },
  });
}

async function chat(tools) {
  const r = await generateText({ model: scriptedModel(), tools, prompt: 'Refund $5 on ch_1.', stopWhen: stepCountIs(5), timeout: { toolMs: 100 } });
  const seen = r.steps.flatMap((s) => s.content).filter((c) => c.type === 'tool-result' || c.type === 'tool-error');
  for (const c of seen) console.log(`   ${c.toolCallId}: ${c.type === 'tool-error' ? `error (${c.error?.message ?? c.error})` : JSON.stringify(c.output)}`);
}

console.log('bare tool:');
const barePay = provider();
await chat({ refund: refundTool(barePay) });

console.log('through oncely:');
const pay = provider();
// ---- oncely: two lines ---------------------------------------------------------------------------
const ledger = new Ledger(new MemoryStore()); // or SqliteStore / PostgresStore, shared by every worker
const refund = once(refundTool(pay), { ledger, name: 'refund', run: 'chat-42', policy: { class: 'irreversible-external' } });
// -------------------------------------------------------------------------------------------------
await chat({ refund });

console.log(`\nrefunds made   bare: ${barePay.refunds.length}   oncely: ${pay.refunds.length}`);
process.exit(pay.refunds.length === 1 ? 0 : 1);
