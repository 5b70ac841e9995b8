// oncely/ai against the real AI SDK (ai 7): generateText's agent loop, driven by the SDK's own
// MockLanguageModelV4 (ai/test) playing a model that calls `refund`, gets a timeout, and asks again
// with a new tool-call id and the same intent in other words; and a process killed inside the tool
// after paying, whose chat (the app's saved messages) a new process goes on with. The provider
// counts the refunds it makes; so do the tests.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateText, stepCountIs, tool } from 'ai';
import { AnsweredError, DefiniteFailure, IdentityError, identify, Ledger, MemoryStore, StorageError, ToolFailedError } from 'oncely';
import { once } from 'oncely/ai';
import { z } from 'zod';
import { scriptedModel } from './helpers/ai-model.mjs';
import * as compat from './helpers/compat.mjs';
import { assertPaid, killedThenResumed } from './helpers/killed.mjs';
import { payProvider } from './helpers/pay.mjs';

// The README's compatibility table (scripts/compat): what the stories below found.
const AI_SDK = { framework: 'Vercel AI SDK', package: 'ai', run: 'given (run: string or function of the call)' };

/** The core's refusal of a call context. */
function identifyError(ctx) {
  try {
    identify(ctx);
  } catch (e) {
    return e;
  }
  throw new Error('identify accepted the call');
}

const call = (toolCallId, input) => ({ type: 'tool-call', toolCallId, toolName: 'refund', input });
// The model asks, times out, and asks again: a new id, the members in another order, 500 as 5e2.
const REASK = [
  [call('call_1', '{"charge_id":"ch_1","amount_cents":500}')],
  [call('call_2', '{"amount_cents":5e2,"charge_id":"ch_1"}')],
  [{ type: 'text', text: 'Refunded.' }],
];

/** The refund tool as a user writes it: the key (when there is one) and the signal go to the provider. */
function refundTool(pay) {
  return tool({
    description: 'Refund a charge',
    inputSchema: z.object({ charge_id: z.string(), amount_cents: z.number().int() }),
    execute: async (args, { abortSignal, oncely }) => pay.refund(args, { idempotencyKey: oncely?.key, signal: abortSignal }),
  });
}

const POLICY = { class: 'irreversible-external', maxCallMs: 5000 };

async function agentLoop(tools, turns, extra = {}) {
  const { model, requests } = scriptedModel(turns, 600);
  const result = await generateText({ model, tools, prompt: 'Refund $5 on charge ch_1.', stopWhen: stepCountIs(6), ...extra });
  return { result, requests };
}

const toolResults = (result) => result.steps.flatMap((s) => s.content).filter((c) => c.type === 'tool-result' || c.type === 'tool-error');

