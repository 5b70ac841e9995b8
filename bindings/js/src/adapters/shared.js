// What every framework adapter does with a tool call (oncely/ai, oncely/openai-agents,
// oncely/langchain): name the intent, run the call through the ledger, hand the tool the key, and
// tell the model what the core answers when the call does not simply return.
//
// Identity is the core's (`agent.identify`, wit/agent.wit; docs/choosing-keys.md): the adapter
// gives what it knows — `options.scope`, `options.run`, `options.step` (strings, or functions of
// the call) and the framework's own conversation id where it has one (LangGraph's `thread_id`) —
// and the core names the scope (none given: "default"), the run (none: the call is refused with
// an IdentityError `no-run`, unless the key is natural) and the step. The model's tool-call id is
// never a source: a model that re-asks after an error gets a new one, and a key built on it would
// run the effect twice. With no step, a tool keyed by `step` (the default identity) is keyed by
// `run`: the same tool with the same arguments in the same run is one effect. The tool-call id is
// handed to the tool (`oncely.toolCallId`) and to `onEffect`, for the record.
//
// Answers are the core's (`agent.answer`): an effect that fails with what the model should read (a
// conflict, a call in progress or in doubt, escalated, a definite tool failure, arguments that
// cannot be keyed, …) is thrown as an AnsweredError whose message is the core's reply text, with
// the reply attached and the typed error as its cause; each adapter delivers it as its framework's
// tool error. What the core does not answer (storage, the ledger, a bug) propagates as it is.
//
// Timing: once its claim is taken, a call runs until it returns or reaches the policy's deadline
// (`maxCallMs`), and its outcome is recorded. When the framework stops waiting first (its tool
// timeout, an abort), the adapter gives up waiting with the framework's reason while the call goes
// on: a re-ask then waits for it and gets its result. So the tool's own abort signal is oncely's
// (aborted at the deadline), not the framework's.

import { answer, deriveKey, identify, parsePolicy } from '../core.js';
import { AnsweredError, CanonicalizationError, DeniedError, KeyDerivationError, LedgerError } from '../errors.js';
import { Ledger, WIT_ERROR } from '../ledger.js';

function pick(what, v, ctx, adapter) {
  if (typeof v === 'function') v = v(ctx);
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new TypeError(`${adapter}: ${what} must be a non-empty string (or a function returning one), got ${typeof v}`);
  return v;
}

/**
 * Read an adapter's options once, when the tool is wrapped. `adapter` names the adapter in errors;
 * `name` is the tool's name in the ledger (options.name wins).
 */
export function prepare(adapter, options, name) {
  if (options === null || typeof options !== 'object') throw new TypeError(`${adapter}: options are required: { ledger, run, … }`);
  // A tool wrapped without a policy gets the core's default (coreDefaults().policy).
  const { ledger, policy, scope, run, step, maxAttempts, waitMs, onEffect } = options;
  if (!(ledger instanceof Ledger) && (ledger === null || typeof ledger?.effect !== 'function')) {
    throw new TypeError(`${adapter}: options.ledger must be an oncely Ledger`);
  }
  const tool = options.name ?? name;
  if (typeof tool !== 'string' || tool === '') throw new TypeError(`${adapter}: the tool has no name; give options.name`);
  if (onEffect !== undefined && typeof onEffect !== 'function') throw new TypeError(`${adapter}: options.onEffect must be a function`);
  const declared = parsePolicy(policy);
  return { adapter, ledger, tool, declared, scope, run, step, maxAttempts, waitMs, onEffect };
}

/**
 * Run one call of a wrapped tool through the ledger and return its value (the recorded one on a
 * replay). `call`: `{args, toolCallId, ctx, frameworkRun, signal}` — `ctx` is what `scope`, `run`
 * and `step` functions get; `frameworkRun` the framework's conversation id, if any; `signal` the
 * framework's abort signal, if any. `invoke(oncely)` calls the tool, with `oncely` =
 * `{key, attempt, deadline, signal, toolCallId}`.
 */
export async function runOnce(p, { args, toolCallId, ctx, frameworkRun, signal }, invoke) {
  const { intent, policy, scope, run, step } = identified(p, { args, ctx, frameworkRun });
  const opts = {};
  if (p.maxAttempts !== undefined) opts.maxAttempts = p.maxAttempts;
  if (p.waitMs !== undefined) opts.waitMs = p.waitMs;
  if (signal) opts.signal = signal;
  let effect = p.ledger.effect(intent, policy, (key, call) => invoke({ key, attempt: call.attempt, deadline: call.deadline, signal: call.signal, toolCallId }), opts);
  if (p.onEffect) {
    // Told when the effect settles, even after the framework stopped waiting for it.
    effect = effect.then((r) => {
      p.onEffect({ tool: p.tool, key: r.key, scope, run: run ?? null, step: step ?? null, toolCallId: toolCallId ?? null, replayed: r.replayed, reconciled: r.reconciled });
      return r;
    });
  }
  try {
    return (await untilAborted(effect, signal)).value;
  } catch (e) {
    throw answered(e);
  }
}

/**
 * The intent of one call of a wrapped tool, its policy, and the scope, run and step the core named
 * (a call `pin`ned carries them already).
 * @param {any} p
 * @param {{args: any, ctx?: any, frameworkRun?: string, pinned?: any}} call
 */
