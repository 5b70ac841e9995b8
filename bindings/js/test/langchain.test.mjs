// oncely/langchain against the real LangChain.js: `createAgent` (langchain 1.5, a LangGraph agent
// loop) with a checkpointer, driven by @langchain/core's own fake chat model (`fakeModel()` of
// @langchain/core/testing) playing a model that calls `refund`, reads a timeout, and asks again
// with a new tool-call id and the same intent in other words; a run aborted mid-tool, then resumed
// from its checkpoint; and a process killed mid-tool, whose thread a new process resumes from its
// SQLite checkpoint. The provider counts the refunds it makes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { happened, Ledger, MemoryStore, notHappened } from 'oncely';
import { once } from 'oncely/langchain';
import { z } from 'zod';
import * as compat from './helpers/compat.mjs';
import { assertPaid, killedThenResumed } from './helpers/killed.mjs';
import { payProvider } from './helpers/pay.mjs';

// The README's compatibility table (scripts/compat): what the stories below found.
const LANGGRAPH_JS = { framework: 'LangGraph.js', package: '@langchain/langgraph', run: 'the thread id (configurable.thread_id)' };

const schema = z.object({ charge_id: z.string(), amount_cents: z.number().int() });

/** The refund tool as a user writes it: a 150 ms client timeout; the key (when there is one) goes to the provider. */
function refundTool(pay) {
  return tool(
    async (args, config) => {
      const signal = AbortSignal.any([config.signal, AbortSignal.timeout(150)].filter(Boolean));
      return pay.refund(args, { idempotencyKey: config.oncely?.key, signal });
    },
    { name: 'refund', description: 'Refund a charge', schema },
  );
}

/** The model asks, reads the error, asks again: a new id, members reordered, 500 as 5e2. */
function reaskingModel() {
  return fakeModel()
    .respondWithTools([{ name: 'refund', args: JSON.parse('{"charge_id":"ch_1","amount_cents":500}'), id: 'call_1' }])
    .respondWithTools([{ name: 'refund', args: JSON.parse('{"amount_cents":5e2,"charge_id":"ch_1"}'), id: 'call_2' }])
    .respond(new AIMessage('Refunded.'));
}

/** A ledger whose reconciler asks the provider for the refund made with the key. */
function ledgerFor(pay) {
  const ledger = new Ledger(new MemoryStore());
  ledger.reconciler('refund', async (req) => {
    const found = await pay.findByKey(req.key);
    return found ? happened(found) : notHappened();
  });
  return ledger;
}

// Lookup-reconciled; a call may take 150 ms; a new reconciliation as soon as asked.
const POLICY = { class: 'irreversible-external', reconcile: { lookup: 'find_refund' }, maxCallMs: 150, reconcileAfterMs: 1 };

const toolMessages = (messages) => messages.filter((m) => m.type === 'tool');