test('agent loop: a model re-asking after a timeout is refunded once with oncely, twice without', async () => {
  // The provider answers the first refund after 300 ms; the SDK gives a tool 100 ms; the model
  // takes 600 ms to ask again.
  const timeout = { toolMs: 100 };

  const barePay = payProvider({ slowReplies: 1, replyMs: 300 });
  const bare = await agentLoop({ refund: refundTool(barePay) }, REASK, { timeout });
  console.log(`# ai: model re-asks after a timeout: bare tool -> ${barePay.count} refunds`);
  compat.record({ ...AI_SDK, story: 're-ask', paid: barePay.count, bare: true });
  assert.equal(barePay.count, 2, 'the scenario must pay twice without oncely');
  assert.equal(toolResults(bare.result)[0].type, 'tool-error');

  const pay = payProvider({ slowReplies: 1, replyMs: 300 });
  const ledger = new Ledger(new MemoryStore());
  const effects = [];
  const refund = once(refundTool(pay), { ledger, name: 'refund', run: 'chat-42', policy: POLICY, onEffect: (e) => effects.push(e) });
  const { result, requests } = await agentLoop({ refund }, REASK, { timeout });
  console.log(`# ai: model re-asks after a timeout: through oncely -> ${pay.count} refund(s)`);
  compat.record({ ...AI_SDK, story: 're-ask', paid: pay.count, bare: false });
  assert.equal(pay.count, 1);

  // The model saw the timeout, then the refund the provider made, on its second call.
  const [first, second] = toolResults(result);
  assert.equal(first.type, 'tool-error');
  assert.equal(first.toolCallId, 'call_1');
  assert.equal(second.type, 'tool-result');
  assert.equal(second.toolCallId, 'call_2');
  assert.deepEqual(second.output, { refund_id: 're_1', charge_id: 'ch_1', amount_cents: 500, status: 'succeeded' });
  assert.equal(result.text, 'Refunded.');
  // The key reached the provider; the re-ask was a replay of the one effect, its call id recorded.
  assert.match(pay.refunds[0].idempotencyKey, /^oncely1:[0-9a-f]{64}$/);
  // The first call, given up by the SDK, still settled and was told; the second replayed it.
  const record = (toolCallId, replayed) => ({ tool: 'refund', key: pay.refunds[0].idempotencyKey, scope: 'default', run: 'chat-42', step: null, toolCallId, replayed, reconciled: false });
  assert.deepEqual(effects, [record('call_1', false), record('call_2', true)]);
  // What the model was offered: the tool's own schema, no key parameter.
  const offered = requests[0].tools.find((t) => t.name === 'refund');
  assert.deepEqual(Object.keys(offered.inputSchema.properties).sort(), ['amount_cents', 'charge_id']);
  assert.deepEqual(offered.inputSchema.required.sort(), ['amount_cents', 'charge_id']);
});

test('execute directly: two tool-call ids, one intent -> one refund; another run or step -> another', async () => {
  const pay = payProvider();
  const ledger = new Ledger(new MemoryStore());
  const seen = [];
  const base = tool({
    description: 'Refund a charge',
    inputSchema: z.object({ charge_id: z.string(), amount_cents: z.number() }),
    execute: async (args, options) => {
      seen.push({ key: options.oncely.key, attempt: options.oncely.attempt, toolCallId: options.oncely.toolCallId, signal: options.abortSignal === options.oncely.signal });
      return pay.refund(args, { idempotencyKey: options.oncely.key });
    },
  });
  const refund = once(base, { ledger, name: 'refund', run: ({ options }) => options.context.chatId, policy: POLICY });
  const opts = (toolCallId, chatId) => ({ toolCallId, messages: [], context: { chatId } });

  const a = await refund.execute({ charge_id: 'ch_1', amount_cents: 500 }, opts('call_1', 'chat-1'));
  const b = await refund.execute({ amount_cents: 500, charge_id: 'ch_1' }, opts('call_2', 'chat-1'));
  assert.deepEqual(b, a);
  assert.equal(pay.count, 1);
  assert.equal(seen.length, 1);
  assert.deepEqual({ ...seen[0], key: undefined }, { key: undefined, attempt: 1, toolCallId: 'call_1', signal: true });

  await refund.execute({ charge_id: 'ch_1', amount_cents: 500 }, opts('call_3', 'chat-2'));
  assert.equal(pay.count, 2, 'another conversation is another run');

  const stepped = once(base, { ledger, name: 'refund', run: 'chat-1', step: ({ options }) => options.context.step, policy: POLICY });
  await stepped.execute({ charge_id: 'ch_1', amount_cents: 500 }, { ...opts('call_4', 'chat-1'), context: { step: 'refund-1' } });
  await stepped.execute({ charge_id: 'ch_1', amount_cents: 500 }, { ...opts('call_5', 'chat-1'), context: { step: 'refund-2' } });
  await stepped.execute({ charge_id: 'ch_1', amount_cents: 500 }, { ...opts('call_6', 'chat-1'), context: { step: 'refund-2' } });
  assert.equal(pay.count, 4, 'two named steps are two intended refunds; a step asked twice is one');
  // The tool and everything else of the SDK's tool object is kept.
  assert.equal(refund.description, 'Refund a charge');
  assert.equal(refund.inputSchema, base.inputSchema);
});

