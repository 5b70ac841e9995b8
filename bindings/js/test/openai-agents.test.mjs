// oncely/openai-agents against the real OpenAI Agents JS SDK (@openai/agents 0.20): the Runner's
// agent loop, driven by the SDK's own ScriptedModel (@openai/agents/testing) playing a model that
// calls `refund`, reads the SDK's tool timeout, and asks again with a new call id and the same
// intent in other words; and a process killed inside the tool after paying, whose session (a file)
// a new process goes on with. The provider counts the refunds it makes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Agent, run, setTracingDisabled, tool } from '@openai/agents';
import { assistantMessage, functionCall, modelResponder, ScriptedModel } from '@openai/agents/testing';
import { DefiniteFailure, Ledger, MemoryStore } from 'oncely';
import { once, oncelyCall } from 'oncely/openai-agents';
import { z } from 'zod';
import * as compat from './helpers/compat.mjs';
import { assertPaid, killedThenResumed } from './helpers/killed.mjs';
import { payProvider } from './helpers/pay.mjs';

// The README's compatibility table (scripts/compat): what the stories below found.
const AGENTS = { framework: 'OpenAI Agents SDK', package: '@openai/agents', run: 'given (run: string or function of the run context)' };

setTracingDisabled(true);

const POLICY = { class: 'irreversible-external', maxCallMs: 5000 };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The model asks, reads a timeout, takes 600 ms, asks again: a new id, members reordered, 500 as 5e2. */
function reaskingModel() {
  return new ScriptedModel([
    [functionCall('refund', '{"charge_id":"ch_1","amount_cents":500}', { callId: 'call_1' })],
    modelResponder(async () => {
      await sleep(600);
      return [functionCall('refund', '{"amount_cents":5e2,"charge_id":"ch_1"}', { callId: 'call_2' })];
    }),
    [assistantMessage('Refunded.')],
  ]);
}

/** The refund tool's options as a user writes them: the key (when there is one) and the signal go to the provider. */
function refundOptions(pay) {
  return {
    name: 'refund',
    description: 'Refund a charge',
    parameters: z.object({ charge_id: z.string(), amount_cents: z.number().int() }),
    timeoutMs: 100, // the SDK gives up on a call after 100 ms and tells the model
    execute: async (args, _runContext, details) => pay.refund(args, { idempotencyKey: details?.oncely?.key, signal: details?.signal }),
  };
}

/** What the model was sent back for each of its calls. */
function toolOutputs(model) {
  const out = new Map();
  for (const c of model.calls) {
    for (const item of Array.isArray(c.request.input) ? c.request.input : []) {
      if (item.type === 'function_call_result') out.set(item.callId, typeof item.output === 'string' ? item.output : (item.output?.text ?? JSON.stringify(item.output)));
    }
  }
  return out;
}

