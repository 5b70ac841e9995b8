// Test-only Worker: a DurableObjectStore exposed over HTTP (one Durable Object per `name`), so
// the node tests can run the ledger conformance scenarios against the store in real workerd; and
// `events`, a ledger's decisions as its onEvent hook got them in workerd; and `agent-vectors`,
// tests/vectors/adapters.json (sent as `args`) replayed in workerd (test/helpers/agent-vectors.mjs).
import { DurableObject } from 'cloudflare:workers';
import { AmbiguousFailure, DurableObjectStore, Ledger } from 'oncely';
import { replayAgentVectors } from '../helpers/agent-vectors.mjs';

const METHODS = new Set(['get', 'insert', 'update', 'delete', 'list', 'due', 'history']);

export class StoreObject extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      this.store = await DurableObjectStore.open(ctx.storage);
    });
  }

  async call(method, args) {
    if (!METHODS.has(method)) throw new Error(`no store method ${method}`);
    return this.store[method](...args);
  }

  // An effect, its repeat, and one that times out with no way to reconcile, on this object's
  // store: the events an onEvent hook got (no @opentelemetry/api in this bundle).
  async events() {
    const seen = [];
    const ledger = new Ledger(this.store, { owner: 'edge-w1', onEvent: (e) => seen.push(e) });
    const intent = (tool) => ({ scope: 'edge', run: 'r', step: 's', tool, args: { n: 1 } });
    const policy = { class: 'irreversible-external', reconcile: 'manual', escalateAfterMs: 0 };
    await ledger.effect(intent('pay'), policy, () => ({ ok: true }));
    await ledger.effect(intent('pay'), policy, () => ({ ok: true }));
    const timedOut = () => {
      throw new AmbiguousFailure('timed out');
    };
    await ledger.effect(intent('email'), policy, timedOut).catch((e) => seen.push({ error: e.code }));
    return seen;
  }

  async migrations() {
    return this.ctx.storage.sql
      .exec('SELECT version, description, success, hex(checksum) AS checksum FROM _oncely_migrations ORDER BY version')
      .toArray();
  }
}

export default {
  async fetch(request, env) {
    const { name, method, args } = await request.json();
    if (method === 'agent-vectors') return Response.json({ ok: replayAgentVectors(args) });
    const stub = env.STORES.get(env.STORES.idFromName(name));
    try {
      const ok = method === 'migrations' || method === 'events' ? await stub[method]() : await stub.call(method, args);
      return Response.json({ ok: ok === undefined ? null : ok });
    } catch (e) {
      return Response.json({ error: String(e?.message ?? e) }, { status: 500 });
    }
  },
};
