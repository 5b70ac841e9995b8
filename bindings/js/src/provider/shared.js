// What every provider middleware does (oncely/hono, oncely/express, oncely/mcp): the algorithm of
// wit/provider.wit. The core decides (admit, record-http, replay-http, refuse); this file reads
// the options, runs the handler as the effect's tool through the ledger, and says what to answer.

import { coreDefaults, providerAdmit, providerCheck, providerOversized, providerRecordHttp, providerRecordMcp, providerRefuse, providerReplayHttp } from '../core.js';
import { AmbiguousFailure, DefiniteFailure } from '../errors.js';
import { Ledger, RECORDED, WIT_ERROR } from '../ledger.js';
import { RawResult } from '../machine.js';

/**
 * Read a middleware's options once, when it is configured. `adapter` names it in errors. Options:
 * `ledger` (a Ledger, or a function of the request returning one: on workerd, a Ledger over a
 * Durable Object reached through the request's `env`), `scope` (a string, or a function of the
 * request returning one: a stable tenant or principal id, never a bearer token), `tool` (the
 * operation's name in the ledger; default: the route), `policy` (object or JSON text), `required`
 * (refuse requests without a key: 400), `waitMs` (wait for a concurrent duplicate before 409;
 * default the core's `providerWaitMs`, 0), `owner` (this worker's id in claims; default the
 * ledger's), `maxBody` (HTTP: the largest keyed request body read, in bytes; default the core's
 * `providerMaxBody`, 1 MiB; larger: 413 `request-too-large`).
 */
export function prepareProvider(adapter, options) {
  if (options === null || typeof options !== 'object') throw new TypeError(`${adapter}: options are required: { ledger, scope, … }`);
  const defaults = coreDefaults();
  const { ledger, scope, tool, policy, required = false, waitMs = defaults.providerWaitMs, owner, maxBody = defaults.providerMaxBody } = options;
  if (typeof ledger !== 'function' && !isLedger(ledger)) throw new TypeError(`${adapter}: options.ledger must be an oncely Ledger (or a function of the request returning one)`);
  if (typeof scope !== 'function' && (typeof scope !== 'string' || scope === '')) {
    throw new TypeError(`${adapter}: options.scope is required: a stable tenant or principal id (a non-empty string, or a function of the request returning one), never a bearer token`);
  }
  if (tool !== undefined && (typeof tool !== 'string' || tool === '')) throw new TypeError(`${adapter}: options.tool must be a non-empty string`);
  if (typeof required !== 'boolean') throw new TypeError(`${adapter}: options.required must be a boolean`);
  if (typeof waitMs !== 'number' || !Number.isSafeInteger(waitMs) || waitMs < 0) throw new TypeError(`${adapter}: options.waitMs must be a whole number of milliseconds >= 0`);
  if (owner !== undefined && (typeof owner !== 'string' || owner === '')) throw new TypeError(`${adapter}: options.owner must be a non-empty string`);
  if (typeof maxBody !== 'number' || !Number.isSafeInteger(maxBody) || maxBody < 0) throw new TypeError(`${adapter}: options.maxBody must be a whole number of bytes >= 0`);
  let policyJson = '';
  if (policy !== undefined && policy !== null) policyJson = typeof policy === 'string' ? policy : JSON.stringify(policy);
  // A policy the core refuses for a provider (provider-idempotent, key.only, unreadable) fails here.
  providerCheck({ tool: tool ?? 'oncely-configuration-check', policyJson, required });
  return { adapter, ledger, scope, tool, policyJson, required, waitMs, owner, maxBody };
}

/** The HTTP answer to a keyed request whose body is over `p.maxBody` (the core's refusal). */
export function oversizedHttp(p) {
  return refusalHttp(providerOversized(p.maxBody));
}

function isLedger(l) {
  return l instanceof Ledger || (l !== null && typeof l === 'object' && typeof l.effect === 'function');
}

/** The request's scope (`p.scope` or its value for `req`). */
export async function scopeOf(p, req) {
  const s = typeof p.scope === 'function' ? await p.scope(req) : p.scope;
  if (typeof s !== 'string' || s === '') throw new TypeError(`${p.adapter}: the scope function returned ${JSON.stringify(s)}; expected a non-empty string`);
  return s;
}

/** The request's ledger (`p.ledger` or its value for `req`), with `p.owner` when set. */
export async function ledgerOf(p, req) {
  const l = typeof p.ledger === 'function' && !isLedger(p.ledger) ? await p.ledger(req) : p.ledger;
  if (!isLedger(l)) throw new TypeError(`${p.adapter}: the ledger function returned no Ledger`);
  return p.owner !== undefined && typeof l.withOwner === 'function' ? l.withOwner(p.owner) : l;
}