test('agent loop: a model re-asking after the SDK timed the tool out is refunded once with oncely, twice without', async () => {
  // The provider makes the refund at once and answers the first one 300 ms later.
  const barePay = payProvider({ slowReplies: 1, replyMs: 300 });
  const bareModel = reaskingModel();
  const bare = await run(new Agent({ name: 'support', instructions: 'Refund what is asked.', model: bareModel, tools: [tool(refundOptions(barePay))] }), 'Refund $5 on charge ch_1.');
  console.log(`# openai-agents: model re-asks after a timeout: bare tool -> ${barePay.count} refunds`);
  compat.record({ ...AGENTS, story: 're-ask', paid: barePay.count, bare: true });
  assert.equal(barePay.count, 2, 'the scenario must pay twice without oncely');
  assert.equal(bare.finalOutput, 'Refunded.');

  const pay = payProvider({ slowReplies: 1, replyMs: 300 });
  const model = reaskingModel();
  const ledger = new Ledger(new MemoryStore());
  const effects = [];
  const refund = tool(once(refundOptions(pay), { ledger, run: ({ runContext }) => runContext.context.conversationId, policy: POLICY, onEffect: (e) => effects.push(e) }));
  const agent = new Agent({ name: 'support', instructions: 'Refund what is asked.', model, tools: [refund] });
  const result = await run(agent, 'Refund $5 on charge ch_1.', { context: { conversationId: 'conv-7' } });
  console.log(`# openai-agents: model re-asks after a timeout: through oncely -> ${pay.count} refund(s)`);
  compat.record({ ...AGENTS, story: 're-ask', paid: pay.count, bare: false });
  assert.equal(pay.count, 1);
  assert.equal(result.finalOutput, 'Refunded.');
  model.assertComplete();

  // The model read the SDK's timeout for its first call and the refund for its second.
  const outputs = toolOutputs(model);
  assert.match(outputs.get('call_1'), /timed out/i);
  assert.deepEqual(JSON.parse(outputs.get('call_2')), { refund_id: 're_1', charge_id: 'ch_1', amount_cents: 500, status: 'succeeded' });
  assert.deepEqual(
    effects.map((e) => [e.toolCallId, e.run, e.replayed, e.key]),
    [
      ['call_1', 'conv-7', false, pay.refunds[0].idempotencyKey],
      ['call_2', 'conv-7', true, pay.refunds[0].idempotencyKey],
    ],
  );
  // What the model was offered: the tool's own parameters, no key.
  const offered = model.firstCall.request.tools.find((t) => t.name === 'refund');
  assert.deepEqual(Object.keys(offered.parameters.properties).sort(), ['amount_cents', 'charge_id']);
});

test('invoke directly: two call ids, one intent -> one refund; the key and deadline reach execute', async () => {
  const pay = payProvider();
  const ledger = new Ledger(new MemoryStore());
  const seen = [];
  const refund = tool(
    once(
      {
        name: 'refund',
        description: 'Refund a charge',
        parameters: z.object({ charge_id: z.string(), amount_cents: z.number() }),
        execute: async (args, _ctx, details) => {
          const c = oncelyCall(details);
          seen.push({ attempt: c.attempt, toolCallId: c.toolCallId, deadline: typeof c.deadline, signal: details.signal === c.signal });
          return pay.refund(args, { idempotencyKey: c.key });
        },
      },
      { ledger, run: 'conv-1', policy: POLICY },
    ),
  );
  assert.equal(refund.name, 'refund');
  const { RunContext } = await import('@openai/agents');
  const ctx = new RunContext({});
  const details = (callId, args) => ({ toolCall: { type: 'function_call', name: 'refund', callId, arguments: args } });
  const a = await refund.invoke(ctx, '{"charge_id":"ch_1","amount_cents":500}', details('c1', ''));
  const b = await refund.invoke(ctx, '{"amount_cents":500.0,"charge_id":"ch_1"}', details('c2', ''));
  assert.deepEqual(b, a);
  assert.equal(pay.count, 1);
  assert.deepEqual(seen, [{ attempt: 1, toolCallId: 'c1', deadline: 'number', signal: true }]);
  // Invalid input never reaches the ledger: the SDK's own parsing answers the model.
  const bad = await refund.invoke(ctx, '{"charge_id":1}', details('c3', ''));
  assert.equal(typeof bad, 'string');
  assert.equal(pay.count, 1);
});

test('a built tool is refused with how to wrap it', () => {
  const ledger = new Ledger(new MemoryStore());
  const built = tool(refundOptions(payProvider()));
  assert.throws(() => once(built, { ledger, run: 'r' }), /wraps the options of tool\(\), not a built tool/);
});