test('agent loop: a model re-asking after a timeout is refunded once with oncely, twice without', async () => {
  // The first reply is lost; when the tool times out, the provider cannot be reached to ask either.
  const barePay = payProvider({ lostReplies: 1 });
  const bare = await createAgent({ model: reaskingModel(), tools: [refundTool(barePay)], checkpointer: new MemorySaver() }).invoke(
    { messages: [{ role: 'user', content: 'Refund $5 on charge ch_1.' }] },
    { configurable: { thread_id: 'thread-1' } },
  );
  console.log(`# langchain: model re-asks after a timeout: bare tool -> ${barePay.count} refunds`);
  compat.record({ ...LANGGRAPH_JS, story: 're-ask', paid: barePay.count, bare: true });
  assert.equal(barePay.count, 2, 'the scenario must pay twice without oncely');
  assert.equal(toolMessages(bare.messages)[0].status, 'error');

  const pay = payProvider({ lostReplies: 1, lookupDown: 1 });
  const effects = [];
  const refund = once(refundTool(pay), { ledger: ledgerFor(pay), policy: POLICY, onEffect: (e) => effects.push(e) });
  const result = await createAgent({ model: reaskingModel(), tools: [refund], checkpointer: new MemorySaver() }).invoke(
    { messages: [{ role: 'user', content: 'Refund $5 on charge ch_1.' }] },
    { configurable: { thread_id: 'thread-1' } },
  );
  console.log(`# langchain: model re-asks after a timeout: through oncely -> ${pay.count} refund(s)`);
  compat.record({ ...LANGGRAPH_JS, story: 're-ask', paid: pay.count, bare: false });
  assert.equal(pay.count, 1);

  // The model read that the first call is in doubt; its second call got the refund the lookup found.
  const [first, second] = toolMessages(result.messages);
  assert.equal(first.tool_call_id, 'call_1');
  assert.equal(first.status, 'error');
  // What the model reads is the core's answer (agent.answer), not the JS error's message (which
  // said "in doubt"): the reply's text, the reply as the message's artifact.
  assert.match(first.content, /^oncely: the outcome of this call is unknown: it may have happened/);
  assert.equal(first.artifact.code, 'in-doubt');
  assert.equal(first.artifact.text, first.content);
  assert.equal(second.tool_call_id, 'call_2');
  assert.equal(second.status, 'success');
  assert.deepEqual(JSON.parse(second.content), { refund_id: 're_1', charge_id: 'ch_1', amount_cents: 500, status: 'succeeded' });
  assert.equal(result.messages.at(-1).content, 'Refunded.');
  // The run is the thread; the re-ask settled the doubt by reconciliation, not by paying.
  assert.equal(effects.length, 1);
  assert.deepEqual({ ...effects[0], key: undefined }, { tool: 'refund', key: undefined, scope: 'default', run: 'thread-1', step: null, toolCallId: 'call_2', replayed: true, reconciled: true });
  assert.equal(effects[0].key, pay.refunds[0].idempotencyKey);
});

test('a run aborted mid-tool and resumed from its checkpoint does not pay twice', async () => {
  for (const guarded of [false, true]) {
    const pay = payProvider({ slowReplies: 1, replyMs: 300 });
    const base = tool(async (args, config) => pay.refund(args, { idempotencyKey: config.oncely?.key, signal: config.signal }), { name: 'refund', description: 'Refund a charge', schema });
    const refund = guarded ? once(base, { ledger: ledgerFor(pay), policy: { ...POLICY, maxCallMs: 5000 } }) : base;
    const model = fakeModel()
      .respondWithTools([{ name: 'refund', args: { charge_id: 'ch_1', amount_cents: 500 }, id: 'call_1' }])
      .respond(new AIMessage('Refunded.'));
    const agent = createAgent({ model, tools: [refund], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: 'thread-9' } };
    // The worker is stopped while the refund is in flight.
    await assert.rejects(agent.invoke({ messages: [{ role: 'user', content: 'Refund $5 on charge ch_1.' }] }, { ...config, signal: AbortSignal.timeout(100) }));
    await new Promise((r) => setTimeout(r, 400)); // whatever was in flight has finished by now
    // Resumed from the checkpoint: the tools node runs the pending call again.
    const resumed = await agent.invoke(null, config);
    const [msg] = toolMessages(resumed.messages);
    assert.equal(msg.tool_call_id, 'call_1');
    assert.equal(resumed.messages.at(-1).content, 'Refunded.');
    console.log(`# langchain: aborted mid-tool, resumed from the checkpoint: ${guarded ? 'through oncely' : 'bare tool'} -> ${pay.count} refund(s)`);
    assert.equal(pay.count, guarded ? 1 : 2);
    if (guarded) assert.deepEqual(JSON.parse(msg.content), { refund_id: 're_1', charge_id: 'ch_1', amount_cents: 500, status: 'succeeded' });
  }
});

