// Conversions between the core's WIT records (u64 as BigInt, options as undefined, variants as
// {tag, val}) and the JS shapes the ledger API and the stores use (milliseconds and counters as
// numbers, absent values as null, the reconcile path as in policy JSON). Conversions only.

import { reconcileOut } from './core.js';

function reconcileIn(r) {
  if (typeof r === 'string') return { tag: r };
  if (r !== null && typeof r === 'object' && typeof r.lookup === 'string') return { tag: 'lookup', val: r.lookup };
  throw new TypeError(`not a reconcile path: ${JSON.stringify(r)}`);
}

const n = (v) => Number(v);
const nOpt = (v) => (v === undefined ? null : Number(v));
const bOpt = (v) => (v === null || v === undefined ? undefined : BigInt(v));
const sOpt = (v) => (v === undefined ? null : v);
const uOpt = (v) => (v === null ? undefined : v);
const same = (v) => v;

// The WIT `entry` record, field by field in WIT order: [name, WIT → JS, JS → WIT].
const U64 = [n, BigInt];
const U64_OPT = [nOpt, bOpt];
const STRING_OPT = [sOpt, uOpt];
const AS_IS = [same, same];
const ENTRY_FIELDS = Object.entries({
  scope: AS_IS,
  key: AS_IS,
  tool: AS_IS,
  runId: AS_IS,
  stepId: AS_IS,
  fingerprint: AS_IS,
  argsCanonical: AS_IS,
  state: AS_IS,
  version: U64,
  attempt: AS_IS,
  owner: AS_IS,
  createdAt: U64,
  updatedAt: U64,
  leaseUntil: U64,
  inDoubtSince: U64_OPT,
  nextReconcileAt: U64_OPT,
  reconcileAttempts: AS_IS,
  resultJson: STRING_OPT,
  reason: STRING_OPT,
  resolvedBy: STRING_OPT,
  settlement: STRING_OPT,
  reconcile: [(v) => reconcileOut(v), reconcileIn],
  leaseMs: U64,
  maxCallMs: U64,
  reconcileAfterMs: U64,
  escalateAfterMs: U64,
  retentionMs: U64,
  dueAt: U64_OPT,
});

/** A WIT entry as a JS entry. */
export function entryOut(e) {
  return Object.fromEntries(ENTRY_FIELDS.map(([name, [out]]) => [name, out(e[name])]));
}

/** A JS entry as a WIT entry. */
export function entryIn(e) {
  return Object.fromEntries(ENTRY_FIELDS.map(([name, [, into]]) => [name, into(e[name])]));
}

/** The field names of the JS entry, in WIT order (the mirror checked against the component). */
export const ENTRY_FIELD_NAMES = ENTRY_FIELDS.map(([name]) => name);

/** A WIT reconcile-request as the JS request a reconciler gets. */
export function requestOut(v) {
  return {
    scope: v.scope,
    key: v.key,
    tool: v.tool,
    argsCanonical: v.argsCanonical,
    attempt: v.attempt,
    path: reconcileOut(v.path),
    inDoubtSince: n(v.inDoubtSince),
    escalateAt: n(v.escalateAt),
  };
}

/** A WIT outcome as {tag, val} with numbers for times. */
export function outcomeOut(o) {
  const v = o.val;
  switch (o.tag) {
    case 'execute':
      return { tag: 'execute', val: { attempt: v.attempt, owner: v.owner } };
    case 'replay':
      return { tag: 'replay', val: { resultJson: v.resultJson, attempt: v.attempt, recordedAt: n(v.recordedAt) } };
    case 'in-progress':
      return { tag: 'in-progress', val: { owner: v.owner, state: v.state, retryAfterMs: n(v.retryAfterMs) } };
    case 'reconcile':
      return { tag: 'reconcile', val: requestOut(v) };
    case 'escalated':
      return {
        tag: 'escalated',
        val: { scope: v.scope, key: v.key, tool: v.tool, attempt: v.attempt, reason: v.reason, inDoubtSince: n(v.inDoubtSince) },
      };
    case 'conflict':
      return { tag: 'conflict', val: { key: v.key, pointer: v.pointer, storedFingerprint: v.storedFingerprint, givenFingerprint: v.givenFingerprint } };
    case 'recorded':
      return { tag: 'recorded', val: v };
    case 'settled':
      return { tag: 'settled', val: v };
    case 'idle':
      return { tag: 'idle', val: nOpt(v) };
    case 'pass-through':
    case 'purged':
      return { tag: o.tag };
    default:
      throw new TypeError(`unknown outcome ${o.tag}`);
  }
}
