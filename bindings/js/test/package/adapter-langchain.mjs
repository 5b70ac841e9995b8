// oncely/langchain from the installed package, with the application's own @langchain/core (the
// peer it declares; called by scripts/release-check.sh in a fresh project). The tool is a real
// `tool()` of @langchain/core, so the adapter's `instanceof DynamicStructuredTool` holds only when
// the package resolves the application's copy. It is called as an agent loop calls it: with a tool
// call and LangGraph's thread as `configurable.thread_id`. A model asking again (a new tool-call
// id, the arguments in other words) gets the first refund back; another thread is another effect;
// a call whose outcome cannot be known is answered with the core's text as an error ToolMessage.
//
//   node adapter-langchain.mjs
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Ledger, MemoryStore } from 'oncely';
import { once } from 'oncely/langchain';

const refunds = [];
const schema = {
  type: 'object',
  properties: { charge_id: { type: 'string' }, amount_cents: { type: 'integer' } },
  required: ['charge_id', 'amount_cents'],
};
// The tool as a user writes it: the key (when wrapped) goes to the provider, which pays every
// refund it is asked for; a charge "ch_lost" pays and then loses the reply.
const refundTool = tool(
  async (args, config) => {
    refunds.push({ ...args, idempotencyKey: config.oncely?.key });
    if (args.charge_id === 'ch_lost') throw new Error('connection reset');
    return JSON.stringify({ refund_id: `re_${refunds.length}`, ...args });
  },
  { name: 'refund', description: 'Refund a charge', schema },
);

const effects = [];
const ledger = new Ledger(new MemoryStore());
const refund = once(refundTool, { ledger, policy: { class: 'irreversible-external' }, onEffect: (e) => effects.push(e) });
assert.equal(refund.name, 'refund');
assert.deepEqual(refund.schema, schema, 'the schema the model sees changed');

const call = (id, args, thread) =>
  refund.invoke({ type: 'tool_call', id, name: 'refund', args }, { configurable: { thread_id: thread } });

const first = await call('call_1', { charge_id: 'ch_1', amount_cents: 500 }, 'thread-1');
assert.ok(first instanceof ToolMessage, `got ${first?.constructor?.name}`);
assert.equal(first.tool_call_id, 'call_1');
assert.deepEqual(JSON.parse(first.content), { refund_id: 're_1', charge_id: 'ch_1', amount_cents: 500 });

// The model asks again: a new id, members reordered, 500 as 5e2. The same effect: no new refund.
const again = await call('call_2', JSON.parse('{"amount_cents":5e2,"charge_id":"ch_1"}'), 'thread-1');
assert.equal(again.tool_call_id, 'call_2');
assert.equal(again.content, first.content);
assert.equal(refunds.length, 1, 'the re-ask paid again');
assert.match(refunds[0].idempotencyKey, /^oncely1:[0-9a-f]{64}$/);

// Another thread is another run: another effect, another key.
await call('call_3', { charge_id: 'ch_1', amount_cents: 500 }, 'thread-2');
assert.equal(refunds.length, 2);
assert.notEqual(refunds[1].idempotencyKey, refunds[0].idempotencyKey);

// A lost reply, no reconciler (the default policy escalates): the model reads the core's answer.
const lost = await call('call_4', { charge_id: 'ch_lost', amount_cents: 1 }, 'thread-1');
assert.equal(lost.status, 'error');
assert.match(String(lost.content), /^oncely: /);
assert.equal(lost.artifact?.key, refunds[2].idempotencyKey);
const lostAgain = await call('call_5', { charge_id: 'ch_lost', amount_cents: 1 }, 'thread-1');
assert.equal(lostAgain.status, 'error');
assert.equal(refunds.length, 3, 'an unknown outcome was retried blindly');

assert.deepEqual(effects.map((e) => [e.toolCallId, e.replayed]).slice(0, 3), [['call_1', false], ['call_2', true], ['call_3', false]]);
const version = createRequire(import.meta.url)('@langchain/core/package.json').version;
console.log(`   langchain (@langchain/core ${version}): ${refunds.length} refunds for 5 tool calls; the model read: ${String(lost.content).split('\n')[0]}`);