/** admit(scope, operation, request) for the operation `tool` of these options. */
export function admit(p, scope, tool, request) {
  return providerAdmit(scope, { tool, policyJson: p.policyJson, required: p.required }, request);
}

/**
 * Run a keyed call: `invoke(call)` runs the handler once (`call.signal` aborts at the policy's
 * deadline, `maxCallMs`) and resolves to its buffered answer
 * `{status, headers, body}`, or `{error}` when it raised (an ambiguous failure: it may have
 * acted). `record(answer)` says what to record (HTTP: the core's record-http). Resolves to
 * `{kind: 'fresh', answer}` (send the handler's answer as it is), `{kind: 'replay', recorded}`
 * (the recorded JSON text), `{kind: 'handler', answer}` (the handler's own answer of this run
 * stands: send it, or re-raise its error) or `{kind: 'refuse', refusal}`. Anything else the
 * ledger throws (a bug) is thrown.
 */
export async function runKeyed(ledger, keyed, waitMs, invoke, record) {
  /** @type {any} */
  let answer = null;
  let ran = false;
  const tool = async (_key, call) => {
    ran = true;
    const a = await invoke(call);
    answer = a;
    if (a.error !== undefined) throw new AmbiguousFailure(`the handler raised: ${a.error?.message ?? a.error}`, { cause: a.error });
    return record(a);
  };
  try {
    const r = await ledger.effect(keyed.intent, keyed.policy, tool, { waitMs });
    // The handler's answer when its value is the result; else the recorded one (a replay, or a
    // reconciliation's verdict).
    if (ran && !r.replayed && !r.reconciled && answer !== null) return { kind: 'fresh', answer };
    return { kind: 'replay', recorded: r[RECORDED] ?? JSON.stringify(r.value), value: r.value };
  } catch (e) {
    const wit = e?.[WIT_ERROR];
    // The handler's own answer stands when it answered in this run; a handler abandoned at its
    // deadline (still running) has none, and the refusal is given instead.
    if (wit === undefined) {
      if (answer !== null) return { kind: 'handler', answer };
      throw e;
    }
    const a = providerRefuse(wit, answer !== null);
    return a.tag === 'handler' ? { kind: 'handler', answer } : { kind: 'refuse', refusal: a.val };
  }
}

/** What to record of an HTTP answer (the core's record-http), as the effect's tool value. */
export function recordHttp(a) {
  return recording(providerRecordHttp({ status: a.status, headers: a.headers, body: a.body }));
}

/**
 * What to record of an MCP tool's result (the core's record-mcp: `isError: true` is a definite
 * failure), as the effect's tool value; a result JSON cannot encode is recorded without one.
 */
export function recordMcp(value) {
  let json;
  try {
    json = JSON.stringify(value);
  } catch (e) {
    return new RawResult(undefined, String(e?.message ?? e));
  }
  if (json === undefined) return new RawResult(undefined, `JSON.stringify cannot encode ${typeof value}`);
  return recording(providerRecordMcp(json));
}

function recording(r) {
  if (r.tag === 'returned') return new RawResult(r.val);
  if (r.tag === 'unrecordable') return new RawResult(undefined, r.val);
  throw r.val.definite ? new DefiniteFailure(r.val.reason) : new AmbiguousFailure(r.val.reason);
}

/** The HTTP response to replay from a recorded result: {status, headers, body}, content-length set. */
export function replayHttp(recorded) {
  const r = providerReplayHttp(recorded);
  const headers = r.headers.filter(([k]) => k.toLowerCase() !== 'content-length');
  if (!NO_BODY.has(r.status)) headers.push(['content-length', String(r.body.byteLength)]);
  return { status: r.status, headers, body: r.body };
}

/** Statuses that carry no body. */
export const NO_BODY = new Set([101, 204, 205, 304]);

/** The HTTP answer to a refusal: {status, headers, body} (problem+json, Retry-After when set). */
export function refusalHttp(r) {
  const body = new TextEncoder().encode(r.problemJson);
  const headers = [
    ['content-type', 'application/problem+json'],
    ['content-length', String(body.byteLength)],
  ];
  if (r.retryAfterS !== null) headers.push(['retry-after', String(r.retryAfterS)]);
  return { status: r.status, headers, body };
}

/** The parts of a URL path + query string ("/a?b=1" → {path: "/a", query: "b=1"}). */
export function splitTarget(target) {
  const q = target.indexOf('?');
  return q < 0 ? { path: target, query: '' } : { path: target.slice(0, q), query: target.slice(q + 1) };
}
