// The facade over the core component: every rule (canonicalization, keys, policy, the ledger's
// machines) is the component's; this file only converts between JS values and the WIT
// types, and turns the core's error records into exceptions.

import { instantiate } from '../gen/core/oncely-core.js';
import coreModule from '#core-module';
import {
  CanonicalizationError,
  ConfigurationError,
  CoreTrapError,
  IdentityError,
  KeyDerivationError,
  PolicyError,
} from './errors.js';
import { writeJson } from './json.js';
import { decodeRunAnswer, encode, keep } from './encoding.js';
import { reconcileOut, witIn, witOut } from './wire.js';
import { isWellFormed, text, wtf8 } from './wtf8.js';

// ---- the instance -----------------------------------------------------------------------------

let core = null;

function instance() {
  if (core === null) core = instantiate(coreModule, {});
  return core;
}

// Run `f` on the instance. A core error (a WIT `result` err, which jco throws with `payload`)
// becomes `mapErr(payload)`. A trap fails this call only: the instance is dropped, never reused.
function call(f, mapErr) {
  const c = instance();
  try {
    return f(c);
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) {
      if (core === c) core = null;
      throw new CoreTrapError(e);
    }
    if (mapErr && e !== null && typeof e === 'object' && 'payload' in e) throw mapErr(e.payload);
    throw e;
  }
}

const canonErr = (e) => new CanonicalizationError(canonPlain(e));
const keyErr = (e) => new KeyDerivationError(keyPlain(e));
const policyErr = (e) => new PolicyError(e);

const canonPlain = (e) => witOut('canonical.canon-error', e);
const keyPlain = (e) => witOut('keys.key-error', e);

// ---- JSON text in -------------------------------------------------------------------------------

let limitsCache = null;

/** The core's limits: input bytes (16 MiB) and nesting depth (128). */
export function limits() {
  if (limitsCache === null) {
    limitsCache = call((c) => ({ maxInputBytes: Number(c.canonical.maxInputBytes()), maxDepth: c.canonical.maxDepth() }));
  }
  return { ...limitsCache };
}

/** The core's error (plain) for JSON text, a string or bytes; null when the core accepts it. */
function judge(json) {
  return call((c) => {
    try {
      if (typeof json === 'string' && isWellFormed(json)) c.canonical.canonicalize(json);
      else c.canonical.canonicalizeBytes(typeof json === 'string' ? wtf8(json) : json);
    } catch (e) {
      if (e !== null && typeof e === 'object' && 'payload' in e) return canonPlain(e.payload);
      throw e;
    }
    return null;
  });
}

/**
 * JSON text of a value (json.js: nothing dropped or converted), or the error (plain, as the
 * core's) for a value that cannot be written: the core's for the text before the problem when
 * that text already holds one — the first in document order wins — else the problem's.
 */
function valueText(v) {
  const { maxInputBytes, maxDepth } = limits();
  const w = writeJson(v, maxDepth, maxInputBytes);
  if (w.text !== undefined) return { text: w.text, canon: null };
  const core = judge(w.cut);
  if (w.error === null || (core !== null && core.offset < w.error.offset)) return { text: null, canon: core };
  return { text: null, canon: w.error };
}

/**
 * JSON text of `v` (a string is taken as JSON text, anything else is written by json.js), or
 * the error for it: `{text, canon}`, `canon` (plain) when the text cannot reach the core as it is
 * (a value JSON cannot carry, or text holding a lone surrogate).
 */
function jsonText(v) {
  if (typeof v !== 'string') return valueText(v);
  if (isWellFormed(v)) return { text: v, canon: null };
  return { text: null, canon: judge(v) };
}

/** Policy, tool and tool-list documents: their JSON errors are the PolicyError the core gives. */
function documentText(doc) {
  const { text: t, canon } = jsonText(doc);
  if (canon !== null) throw new PolicyError({ at: '', message: canon.message });
  return t;
}

// ---- canonical ----------------------------------------------------------------------------------

/**
 * The RFC 8785 canonical form of JSON text (a string, or UTF-8 bytes). Text holding a lone
 * surrogate is sent as WTF-8 bytes, so the core reports `lone-surrogate` instead of a silent
 * U+FFFD.
 */