test('a failed call: the model reads the answer of the core, not the SDK default sentence', async () => {
  const ledger = new Ledger(new MemoryStore());
  const options = (errorFunction) => ({
    name: 'refund',
    description: 'Refund a charge',
    parameters: z.object({ charge_id: z.string(), amount_cents: z.number().int() }),
    execute: async (args) => {
      if (args.charge_id === 'ch_bug') throw new Error('a bug');
      throw new DefiniteFailure('card declined');
    },
    ...(errorFunction === undefined ? {} : { errorFunction }),
  });
  const model = new ScriptedModel([
    [functionCall('refund', '{"charge_id":"ch_1","amount_cents":500}', { callId: 'call_1' })],
    [functionCall('refund', '{"charge_id":"ch_bug","amount_cents":500}', { callId: 'call_2' })],
    [assistantMessage('Declined.')],
  ]);
  const refund = tool(once(options(undefined), { ledger, run: 'conv-3', policy: POLICY }));
  await run(new Agent({ name: 'support', instructions: 'Refund what is asked.', model, tools: [refund] }), 'Refund $5 on charge ch_1.');
  const outputs = toolOutputs(model);
  assert.equal(outputs.get('call_1'), 'oncely: the tool failed, and did not happen: card declined');
  // A tool that throws anything else may have acted: with no reconciliation, a human settles it.
  assert.match(outputs.get('call_2'), /^oncely: the outcome of this call is unknown and a human has been asked to settle it/);
  // What the core does not answer (storage, the ledger, a bug) gets the SDK's own sentence.
  assert.equal(once(options(undefined), { ledger, run: 'conv-3' }).errorFunction({}, new Error('x'), undefined), 'An error occurred while running the tool. Please try again.');
  // A user's errorFunction still handles what the core does not answer; `null` (raise) is kept.
  const mine = once(options(() => 'mine'), { ledger, run: 'conv-3', policy: POLICY });
  const invoked = await tool(mine).invoke(new (await import('@openai/agents')).RunContext({}), '{"charge_id":"ch_2","amount_cents":1}', { toolCall: { type: 'function_call', name: 'refund', callId: 'c9', arguments: '' } });
  assert.equal(invoked, 'oncely: the tool failed, and did not happen: card declined');
  assert.equal(mine.errorFunction({}, new Error('x'), undefined), 'mine');
  assert.equal(once(options(null), { ledger, run: 'conv-3', policy: POLICY }).errorFunction, null);
});

// ---- approval: the SDK's interruption is the ledger's one request, one decision ------------------

const APPROVAL = { class: 'irreversible-external', reconcile: 'provider-idempotent', approval: { when: { '/amount_cents': { '>': 100 } } } };

function approvalAgent(ledger, pay, charge, amount, callId, extra = {}) {
  const options = { ...refundOptions(pay), timeoutMs: undefined };
  const refund = tool(once(options, { ledger, run: 'conversation-7', policy: APPROVAL, ...extra }));
  const model = new ScriptedModel([[functionCall('refund', JSON.stringify({ charge_id: charge, amount_cents: amount }), { callId })], [assistantMessage('Done.')]]);
  return { agent: new Agent({ name: 'support', model, tools: [refund] }), model };
}

test('approval: approved in the run, the refund is paid once and the ledger says who', async () => {
  const { approve } = await import('oncely/openai-agents');
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
  const pay = payProvider();
  const { agent } = approvalAgent(ledger, pay, 'ch_1', 500, 'call_1');
  const first = await run(agent, 'refund ch_1');
  assert.equal(first.interruptions.length, 1);
  const [asked] = await ledger.list('default', { state: 'awaiting-approval' });
  assert.equal(asked.argsCanonical, '{"amount_cents":500,"charge_id":"ch_1"}');
  assert.equal(pay.count, 0);
  const id = await approve(first.state, first.interruptions[0], { by: 'alice', note: 'verified' });
  assert.match(id, /^stl-/);
  const resumed = await run(agent, first.state);
  assert.equal(resumed.finalOutput, 'Done.');
  assert.equal(pay.count, 1);
  const history = await ledger.history('default', asked.key);
  assert.deepEqual(history.slice(0, 2).map((h) => [h.state, h.resolvedBy]), [['awaiting-approval', null], ['approved', 'alice']]);
  // Asked again in a new run: replayed, nobody asked.
  const again = await run(approvalAgent(ledger, pay, 'ch_1', 500, 'call_9').agent, 'refund ch_1');
  assert.equal(again.interruptions.length, 0);
  assert.equal(pay.count, 1);
  // A small amount needs nobody.
  const small = await run(approvalAgent(ledger, pay, 'ch_2', 50, 'call_3').agent, 'refund ch_2');
  assert.equal(small.interruptions.length, 0);
  assert.equal(pay.count, 2);
});

