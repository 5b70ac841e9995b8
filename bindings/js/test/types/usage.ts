// Compiled (not run) by types.test.mjs: the declarations describe the API as used.
import {
  canonicalize, checkTools, deriveKey, deriveKeys, explain, intentKey, happened, notHappened, parsePolicy, unknown,
  answer, identify, replyTo, AnsweredError, IdentityError, type Identity, type Reply,
  DefiniteFailure, DurableObjectStore, KeyDerivationError, Ledger, LedgerError, MemoryStore, ResultNotRecordedError,
  EVENT_KINDS, type DecisionEvent, type EventKind,
  type DerivedKey, type Entry, type HistoryRecord, type Outcome, type Policy, type Sweeper, type SweepReport,
} from 'oncely';
import * as otel from '@opentelemetry/api';
import { SqliteStore } from 'oncely/sqlite';
import { PostgresStore } from 'oncely/postgres';

const c: string = canonicalize('{"a":1}') + canonicalize(new Uint8Array([0x31]));
const k: DerivedKey = deriveKey({ scope: 's', run: 'r', step: 't', tool: 'x', args: { a: 1 }, policy: { class: 'irreversible-external', key: { only: ['/a'] } } });
const many = deriveKeys([{ scope: 's', tool: 'x', args: '{}' }]);
const justKey: string = intentKey({ scope: 's', run: 'r', step: 't', tool: 'x', args: { a: 1 } });
for (const r of many) if (r instanceof KeyDerivationError) console.log(r.kind, r.canon?.offset);
const e = explain({ scope: 's', tool: 'x', args: {} }, { scope: 's', tool: 'y', args: {} });
const v: 'same-intent' | 'conflict' | 'different-keys' = e.verdict;
const p: Policy = parsePolicy('{"class":"read-only"}');
const ok: boolean = checkTools({ tools: [] }).passed;

