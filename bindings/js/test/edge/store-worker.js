// Test-only Worker: a DurableObjectStore exposed over HTTP (one Durable Object per `name`), so
// the node tests can run the ledger conformance scenarios against the store in real workerd.
import { DurableObject } from 'cloudflare:workers';
import { DurableObjectStore } from 'oncely';

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

  async migrations() {
    return this.ctx.storage.sql
      .exec('SELECT version, description, success, hex(checksum) AS checksum FROM _oncely_migrations ORDER BY version')
      .toArray();
  }
}

export default {
  async fetch(request, env) {
    const { name, method, args } = await request.json();
    const stub = env.STORES.get(env.STORES.idFromName(name));
    try {
      const ok = method === 'migrations' ? await stub.migrations() : await stub.call(method, args);
      return Response.json({ ok: ok === undefined ? null : ok });
    } catch (e) {
      return Response.json({ error: String(e?.message ?? e) }, { status: 500 });
    }
  },
};
