// oncely/mastra against the real Mastra (@mastra/core 1.x): an Agent with memory on a thread,
// driven by the AI SDK's own MockLanguageModelV4 (ai/test; Mastra agents take AI SDK models)
// playing a model that calls `refund`, reads a timeout, and asks again with a new tool-call id and
// the same intent in other words; a tool as a workflow step; Mastra's tool approval; and two
// processes killed inside the tool after the provider paid: an agent's, whose thread a new process
// runs again (Mastra's memory in a libSQL file: an agent run has no snapshot to resume), and a
// workflow's, whose run a new process restarts from its snapshot (Mastra's storage in a libSQL
// file). The ledger of those is SQLite. The provider counts the refunds it makes; so do the tests.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { Agent } from '@mastra/core/agent';
import { InMemoryStore } from '@mastra/core/storage';
import { createTool } from '@mastra/core/tools';
import { Memory } from '@mastra/memory';
import { AnsweredError, DefiniteFailure, happened, IdentityError, identify, Ledger, MemoryStore, notHappened, StorageError, ToolFailedError } from 'oncely';
import { once } from 'oncely/mastra';
import { z } from 'zod';
import { REPO } from './helpers/env.mjs';
import { scriptedModel } from './helpers/ai-model.mjs';
import * as compat from './helpers/compat.mjs';
import { assertPaid, killedThenResumed } from './helpers/killed.mjs';
import { payProvider } from './helpers/pay.mjs';

// The README's compatibility table (scripts/compat): what the stories below found.
const MASTRA = { framework: 'Mastra', package: '@mastra/core', run: 'the memory thread (a workflow step: the workflow run)' };

const call = (toolCallId, input) => ({ type: 'tool-call', toolCallId, toolName: 'refund', input });
// The model asks, reads the error, and asks again: a new id, the members in another order, 500 as 5e2.
const REASK = [
  [call('call_1', '{"charge_id":"ch_1","amount_cents":500}')],
  [call('call_2', '{"amount_cents":5e2,"charge_id":"ch_1"}')],
  [{ type: 'text', text: 'Refunded.' }],
];

const schema = z.object({ charge_id: z.string(), amount_cents: z.number().int() });

/** The refund tool as a user writes it: a 150 ms client timeout; the key (when there is one) goes to the provider. */
function refundTool(pay) {
  return createTool({
    id: 'refund',
    description: 'Refund a charge',
    inputSchema: schema,
    execute: async (args, context) => {
      const signal = AbortSignal.any([context?.abortSignal, AbortSignal.timeout(150)].filter(Boolean));
      return pay.refund(args, { idempotencyKey: context?.oncely?.key, signal });
    },
  });
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

/** One chat turn of a Mastra agent with memory, on `thread`. */
async function chat(tool, turns, { thread = 'thread-1', memory = true, ...extra } = {}) {
  const { model, requests } = scriptedModel(turns);
  const agent = new Agent({
    id: 'refunds',
    name: 'refunds',
    instructions: 'You refund charges.',
    model,
    tools: { refund: tool },
    ...(memory ? { memory: new Memory({ storage: new InMemoryStore() }) } : {}),
  });
  const result = await agent.generate('Refund $5 on charge ch_1.', { maxSteps: 6, ...(memory ? { memory: { thread, resource: 'user-1' } } : {}), ...extra });
  return { result, requests };
}

/** What the model was sent for its tool calls: `{toolCallId, output}` of each tool result. */
function toolOutputs(request) {
  return request.prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content).filter((c) => c.type === 'tool-result').map((c) => ({ toolCallId: c.toolCallId, output: c.output }));
}

/** The core's refusal of a call context. */
function identifyError(ctx) {
  try {
    identify(ctx);
  } catch (e) {
    return e;
  }
  throw new Error('identify accepted the call');
}