export function canonicalize(json) {
  if (typeof json === 'string') {
    if (isWellFormed(json)) return call((c) => c.canonical.canonicalize(json), canonErr);
    const bytes = wtf8(json);
    return call((c) => c.canonical.canonicalizeBytes(bytes), canonErr);
  }
  if (json instanceof Uint8Array) return call((c) => c.canonical.canonicalizeBytes(json), canonErr);
  if (json instanceof ArrayBuffer) return canonicalize(new Uint8Array(json));
  throw new TypeError('canonicalize takes JSON text (a string) or its bytes (a Uint8Array)');
}

// ---- policy -------------------------------------------------------------------------------------

const WIT = Symbol('oncely.wit');

/** A policy as the policy JSON document it is equivalent to, every field explicit. */
function policyOut(p) {
  const out = {
    class: p.class,
    key: p.key ? keySpecOut(p.key) : undefined,
    reconcile: reconcileOut(p.reconcile),
    leaseMs: Number(p.leaseMs),
    maxCallMs: Number(p.maxCallMs),
    reconcileAfterMs: Number(p.reconcileAfterMs),
    escalateAfterMs: Number(p.escalateAfterMs),
    retentionMs: Number(p.retentionMs),
    approval: p.approval ? approvalOut(p.approval) : undefined,
  };
  if (out.key === undefined) delete out.key;
  if (out.approval === undefined) delete out.approval;
  // The WIT record crosses with every effect of the tool: frozen, its bytes kept (encoding.js).
  Object.defineProperty(out, WIT, { value: keep(p) });
  return Object.freeze(out);
}

/** An approval rule as its policy JSON: the condition as the object it is (the core's canonical JSON). */
function approvalOut(a) {
  const out = { expiresAfterMs: Number(a.expiresAfterMs) };
  if (a.when !== undefined) out.when = JSON.parse(a.when);
  return out;
}

function keySpecOut(k) {
  const out = { ignore: [...k.ignore], identity: k.identity };
  if (k.only !== undefined) out.only = [...k.only];
  return out;
}

const policyCache = new Map();
const POLICY_CACHE_MAX = 256;

/**
 * Read an oncely policy document (the value of `_meta["oncely/policy"]`): an object or JSON text
 * (undefined: the core's default policy, `coreDefaults().policy`). Returns it with every field
 * explicit (defaults filled in by the core), frozen.
 */
export function parsePolicy(doc) {
  if (doc === undefined) return coreDefaults().policy;
  if (doc !== null && typeof doc === 'object' && doc[WIT]) return doc;
  const t = documentText(doc);
  let p = policyCache.get(t);
  if (p === undefined) {
    p = policyOut(call((c) => c.policy.parsePolicy(t), policyErr));
    if (policyCache.size >= POLICY_CACHE_MAX) policyCache.delete(policyCache.keys().next().value);
    policyCache.set(t, p);
  }
  return p;
}

/** The WIT record of a policy (a parsed policy, a policy object or JSON text). */
export function witPolicy(policy) {
  return parsePolicy(policy)[WIT];
}

let defaultSpecCache = null;
function defaultSpec() {
  if (defaultSpecCache === null) defaultSpecCache = call((c) => c.keys.defaultSpec());
  return defaultSpecCache;
}

/** The key spec of a policy (or the default spec: all arguments, identity step). */
function specOf(policy) {
  if (policy === undefined || policy === null) return defaultSpec();
  return witPolicy(policy).key ?? defaultSpec();
}

/** The class a policy names (none given: not known, taken as keyed by the core). */
function classOf(policy) {
  return policy === undefined || policy === null ? undefined : witPolicy(policy).class;
}

let coreDefaultsCache = null;
/**
 * The core's defaults (wit/effect.wit `core-defaults`): what every option left out means, the same
 * in every host — each field of the record, counts and milliseconds as numbers, `policy` parsed
 * (the policy of a tool given none). Frozen.
 */
export function coreDefaults() {
  if (coreDefaultsCache === null) {
    const d = call((c) => c.effect.defaults());
    coreDefaultsCache = Object.freeze({ ...witOut('effect.core-defaults', d), policy: policyOut(d.policy) });
  }
  return coreDefaultsCache;
}

/** The policy of a class with every field at its default. */
export function defaultPolicy(cls) {
  return policyOut(call((c) => c.policy.defaultPolicy(cls)));
}