test('no run: the call is refused before anything happens, unless the key is natural', async () => {
  const pay = payProvider();
  const ledger = new Ledger(new MemoryStore());
  const base = refundTool(pay);
  const refund = once(base, { ledger, name: 'refund', policy: POLICY });
  // The refusal is the core's (agent.identify): an IdentityError `no-run` with its sentence (it
  // was a TypeError worded by this adapter before the core named calls).
  await assert.rejects(refund.execute({ charge_id: 'ch_1', amount_cents: 500 }, { toolCallId: 'c1', messages: [] }), (e) => {
    assert.ok(e instanceof IdentityError);
    assert.equal(e.kind, 'no-run');
    assert.equal(e.message, identifyError({ tool: 'refund' }).message);
    return true;
  });
  assert.equal(pay.count, 0);
  // One refund per charge, ever, in the scope: no run needed.
  const natural = once(base, { ledger, name: 'refund', policy: { ...POLICY, key: { only: ['/charge_id'], identity: 'scope' } } });
  await natural.execute({ charge_id: 'ch_9', amount_cents: 500 }, { toolCallId: 'c2', messages: [] });
  await natural.execute({ charge_id: 'ch_9', amount_cents: 500 }, { toolCallId: 'c3', messages: [] });
  assert.equal(pay.count, 1);
  assert.throws(() => once(base, { ledger, run: 'r' }), /the tool has no name; give options\.name/);
  assert.throws(() => once({ description: 'x' }, { ledger, name: 'x', run: 'r' }), /wraps a tool with an execute function/);
});

test('a streaming execute: its last result is recorded and replayed', async () => {
  const ledger = new Ledger(new MemoryStore());
  let runs = 0;
  const progress = once(
    tool({
      description: 'Ship an order',
      inputSchema: z.object({ order: z.string() }),
      async *execute({ order }) {
        runs++;
        yield { order, status: 'packing' };
        yield { order, status: 'shipped' };
      },
    }),
    { ledger, name: 'ship', run: 'r1', policy: POLICY },
  );
  const o = { toolCallId: 'c1', messages: [] };
  assert.deepEqual(await progress.execute({ order: 'o1' }, o), { order: 'o1', status: 'shipped' });
  assert.deepEqual(await progress.execute({ order: 'o1' }, { ...o, toolCallId: 'c2' }), { order: 'o1', status: 'shipped' });
  assert.equal(runs, 1);
});

test('a failed call: the model reads the answer of the core in the tool error, not the JS error', async () => {
  const ledger = new Ledger(new MemoryStore());
  const declined = once(
    tool({
      description: 'Refund a charge',
      inputSchema: z.object({ charge_id: z.string(), amount_cents: z.number().int() }),
      execute: async () => {
        throw new DefiniteFailure('card declined');
      },
    }),
    { ledger, name: 'refund', run: 'chat-9', policy: POLICY },
  );
  const { result, requests } = await agentLoop({ refund: declined }, [[call('call_1', '{"charge_id":"ch_1","amount_cents":500}')], [{ type: 'text', text: 'Declined.' }]]);
  const [failed] = toolResults(result);
  assert.equal(failed.type, 'tool-error');
  assert.ok(failed.error instanceof AnsweredError);
  assert.ok(failed.error.cause instanceof ToolFailedError);
  assert.equal(failed.error.reply.code, 'tool-failed');
  assert.equal(failed.error.reply.repeatable, true);
  const text = 'oncely: the tool failed, and did not happen: card declined';
  assert.equal(failed.error.message, text);
  // What the model was sent for its call: the reply's text.
  const sent = JSON.stringify(requests[1].prompt);
  assert.ok(sent.includes(JSON.stringify(text).slice(1, -1)), sent);
});

