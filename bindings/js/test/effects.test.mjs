// tests/vectors/effects.json, replayed through the package's real interpreter (src/machine.js,
// behind the public Ledger API) against the scripted world the file describes: a store keyed by
// (scope, key) whose reads and writes count, trace and fail or let others write first as scripted,
// a scripted tool and reconciler, and a clock that moves only when the host sleeps or a tool call
// takes time (never real time). Every scenario must give the trace, result and row of `expect`,
// as the native reference interpreter (guest/tests/effect_vectors.rs) does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AwaitingApprovalError,
  DeniedError,
  AmbiguousFailure,
  ConflictError,
  ContentionError,
  DefiniteFailure,
  deriveKey,
  EscalatedError,
  happened,
  InDoubtError,
  InProgressError,
  Ledger,
  LedgerError,
  machineSteps,
  notHappened,
  ResultNotRecordedError,
  StorageError,
  ToolFailedError,
  unknown,
} from 'oncely';
import { vectors } from './helpers/env.mjs';

const ERRORS = {
  conflict: ConflictError,
  'in-progress': InProgressError,
  'in-doubt': InDoubtError,
  escalated: EscalatedError,
  'tool-failed': ToolFailedError,
  'result-not-recorded': ResultNotRecordedError,
  storage: StorageError,
  ledger: LedgerError,
  contention: ContentionError,
  'awaiting-approval': AwaitingApprovalError,
  denied: DeniedError,
};

const id = (scope, key) => `${scope}\u0000${key}`;
const copy = (e) => structuredClone(e);

/** The rows, plainly: what scripted events (someone else's doing) are applied to. */
class Rows {
  constructor() {
    this.rows = new Map();
  }
  async get(scope, key) {
    const e = this.rows.get(id(scope, key));
    return e ? copy(e) : null;
  }
  version(scope, key) {
    return this.rows.get(id(scope, key))?.version;
  }
  async insert(e) {
    if (this.rows.has(id(e.scope, e.key))) return false;
    this.rows.set(id(e.scope, e.key), copy(e));
    return true;
  }
  async update(v, e) {
    if (this.version(e.scope, e.key) !== v) return false;
    this.rows.set(id(e.scope, e.key), copy(e));
    return true;
  }
  async delete(scope, key, v) {
    if (this.version(scope, key) !== v) return false;
    this.rows.delete(id(scope, key));
    return true;
  }
  async list() {
    return [];
  }
  async due(scope, now, limit) {
    return [...this.rows.values()]
      .filter((e) => e.dueAt !== null && e.dueAt <= now && (scope === null || e.scope === scope))
      .sort((a, b) => a.dueAt - b.dueAt)
      .slice(0, limit)
      .map(copy);
  }
}

/** The store the run under test uses: the same rows, with counts, hooks and a trace. */
class Scripted {
  constructor(world) {
    this.w = world;
    this.counts = {};
  }
  async op(op) {
    const n = (this.counts[op] = (this.counts[op] ?? 0) + 1);
    for (const h of this.w.hooks) {
      if (h.op !== op || h.nth !== n) continue;
      if (h.before) await this.w.happen(h.before);
      if (h.fails !== undefined) {
        this.w.trace.push(`${op} failed`);
        throw new Error(h.fails);
      }
    }
  }
  async get(scope, key) {
    await this.op('read');
    const r = await this.w.rows.get(scope, key);
    this.w.trace.push(`read ${r ? r.state : 'absent'}`);
    return r;
  }
  async write(op, scope, key, expected, apply) {
    const stored = this.w.rows.version(scope, key);
    await this.op(op);
    // A scripted `before` hook may have changed the row since `stored` was read.
    const applied = (op === 'insert' ? stored === undefined : stored === expected) && this.w.rows.version(scope, key) === stored && (await apply());
    this.w.trace.push(applied ? op : `${op} lost`);
    await this.after(op);
    return applied;
  }
  // Once `op` applied: its scripted stall (the clock jumps, no timer of the host fires) and `after` events.
  async after(op) {
    const n = this.counts[op] ?? 0;
    for (const h of this.w.hooks) {
      if (h.op !== op || h.nth !== n) continue;
      if (h.stall_ms !== undefined) {
        this.w.trace.push(`stall ${h.stall_ms}`);
        this.w.clock += h.stall_ms;
      }
      if (h.after) await this.w.happen(h.after);
    }
  }
  insert(e) {
    return this.write('insert', e.scope, e.key, 0, () => this.w.rows.insert(e));
  }
  update(v, e) {
    return this.write('update', e.scope, e.key, v, () => this.w.rows.update(v, e));
  }
  delete(scope, key, v) {
    return this.write('delete', scope, key, v, () => this.w.rows.delete(scope, key, v));
  }
  list() {
    return [];
  }
  async due(scope, now, limit) {
    const rows = await this.w.rows.due(scope, now, limit);
    this.w.trace.push(`due ${rows.length}`);
    return rows;
  }
}

