// The Hono provider of the tests in workerd (bundled by test/provider-hono-workerd.test.mjs): the
// same app as on Node (hono-app.mjs), its ledger a Durable Object's SQLite storage
// (DurableObjectStore) reached over RPC from each request, so every isolate and request shares one
// ledger. The probe (handler runs, gates) is a second Durable Object the test reads over HTTP at
// /__probe/….
import { DurableObject } from 'cloudflare:workers';
import { DurableObjectStore, Ledger } from 'oncely';
import { withLookup } from './behaviour.mjs';
import { providerApp } from './hono-app.mjs';

const METHODS = new Set(['get', 'insert', 'update', 'delete', 'list', 'due', 'history']);

/** The ledger's rows: a DurableObjectStore over this object's storage. */
export class LedgerObject extends DurableObject {
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
}

/** A store whose rows live in the LedgerObject: each call one RPC (each atomic in the object). */
class StubStore {
  constructor(stub) {
    this.stub = stub;
  }
  get(s, k) {
    return this.stub.call('get', [s, k]);
  }
  insert(e) {
    return this.stub.call('insert', [e]);
  }
  update(v, e) {
    return this.stub.call('update', [v, e]);
  }
  delete(s, k, v) {
    return this.stub.call('delete', [s, k, v]);
  }
  list(s, f) {
    return this.stub.call('list', [s, f]);
  }
  due(s, n, l) {
    return this.stub.call('due', [s, n, l]);
  }
  history(s, k) {
    return this.stub.call('history', [s, k]);
  }
}

/** The handler runs and the gates. */
export class ProbeObject extends DurableObject {
  async record(event) {
    const events = (await this.ctx.storage.get('events')) ?? [];
    events.push(event);
    await this.ctx.storage.put('events', events);
  }
  async events() {
    return (await this.ctx.storage.get('events')) ?? [];
  }
  async open(name) {
    await this.ctx.storage.put(`gate-${name}`, true);
  }
  async isOpen(name) {
    return (await this.ctx.storage.get(`gate-${name}`)) === true;
  }
}

const probeOf = (env) => env.PROBE.get(env.PROBE.idFromName('probe'));

// A stub belongs to the request that made it: the ledger is made per request, from `c.env`.
const ledger = (c) => withLookup(new Ledger(new StubStore(c.env.LEDGER.get(c.env.LEDGER.idFromName('ledger'))), { openTelemetry: false }));

// The probe as reached from one request (a stub belongs to the request that made it).
function probe(c) {
  const stub = probeOf(c.env);
  return {
    record: (event) => stub.record(event),
    async gate(name) {
      const deadline = Date.now() + 60_000;
      while (!(await stub.isOpen(name))) {
        if (Date.now() > deadline) throw new Error(`gate ${name} was never opened`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

const app = providerApp({ ledger, probe });

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === '/__probe/events') return Response.json(await probeOf(env).events());
    if (url.pathname === '/__probe/open') {
      await probeOf(env).open(url.searchParams.get('name'));
      return Response.json({ ok: true });
    }
    if (url.pathname === '/ready') return new Response('ok');
    return app.fetch(request, env, ctx);
  },
};