test('what the core does not answer propagates as it is: a storage failure is not an answer', async () => {
  class DownStore extends MemoryStore {
    async get() {
      throw new Error('disk unplugged');
    }
  }
  const ledger = new Ledger(new DownStore());
  let runs = 0;
  const refund = once(
    tool({ description: 'Refund', inputSchema: z.object({ charge_id: z.string() }), execute: async () => ++runs }),
    { ledger, name: 'refund', run: 'chat-1', policy: POLICY },
  );
  await assert.rejects(refund.execute({ charge_id: 'ch_1' }, { toolCallId: 'c1', messages: [] }), (e) => {
    assert.ok(e instanceof StorageError, String(e));
    assert.ok(!(e instanceof AnsweredError));
    return true;
  });
  assert.equal(runs, 0);
});

// ---- approval: the AI SDK's tool approval is the ledger's one request, one decision --------------

const APPROVAL = { class: 'irreversible-external', reconcile: 'provider-idempotent', approval: { when: { '/amount_cents': { '>': 100 } } } };

/** One chat turn that asks for a refund, the approval answered, the chat going on. */
async function approvalChat(ledger, pay, amount, answer) {
  const { respond } = await import('oncely/ai');
  const tools = { refund: once(refundTool(pay), { ledger, name: 'refund', run: 'chat-1', policy: APPROVAL }) };
  const { model, requests } = scriptedModel([[call('call_1', JSON.stringify({ charge_id: 'ch_1', amount_cents: amount }))], [{ type: 'text', text: 'Done.' }]]);
  const first = await generateText({ model, tools, prompt: 'Refund ch_1.', stopWhen: stepCountIs(4) });
  const asked = first.content.filter((c) => c.type === 'tool-approval-request');
  if (asked.length === 0) return { first, requests };
  const { part, decision } = await respond(asked[0], answer, { tools });
  const messages = [{ role: 'user', content: 'Refund ch_1.' }, ...first.response.messages, { role: 'tool', content: [part] }];
  const second = await generateText({ model, tools, messages, stopWhen: stepCountIs(4) });
  return { first, second, asked, part, decision, requests };
}

test('approval: approved in the chat, the refund is paid once and the ledger says who', async () => {
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
  const pay = payProvider();
  const r = await approvalChat(ledger, pay, 500, { approved: true, by: 'alice' });
  assert.equal(r.asked.length, 1);
  assert.match(r.decision, /^stl-/);
  assert.equal(r.second.text, 'Done.');
  assert.equal(pay.count, 1);
  const [entry] = await ledger.list('default', { tool: 'refund' });
  const history = await ledger.history('default', entry.key);
  assert.deepEqual(history.slice(0, 2).map((h) => [h.state, h.resolvedBy]), [['awaiting-approval', null], ['approved', 'alice']]);
  // The same refund asked again: replayed, nobody asked; a small one needs nobody.
  const again = await approvalChat(ledger, pay, 500, null);
  assert.equal(again.first.content.filter((c) => c.type === 'tool-approval-request').length, 0);
  assert.equal(pay.count, 1);
});

test('approval: denied in the chat, the model reads the ledger\'s reason and is never asked again', async () => {
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
  const pay = payProvider();
  const r = await approvalChat(ledger, pay, 700, { approved: false, by: 'bob', reason: 'over the monthly limit' });
  assert.equal(r.part.approved, false);
  assert.match(r.part.reason, /over the monthly limit/);
  const denied = JSON.stringify(r.requests.at(-1).prompt);
  assert.match(denied, /execution-denied/);
  assert.match(denied, /over the monthly limit/);
  const again = await approvalChat(ledger, pay, 700, null);
  assert.equal(again.first.content.filter((c) => c.type === 'tool-approval-request').length, 0);
  assert.match(JSON.stringify(toolResults(again.first)), /over the monthly limit/);
  assert.equal(pay.count, 0);
});