/** The class MCP `ToolAnnotations` imply, with the MCP defaults for missing hints. */
export function classify(annotations = {}) {
  const a = {
    readOnlyHint: annotations.readOnlyHint ?? undefined,
    destructiveHint: annotations.destructiveHint ?? undefined,
    idempotentHint: annotations.idempotentHint ?? undefined,
    openWorldHint: annotations.openWorldHint ?? undefined,
  };
  return call((c) => c.policy.classify(a));
}

function resolvedOut(r) {
  return { name: r.name, policy: policyOut(r.policy), classSource: r.classSource };
}

/** Resolve one MCP tool object (`{name, annotations, _meta: {"oncely/policy": …}}`) to its policy. */
export function resolveTool(tool) {
  const t = documentText(tool);
  return resolvedOut(call((c) => c.policy.resolveTool(t), policyErr));
}

/**
 * The release gate over a tool list: an MCP `tools/list` result (`{tools: […]}`), a JSON-RPC
 * response carrying one, or an array of tools; an object or JSON text. `passed` is false when
 * any finding is an error.
 */
export function checkTools(list) {
  const t = documentText(list);
  const r = call((c) => c.policy.checkManifest(t), policyErr);
  return {
    passed: r.passed,
    tools: r.tools.map(resolvedOut),
    findings: r.findings.map((f) => witOut('policy.finding', f)),
  };
}

// ---- keys ---------------------------------------------------------------------------------------

/**
 * The WIT intent of `{scope, run, step, tool, args}` (args: a value or JSON text). Identity
 * strings must be well-formed Unicode (EncodingError, checked first, in the core's order: scope,
 * tool, run, step). Arguments that cannot reach the core as JSON text (a value JSON cannot carry,
 * text holding a lone surrogate) give the `invalid-args` error `derive` would give; `check(c,
 * standIn)` calls the core with the intent whose arguments are a stand-in it refuses as
 * `invalid-args` (empty text), so that what the core checks before the arguments (empty fields,
 * the key spec, the owner) is reported first, as the core orders its errors.
 */
export function witIntent(i, check) {
  if (i === null || typeof i !== 'object') throw new TypeError('an intent is an object {scope, run, step, tool, args}');
  const scope = text('scope', i.scope);
  const tool = text('tool', i.tool);
  const runId = text('run', i.run ?? '');
  const stepId = text('step', i.step ?? '');
  const { text: argsJson, canon } = jsonText(i.args);
  if (canon === null) return { scope, runId, stepId, tool, argsJson };
  const standIn = { scope, runId, stepId, tool, argsJson: '' };
  let found;
  try {
    call((c) => check(c, standIn), keyErr);
  } catch (e) {
    if (!(e instanceof KeyDerivationError)) throw e;
    found = keyErrorIn(e);
  }
  // Which error wins, and its words, are the core's (keys.args-refused).
  throw keyErr(call((c) => c.keys.argsRefused(found, canonIn(canon))));
}

const keyCheck = (spec) => (c, standIn) => c.keys.key(standIn, spec);

const derivedOut = (d) => witOut('keys.derived-key', d);

/**
 * The idempotency key of an intent: `{scope, run, step, tool, args, policy}`. `args` is a value
 * (serialized as JSON) or JSON text; `policy` an oncely policy (its key spec is used; none: all
 * arguments, identity step). Returns `{key, preimage, fingerprint, argsCanonical}`. An intent
 * with no step (absent or "") is named by the core (`identify`): no scope is the scope "default",
 * and a key of identity `step` is keyed by `run`; IdentityError `no-run` when the key needs a run
 * and there is none.
 */
export function deriveKey(intent) {
  const { intent: named, spec } = identified(intent, specOf(intent?.policy), classOf(intent?.policy));
  const i = witIntent(named, keyCheck(spec));
  return derivedOut(call((c) => c.keys.derive(i, spec), keyErr));
}

/**
 * The idempotency key alone (`deriveKey(intent).key`), from the core's `keys.key`: one SHA-256
 * pass instead of two and only the key copied back. Same errors (and step rule) as `deriveKey`.
 */
export function intentKey(intent) {
  const { intent: named, spec } = identified(intent, specOf(intent?.policy), classOf(intent?.policy));
  const i = witIntent(named, keyCheck(spec));
  return call((c) => c.keys.key(i, spec), keyErr);
}