function identified(p, { args, ctx, frameworkRun, pinned }) {
  if (pinned !== undefined) return pinned;
  const declared = p.declared.key ?? { ignore: [], identity: 'step' };
  const id = identify({
    tool: p.tool,
    keyIdentity: declared.identity,
    effectClass: p.declared.class,
    scope: pick('scope', p.scope, ctx, p.adapter),
    run: pick('run', p.run, ctx, p.adapter),
    step: pick('step', p.step, ctx, p.adapter),
    conversation: frameworkRun,
  });
  const { scope, run, step } = id;
  const policy = id.keyIdentity === declared.identity ? p.declared : parsePolicy({ ...p.declared, key: { ...declared, identity: id.keyIdentity } });
  return { intent: { scope, run: run ?? '', step: step ?? '', tool: p.tool, args }, policy, scope, run, step };
}

// ---- approval: a framework's own approval step and the ledger's record, one decision -----------

/** The call with its identity named now (what a call kept for later holds, not its context). */
export function pin(p, call) {
  return { args: call.args, pinned: identified(p, call) };
}

/** The wrapped tool's policy may ask a person to approve a call (its `approval` rule). */
export function gated(p) {
  return p.declared.approval !== undefined;
}

/**
 * Whether the framework should ask its person about this call (`call`: `{args, ctx,
 * frameworkRun}`), and if so its request, recorded in the ledger (`ledger.requestApproval`, the
 * core's `ask`: claims nothing) — the one request of this intended effect, which the inbox lists
 * and a webhook announces, so that a person may decide in either place, once: `{key,
 * argsCanonical, version, …}`; null when the ledger holds a decision (approved, or denied: the
 * call meets it) or the policy asks for none.
 */
export async function askPerson(p, call) {
  const { intent, policy } = identified(p, call);
  try {
    return await p.ledger.requestApproval(intent, policy);
  } catch (e) {
    if (e instanceof DeniedError) return null; // the call meets the denial
    throw e;
  }
}

/**
 * Record a decision the framework's person made on this call in the ledger (the request recorded
 * first if it is not yet): the decision's id, or null when the ledger already holds a decision (an
 * approval that holds or a denial: the first one stands).
 */
export async function decide(p, call, { approve, by, note = '' }) {
  if (typeof by !== 'string' || by === '') throw new TypeError(`${p.adapter}: a decision must say who decided (by)`);
  const asked = await askPerson(p, call);
  if (asked === null) return null;
  const { intent } = identified(p, call);
  try {
    const who = { by, note, version: asked.version };
    return await (approve ? p.ledger.approve(intent.scope, asked.key, who) : p.ledger.deny(intent.scope, asked.key, who));
  } catch (e) {
    // Decided meanwhile (another person, the inbox): that decision stands.
    if (e instanceof LedgerError && (e.kind === 'changed' || e.kind === 'invalid-state')) return null;
    throw e;
  }
}

/** What the ledger holds of a person's decision on this call (the core's `ledger.decision-of`): `{tag: 'asked' | 'approved' | 'denied', val}`, or null. */
async function decisionFor(p, call) {
  const { intent, policy } = identified(p, call);
  const { key } = deriveKey({ ...intent, policy });
  const e = await p.ledger.get(intent.scope, key);
  return e === null ? null : p.ledger.decisionOf(e);
}

/** What the ledger holds for this call: 'approved' (an approval, used or not), 'denied', or null (no decision). */
export async function held(p, call) {
  const d = await decisionFor(p, call);
  return d === null || d.tag === 'asked' ? null : d.tag;
}

/** What the model reads of this call's denial (the core's answer), or null when the ledger holds none. */
export async function denialText(p, call) {
  const d = await decisionFor(p, call);
  if (d === null || d.tag !== 'denied') return null;
  return answer({ tag: 'effect', val: { tag: 'denied', val: d.val } }).text;
}

/**
 * What the model reads for `error` (the core's `agent.answer`): the reply
 * `{code, text, key, pointer, retryAfterMs, repeatable}` for an effect error, or for arguments that
 * cannot be keyed; null for anything else (storage, the ledger, a bug, an abort): that is raised.
 */
export function replyTo(error) {
  if (error === null || typeof error !== 'object') return null;
  const wit = error[WIT_ERROR];
  if (wit !== undefined) return answer({ tag: 'effect', val: wit });
  if (error instanceof KeyDerivationError) return answer({ tag: 'key', val: error });
  if (error instanceof CanonicalizationError) return answer({ tag: 'canon', val: error });
  return null;
}

/** `error` as the model reads it: an AnsweredError (the core's reply), or `error` itself. */
export function answered(error) {
  if (error instanceof AnsweredError) return error;
  const reply = replyTo(error);
  return reply === null ? error : new AnsweredError(reply, error);
}

/**
 * The oncely part of what a wrapped tool's function gets (the AI SDK's options, the Agents SDK's
 * details, LangChain's config): `{key, attempt, deadline, signal, toolCallId}`. Throws when there
 * is none (the tool was called without `once()`), so that a tool never runs without its key.
 */
export function oncelyCall(from) {
  const c = from?.oncely;
  if (c === null || typeof c !== 'object' || typeof c.key !== 'string') {
    throw new TypeError('oncely: this call has no idempotency key: is the tool wrapped with once()?');
  }
  return c;
}

/**
 * `promise`, or the abort reason of `signal` if it aborts first; the promise goes on either way (its
 * failure then is nobody's to see but the ledger's, which recorded it).
 */
export function untilAborted(promise, signal) {
  if (!signal) return promise;
  promise.catch(() => {});
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}

function abortReason(signal) {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}