async function main() {
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1', clock: () => Date.now() });
  ledger.reconciler('refund', async (req) => (req.attempt > 1 ? happened({ id: 1 }) : req.path === 'manual' ? unknown('?') : notHappened()));
  const r = await ledger.effect({ scope: 's', run: 'r', step: 't', tool: 'refund', args: { charge: 'ch' } }, p, async (key: string) => {
    if (!key) throw new DefiniteFailure('no');
    return { refund: key };
  });
  const refund: string = r.value.refund;
  const begun = await ledger.begin({ scope: 's', run: 'r', step: 't', tool: 't', args: 1 }, p);
  const o: Outcome = begun.outcome;
  const claimedBy: string = `${begun.claim.runId}/${begun.claim.stepId}`;
  if (o.tag === 'execute') await ledger.complete('s', 'k', o.val, { ok: true });
  const entries: Entry[] = await ledger.list('s', { state: 'done', limit: 5 });
  // A human settles what they looked at: the version they saw, the settlement's id back.
  const seen = await ledger.get('s', 'k');
  if (seen) {
    // Which run and step the entry came from, for the person settling it.
    const from: [string, string] = [seen.runId, seen.stepId];
    console.log(claimedBy, from);
    try {
      const id: string = await ledger.resolve('s', 'k', notHappened(), { by: 'ops', version: seen.version });
      const kept: string | null = (await ledger.get('s', 'k'))?.settlement ?? null;
      console.log(id === kept);
    } catch (err) {
      if (err instanceof LedgerError && err.kind === 'changed') console.log('look again');
    }
    // @ts-expect-error: the version the person saw is required
    await ledger.resolve('s', 'k', happened(1), { by: 'ops' });
  }
  const history: HistoryRecord[] = await ledger.history('s', 'k');
  const last: string | null = history.at(-1)?.settlement ?? null;
  if (o.tag === 'settled') console.log(o.val.startsWith('stl-'), last);
  const sqlite = await SqliteStore.open(':memory:');
  const pg = await PostgresStore.connect('postgres://x', { max: 2 });
  const report = await new Ledger(sqlite, { clock: () => 0, sleep: async (ms: number) => void ms }).sweep();
  const purged: number = report.purged + (await new Ledger(sqlite).purgeExpired());
  // Every decision, to a hook (and to OpenTelemetry: the installed API, or the one given, or none).
  const kinds: EventKind[] = [...EVENT_KINDS];
  const off: () => void = ledger.onEvent((ev: DecisionEvent) => console.log(ev.kind, ev.scope, ev.key, ev.tool, ev.detail), { onError: (err, ev) => console.log(err, ev.kind) });
  off();
  new Ledger(sqlite, { onEvent: async (ev) => void (ev.kind === 'in-doubt' && kinds.includes(ev.kind)), openTelemetry: otel });
  new Ledger(sqlite, { openTelemetry: false }).withOwner('w2').onEvent(() => {})();
  // @ts-expect-error: not a kind
  const bad: EventKind = 'doubted';
  // @ts-expect-error: true is not an API
  new Ledger(sqlite, { openTelemetry: true });
  const sweeper: Sweeper = ledger.startSweeper({ everyMs: 1000, scope: 's', onReport: (r: SweepReport) => console.log(r.reconciled), onError: (err) => console.log(err) });
  if (sweeper.running) await sweeper.stop();
  await ledger.startSweeper().stop();
  const due: Entry[] = await sqlite.due(null, Date.now(), 10);
  const dueAt: number | null = due[0]?.dueAt ?? null;
  try {
    await ledger.effect({ scope: 's', tool: 'x', args: 1 }, p, () => 1n);
  } catch (err) {
    if (err instanceof ResultNotRecordedError) console.log(err.code, err.key, err.reason, purged, dueAt);
  }
  await pg.close();
  // Every shipped store has the Store methods and a required close().
  const shipped: Array<import('oncely').ShippedStore> = [new MemoryStore(), sqlite, pg];
  const first: Entry | null = await shipped[0].get('s', 'k');
  const kept: HistoryRecord[][] = await Promise.all(shipped.map((s) => s.history('s', 'k')));
  await Promise.all(shipped.map((s) => s.close()));
  console.log(c, k, v, ok, refund, entries, first, kept, DurableObjectStore);
}
main();

// The adapters (oncely/ai, oncely/openai-agents, oncely/langchain, oncely/mastra, oncely/restate,
// oncely/dbos) and oncely/fetch, typed
// structurally: they need no framework's types.
import { once as onceAi, oncelyCall, type EffectRecord } from 'oncely/ai';
import { once as onceAgents } from 'oncely/openai-agents';
import { once as onceLangChain } from 'oncely/langchain';
import { once as onceMastra, respond as respondMastra } from 'oncely/mastra';
import { run as restateRun, type RestateIdentity } from 'oncely/restate';
import { runStep as dbosStep, stepIdentity, type DBOSIdentity } from 'oncely/dbos';
import { keyedFetch, NOT_PERFORMED, type KeyedResponse } from 'oncely/fetch';