/**
 * Keys of many intents under one policy in one call to the core. Each result stands alone: a
 * DerivedKey, or the KeyDerivationError of that intent (returned, not thrown). The intents are
 * keyed as they are (the core's `keys.derive-many`): one without a step is not named by
 * `identify` here (give the step, or use `deriveKey`).
 * @param intents
 * @param {{policy?: any}} [options]
 */
export function deriveKeys(intents, { policy } = {}) {
  const spec = specOf(policy);
  const out = new Array(intents.length);
  const batch = [];
  const where = [];
  intents.forEach((it, n) => {
    try {
      batch.push(witIntent(it, keyCheck(spec)));
      where.push(n);
    } catch (e) {
      if (!(e instanceof KeyDerivationError)) throw e;
      out[n] = e;
    }
  });
  const results = call((c) => c.keys.deriveMany(batch, spec));
  results.forEach((r, j) => {
    out[where[j]] = r.tag === 'ok' ? derivedOut(r.val) : keyErr(r.val);
  });
  return out;
}

/**
 * Why two intents do or don't share a key. The key spec is that of `options.policy`, else of
 * `a.policy`, else the default. Returns `{verdict, keyA, keyB, differences}`; each difference
 * names the part, the args pointer, both values (null when absent) and its effect.
 */
export function explain(a, b, options = {}) {
  const spec = specOf(options.policy ?? a?.policy);
  const ia = witIntent(a, keyCheck(spec));
  let ib;
  try {
    ib = witIntent(b, keyCheck(spec));
  } catch (e) {
    // The first intent's errors, the core's included, come before any of the second's.
    if (e instanceof KeyDerivationError) call((c) => c.keys.key(ia, spec), keyErr);
    throw e;
  }
  const e = call((c) => c.keys.explain(ia, ib, spec), keyErr);
  return witOut('keys.explanation', e);
}

// ---- ledger (used by ledger.js) -----------------------------------------------------------------

/** ledger.prepare: the claim for an intent under a policy (WIT records). */
export function witPrepare(intent, policy, owner) {
  const p = witPolicy(policy);
  const o = text('owner', owner);
  const i = witIntent(intent, prepareCheck(p, o));
  return call((c) => c.ledger.prepare(i, p, o), keyErr);
}

/** ledger.prepare of an intent already named (`witIdentified`) under a WIT policy. */
export function witClaim(intent, policy, owner) {
  const o = text('owner', owner);
  return call((c) => c.ledger.prepare(witIntent(intent, prepareCheck(policy, o)), policy, o), keyErr);
}

/** ledger.asks-approval: `begin` of `claim` on `current` (a WIT entry, or undefined) would wait for a person. */
export function witAsksApproval(current, claim, now) {
  return call((c) => c.ledger.asksApproval(current, claim, BigInt(now)));
}

/** ledger.decision-of: the request, approval or denial a WIT entry holds, or undefined. */
export function witDecisionOf(entry) {
  return call((c) => c.ledger.decisionOf(entry));
}

/** The check of `witIntent` for a claim (`ledger.prepare`; the effect machine starts with it). */
export function prepareCheck(policy, owner) {
  return (c, standIn) => c.ledger.prepare(standIn, policy, owner);
}

/** effect.run: the next step of a machine (wit/effect.wit), from its state and what happened: the
 * run-call and the run-answer cross as bytes in the core's encoding (./encoding.js). */
let steps = 0;

export function witRun(state, input, now) {
  steps++;
  const answer = decodeRunAnswer(runBytes(encode('effect.run-call', { state, input, now })));
  if (answer.tag === 'key-error') throw keyErr(answer.val);
  return answer.val;
}

/** effect.run as the core exports it: a run-call's bytes in, a run-answer's out. */
export function runBytes(bytes) {
  return call((c) => c.effect.run(bytes));
}

/** How many machine steps this process has computed (calls of `effect.run`, each one crossing
 * into the core): a fresh effect takes three, a replay one (wit/effect.wit). */
export function machineSteps() {
  return steps;
}


// ---- provider (used by the provider middleware: provider/*.js) ----------------------------------

/** A policy (JS, frozen, WIT attached) from the core's WIT record. */
export function policyFromWit(p) {
  return policyOut(p);
}

const refusalOut = (r) => witOut('provider.refusal', r);

const configErr = (message) => new ConfigurationError(String(message));

