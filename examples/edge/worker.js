// oncely at the edge: a Cloudflare Worker (runs in workerd) that derives intent keys and runs a
// refund tool exactly once through a ledger kept in a Durable Object's SQLite storage.
//
//   POST /keys            {intents: [{scope, run, step, tool, args}], policy?} → {results: [key | {error}]}
//   POST /canonicalize    JSON text → its RFC 8785 canonical form
//   POST /explain         {a, b, policy?} → why two intents do or don't share a key
//   POST /check           an MCP tools/list result → the release gate's report
//   POST /refund          {scope, run, step, charge_id, amount[, simulate]} → the refund, once
//   GET  /ledger/SCOPE    the scope's ledger entries (?state=&tool=&limit=)
//   GET  /ledger/SCOPE/history?key=KEY   one entry's history, oldest first
//   POST /ledger/SCOPE/sweep | /resolve {key, version, happened | notHappened, by, note} | /purge
//        (resolve: `version` is the entry version the person decided on, from GET /ledger/SCOPE;
//        409 `changed` if the entry moved since; 200 {settlement: "stl-…"})
//
// Every rule comes from the oncely core component (bundled as a .wasm module); the Worker only
// stores rows, keeps the clock and calls the provider. The provider here is FlakyPay
// (flakypay.js), bound as the service `PAY`: it makes every refund it is asked for, and can be
// told to lose its reply — the case a naive retry turns into a double refund.

import { DurableObject } from 'cloudflare:workers';
import {
  AmbiguousFailure,
  canonicalize,
  checkTools,
  DefiniteFailure,
  deriveKeys,
  DurableObjectStore,
  explain,
  happened,
  OncelyError,
  Ledger,
  notHappened,
  unknown,
} from 'oncely';
import { REFUND_POLICY } from './policy.js';

const json = (body, status = 200) => Response.json(body, { status });

function errorBody(e) {
  if (e instanceof OncelyError) {
    const { code, message, kind, at, offset, line, column, key, pointer, reason, owner, state } = e;
    return { error: { code, message, kind, at, offset, line, column, key, pointer, reason, owner, state } };
  }
  return { error: { code: 'bad-request', message: String(e?.message ?? e) } };
}

const STATUS = { conflict: 409, 'in-progress': 409, 'in-doubt': 502, escalated: 502, 'tool-failed': 402, storage: 503 };

/** The ledger of one scope: a Durable Object, so every worker of the scope shares it. */
export class LedgerObject extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      this.ledger = new Ledger(await DurableObjectStore.open(ctx.storage), { owner: `do-${ctx.id}` });
      // Asked, for an entry in doubt, whether FlakyPay made the refund with this key.
      this.ledger.reconciler('refund', async (req) => {
        const r = await env.PAY.fetch(`https://pay/refunds?idempotency_key=${encodeURIComponent(req.key)}`);
        if (r.status === 200) return happened(await r.json());
        if (r.status === 404) return notHappened();
        return unknown(`FlakyPay lookup answered ${r.status}`);
      });
    });
  }

  /** Refund `charge_id` once, whatever retries or redeliveries happen. */
  async refund({ scope, run, step, charge_id, amount, simulate }) {
    const intent = { scope, run, step, tool: 'refund', args: { charge_id, amount } };
    let first = true;
    try {
      const r = await this.ledger.effect(intent, REFUND_POLICY, async (key) => {
        const res = await this.env.PAY.fetch('https://pay/refunds', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': key, ...(first && simulate ? { 'x-simulate': simulate } : {}) },
          body: JSON.stringify({ charge_id, amount }),
        });
        first = false;
        if (res.ok) return res.json();
        if (res.status >= 400 && res.status < 500) throw new DefiniteFailure(`FlakyPay declined: ${await res.text()}`);
        throw new AmbiguousFailure(`FlakyPay answered ${res.status}`);
      });
      return { status: 200, body: r };
    } catch (e) {
      return { status: STATUS[e.code] ?? 400, body: errorBody(e) };
    }
  }

  async list(scope, filter) {
    return this.ledger.list(scope, filter);
  }

  async sweep(scope) {
    return this.ledger.sweep(scope);
  }

  async history(scope, key) {
    return this.ledger.history(scope, key);
  }

  /** A person's verdict on what they saw: `version` is the entry's version they decided on. */
  async resolve(scope, { key, version, happened: value, notHappened: no, by, note }) {
    try {
      const settlement = no ? notHappened() : happened(value);
      return { status: 200, body: { settlement: await this.ledger.resolve(scope, key, settlement, { by, note, version }) } };
    } catch (e) {
      // `changed`: the entry moved since the version the person saw; they should look again.
      return { status: e.kind === 'changed' ? 409 : 400, body: errorBody(e) };
    }
  }

  async purge(scope) {
    return { purged: await this.ledger.purgeExpired(scope) };
  }
}

async function body(request) {
  try {
    return await request.json();
  } catch {
    throw new TypeError('the request body must be JSON');
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const path = url.pathname;
    try {
      if (request.method === 'POST' && path === '/keys') {
        const { intents, policy } = await body(request);
        const results = deriveKeys(intents, { policy }).map((r) => (r instanceof Error ? errorBody(r) : r));
        return json({ results });
      }
      if (request.method === 'POST' && path === '/canonicalize') {
        return new Response(canonicalize(new Uint8Array(await request.arrayBuffer())), { headers: { 'content-type': 'application/json' } });
      }
      if (request.method === 'POST' && path === '/explain') {
        const { a, b, policy } = await body(request);
        return json(explain(a, b, { policy }));
      }
      if (request.method === 'POST' && path === '/check') {
        return json(checkTools(await request.text()));
      }
      if (request.method === 'POST' && path === '/refund') {
        const req = await body(request);
        const stub = env.LEDGER.get(env.LEDGER.idFromName(req.scope));
        const r = await stub.refund(req);
        return json(r.body, r.status);
      }
      const m = /^\/ledger\/([^/]+)(?:\/(sweep|resolve|purge|history))?$/.exec(path);
      if (m) {
        const scope = decodeURIComponent(m[1]);
        const stub = env.LEDGER.get(env.LEDGER.idFromName(scope));
        if (request.method === 'GET' && !m[2]) {
          const q = url.searchParams;
          return json(await stub.list(scope, { state: q.get('state'), tool: q.get('tool'), limit: Number(q.get('limit') ?? 0) }));
        }
        if (request.method === 'GET' && m[2] === 'history') return json(await stub.history(scope, url.searchParams.get('key') ?? ''));
        if (request.method === 'POST' && m[2] === 'sweep') return json(await stub.sweep(scope));
        if (request.method === 'POST' && m[2] === 'purge') return json(await stub.purge(scope));
        if (request.method === 'POST' && m[2] === 'resolve') {
          const r = await stub.resolve(scope, await body(request));
          return json(r.body, r.status);
        }
      }
      return json({ error: { code: 'not-found', message: `${request.method} ${path}` } }, 404);
    } catch (e) {
      return json(errorBody(e), 400);
    }
  },
};