// The same story with the process SIGKILLed inside the tool after the provider paid
// (test/helpers/killed-langgraph.mjs): the checkpoints are LangGraph's SQLite saver in a file, and
// a new process resumes the thread from its last checkpoint, where the model's call is pending:
// the tools node runs the same call again. The run is the thread id.
test('a process killed inside the tool after paying, the thread resumed from its SQLite checkpoint by a new process: once with oncely, twice bare', () => {
  for (const story of killedThenResumed(new URL('./helpers/killed-langgraph.mjs', import.meta.url), 'langgraph')) {
    const { guarded, out, refunds } = story;
    console.log(`# langchain: killed inside the tool after paying, resumed from the checkpoint: ${guarded} -> ${refunds.length} refund(s)`);
    compat.record({ ...LANGGRAPH_JS, story: 'kill-resume', paid: refunds.length, bare: guarded === 'bare', how: 'SIGKILL, resumed from its SQLite checkpoint' });
    // The checkpoint the new process found: the user's message and the model's pending call.
    assert.deepEqual(out.before, [['human', []], ['ai', ['call_1']]]);
    assert.equal(out.tool.id, 'call_1');
    assert.equal(out.last, 'Refunded.');
    assertPaid(story);
    if (guarded === 'oncely') {
      // The call run again found the first refund by its key (the lookup) and paid nothing.
      assert.deepEqual(out.tool.content, { refund_id: 're_1', status: 'succeeded' });
    }
  }
});

test('invoke directly: two tool-call ids, one intent -> one refund; another thread -> another; the schema the model sees has no key', async () => {
  const pay = payProvider();
  const ledger = ledgerFor(pay);
  const seen = [];
  const base = tool(
    async (args, config) => {
      seen.push({ toolCallId: config.oncely.toolCallId, attempt: config.oncely.attempt, signal: config.signal === config.oncely.signal, thread: config.configurable?.thread_id });
      return pay.refund(args, { idempotencyKey: config.oncely.key });
    },
    { name: 'refund', description: 'Refund a charge', schema },
  );
  const refund = once(base, { ledger, policy: POLICY });
  const call = (id, args) => ({ type: 'tool_call', id, name: 'refund', args });
  const t1 = { configurable: { thread_id: 't1' } };
  const a = await refund.invoke(call('c1', { charge_id: 'ch_1', amount_cents: 500 }), t1);
  const b = await refund.invoke(call('c2', { amount_cents: 500, charge_id: 'ch_1' }), t1);
  assert.equal(a.tool_call_id, 'c1');
  assert.equal(b.tool_call_id, 'c2');
  assert.equal(b.content, a.content);
  assert.equal(pay.count, 1);
  assert.deepEqual(seen, [{ toolCallId: 'c1', attempt: 1, signal: true, thread: 't1' }]);
  await refund.invoke(call('c3', { charge_id: 'ch_1', amount_cents: 500 }), { configurable: { thread_id: 't2' } });
  assert.equal(pay.count, 2, 'another thread is another run');
  // Plain arguments (no tool call) and a given run.
  const byRun = once(base, { ledger, run: 'job-5', policy: POLICY });
  await byRun.invoke({ charge_id: 'ch_2', amount_cents: 100 });
  await byRun.invoke({ charge_id: 'ch_2', amount_cents: 100 });
  assert.equal(pay.count, 3);
  // The core's refusal (agent.identify), no longer this adapter's own TypeError.
  await assert.rejects(refund.invoke({ charge_id: 'ch_3', amount_cents: 1 }), { name: 'IdentityError', kind: 'no-run', message: /^the oncely tool "refund" needs a run/ });
  // Bad arguments are the schema's to refuse: nothing reaches the ledger.
  await assert.rejects(refund.invoke(call('c4', { charge_id: 'ch_1' }), t1), /did not match expected schema/);
  assert.equal(pay.count, 3);
  // What a chat model is sent for the tool: the same name, description and parameters; no key.
  assert.deepEqual(convertToOpenAITool(refund), convertToOpenAITool(base));
  assert.deepEqual(Object.keys(convertToOpenAITool(refund).function.parameters.properties).sort(), ['amount_cents', 'charge_id']);
});