test('agent loop: a model re-asking after a timeout is refunded once with oncely, twice without; the run is the thread', async () => {
  // The first reply is lost; when the tool times out, the provider cannot be reached to ask either.
  const barePay = payProvider({ lostReplies: 1 });
  const bare = await chat(refundTool(barePay), REASK);
  console.log(`# mastra: model re-asks after a timeout: bare tool -> ${barePay.count} refunds`);
  compat.record({ ...MASTRA, story: 're-ask', paid: barePay.count, bare: true });
  assert.equal(barePay.count, 2, 'the scenario must pay twice without oncely');
  assert.equal(toolOutputs(bare.requests[1])[0].output.type, 'error-text');

  const pay = payProvider({ lostReplies: 1, lookupDown: 1 });
  const effects = [];
  const refund = once(refundTool(pay), { ledger: ledgerFor(pay), policy: POLICY, onEffect: (e) => effects.push(e) });
  const { result, requests } = await chat(refund, REASK);
  console.log(`# mastra: model re-asks after a timeout: through oncely -> ${pay.count} refund(s)`);
  compat.record({ ...MASTRA, story: 're-ask', paid: pay.count, bare: false });
  assert.equal(pay.count, 1);
  assert.equal(result.text, 'Refunded.');

  // The model read that the first call is in doubt (the core's answer, as Mastra's tool error);
  // its second call got the refund the lookup found.
  const [first] = toolOutputs(requests[1]);
  assert.equal(first.toolCallId, 'call_1');
  assert.equal(first.output.type, 'error-text');
  assert.match(first.output.value, /^oncely: the outcome of this call is unknown: it may have happened/);
  const [, second] = toolOutputs(requests[2]);
  assert.equal(second.toolCallId, 'call_2');
  assert.deepEqual(second.output, { type: 'json', value: { refund_id: 're_1', charge_id: 'ch_1', amount_cents: 500, status: 'succeeded' } });
  // The run is Mastra's thread; the re-ask settled the doubt by reconciliation, not by paying.
  assert.equal(effects.length, 1);
  assert.deepEqual({ ...effects[0], key: undefined }, { tool: 'refund', key: undefined, scope: 'default', run: 'thread-1', step: null, toolCallId: 'call_2', replayed: true, reconciled: true });
  assert.match(pay.refunds[0].idempotencyKey, /^oncely1:[0-9a-f]{64}$/);
  assert.equal(effects[0].key, pay.refunds[0].idempotencyKey);
  // What the model was offered: the tool's own schema, no key parameter.
  const offered = requests[0].tools.find((t) => t.name === 'refund');
  assert.deepEqual(Object.keys(offered.inputSchema.properties).sort(), ['amount_cents', 'charge_id']);
  assert.deepEqual(offered.inputSchema.required.sort(), ['amount_cents', 'charge_id']);
});

