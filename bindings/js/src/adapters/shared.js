// What every framework adapter does with a tool call (oncely/ai, oncely/openai-agents,
// oncely/langchain): name the intent, run the call through the ledger, and hand the tool the key.
//
// Identity (docs/mcp.md, "Identity"; the MCP gateway does the same):
// - scope: `options.scope`, else "default";
// - run: `options.run`, else the framework's own conversation id where it has one (LangGraph's
//   `thread_id`); with neither, a call whose key needs a run is refused (TypeError) rather than
//   keyed by something that changes when the agent is restarted;
// - step: `options.step` only. Never the model's tool-call id: a model that re-asks after an error
//   gets a new one, and a key built on it would run the effect twice. With no step, a tool keyed by
//   `step` (the default identity) is keyed by `run`: the same tool with the same arguments in the
//   same run is one effect. A natural key (`identity: "scope"`) is kept as declared.
// The tool-call id is handed to the tool (`oncely.toolCallId`) and to `onEffect`, for the record.
//
// Timing: once its claim is taken, a call runs until it returns or reaches the policy's deadline
// (`maxCallMs`), and its outcome is recorded. When the framework stops waiting first (its tool
// timeout, an abort), the adapter gives up waiting with the framework's reason while the call goes
// on: a re-ask then waits for it and gets its result. So the tool's own abort signal is oncely's
// (aborted at the deadline), not the framework's.

import { parsePolicy } from '../core.js';
import { Ledger } from '../ledger.js';

/** The policy of a tool wrapped without one: irreversible (MCP's default for a tool), all arguments keyed. */
export const DEFAULT_POLICY = { class: 'irreversible-external' };

/** The same policy keyed by run where it is keyed by step (for calls that name no step). */
function byRun(policy) {
  const key = policy.key ?? { ignore: [], identity: 'step' };
  if (key.identity !== 'step') return policy;
  return parsePolicy({ ...policy, key: { ...key, identity: 'run' } });
}

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
  const { ledger, policy = DEFAULT_POLICY, scope = 'default', run, step, maxAttempts, waitMs, onEffect } = options;
  if (!(ledger instanceof Ledger) && (ledger === null || typeof ledger?.effect !== 'function')) {
    throw new TypeError(`${adapter}: options.ledger must be an oncely Ledger`);
  }
  const tool = options.name ?? name;
  if (typeof tool !== 'string' || tool === '') throw new TypeError(`${adapter}: the tool has no name; give options.name`);
  if (onEffect !== undefined && typeof onEffect !== 'function') throw new TypeError(`${adapter}: options.onEffect must be a function`);
  const declared = parsePolicy(policy);
  return { adapter, ledger, tool, declared, byRun: byRun(declared), scope, run, step, maxAttempts, waitMs, onEffect };
}

/**
 * Run one call of a wrapped tool through the ledger and return its value (the recorded one on a
 * replay). `call`: `{args, toolCallId, ctx, frameworkRun, signal}` — `ctx` is what `scope`, `run`
 * and `step` functions get; `frameworkRun` the framework's conversation id, if any; `signal` the
 * framework's abort signal, if any. `invoke(oncely)` calls the tool, with `oncely` =
 * `{key, attempt, deadline, signal, toolCallId}`.
 */
export async function runOnce(p, { args, toolCallId, ctx, frameworkRun, signal }, invoke) {
  const scope = pick('scope', p.scope, ctx, p.adapter) ?? 'default';
  const step = pick('step', p.step, ctx, p.adapter);
  const run = pick('run', p.run, ctx, p.adapter) ?? frameworkRun;
  const policy = step === undefined ? p.byRun : p.declared;
  const identity = policy.key?.identity ?? 'step';
  if (run === undefined && identity !== 'scope') {
    throw new TypeError(
      `${p.adapter}: no run for a call of ${JSON.stringify(p.tool)}: give options.run (the conversation or thread id, ` +
        `or a function of the call returning it) so that the same request asked again is the same effect`,
    );
  }
  const intent = { scope, run, step, tool: p.tool, args };
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
  return (await untilAborted(effect, signal)).value;
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
