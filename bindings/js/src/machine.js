// The interpreter of wit/effect.wit: start a machine, do what each step says (read, write, call,
// sleep) and send back what happened, until it finishes or raises. It has no rule of its own.
// `w`: {store, now(), sleep(ms), tool(key, call), beat(scope, key, token) → bool (whether to beat
// on), reconcile(request, m) → the input after call-reconciler (verdict | no-reconciler |
// reconciler-failed), raise(error, m), deliver(events) (a step's events,
// the core's decisions, true once its read and write went through: events.js delivers them; no
// event is worked out here), signal (optional: the caller's AbortSignal; aborted before the
// machine's first write, the machine stops with its reason — after it, it runs to its finish)}.
// Returns {finish, value (the tool's last value), row (read last)}; throws what `raise` makes.

import { witRun } from './core.js';
import { AmbiguousFailure, DefiniteFailure, ToolError } from './errors.js';
import { entryIn, entryOut } from './wire.js';

const row = (e) => ({ tag: 'row', val: e ? entryIn(e) : undefined });

export async function runMachine(command, w) {
  const m = { finish: undefined, value: undefined, row: null, cause: undefined, wrote: false };
  let step = witRun(new Uint8Array(0), { tag: 'start', val: command }, w.now());
  for (;;) {
    const input = await act(step, w, m);
    if (input === null) return m;
    step = witRun(step.state, input, w.now());
  }
}

// Whether `e` is the record a step's `replay` rule names: in its state, of its intent, with a
// result (the rule's values; the host knows no state of its own).
const records = (rule, e) =>
  e !== null && e.state === rule.state && e.fingerprint === rule.fingerprint && e.tool === rule.tool && e.resultJson != null;

// Do what one step says; what happened (null: finished).
async function act(step, w, m) {
  // A step's write, events and action are read from the core's answer at their first use: a
  // replay never reads them (encoding.js).
  const { read, replay } = step;
  const failed = (e) => ((m.cause = e), { tag: 'store-failed', val: String(e?.message ?? e) });
  if (read) {
    const { store } = w;
    // A replay in one crossing; on a store with a narrow read (`recorded`), one read of the four
    // columns the rule compares (wit/effect.wit), and the whole row only when they are not this
    // effect's record.
    const narrow = replay != null && typeof store.recorded === 'function';
    let found;
    try {
      found = (await (narrow ? store.recorded(read.scope, read.key) : store.get(read.scope, read.key))) ?? null;
      if (replay && records(replay, found)) {
        w.deliver([replay.event]);
        const source = { tag: 'recorded', val: found.resultJson };
        m.finish = { tag: 'effect', val: { key: read.key, source, replayed: true, reconciled: replay.reconciled } };
        m.row = narrow ? null : found;
        return null;
      }
      if (narrow && found !== null) found = (await store.get(read.scope, read.key)) ?? null;
    } catch (e) {
      return failed(e);
    }
    m.row = found;
    if (m.row !== null || !step.write) return row(m.row);
  }
  const { write, events, action } = step;
  if (write) {
    // A caller that stops waiting (wit/effect.wit): before the first write nothing was claimed,
    // so the machine stops; from the first write on it runs to its finish, whatever the caller does.
    if (!m.wrote && w.signal?.aborted) throw w.signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
    m.wrote = true;
    const [e, v] = [entryOut(write.row), Number(write.expectedVersion)];
    let applied;
    try {
      // `history`: whether the write appends to the entry's history (the core's
      // `row-write.history`); `claims`: whether it leaves a claim the tool will be called under
      // (`row-write.claims`: what a store that waits for its replicas waits for).
      const marks = { history: write.history, claims: write.claims };
      if (write.op === 'insert') applied = await w.store.insert(e, marks);
      else if (write.op === 'update') applied = await w.store.update(v, e, marks);
      else applied = await w.store.delete(e.scope, e.key, v);
    } catch (err) {
      return failed(err);
    }
    if (applied === false) return { tag: 'lost-race' };
    if (applied !== true) throw new TypeError(`the store's ${write.op} returned ${applied}; expected true or false`);
  }
  // The step's read and write went through: its events are true now (wit/effect.wit).
  if (events.length > 0) w.deliver(events);
  switch (action.tag) {
    case 'report':
      return write ? { tag: 'written' } : row(m.row);
    case 'call-tool':
      // Never start a call on a lease that has run out: the claim may be another's by now.
      if (action.val.notAfter !== undefined && w.now() >= Number(action.val.notAfter)) return { tag: 'too-late' };
      return guardedCall(w, action.val, m);
    case 'recall-tool':
      return callTool(w.tool, action.val, { key: action.val, attempt: null, deadline: null, signal: undefined }, m);
    case 'call-reconciler':
      return w.reconcile(action.val, m);
    case 'sleep-until':
      await w.sleep(Math.max(0, Number(action.val) - w.now()));
      return { tag: 'woke' };
    case 'finish':
      m.finish = action.val;
      return null;
    default:
      throw w.raise(action.val, m);
  }
}