test('execute directly: two tool-call ids, one intent -> one refund; another thread -> another; the tool is kept', async () => {
  const pay = payProvider();
  const ledger = new Ledger(new MemoryStore());
  const seen = [];
  const base = createTool({
    id: 'refund',
    description: 'Refund a charge',
    inputSchema: schema,
    execute: async (args, context) => {
      seen.push({ attempt: context.oncely.attempt, toolCallId: context.oncely.toolCallId, signal: context.abortSignal === context.oncely.signal });
      return pay.refund(args, { idempotencyKey: context.oncely.key });
    },
  });
  const refund = once(base, { ledger, policy: POLICY });
  const ctx = (toolCallId, threadId) => ({ agent: { agentId: 'a', toolCallId, messages: [], threadId, suspend: async () => {} } });
  const a = await refund.execute({ charge_id: 'ch_1', amount_cents: 500 }, ctx('call_1', 'thread-1'));
  const b = await refund.execute({ amount_cents: 500, charge_id: 'ch_1' }, ctx('call_2', 'thread-1'));
  assert.deepEqual(b, a);
  assert.equal(pay.count, 1);
  assert.deepEqual(seen, [{ attempt: 1, toolCallId: 'call_1', signal: true }]);
  await refund.execute({ charge_id: 'ch_1', amount_cents: 500 }, ctx('call_3', 'thread-2'));
  assert.equal(pay.count, 2, 'another thread is another run');
  // A workflow step's run is the workflow run; `run` given wins over the thread.
  await refund.execute({ charge_id: 'ch_1', amount_cents: 500 }, { workflow: { workflowId: 'w', runId: 'wf-run-1' } });
  await refund.execute({ charge_id: 'ch_1', amount_cents: 500 }, { workflow: { workflowId: 'w', runId: 'wf-run-1' } });
  assert.equal(pay.count, 3);
  const chosen = once(base, { ledger, policy: POLICY, run: ({ context }) => context.requestContext?.get('chatId') });
  const { RequestContext } = await import('@mastra/core/request-context');
  const rc = new RequestContext([['chatId', 'thread-1']]);
  await chosen.execute({ charge_id: 'ch_1', amount_cents: 500 }, { ...ctx('call_4', 'thread-9'), requestContext: rc });
  assert.equal(pay.count, 3, '`run` given (thread-1) wins over the thread');
  // A durable agent's run recovered after a crash calls its tool with no `agent.threadId`: the
  // memory thread is in the request context (as Mastra's own parseMemoryRequestContext reads it).
  const recovered = new RequestContext([['MastraMemory', { thread: { id: 'thread-1' }, resourceId: 'user-1' }]]);
  await refund.execute({ charge_id: 'ch_1', amount_cents: 500 }, { agent: { agentId: '', toolCallId: 'call_1', messages: [] }, requestContext: recovered });
  assert.equal(pay.count, 3, 'the memory thread of the request context is the run (thread-1)');
  // Invalid input is Mastra's validation error, before anything is keyed or paid.
  const invalid = await refund.execute({ charge_id: 'ch_1', amount_cents: 'five' }, ctx('call_5', 'thread-1'));
  assert.equal(invalid.error, true);
  assert.equal(pay.count, 3);
  // The tool and everything else of Mastra's tool is kept.
  assert.equal(refund.id, 'refund');
  assert.equal(refund.description, 'Refund a charge');
  assert.equal(refund.inputSchema, base.inputSchema);
  const { Tool } = await import('@mastra/core/tools');
  assert.ok(refund instanceof Tool);
  // An object literal (createTool's options) is wrapped too.
  const literal = once({ id: 'refund', description: 'd', inputSchema: schema, execute: async (args, c) => pay.refund(args, { idempotencyKey: c.oncely.key }) }, { ledger, run: 'r-lit', policy: POLICY });
  await literal.execute({ charge_id: 'ch_2', amount_cents: 1 }, {});
  await literal.execute({ charge_id: 'ch_2', amount_cents: 1 }, {});
  assert.equal(pay.count, 4);
});

test('a tool as a workflow step (createStep(tool)): the run is the workflow run, which a run started again keeps', async () => {
  const { createStep, createWorkflow } = await import('@mastra/core/workflows');
  const pay = payProvider();
  const effects = [];
  const refund = once(
    createTool({
      id: 'refund',
      description: 'Refund a charge',
      inputSchema: schema,
      outputSchema: z.object({ refund_id: z.string(), charge_id: z.string(), amount_cents: z.number(), status: z.string() }),
      execute: async (args, context) => pay.refund(args, { idempotencyKey: context.oncely.key }),
    }),
    { ledger: new Ledger(new MemoryStore()), policy: POLICY, onEffect: (e) => effects.push(e) },
  );
  const flow = createWorkflow({ id: 'refund-flow', inputSchema: schema, outputSchema: z.any() }).then(createStep(refund)).commit();
  const results = [];
  for (const runId of ['wf-run-1', 'wf-run-1', 'wf-run-2']) {
    const run = await flow.createRun({ runId });
    results.push(await run.start({ inputData: { charge_id: 'ch_1', amount_cents: 500 } }));
  }
  assert.deepEqual(results.map((r) => r.status), ['success', 'success', 'success']);
  assert.deepEqual(results[1].result, results[0].result);
  assert.equal(pay.count, 2, 'the same workflow run is one refund; another run is another');
  assert.deepEqual(effects.map((e) => [e.run, e.toolCallId, e.replayed]), [['wf-run-1', null, false], ['wf-run-1', null, true], ['wf-run-2', null, false]]);
});