const token = (b) => ({ attempt: b.attempt, owner: b.owner });

function scenarioWorld(doc, sc) {
  const intentOf = (i) => ({ scope: i.scope, run: i.run, step: i.step, tool: i.tool, args: i.args });
  const base = intentOf(doc.intent);
  const policy = doc.policies[sc.policy];
  const w = {
    rows: new Rows(),
    clock: 0,
    trace: [],
    hooks: sc.store ?? [],
    base,
    policy,
    ownKey: (intent) => deriveKey({ ...intent, policy }).key,
    // Apply scripted events to the rows through the core's event machine, each at its `now`;
    // the run under test sees only their effect.
    // The machine steps they took (not the run's: see `crossings`).
    scriptedSteps: 0,
    async happen(steps) {
      const before = machineSteps();
      try {
        await w.apply(steps);
      } finally {
        w.scriptedSteps += machineSteps() - before;
      }
    },
    async apply(steps) {
      for (const st of steps) {
        const other = new Ledger(w.rows, { owner: 'scripted', clock: () => st.now });
        const key = w.ownKey(base);
        const ev = st.event;
        if (ev === 'sweep' || ev === 'purge') {
          await other.drive(base.scope, key, { tag: ev });
          continue;
        }
        const [name, b] = Object.entries(ev)[0];
        if (name === 'begin') await other.withOwner(b.owner).begin(b.args === undefined ? base : { ...base, args: b.args }, policy);
        else if (name === 'complete') await other.completeJson(base.scope, key, token(b), b.result);
        else if (name === 'complete_unrecordable') await other.drive(base.scope, key, { tag: 'complete-unrecordable', val: { token: token(b), reason: b.reason } });
        else if (name === 'fail_definite') await other.failDefinite(base.scope, key, token(b), b.reason);
        else if (name === 'fail_ambiguous') await other.failAmbiguous(base.scope, key, token(b), b.reason);
        else if (name === 'reconciled') {
          const v = 'happened' in b ? { tag: 'happened', val: b.happened } : 'not_happened' in b ? notHappened() : unknown(b.unknown);
          await other.reconciled(base.scope, key, b.attempt, v);
        } else if (name === 'approve' || name === 'deny') await other[name](base.scope, key, { by: b.by, note: b.note, version: b.version });
        else throw new Error(`unknown scripted event ${name}`);
      }
    },
  };
  return w;
}