// ---- approval: LangGraph's interrupt() is the ledger's request, the resume its decision ----------

const APPROVAL = { class: 'irreversible-external', reconcile: 'provider-idempotent', approval: { when: { '/amount_cents': { '>': 100 } } } };

function approvalAgent(ledger, pay, amount, checkpointer) {
  const model = fakeModel()
    .respondWithTools([{ name: 'refund', args: { charge_id: 'ch_1', amount_cents: amount }, id: 'call_1' }])
    .respond(new AIMessage('Done.'));
  const refund = once(refundTool(pay), { ledger, policy: APPROVAL });
  return createAgent({ model, tools: [refund], checkpointer });
}

test('approval: interrupted for approval, then resumed, the refund is paid once', async () => {
  const { Command } = await import('@langchain/langgraph');
  const ledger = new Ledger(new MemoryStore());
  const pay = payProvider();
  const thread = { configurable: { thread_id: 'thread-a' } };
  const agent = approvalAgent(ledger, pay, 500, new MemorySaver());
  const first = await agent.invoke({ messages: [{ role: 'user', content: 'Refund ch_1.' }] }, thread);
  const [stop] = first.__interrupt__;
  assert.equal(stop.value.oncely, 'approval');
  assert.deepEqual(stop.value.args, { charge_id: 'ch_1', amount_cents: 500 });
  const [asked] = await ledger.list('default', { state: 'awaiting-approval' });
  assert.equal(asked.key, stop.value.key);
  assert.equal(pay.count, 0);
  const done = await agent.invoke(new Command({ resume: { type: 'approve', by: 'alice' } }), thread);
  assert.equal(done.messages.at(-1).content, 'Done.');
  assert.equal(pay.count, 1);
  const history = await ledger.history('default', asked.key);
  assert.deepEqual(history.slice(0, 2).map((h) => [h.state, h.resolvedBy]), [['awaiting-approval', null], ['approved', 'alice']]);
});

test('approval: rejected on resume, the model reads the denial; the inbox\'s decision stands', async () => {
  const { Command } = await import('@langchain/langgraph');
  const { decision } = await import('oncely/langchain');
  const ledger = new Ledger(new MemoryStore());
  const pay = payProvider();
  const thread = { configurable: { thread_id: 'thread-b' } };
  const agent = approvalAgent(ledger, pay, 700, new MemorySaver());
  await agent.invoke({ messages: [{ role: 'user', content: 'Refund ch_1.' }] }, thread);
  const out = await agent.invoke(new Command({ resume: { type: 'reject', message: 'over the monthly limit', by: 'bob' } }), thread);
  const said = toolMessages(out.messages).at(-1);
  assert.equal(said.status, 'error');
  assert.match(String(said.content), /over the monthly limit/);
  assert.equal(pay.count, 0);
  // Another thread, approved in the inbox while the graph waits, resumed with a rejection: the
  // inbox's approval stands, the refund is paid once.
  const other = { configurable: { thread_id: 'thread-c' } };
  const agent2 = approvalAgent(ledger, pay, 400, new MemorySaver());
  const stopped = await agent2.invoke({ messages: [{ role: 'user', content: 'Refund ch_1.' }] }, other);
  const entry = await ledger.get('default', stopped.__interrupt__[0].value.key);
  await ledger.approve('default', entry.key, { by: 'dana', version: entry.version });
  await agent2.invoke(new Command({ resume: false }), other);
  assert.equal(pay.count, 1);
  assert.throws(() => decision({ ok: 1 }, 'x', 'k1'), /resume an oncely approval/);
  assert.throws(() => decision({ type: 'approve', key: 'k2' }, 'x', 'k1'), /not for k1/);
  assert.deepEqual(decision({ type: 'approve', key: 'k1' }, 'x', 'k1'), { approve: true, by: 'x', note: '' });
});