test('no run: the call is refused before anything happens, unless the key is natural', async () => {
  const pay = payProvider();
  const ledger = new Ledger(new MemoryStore());
  const refund = once(refundTool(pay), { ledger, policy: POLICY });
  // An agent with no memory has no thread: the core refuses (agent.identify's IdentityError `no-run`).
  await assert.rejects(refund.execute({ charge_id: 'ch_1', amount_cents: 500 }, { agent: { toolCallId: 'c1', messages: [] } }), (e) => {
    assert.ok(e instanceof IdentityError);
    assert.equal(e.kind, 'no-run');
    assert.equal(e.message, identifyError({ tool: 'refund' }).message);
    return true;
  });
  const { requests } = await chat(refund, [[call('call_1', '{"charge_id":"ch_1","amount_cents":500}')], [{ type: 'text', text: 'No.' }]], { memory: false });
  const [refused] = toolOutputs(requests[1]);
  assert.equal(refused.output.type, 'error-text');
  assert.equal(refused.output.value, identifyError({ tool: 'refund' }).message);
  assert.equal(pay.count, 0);
  // One refund per charge, ever, in the scope: no run needed.
  const natural = once(refundTool(pay), { ledger, policy: { ...POLICY, key: { only: ['/charge_id'], identity: 'scope' } } });
  await natural.execute({ charge_id: 'ch_9', amount_cents: 500 }, {});
  await natural.execute({ charge_id: 'ch_9', amount_cents: 500 }, {});
  assert.equal(pay.count, 1);
  assert.throws(() => once({ description: 'x', execute: async () => 1 }, { ledger, run: 'r' }), /the tool has no name; give options\.name/);
  assert.throws(() => once({ id: 'x', description: 'x' }, { ledger, run: 'r' }), /wraps a tool with an execute function/);
});

test('a failed call: the model reads the answer of the core in the tool error, not the JS error', async () => {
  const ledger = new Ledger(new MemoryStore());
  const declined = once(
    createTool({
      id: 'refund',
      description: 'Refund a charge',
      inputSchema: schema,
      execute: async () => {
        throw new DefiniteFailure('card declined');
      },
    }),
    { ledger, policy: POLICY },
  );
  const text = 'oncely: the tool failed, and did not happen: card declined';
  await assert.rejects(declined.execute({ charge_id: 'ch_1', amount_cents: 500 }, { agent: { toolCallId: 'c0', messages: [], threadId: 't0' } }), (e) => {
    assert.ok(e instanceof AnsweredError);
    assert.ok(e.cause instanceof ToolFailedError);
    assert.equal(e.reply.code, 'tool-failed');
    assert.equal(e.message, text);
    return true;
  });
  const { requests, result } = await chat(declined, [[call('call_1', '{"charge_id":"ch_1","amount_cents":500}')], [{ type: 'text', text: 'Declined.' }]], { thread: 'thread-9' });
  assert.deepEqual(toolOutputs(requests[1]), [{ toolCallId: 'call_1', output: { type: 'error-text', value: text } }]);
  assert.equal(result.text, 'Declined.');
});

test('what the core does not answer propagates as it is: a storage failure is not an answer', async () => {
  class DownStore extends MemoryStore {
    async get() {
      throw new Error('disk unplugged');
    }
  }
  const ledger = new Ledger(new DownStore());
  let runs = 0;
  const refund = once(createTool({ id: 'refund', description: 'Refund', inputSchema: z.object({ charge_id: z.string() }), execute: async () => ++runs }), { ledger, run: 'thread-1', policy: POLICY });
  await assert.rejects(refund.execute({ charge_id: 'ch_1' }, {}), (e) => {
    assert.ok(e instanceof StorageError, String(e));
    assert.ok(!(e instanceof AnsweredError));
    return true;
  });
  assert.equal(runs, 0);
});