async function adapters(ledger: Ledger) {
  const log: EffectRecord[] = [];
  const aiTool = onceAi(
    { description: 'd', execute: async (args: { id: string }, options: { toolCallId: string }) => ({ id: args.id, key: oncelyCall(options).key, at: options.toolCallId }) },
    { ledger, name: 'refund', run: ({ options }) => options.context?.chatId, onEffect: (e) => log.push(e) },
  );
  const agentsOptions = onceAgents({ name: 'refund', description: 'd', parameters: {}, execute: async (args: unknown) => args }, { ledger, run: 'r', policy: { class: 'accumulating-write' } });
  const name: string = agentsOptions.name;
  const lc = onceLangChain({ name: 'refund', invoke: async (x: unknown) => x }, { ledger, step: () => undefined, scope: 'acme' });
  const mastraTool = onceMastra({ id: 'refund', description: 'd', execute: async (args: unknown, context: { oncely?: unknown }) => [args, oncelyCall(context).key] }, { ledger, run: ({ context }) => context.requestContext?.get('chatId') });
  const mastraId: string = mastraTool.id;
  const answered = await respondMastra({ toolCallId: 'c', toolName: 'refund', args: {} }, { approved: false, by: 'bob', reason: 'no' }, { tools: { refund: mastraTool }, thread: 't' });
  const mastraDecision: string | null = answered.approved ? answered.decision : (answered.reason ?? null);
  const r: KeyedResponse<{ id: string }> = await keyedFetch<{ id: string }>('http://127.0.0.1:1/x', { method: 'POST', json: { a: 1 }, call: { key: 'k', signal: undefined }, timeoutMs: 5, notPerformed: [...NOT_PERFORMED, 402] });
  const restateCtx = { request: () => ({ id: 'inv_1' }), run: (_name: string, action: () => unknown) => Promise.resolve(action()) };
  const restated: Promise<unknown> = restateRun(restateCtx, 'refund', ({ run, step }: RestateIdentity) => ledger.effect({ scope: 'acme', run, step, tool: 'refund', args: {} }, undefined, (key) => key), { byStep: true, maxRetryAttempts: 3 });
  const dbosValue: Promise<string> = dbosStep(({ run, step }: DBOSIdentity) => ledger.effect({ scope: 'acme', run, step, tool: 'refund', args: {} }, undefined, (key) => key).then((e) => String(e.value)), { name: 'refund', retriesAllowed: true });
  const inStep: DBOSIdentity = stepIdentity({ byStep: false });
  console.log(aiTool, name, lc, mastraId, mastraDecision, r.body.id, r.status, log, restated, dbosValue, inStep.run);
}
void adapters;

// The provider middleware: oncely/hono (Hono's own types), oncely/express and oncely/mcp.
import { Hono } from 'hono';
import { once as onceHono } from 'oncely/hono';
import { once as onceExpress, rawBody, type OncelyExpressRequest } from 'oncely/express';
import { once as onceMcp } from 'oncely/mcp';
import { ConfigurationError, InProgressError } from 'oncely';

function providers(ledger: Ledger) {
  const app = new Hono();
  app.post('/refunds', onceHono({ ledger, scope: (c) => c.req.header('x-tenant') ?? 'default', required: true, waitMs: 0 }), (c) => {
    const { key, clientKey } = c.get('oncely');
    return c.json({ key, clientKey }, 201);
  });
  const mw = onceExpress({ ledger: () => ledger, scope: (req: OncelyExpressRequest) => String(req.headers['x-tenant'] ?? 'default'), tool: 'refund', policy: { class: 'irreversible-external' } });
  const verify: typeof rawBody = rawBody;
  const withArgs = onceMcp(async (args: { charge: string }, extra) => ({ content: [{ type: 'text' as const, text: args.charge + (extra.oncely?.key ?? '') }] }), { ledger, scope: 's', tool: 'refund' });
  const extraOnly = onceMcp(async (extra: { _meta?: Record<string, unknown> }) => ({ content: [], meta: extra._meta }), { ledger, scope: (e) => String(e._meta?.tenant ?? 's'), tool: 'ping', required: true });
  const busy = (e: unknown) => (e instanceof InProgressError ? e.retryAfterMs : e instanceof ConfigurationError ? e.code : null);
  console.log(app, mw, verify, withArgs, extraOnly, busy);
}
void providers;

// The core's agent rules: a call's identity, what the model reads.
{
  const id: Identity = identify({ tool: 'charge', keyIdentity: 'step', run: 'conv-1', conversation: null });
  const runOrNone: string | null = id.run;
  const noStep: string = intentKey({ run: 'conv-1', tool: 'charge', args: {} });
  const r: Reply | null = answer({ tag: 'effect', val: { tag: 'tool-failed', val: 'declined' } });
  const fromError: Reply | null = replyTo(new Error('x'));
  const why = (e: unknown) => (e instanceof IdentityError ? e.kind : e instanceof AnsweredError ? e.reply.text : null);
  console.log(runOrNone, noStep, r?.retryAfterMs, fromError?.repeatable, why);
}
