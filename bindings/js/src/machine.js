// The interpreter of wit/effect.wit: start a machine, do what each step says (read, write, call,
// sleep) and send back what happened, until it finishes or raises. It has no rule of its own.
// `w`: {store, now(), sleep(ms), tool(key), reconcile(request, m) → WIT verdict, raise(error, m)}.
// Returns {finish, value (the tool's last value), row (read last)}; throws what `raise` makes.

import { witRun } from './core.js';
import { DefiniteFailure, ToolError } from './errors.js';
import { entryIn, entryOut } from './wire.js';

const row = (e) => ({ tag: 'row', val: e ? entryIn(e) : undefined });

export async function runMachine(command, w) {
  const m = { finish: undefined, value: undefined, row: null, cause: undefined };
  let step = witRun(new Uint8Array(0), { tag: 'start', val: command }, w.now());
  for (;;) {
    const input = await act(step, w, m);
    if (input === null) return m;
    step = witRun(step.state, input, w.now());
  }
}

// Do what one step says; what happened (null: finished).
async function act({ read, write, action }, w, m) {
  const failed = (e) => ((m.cause = e), { tag: 'store-failed', val: String(e?.message ?? e) });
  if (read) {
    try {
      m.row = (await w.store.get(read.scope, read.key)) ?? null;
    } catch (e) {
      return failed(e);
    }
    if (m.row !== null || !write) return row(m.row);
  }
  if (write) {
    const [e, v] = [entryOut(write.row), Number(write.expectedVersion)];
    let applied;
    try {
      if (write.op === 'insert') applied = await w.store.insert(e);
      else if (write.op === 'update') applied = await w.store.update(v, e);
      else applied = await w.store.delete(e.scope, e.key, v);
    } catch (err) {
      return failed(err);
    }
    if (applied === false) return { tag: 'lost-race' };
    if (applied !== true) throw new TypeError(`the store's ${write.op} returned ${applied}; expected true or false`);
  }
  switch (action.tag) {
    case 'report':
      return write ? { tag: 'written' } : row(m.row);
    case 'call-tool':
    case 'recall-tool':
      return callTool(w.tool, action.val, m);
    case 'call-reconciler':
      return { tag: 'verdict', val: await w.reconcile(action.val, m) };
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

// Call the tool; its value is kept for a `tool-value` finish, what it threw as the error's cause.
async function callTool(tool, key, m) {
  let json;
  try {
    m.value = await tool(key);
  } catch (e) {
    m.cause = e;
    const reason = e instanceof ToolError ? e.reason : `the tool threw: ${e?.message ?? e}`;
    return { tag: 'tool-failed', val: { definite: e instanceof DefiniteFailure, reason: String(reason) } };
  }
  try {
    json = JSON.stringify(m.value);
  } catch (e) {
    return { tag: 'tool-unencodable', val: String(e?.message ?? e) };
  }
  return json === undefined ? { tag: 'tool-unencodable', val: `JSON.stringify cannot encode ${typeof m.value}` } : { tag: 'tool-returned', val: json };
}