test("the caller's abort: the agent stops waiting, the call goes on and is recorded; asked again, its result", async () => {
  const pay = payProvider({ slowReplies: 1, replyMs: 300 });
  const ledger = ledgerFor(pay);
  const effects = [];
  const refund = once(
    createTool({ id: 'refund', description: 'Refund a charge', inputSchema: schema, execute: async (args, c) => pay.refund(args, { idempotencyKey: c.oncely.key, signal: c.abortSignal }) }),
    { ledger, policy: { ...POLICY, maxCallMs: 5000 }, onEffect: (e) => effects.push(e) },
  );
  const started = Date.now();
  const aborted = await chat(refund, [[call('call_1', '{"charge_id":"ch_1","amount_cents":500}')], [{ type: 'text', text: 'Refunded.' }]], {
    thread: 'thread-5',
    abortSignal: AbortSignal.timeout(100),
  }).catch((e) => e);
  assert.ok(Date.now() - started < 300, 'the agent did not wait for the tool');
  void aborted; // Mastra ends an aborted run its own way (an error or a result without the call)
  await new Promise((r) => setTimeout(r, 400)); // the refund in flight has finished by now
  assert.equal(pay.count, 1);
  assert.deepEqual(effects.map((e) => [e.toolCallId, e.replayed]), [['call_1', false]]);
  const again = await chat(refund, [[call('call_2', '{"amount_cents":500,"charge_id":"ch_1"}')], [{ type: 'text', text: 'Refunded.' }]], { thread: 'thread-5' });
  assert.deepEqual(toolOutputs(again.requests[1])[0].output.value, { refund_id: 're_1', charge_id: 'ch_1', amount_cents: 500, status: 'succeeded' });
  assert.equal(pay.count, 1);
});

// ---- approval: Mastra's tool approval is the ledger's one request, one decision ---------------

const APPROVAL = { class: 'irreversible-external', reconcile: 'provider-idempotent', approval: { when: { '/amount_cents': { '>': 100 } } } };

/** A Mastra app with storage (approval suspends the run into a snapshot) and the agent in it. */
async function approvalAgent(tools, turns) {
  const { Mastra } = await import('@mastra/core');
  const { model, requests } = scriptedModel(turns);
  const storage = new InMemoryStore();
  const agent = new Agent({ id: 'refunds', name: 'refunds', instructions: 'You refund charges.', model, tools, memory: new Memory({ storage }) });
  const mastra = new Mastra({ agents: { refunds: agent }, storage, logger: false });
  return { agent: mastra.getAgent('refunds'), requests };
}

const MEMORY = { thread: 'thread-1', resource: 'user-1' };

/** One chat turn that asks for a refund of `amount`; the approval answered with `answer` through respond(). */
async function approvalChat(ledger, pay, amount, answer, extra = {}) {
  const { respond } = await import('oncely/mastra');
  const tools = { refund: once(refundTool(pay), { ledger, policy: APPROVAL, ...extra }) };
  const { agent, requests } = await approvalAgent(tools, [[call('call_1', JSON.stringify({ charge_id: 'ch_1', amount_cents: amount }))], [{ type: 'text', text: 'Done.' }]]);
  const first = await agent.generate('Refund ch_1.', { maxSteps: 4, memory: MEMORY });
  if (first.finishReason !== 'suspended') return { first, requests };
  const decided = await respond(first.suspendPayload, answer, { tools, thread: MEMORY.thread });
  const resume = { runId: first.runId, toolCallId: first.suspendPayload.toolCallId, memory: MEMORY, maxSteps: 4 };
  const second = decided.approved ? await agent.approveToolCallGenerate(resume) : await agent.declineToolCallGenerate({ ...resume, reason: decided.reason });
  return { first, second, decided, requests };
}

