// Conversions between the core's WIT values (u64 as BigInt, options as undefined, variants as
// {tag, val}) and the JS shapes the ledger API and the stores use (milliseconds and counters as
// numbers, absent values as null, the reconcile path as in policy JSON). Conversions only, driven
// by the table of the component's own types that scripts/mirrors writes (gen/wit.js): a field the
// core adds is converted, and named, without an edit here.

import { WIT } from './gen/wit.js';

/** A WIT reconcile-path as in policy JSON: its case name, or `{lookup: tool}`. */
export function reconcileOut(r) {
  return r.tag === 'lookup' ? { lookup: r.val } : r.tag;
}

function reconcileIn(r) {
  if (typeof r === 'string') return { tag: r };
  if (r !== null && typeof r === 'object' && typeof r.lookup === 'string') return { tag: 'lookup', val: r.lookup };
  throw new TypeError(`not a reconcile path: ${JSON.stringify(r)}`);
}

const same = (v) => v;
const n = (v) => Number(v);

/** @type {Map<string, (v: any) => any>} */
const outs = new Map();
/** @type {Map<string, (v: any) => any>} */
const intos = new Map();

/** The WIT → JS conversion of the WIT type `type` (its spelling in gen/wit.js), made once. */
function outOf(type) {
  let f = outs.get(type);
  if (f === undefined) {
    f = makeOut(type);
    outs.set(type, f);
  }
  return f;
}

/**
 * A record's conversion: each field converted, in the record's order. Fields are set one by one
 * on a fresh object, every object of the record built through the same steps (so V8 gives them
 * one shape), without the arrays of `Object.fromEntries`; no generated code, which workerd does
 * not allow.
 * @param {[string, (v: any) => any][]} fields
 * @returns {(v: any) => any}
 */
function recordOf(fields) {
  const names = fields.map(([name]) => name);
  const convs = fields.map(([, f]) => f);
  const count = fields.length;
  return (v) => {
    /** @type {Record<string, any>} */
    const o = {};
    for (let i = 0; i < count; i++) {
      const name = names[i];
      o[name] = convs[i](v[name]);
    }
    return o;
  };
}

/** @returns {(v: any) => any} */
function makeOut(type) {
  if (type === 'u64' || type === 's64') return n;
  if (type === 'policy.reconcile-path') return reconcileOut;
  const opt = /^option<(.*)>$/.exec(type);
  if (opt) {
    const inner = outOf(opt[1]);
    return (v) => (v === undefined || v === null ? null : inner(v));
  }
  const list = /^list<(.*)>$/.exec(type);
  if (list && list[1] !== 'u8') {
    const inner = outOf(list[1]);
    return (v) => v.map(inner);
  }
  const def = WIT[type];
  if (def?.kind === 'record') {
    return recordOf(def.fields.map(([name, t]) => /** @type {[string, (v: any) => any]} */ ([name, outOf(t)])));
  }
  if (def?.kind === 'variant') {
    const cases = new Map(def.cases.map(([c, t]) => [c, t === null ? null : outOf(t)]));
    return (v) => {
      const f = cases.get(v.tag);
      if (f === undefined) throw new TypeError(`unknown ${type} case ${v.tag}`);
      return f === null ? { tag: v.tag } : { tag: v.tag, val: f(v.val) };
    };
  }
  return same;
}

/** The JS → WIT conversion of the WIT type `type`, made once. */
function intoOf(type) {
  let f = intos.get(type);
  if (f === undefined) {
    f = makeInto(type);
    intos.set(type, f);
  }
  return f;
}

/** @returns {(v: any) => any} */
function makeInto(type) {
  if (type === 'u64' || type === 's64') return BigInt;
  if (type === 'policy.reconcile-path') return reconcileIn;
  const opt = /^option<(.*)>$/.exec(type);
  if (opt) {
    const inner = intoOf(opt[1]);
    return (v) => (v === null || v === undefined ? undefined : inner(v));
  }
  const def = WIT[type];
  if (def?.kind === 'record') {
    return recordOf(def.fields.map(([name, t]) => /** @type {[string, (v: any) => any]} */ ([name, intoOf(t)])));
  }
  return same;
}

/**
 * A WIT value of the WIT type `type` (`interface.name`, as in gen/wit.js) in its JS shape: u64 as
 * a number, an absent option as null, the reconcile path as in policy JSON, records and variants
 * converted field by field.
 */
export function witOut(type, v) {
  return outOf(type)(v);
}

/** A JS value as the WIT value of `type` (the inverse of witOut). */
export function witIn(type, v) {
  return intoOf(type)(v);
}

/** A WIT entry as a JS entry. */
export const entryOut = outOf('ledger.entry');

/** A JS entry as a WIT entry. */
export const entryIn = intoOf('ledger.entry');

/** The field names of the JS entry, in WIT order (the component's, from gen/wit.js). */
export const ENTRY_FIELD_NAMES = WIT['ledger.entry'].kind === 'record' ? WIT['ledger.entry'].fields.map(([name]) => name) : [];

/** A WIT reconcile-request as the JS request a reconciler gets. */
export const requestOut = outOf('ledger.reconcile-request');

/** A WIT outcome as {tag, val} with numbers for times. */
export const outcomeOut = outOf('ledger.outcome');
export const decisionOut = outOf('option<ledger.held-decision>');