/**
 * provider.admit: what to do with a request (wit/provider.wit). `operation` = {tool, policyJson,
 * required}; `request` = {tag: 'http', val: {method, path, query, contentType, body, keys}} or
 * {tag: 'mcp', val: {argumentsJson, metaJson, paramsKey}}. Returns {tag: 'pass'} | {tag: 'keyed',
 * val: {clientKey, key, intent: {scope, run, step, tool, args}, policy}} | {tag: 'refuse', val:
 * refusal}; throws ConfigurationError when the operation is misconfigured.
 * @returns {{tag: 'pass', val?: undefined} | {tag: 'refuse', val: any}
 *   | {tag: 'keyed', val: {clientKey: string, key: string, intent: any, policy: any}}}
 */
export function providerAdmit(scope, operation, request) {
  const s = text('scope', scope);
  const op = { tool: text('tool', operation.tool), policyJson: operation.policyJson, required: Boolean(operation.required) };
  const a = call((c) => c.provider.admit(s, op, request), configErr);
  if (a.tag === 'refuse') return { tag: 'refuse', val: refusalOut(a.val) };
  if (a.tag !== 'keyed') return { tag: 'pass' };
  const { clientKey, key, intent: i, policy } = a.val;
  return { tag: 'keyed', val: { clientKey, key, intent: { scope: i.scope, run: i.runId, step: i.stepId, tool: i.tool, args: i.argsJson }, policy: policyOut(policy) } };
}

/** provider.check-operation: the operation's policy as `admit` uses it; ConfigurationError if refused. */
export function providerCheck(operation) {
  const op = { tool: text('tool', operation.tool), policyJson: operation.policyJson, required: Boolean(operation.required) };
  return policyOut(call((c) => c.provider.checkOperation(op), configErr));
}

/** provider.record-http: {status, headers: [[name, value]], body: Uint8Array} → {tag: returned | failed | unrecordable, val}. */
export function providerRecordHttp(response) {
  return call((c) => c.provider.recordHttp(response));
}

/** provider.record-mcp: what an MCP tool's result (a CallToolResult as JSON text) means; as record-http. */
export function providerRecordMcp(resultJson) {
  return call((c) => c.provider.recordMcp(String(resultJson)));
}

/** provider.replay-http: the response to replay from a recorded result. */
export function providerReplayHttp(recorded) {
  return call((c) => c.provider.replayHttp(String(recorded)));
}

/** provider.oversized: the 413 request-too-large refusal of a keyed body over `limitBytes`. */
export function providerOversized(limitBytes) {
  return refusalOut(call((c) => c.provider.oversized(BigInt(limitBytes))));
}

/** provider.mcp-refusal: a refusal as the CallToolResult an MCP server returns (the core's JSON, parsed). */
export function providerMcpRefusal(refusal, clientKey) {
  return JSON.parse(call((c) => c.provider.mcpRefusal(witIn('provider.refusal', refusal), clientKey ?? undefined)));
}

/** provider.refuse: {tag: 'handler'} | {tag: 'refuse', val: refusal}, from the core's effect-error record. */
export function providerRefuse(witError, handlerRan) {
  const a = call((c) => c.provider.refuse(witError, Boolean(handlerRan)));
  return a.tag === 'refuse' ? { tag: 'refuse', val: refusalOut(a.val) } : { tag: 'handler' };
}

// ---- agent (wit/agent.wit: what adapters and low-level APIs ask) --------------------------------

const optText = (field, v) => (v === undefined || v === null ? undefined : text(field, v));

const identityErr = (e) => new IdentityError(witOut('agent.identity-error', e));

/**
 * agent.identify: the scope, run and step of a tool call, and the key identity to key it with.
 * `call` = {tool, keyIdentity ('step' when absent), effectClass, scope, run, step, conversation,
 * metaJson, paramsKey, session, defaultScope, defaultRun} (all but `tool` optional; absent, null
 * and "" name nothing). `effectClass` is the tool's class when known: a class that passes through
 * ('read-only', 'overwriting-write') needs no run, and with none is keyed by its scope. Returns {scope, run, step, keyIdentity, scopeFrom, runFrom, stepFrom} (`run` and
 * `step` null when none); throws IdentityError (`no-run`, `invalid-meta`) with the core's message.
 */
