// oncely/mcp: a tool callback for `@modelcontextprotocol/sdk` (1.x) `McpServer.registerTool` that
// honours the idempotency key its clients send in `_meta` (`idempotencyKey` or `oncely/key`).
//
//   server.registerTool('refund', { inputSchema: { charge: z.string(), amount: z.number() } },
//     once(async ({ charge, amount }, extra) => {
//       const { key } = extra.oncely;                 // store it with the refund
//       return { content: [{ type: 'text', text: JSON.stringify(await refund(charge, amount)) }] };
//     }, { ledger, scope: (extra) => extra.authInfo?.clientId ?? 'default', tool: 'refund' }));
//
// A keyed call is claimed before the callback runs; its CallToolResult is recorded as JSON (an
// `isError: true` result is not: the tool said nothing was done, and a retry runs again). A
// repeat gets it back marked `_meta["oncely/replayed"]: true`; the same key with other arguments,
// a concurrent duplicate, a call whose first attempt raised (in doubt) get an `isError` result
// whose text starts with "oncely: " and whose `_meta["oncely/refusal"]` names the problem. A
// callback that raises leaves the key in doubt (its error is still the first caller's answer).
// The callback runs to its end even when the client gives up: on keyed calls `extra.signal` is
// oncely's, aborted at the policy's deadline (`maxCallMs`), not when the client cancels.

import { providerMcpRefusal } from '../core.js';
import { admit, ledgerOf, prepareProvider, recordMcp, runKeyed, scopeOf } from './shared.js';

/**
 * Wrap a registerTool callback, `(args, extra)` (a tool with an inputSchema) or `(extra)`.
 * Options: `ledger` (a Ledger, or `(extra) => ledger`), `scope` (a string or `(extra) => string`:
 * the client's stable principal, e.g. from `extra.authInfo`; never a bearer token), `tool` (the
 * tool's name in the ledger: required, the SDK does not tell the callback), `policy`, `required`,
 * `waitMs`, `owner`. The callback gets `extra.oncely` = {clientKey, key, scope, tool} on keyed calls.
 */
export function once(cb, options) {
  if (typeof cb !== 'function') throw new TypeError('oncely/mcp: once(callback, options): the callback is a function');
  const p = prepareProvider('oncely/mcp', options);
  if (p.tool === undefined) throw new TypeError('oncely/mcp: options.tool is required (the tool\'s name in the ledger; the SDK does not tell the callback)');
  return async function oncely(...a) {
    const withArgs = a.length >= 2;
    const args = withArgs ? a[0] : undefined;
    const extra = (withArgs ? a[1] : a[0]) ?? {};
    const meta = extra._meta;
    const request = {
      argumentsJson: args === undefined ? '' : JSON.stringify(args),
      metaJson: meta === undefined || meta === null ? '' : JSON.stringify(meta),
      paramsKey: undefined,
    };
    const scope = await scopeOf(p, extra);
    const admission = admit(p, scope, p.tool, { tag: 'mcp', val: request });
    if (admission.tag === 'pass') return cb(...a);
    if (admission.tag === 'refuse') return refusalResult(admission.val);
    const keyed = admission.val;
    const oncelyInfo = { clientKey: keyed.clientKey, key: keyed.key, scope, tool: p.tool };
    const ledger = await ledgerOf(p, extra);
    const out = await runKeyed(
      ledger,
      keyed,
      p.waitMs,
      async (call) => {
        // The client's cancellation does not stop a keyed call: its signal is oncely's (the deadline).
        const extraOut = { ...extra, signal: call.signal, oncely: oncelyInfo };
        try {
          return { value: await (withArgs ? cb(args, extraOut) : cb(extraOut)) };
        } catch (e) {
          return { error: e };
        }
      },
      (answer) => recordMcp(answer.value),
    );
    switch (out.kind) {
      case 'fresh':
        return out.answer.value;
      case 'handler':
        if (out.answer.error !== undefined) throw out.answer.error;
        return out.answer.value;
      case 'replay':
        return replayed(out.value, keyed.clientKey);
      default:
        return refusalResult(out.refusal);
    }
  };
}

// A recorded result, marked as replayed (a person's settlement that is no CallToolResult becomes one).
function replayed(value, clientKey) {
  const result = value !== null && typeof value === 'object' && Array.isArray(value.content) ? { ...value } : { content: [{ type: 'text', text: JSON.stringify(value) }] };
  result._meta = { ...(result._meta ?? {}), 'oncely/replayed': true, 'oncely/key': clientKey };
  return result;
}

/** A refusal as a CallToolResult (the core's: isError, its detail as text, its kind in _meta). */
function refusalResult(r) {
  return providerMcpRefusal(r);
}