test('approval: a response built by hand is recorded before the call; the inbox\'s decision is not asked again', async () => {
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
  const pay = payProvider();
  const tools = { refund: once(refundTool(pay), { ledger, name: 'refund', run: 'chat-1', policy: APPROVAL, approvedBy: 'chat-ui' }) };
  const { model } = scriptedModel([[call('call_1', '{"charge_id":"ch_3","amount_cents":300}')], [{ type: 'text', text: 'Done.' }]]);
  const first = await generateText({ model, tools, prompt: 'Refund ch_3.', stopWhen: stepCountIs(4) });
  const [asked] = first.content.filter((c) => c.type === 'tool-approval-request');
  const part = { type: 'tool-approval-response', approvalId: asked.approvalId, approved: true };
  await generateText({ model, tools, messages: [{ role: 'user', content: 'Refund ch_3.' }, ...first.response.messages, { role: 'tool', content: [part] }] });
  const [entry] = await ledger.list('default', { tool: 'refund' });
  assert.ok((await ledger.history('default', entry.key)).some((h) => h.state === 'approved' && h.resolvedBy === 'chat-ui'));
  assert.equal(pay.count, 1);
  // Approved in the inbox: the next chat asking the same refund is not asked.
  const { model: m2 } = scriptedModel([[call('call_2', '{"charge_id":"ch_4","amount_cents":400}')], [{ type: 'text', text: 'Done.' }]]);
  await generateText({ model: m2, tools, prompt: 'Refund ch_4.', stopWhen: stepCountIs(4) });
  const [request] = await ledger.list('default', { state: 'awaiting-approval' });
  await ledger.approve('default', request.key, { by: 'dana', version: request.version });
  const { model: m3 } = scriptedModel([[call('call_3', '{"charge_id":"ch_4","amount_cents":400}')], [{ type: 'text', text: 'Done.' }]]);
  const later = await generateText({ model: m3, tools, prompt: 'Refund ch_4.', stopWhen: stepCountIs(4) });
  assert.equal(later.content.filter((c) => c.type === 'tool-approval-request').length, 0);
  assert.equal(pay.count, 2);
});

// ---- a process killed inside the tool after paying; the chat loaded again by a new process ------

// test/helpers/killed-ai.mjs: the app saves the chat's messages (the user's on arrival, each
// step's when it ends) in a file; the first process is killed inside the refund tool after the
// provider paid, before its step ended; the second loads the saved messages, the user asks again
// and the model asks again. The run given to once() is the chat id.
test('a process killed inside the tool after paying, the saved chat loaded by a new process: once with oncely, twice bare', () => {
  for (const story of killedThenResumed(new URL('./helpers/killed-ai.mjs', import.meta.url), 'ai')) {
    const { guarded, out, refunds } = story;
    console.log(`# ai: killed inside the tool after paying, the saved chat loaded again: ${guarded} -> ${refunds.length} refund(s)`);
    compat.record({ ...AI_SDK, story: 'kill-resume', paid: refunds.length, bare: guarded === 'bare', how: 'SIGKILL, the chat resumed from its saved messages' });
    // Saved: the exchange that ended and the user's message of the killed turn (its step never
    // ended); the model read them, then the user's question, and its step and the answer are saved.
    assert.deepEqual(out.before, ['user', 'assistant', 'user']);
    assert.deepEqual(out.read, ['I was charged twice on ch_1.', 'I see a $5 charge on ch_1. Shall I refund it?', 'Refund $5 on charge ch_1.', 'Did my refund of $5 on ch_1 go through? If not, refund it.']);
    assert.deepEqual(out.saved, ['user', 'assistant', 'user', 'user', 'assistant', 'tool', 'assistant']);
    assert.equal(out.text, 'Refunded.');
    assertPaid(story);
    if (guarded === 'oncely') {
      // The new call found the first refund by its key (the lookup) and paid nothing.
      assert.deepEqual(out.output, [{ refund_id: 're_1', status: 'succeeded' }]);
    }
  }
});