test('approval: approved through respond(), the refund is paid once and the ledger says who', async () => {
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
  const pay = payProvider();
  const r = await approvalChat(ledger, pay, 500, { approved: true, by: 'alice' });
  assert.equal(r.first.finishReason, 'suspended');
  assert.deepEqual(r.first.suspendPayload.args, { charge_id: 'ch_1', amount_cents: 500 });
  assert.match(r.decided.decision, /^stl-/);
  assert.equal(r.decided.approved, true);
  assert.equal(r.second.text, 'Done.');
  assert.equal(pay.count, 1);
  const [entry] = await ledger.list('default', { tool: 'refund' });
  assert.equal(entry.runId, 'thread-1');
  const history = await ledger.history('default', entry.key);
  assert.deepEqual(history.slice(0, 2).map((h) => [h.state, h.resolvedBy]), [['awaiting-approval', null], ['approved', 'alice']]);
  // The same refund asked again on the thread: replayed, nobody asked; a small one needs nobody.
  const again = await approvalChat(ledger, pay, 500, null);
  assert.notEqual(again.first.finishReason, 'suspended');
  assert.equal(pay.count, 1);
  const small = await approvalChat(ledger, pay, 50, null);
  assert.notEqual(small.first.finishReason, 'suspended');
  assert.equal(pay.count, 2);
});

test("approval: denied through respond(), the model reads the ledger's reason and is never asked again", async () => {
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
  const pay = payProvider();
  const r = await approvalChat(ledger, pay, 700, { approved: false, by: 'bob', reason: 'over the monthly limit' });
  assert.equal(r.decided.approved, false);
  assert.match(r.decided.reason, /over the monthly limit/);
  assert.match(JSON.stringify(r.requests.at(-1).prompt), /over the monthly limit/);
  const again = await approvalChat(ledger, pay, 700, null);
  assert.notEqual(again.first.finishReason, 'suspended', 'the ledger holds the denial: nobody is asked');
  const [denied] = toolOutputs(again.requests[1]);
  assert.equal(denied.output.type, 'error-text');
  assert.match(denied.output.value, /over the monthly limit/);
  assert.equal(pay.count, 0);
});

test("approval: approved in Mastra without respond() is recorded before the call; the inbox's decision is not asked again", async () => {
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1' });
  const pay = payProvider();
  const tools = { refund: once(refundTool(pay), { ledger, policy: APPROVAL, approvedBy: 'chat-ui' }) };
  const { agent } = await approvalAgent(tools, [[call('call_1', '{"charge_id":"ch_3","amount_cents":300}')], [{ type: 'text', text: 'Done.' }]]);
  const first = await agent.generate('Refund ch_3.', { maxSteps: 4, memory: MEMORY });
  assert.equal(first.finishReason, 'suspended');
  await agent.approveToolCallGenerate({ runId: first.runId, toolCallId: 'call_1', memory: MEMORY, maxSteps: 4 });
  const [entry] = await ledger.list('default', { tool: 'refund' });
  assert.ok((await ledger.history('default', entry.key)).some((h) => h.state === 'approved' && h.resolvedBy === 'chat-ui'));
  assert.equal(pay.count, 1);
  // Approved in the inbox: the next chat asking the same refund is not asked.
  const second = await approvalAgent(tools, [[call('call_2', '{"charge_id":"ch_4","amount_cents":400}')], [{ type: 'text', text: 'Done.' }]]);
  const asked = await second.agent.generate('Refund ch_4.', { maxSteps: 4, memory: MEMORY });
  assert.equal(asked.finishReason, 'suspended');
  const [request] = await ledger.list('default', { state: 'awaiting-approval' });
  await ledger.approve('default', request.key, { by: 'dana', version: request.version });
  const third = await approvalAgent(tools, [[call('call_3', '{"amount_cents":400,"charge_id":"ch_4"}')], [{ type: 'text', text: 'Done.' }]]);
  const later = await third.agent.generate('Refund ch_4.', { maxSteps: 4, memory: MEMORY });
  assert.notEqual(later.finishReason, 'suspended');
  assert.equal(later.text, 'Done.');
  assert.equal(pay.count, 2);
  // A tool called outside an agent approves nothing by itself: it meets the ledger's request.
  const direct = await tools.refund.execute({ charge_id: 'ch_5', amount_cents: 500 }, { requestContext: undefined, workflow: { workflowId: 'w', runId: 'thread-1' } }).catch((e) => e);
  assert.ok(direct instanceof AnsweredError, String(direct));
  assert.equal(direct.reply.code, 'awaiting-approval');
  assert.equal(pay.count, 2);
});