export function identify(context) {
  if (context === null || typeof context !== 'object') throw new TypeError('identify takes a call context {tool, keyIdentity, scope, run, step, …}');
  const ctx = {
    tool: text('tool', context.tool),
    keyIdentity: context.keyIdentity ?? 'step',
    effectClass: context.effectClass ?? undefined,
    scope: optText('scope', context.scope),
    run: optText('run', context.run),
    step: optText('step', context.step),
    conversation: optText('conversation', context.conversation),
    metaJson: context.metaJson === undefined || context.metaJson === null ? '' : text('metaJson', context.metaJson),
    paramsKey: optText('paramsKey', context.paramsKey),
    session: optText('session', context.session),
    defaultScope: optText('defaultScope', context.defaultScope),
    defaultRun: optText('defaultRun', context.defaultRun),
  };
  return witOut('agent.identity', call((c) => c.agent.identify(ctx), identityErr));
}

/**
 * An intent as the core names it when it has no step (absent, null or ""): `identify` with its
 * scope and run and the identity of `spec` (a WIT key spec). Returns `{intent, spec}`: the intent
 * with the scope, run and step the core gave ("" for none) and the spec with the identity to key
 * it with. An intent with a step, or no tool, is returned as it is (its fields checked by the
 * core's keys).
 */
function identified(intent, spec, effectClass) {
  if (intent === null || typeof intent !== 'object' || (intent.step !== undefined && intent.step !== null && intent.step !== '')) return { intent, spec };
  // No tool: the keys' own error (empty-field `tool`), in their order; ids as text in that order.
  if (typeof intent.scope === 'string') text('scope', intent.scope);
  if (typeof intent.tool !== 'string' || intent.tool === '') return { intent, spec };
  text('tool', intent.tool);
  const id = identify({ tool: intent.tool, keyIdentity: spec.identity, effectClass, scope: intent.scope, run: intent.run });
  const named = { ...intent, scope: id.scope, run: id.run ?? '', step: id.step ?? '' };
  return { intent: named, spec: id.keyIdentity === spec.identity ? spec : { ...spec, identity: id.keyIdentity } };
}

/**
 * ledger.effect's intent and WIT policy: an intent with no step named by the core (`identify`,
 * as `deriveKey`), the policy's key spec given the identity the core keys it with.
 */
export function witIdentified(intent, policy) {
  const p = witPolicy(policy);
  const { intent: named, spec } = identified(intent, p.key ?? defaultSpec(), p.class);
  return { intent: named, policy: spec === (p.key ?? defaultSpec()) ? p : { ...p, key: spec } };
}

const u64 = (v) => BigInt(v);

function canonIn(e) {
  return { kind: e.kind, offset: u64(e.offset), line: e.line ?? 1, column: e.column ?? Number(e.offset) + 1, message: String(e.message) };
}

function keyErrorIn(e) {
  return { kind: e.kind, at: e.at ?? undefined, canon: e.canon ? canonIn(e.canon) : undefined, message: String(e.message) };
}

function effectErrorIn(e) {
  const v = e.val;
  switch (e.tag) {
    case 'in-progress':
      return { tag: e.tag, val: { ...v, retryAfterMs: u64(v.retryAfterMs) } };
    case 'ledger':
      return { tag: e.tag, val: { kind: v.kind, state: v.state ?? undefined, message: String(v.message) } };
    case 'contention':
      return { tag: e.tag, val: Number(v) };
    case 'awaiting-approval':
      return { tag: e.tag, val: { ...v, version: u64(v.version), since: u64(v.since) } };
    default:
      return { tag: e.tag, val: v };
  }
}

/**
 * agent.answer: what the model reads for a failure — `{tag: 'effect', val: effect-error}`,
 * `{tag: 'key', val: key-error}` or `{tag: 'canon', val: canon-error}` (as the core's records, u64
 * fields as numbers or BigInts). Returns `{code, text, key, pointer, retryAfterMs, repeatable}`,
 * or null for what is not the model's business (storage, the ledger, a key spec or intent the host
 * got wrong): raise that as an error.
 */
export function answer(failure) {
  let f;
  if (failure?.tag === 'effect') f = { tag: 'effect', val: effectErrorIn(failure.val) };
  else if (failure?.tag === 'key') f = { tag: 'key', val: keyErrorIn(failure.val) };
  else if (failure?.tag === 'canon') f = { tag: 'canon', val: canonIn(failure.val) };
  else throw new TypeError('answer takes a failure {tag: "effect" | "key" | "canon", val}');
  const r = call((c) => c.agent.answer(f));
  return r === undefined || r === null ? null : witOut('agent.reply', r);
}
