// oncely/ai from the installed package, with the application's own AI SDK 7 (`ai@7`, which needs
// Node 22; called by scripts/release-check.sh on Node 22). generateText's agent loop is driven by
// the SDK's own scripted model (MockLanguageModelV4 of `ai/test`, no network): it calls `refund`,
// sees the SDK time the tool out, and asks again with a new tool-call id and the same intent in
// other words. The provider is slow, not broken: it pays every refund it is asked for. Through
// oncely the re-ask waits for the first call and gets its refund: one refund, not two. The schema
// is the SDK's own `jsonSchema()`: oncely needs no zod (npm installs it as the SDK's own peer).
//
//   node ai-sdk.mjs
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { Ledger, MemoryStore } from 'oncely';
import { once } from 'oncely/ai';

const refunds = [];
// The provider's first reply takes 300 ms; the SDK gives a tool 100 ms.
async function pay(args, { idempotencyKey, signal }) {
  refunds.push({ ...args, idempotencyKey });
  const reply = { refund_id: `re_${refunds.length}`, ...args };
  if (refunds.length === 1) {
    await new Promise((ok, fail) => {
      setTimeout(ok, 300);
      signal?.addEventListener('abort', () => fail(signal.reason));
    });
  }
  return reply;
}

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
const turns = [
  [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'refund', input: '{"charge_id":"ch_1","amount_cents":500}' }],
  [{ type: 'tool-call', toolCallId: 'call_2', toolName: 'refund', input: '{"amount_cents":5e2,"charge_id":"ch_1"}' }],
  [{ type: 'text', text: 'Refunded.' }],
];
let turn = 0;
const model = new MockLanguageModelV4({
  doGenerate: async () => {
    if (turn > 0) await new Promise((r) => setTimeout(r, 600)); // the model takes its time
    const content = turns[turn++];
    return { content, finishReason: { unified: content[0].type === 'text' ? 'stop' : 'tool-calls', raw: undefined }, usage, warnings: [] };
  },
});

const effects = [];
const ledger = new Ledger(new MemoryStore());
const refund = once(
  tool({
    description: 'Refund a charge',
    inputSchema: jsonSchema({ type: 'object', properties: { charge_id: { type: 'string' }, amount_cents: { type: 'integer' } }, required: ['charge_id', 'amount_cents'] }),
    execute: async (args, { abortSignal, oncely }) => pay(args, { idempotencyKey: oncely?.key, signal: abortSignal }),
  }),
  { ledger, name: 'refund', run: 'chat-42', policy: { class: 'irreversible-external' }, onEffect: (e) => effects.push(e) },
);

const r = await generateText({ model, tools: { refund }, prompt: 'Refund $5 on ch_1.', stopWhen: stepCountIs(5), timeout: { toolMs: 100 } });
const seen = r.steps.flatMap((s) => s.content).filter((c) => c.type === 'tool-result' || c.type === 'tool-error');
assert.deepEqual(seen.map((c) => [c.toolCallId, c.type]), [['call_1', 'tool-error'], ['call_2', 'tool-result']]);
assert.deepEqual(seen[1].output, { refund_id: 're_1', charge_id: 'ch_1', amount_cents: 500 });
assert.equal(r.text, 'Refunded.');
assert.equal(refunds.length, 1, 'the re-ask paid again');
assert.match(refunds[0].idempotencyKey, /^oncely1:[0-9a-f]{64}$/);
assert.deepEqual(effects.map((e) => [e.toolCallId, e.replayed]), [['call_1', false], ['call_2', true]]);
const version = createRequire(import.meta.url)('ai/package.json').version;
console.log(`   ai (${version}): the SDK timed call_1 out; call_2 got its refund; ${refunds.length} refund`);