// ---- story 2: a process killed inside the tool after paying; the thread run again ---------------

// test/helpers/killed-mastra-agent.mjs: a Mastra agent with memory in a libSQL file on thread
// `thread-7`, the ledger in SQLite, the provider's refunds in a file (one line each, with its key).
// The first process's tool pays and is killed before it returns; the second asks again (a new call
// id, the arguments respelled) on the same thread.
test('a process killed inside the tool after paying, the thread run again by a new process: once with oncely, twice bare', () => {
  for (const story of killedThenResumed(new URL('./helpers/killed-mastra-agent.mjs', import.meta.url), 'mastra')) {
    const { guarded, out, refunds } = story;
    console.log(`# mastra: killed inside the tool after paying, the thread run again: ${guarded} -> ${refunds.length} refund(s)`);
    assert.equal(out.text, 'Refunded.');
    // The thread the first process opened is in Mastra's memory (its messages are saved when a
    // step ends, so the killed step's are not): the second process goes on with the same thread.
    assert.equal(out.thread, 'thread-7', JSON.stringify(out));
    assertPaid(story);
    if (guarded === 'oncely') {
      // The second call found the first refund by its key (the lookup) and paid nothing.
      assert.deepEqual(out.tool, { type: 'json', value: { refund_id: 're_1', status: 'succeeded' } });
    }
  }
});

// The same story for a workflow whose step is the refund tool (createStep(tool)), in Mastra's
// storage (a libSQL file; test/helpers/killed-mastra-workflow.mjs): the first process is killed
// inside the step after paying, the run still active in its snapshot; the second finds it among
// the active runs and restarts it from there (`run.restart()`, Mastra's recovery of a run its
// process lost). The run is the workflow run.
test('a workflow run killed inside its refund step after paying, restarted from its snapshot by a new process: once with oncely, twice bare', () => {
  for (const story of killedThenResumed(new URL('./helpers/killed-mastra-workflow.mjs', import.meta.url), 'mastra-wf')) {
    const { guarded, out, refunds } = story;
    console.log(`# mastra: a workflow run killed inside its step after paying, restarted: ${guarded} -> ${refunds.length} refund(s)`);
    compat.record({ ...MASTRA, story: 'kill-resume', paid: refunds.length, bare: guarded === 'bare', how: 'SIGKILL, the workflow run restarted from its snapshot' });
    assert.deepEqual(out.active, ['wf-run-7'], 'the killed run was active in its snapshot');
    assert.equal(out.status, 'success');
    assertPaid(story);
    if (guarded === 'oncely') {
      // The restarted step found the first refund by its key (the lookup) and paid nothing.
      assert.deepEqual(out.result, { refund_id: 're_1', status: 'succeeded' });
    }
  }
});

// ---- the example ------------------------------------------------------------------------------

test("examples/js/mastra-agent.mjs: the model's re-ask pays twice bare, once through oncely", () => {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '../.tmp/examples');
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(REPO, 'examples/js/mastra-agent.mjs'), join(dir, 'mastra-agent.mjs'));
  const r = spawnSync(process.execPath, [join(dir, 'mastra-agent.mjs')], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `mastra-agent.mjs:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /refunds made {3}bare: 2 {3}oncely: 1\n/, r.stdout);
  console.log(`# mastra-agent.mjs: ${r.stdout.trim().split('\n').at(-1)}`);
});