test('effects.json: every scenario through the Ledger and its interpreter, trace for trace', async () => {
  const doc = vectors('effects.json');
  assert.ok(doc.scenarios.length >= 30, 'effects.json must hold at least 30 scenarios');
  let checked = 0;
  for (const sc of doc.scenarios) {
    const w = scenarioWorld(doc, sc);
    const intent = sc.intent ? { ...sc.intent } : w.base;
    const options = { ...doc.options, ...sc.options };
    if (sc.prelude) await w.happen(sc.prelude);
    const store = new Scripted(w);
    const stepsBefore = machineSteps();
    w.scriptedSteps = 0;
    const ledger = new Ledger(store, {
      owner: options.owner,
      clock: () => w.clock,
      sleep: async (ms) => {
        w.trace.push(`sleep ${ms}`);
        w.clock += ms;
      },
      // The events the ledger delivers, traced where it delivers them.
      onEvent: (e) => {
        w.trace.push(`event ${e.kind} ${e.tool}${e.detail ? `: ${e.detail}` : ''}`);
        // `gone`: the reconciler is unregistered right before the core asks for it (the step that
        // put the entry in doubt delivers its events just before its action).
        if (e.kind === 'in-doubt' && verdicts[0] === 'gone') {
          verdicts.shift();
          assert.ok(ledger.removeReconciler(intent.tool));
          w.trace.push('reconciler');
        }
      },
    });
    const verdicts = [...(sc.reconciler ?? [])];
    const own = { scope: intent.scope, key: w.ownKey(intent) };
    const tools = [...(sc.tool ?? [])];
    let lastValue;
    const tool = async (key) => {
      assert.equal(key, own.key, `${sc.name}: the tool gets the intent's key`);
      // A recall (reconciliation by calling again) finds the entry in doubt; a call, claimed.
      w.trace.push((await w.rows.get(own.scope, own.key))?.state === 'in-doubt' ? 'recall' : 'tool');
      const b = tools.shift();
      assert.ok(b, `${sc.name}: the tool was called more often than scripted`);
      if (b.takes_ms) w.clock += b.takes_ms;
      if (b.meanwhile) await w.happen(b.meanwhile);
      if ('returns' in b) return (lastValue = structuredClone(b.returns));
      if ('unencodable' in b) return (lastValue = { why: b.unencodable, value: 10n });
      throw b.definite ? new DefiniteFailure(b.fails) : new AmbiguousFailure(b.fails);
    };
    if (sc.reconciler) {
      ledger.reconciler(intent.tool, async (req) => {
        assert.equal(req.key, own.key);
        w.trace.push('reconciler');
        const v = verdicts.shift();
        assert.ok(v !== undefined, `${sc.name}: the reconciler was called more often than scripted`);
        if (v.raises !== undefined) throw new Error(v.raises);
        return v === 'not-happened' ? notHappened() : 'happened' in v ? happened(v.happened) : unknown(v.unknown);
      });
    }
    const run = sc.run ?? 'effect';
    let result;
    let wantTrace = sc.expect.trace;
    if (run === 'effect') {
      w.clock = sc.now;
      try {
        const r = await ledger.effect(intent, w.policy, tool, { maxAttempts: options.max_attempts, waitMs: options.wait_ms, approvalWaitMs: options.approval_wait_ms });
        assert.equal(r.key, own.key);
        // A tool-value finish returns the tool's very value; a recorded one, the JSON decoded.
        const fromTool = r.value !== null && typeof r.value === 'object' && r.value === lastValue;
        result = { return: { replayed: r.replayed, reconciled: r.reconciled, source: fromTool ? 'tool-value' : 'recorded' } };
        if (!fromTool) result.return.value = r.value;
      } catch (e) {
        const kind = Object.entries(ERRORS).find(([, C]) => e instanceof C)?.[0];
        if (!kind) throw e;
        assert.equal(e.code, kind, `${sc.name}: the error's code`);
        result = { raise: kind };
        // When to look again, where a scenario pins it (the core computes it).
        if (sc.expect.result.retry_after_ms !== undefined) result.retry_after_ms = e.retryAfterMs ?? null;
      }
    } else {
      const [job, b] = Object.entries(run)[0];
      w.clock = b.now;
      if (job === 'wait') {
        const e = await ledger.waitSettled(own.scope, own.key, { everyMs: b.every_ms, timeoutMs: b.timeout_ms });
        result = { waited: e ? e.state : 'absent' };
      } else if (job === 'resolve') {
        // A person's verdict, at the version of the row as it stands (seen without a trace).
        const version = w.rows.version(own.scope, own.key);
        const settlement = b.settlement.happened !== undefined ? happened(b.settlement.happened) : notHappened();
        await ledger.resolve(own.scope, own.key, settlement, { by: b.by, version });
        result = { settled: true };
      } else {
        // The public API reports a tally of the core's notes: compare it with the notes' tally.
        const notes = sc.expect.result.tended;
        const count = (f) => notes.filter(f).length;
        const want = {
          examined: notes.length,
          leasesExpired: count((n) => n.lease_expired),
          reconciled: count((n) => n.reconciled !== null),
          happened: count((n) => n.reconciled === 'happened'),
          notHappened: count((n) => n.reconciled === 'not-happened'),
          unknown: count((n) => n.reconciled === 'unknown'),
          escalated: count((n) => n.escalated),
          purged: count((n) => n.purged),
          errors: count((n) => n.skipped),
        };
        if (job === 'sweep') {
          const r = await ledger.sweep(null);
          assert.deepEqual({ ...r, escalated: r.escalated.length, errors: r.errors.length }, want, `${sc.name}: the sweep report`);
        } else {
          assert.equal(await ledger.purgeExpired(null), want.purged, `${sc.name}: purged`);
        }
        result = sc.expect.result;
      }
    }
    const row = await w.rows.get(own.scope, own.key);
    const got = { trace: w.trace, result, row: row ? { state: row.state, version: row.version, attempt: row.attempt } : 'absent' };
    // The calls of `effect.run` the host made, where a scenario pins them.
    if (sc.expect.crossings !== undefined) got.crossings = machineSteps() - stepsBefore - w.scriptedSteps;
    // The stored reason, where a scenario pins it (the core words every reason).
    if (row && sc.expect.row?.reason !== undefined) got.row.reason = row.reason;
    assert.deepEqual(got, { ...sc.expect, trace: wantTrace }, sc.name);
    for (const e of w.rows.rows.values()) assert.ok(e.dueAt === null || Number.isSafeInteger(e.dueAt), `${sc.name}: due-at is the core's`);
    checked++;
  }
  assert.equal(checked, doc.scenarios.length);
});