test('approval: rejected in the run, the model reads the denial and a new run is not asked again', async () => {
  const { reject } = await import('oncely/openai-agents');
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
  const pay = payProvider();
  const { agent, model } = approvalAgent(ledger, pay, 'ch_7', 700, 'call_1');
  const first = await run(agent, 'refund ch_7');
  await reject(first.state, first.interruptions[0], { by: 'bob', note: 'over the monthly limit' });
  await run(agent, first.state);
  const said = toolOutputs(model).get('call_1');
  assert.match(said, /denied/);
  assert.match(said, /over the monthly limit/);
  const later = approvalAgent(ledger, pay, 'ch_7', 700, 'call_2');
  const again = await run(later.agent, 'refund ch_7');
  assert.equal(again.interruptions.length, 0);
  assert.match(toolOutputs(later.model).get('call_2'), /over the monthly limit/);
  assert.equal(pay.count, 0);
});

test("approval: the SDK's own approve is recorded; a decision in the inbox is not asked again", async () => {
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
  const pay = payProvider();
  const { agent } = approvalAgent(ledger, pay, 'ch_3', 300, 'call_1', { approvedBy: 'support-desk' });
  const first = await run(agent, 'refund ch_3');
  first.state.approve(first.interruptions[0]); // the SDK's own call: the tool records it before it runs
  await run(agent, first.state);
  const [entry] = await ledger.list('default', { tool: 'refund' });
  const history = await ledger.history('default', entry.key);
  assert.ok(history.some((h) => h.state === 'approved' && h.resolvedBy === 'support-desk'), JSON.stringify(history));
  assert.equal(pay.count, 1);
  // Approved in the inbox while no run waited: the next run does not interrupt.
  await run(approvalAgent(ledger, pay, 'ch_4', 400, 'call_2').agent, 'refund ch_4');
  const [request] = await ledger.list('default', { state: 'awaiting-approval' });
  await ledger.approve('default', request.key, { by: 'dana', version: request.version });
  const later = await run(approvalAgent(ledger, pay, 'ch_4', 400, 'call_3').agent, 'refund ch_4');
  assert.equal(later.interruptions.length, 0);
  assert.equal(pay.count, 2);
});

// ---- a process killed inside the tool after paying; a new process on the same session ---------

// test/helpers/killed-agents.mjs: a Runner turn on a session persisted to a file; the first
// process is killed inside the refund tool after the provider paid, the second runs a turn on the
// same session (the SDK saves a turn when it ends: the killed one left nothing) and its model asks
// again. The run given to once() is the session id.
test('a process killed inside the tool after paying, a new process on the same session: once with oncely, twice bare', () => {
  for (const story of killedThenResumed(new URL('./helpers/killed-agents.mjs', import.meta.url), 'agents')) {
    const { guarded, out, refunds } = story;
    console.log(`# openai-agents: killed inside the tool after paying, the session run again: ${guarded} -> ${refunds.length} refund(s)`);
    compat.record({ ...AGENTS, story: 'kill-resume', paid: refunds.length, bare: guarded === 'bare', how: 'SIGKILL, a new turn on its file-backed Session' });
    // The session kept the turn that ended before; the model read it, then the user's question.
    assert.deepEqual(out.before, ['user', 'assistant']);
    assert.deepEqual(out.read, ['I was charged twice on ch_1.', 'I see a $5 charge on ch_1. Shall I refund it?', 'Did my refund of $5 on ch_1 go through? If not, refund it.']);
    assert.equal(out.final, 'Refunded.');
    assertPaid(story);
    if (guarded === 'oncely') {
      // The new call found the first refund by its key (the lookup) and paid nothing.
      assert.deepEqual(out.output, [{ refund_id: 're_1', status: 'succeeded' }]);
    }
  }
});