// Call the tool under its claim (a WIT tool-call): heartbeat the claim every `heartbeatMs` while
// it runs; at the deadline abort its signal and abandon it (an ambiguous failure: it may have
// happened).
async function guardedCall(w, c, m) {
  const deadline = c.deadline === undefined ? null : Number(c.deadline);
  const abort = new AbortController();
  const call = { key: c.key, attempt: c.token ? c.token.attempt : null, deadline, signal: abort.signal };
  let beat;
  let stopped = false;
  if (c.token && c.heartbeatMs !== undefined) {
    const every = Number(c.heartbeatMs);
    const next = () => {
      beat = setTimeout(async () => {
        let ok;
        try {
          ok = await w.beat(c.scope, c.key, c.token);
        } catch {
          ok = false;
        }
        if (ok && !stopped) next();
      }, every);
    };
    next();
  }
  let timer;
  const late = deadline === null ? null : new Promise((resolve) => {
    timer = setTimeout(() => {
      m.cause = new AmbiguousFailure('abandoned at its deadline (maxCallMs)');
      abort.abort(m.cause);
      resolve({ tag: 'abandoned' });
    }, Math.max(0, deadline - w.now()));
  });
  try {
    // What the tool leaves (its value, what it threw) counts only if it beat the deadline.
    const own = {};
    const called = callTool(w.tool, c.key, call, own).then((input) => {
      if (!abort.signal.aborted) {
        if ('value' in own) m.value = own.value;
        if ('cause' in own) m.cause = own.cause;
      }
      return input;
    });
    return await (late === null ? called : Promise.race([called, late]));
  } finally {
    stopped = true;
    clearTimeout(beat);
    clearTimeout(timer);
  }
}

/**
 * A tool's value that is already JSON text, recorded verbatim (the provider middleware's response
 * envelope), or that cannot be recorded (`unencodable`: why). Internal to the package.
 */
export class RawResult {
  constructor(json, unencodable) {
    this.json = json;
    this.unencodable = unencodable;
  }
}

// Call the tool; its value is kept for a `tool-value` finish, what it threw as the error's cause.
async function callTool(tool, key, call, m) {
  let json;
  try {
    m.value = await tool(key, call);
  } catch (e) {
    m.cause = e;
    const reason = e instanceof ToolError ? e.reason : `the tool threw: ${e?.message ?? e}`;
    return { tag: 'tool-failed', val: { definite: e instanceof DefiniteFailure, reason: String(reason) } };
  }
  if (m.value instanceof RawResult) {
    const r = m.value;
    return r.unencodable !== undefined ? { tag: 'tool-unencodable', val: String(r.unencodable) } : { tag: 'tool-returned', val: String(r.json) };
  }
  try {
    json = JSON.stringify(m.value);
  } catch (e) {
    return { tag: 'tool-unencodable', val: String(e?.message ?? e) };
  }
  return json === undefined ? { tag: 'tool-unencodable', val: `JSON.stringify cannot encode ${typeof m.value}` } : { tag: 'tool-returned', val: json };
}
