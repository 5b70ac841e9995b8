// oncely/hono: a Hono route middleware that honours the Idempotency-Key its clients send, on Node
// (@hono/node-server), Bun, Deno and workerd.
//
//   app.post('/refunds', once({ ledger, scope: (c) => c.get('tenant') }), async (c) => {
//     const { key, clientKey } = c.get('oncely');   // store them with the refund
//     return c.json(await refund(await c.req.json()), 201);
//   });
//
// A request with a key is claimed before the handler runs; a repeat gets the recorded response
// (`Idempotent-Replayed: true`), the same key with another request 422, a concurrent duplicate 409
// with Retry-After, and a handler that raised or answered 5xx leaves the key in doubt (409
// `outcome-in-doubt` to every retry; never run again blindly). The whole response is buffered and
// recorded before it is sent: no streaming responses on these routes. Every rule is the core's
// (wit/provider.wit).

import { routePath } from 'hono/route';
import { admit, ledgerOf, NO_BODY, oversizedHttp, prepareProvider, recordHttp, refusalHttp, replayHttp, runKeyed, scopeOf } from './shared.js';

/**
 * The middleware. Options: `ledger` (a Ledger, or `(c) => ledger`: on workerd, a Ledger over the
 * Durable Object store reached through `c.env`), `scope` (a string or `(c) => string`: the
 * client's stable tenant or principal id, never its bearer token), `tool` (default: `METHOD
 * route`, e.g. `POST /refunds/:id`), `policy`, `required`, `waitMs`, `owner`, `maxBody` (default
 * 1 MiB: a larger keyed body is answered 413 `request-too-large`).
 */
export function once(options) {
  const p = prepareProvider('oncely/hono', options);
  return async function oncely(c, next) {
    const method = c.req.method;
    const url = new URL(c.req.url);
    const key = c.req.raw.headers.get('idempotency-key');
    const tool = p.tool ?? `${method.toUpperCase()} ${routeOf(c)}`;
    const scope = await scopeOf(p, c);
    const request = (body) => ({ tag: 'http', val: { method, path: url.pathname, query: url.search.slice(1), contentType: c.req.header('content-type') ?? '', body, keys: key === null ? [] : [key] } });
    // First without the body: whether a request passes or is refused never depends on it, so an
    // unkeyed request reaches the handler with its body unread; only a keyed one is read, whole,
    // up to maxBody (a chunked upload is cut off there), and left in HonoRequest's body cache, so
    // the handler still reads c.req.json() / text().
    let admission = admit(p, scope, tool, request(new Uint8Array(0)));
    if (admission.tag === 'pass') return next();
    if (admission.tag === 'refuse') return send(c, refusalHttp(admission.val));
    const body = await readBounded(c, p.maxBody);
    if (body === null) return send(c, oversizedHttp(p));
    admission = admit(p, scope, tool, request(body));
    if (admission.tag !== 'keyed') return send(c, refusalHttp(admission.val));
    const keyed = admission.val;
    c.set('oncely', { clientKey: keyed.clientKey, key: keyed.key, scope, tool });
    const ledger = await ledgerOf(p, c);
    /** @type {{e: unknown} | undefined} */
    let thrown;
    const running = runKeyed(
      ledger,
      keyed,
      p.waitMs,
      async () => {
        // next() never throws an Error: compose catches it, sets c.error and puts onError's
        // response in c.res. Anything else thrown comes through.
        try {
          await next();
        } catch (e) {
          thrown = { e };
          return { error: e };
        }
        if (c.error) return { error: c.error };
        const res = c.res;
        return { status: res.status, headers: [...res.headers], body: new Uint8Array(await res.clone().arrayBuffer()) };
      },
      recordHttp,
    );
    // A keyed run goes to its end and records, even when the client goes away: on Workers, hold
    // the request open for it (it is awaited below all the same, never left to waitUntil alone).
    keepAlive(c, running);
    const out = await running;
    switch (out.kind) {
      case 'fresh':
        return; // c.res is the handler's response
      case 'handler':
        if (thrown) throw thrown.e;
        return; // the handler's own answer (onError's, when it raised)
      case 'replay':
        return send(c, replayHttp(out.recorded));
      default:
        return send(c, refusalHttp(out.refusal));
    }
  };
}

// The request's body, read to its end but never past `limit` bytes (null when it is larger), and
// cached for the handler.
async function readBounded(c, limit) {
  if (Number(c.req.header('content-length') ?? 0) > limit) return null;
  const stream = c.req.raw.body;
  const chunks = [];
  let n = 0;
  if (stream !== null) {
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      n += value.byteLength;
      if (n > limit) {
        await reader.cancel().catch(() => {});
        return null;
      }
      chunks.push(value);
    }
  }
  const body = new Uint8Array(n);
  let at = 0;
  for (const ch of chunks) {
    body.set(ch, at);
    at += ch.byteLength;
  }
  c.req.bodyCache.arrayBuffer = Promise.resolve(body.buffer);
  return body;
}

// The route of the handler the request goes to (its template, as registered: the last route
// matched), e.g. `/refunds/:id`.
function routeOf(c) {
  return routePath(c, -1) || new URL(c.req.url).pathname;
}

function keepAlive(c, promise) {
  let ctx;
  try {
    ctx = c.executionCtx; // throws where there is none (Node)
  } catch {
    return;
  }
  if (typeof ctx?.waitUntil === 'function') ctx.waitUntil(promise.then(() => {}, () => {}));
}

// Answer with `r` ({status, headers, body}) in place of anything set before.
function send(c, r) {
  const res = new Response(NO_BODY.has(r.status) ? null : r.body, { status: r.status, headers: r.headers });
  c.res = undefined; // else the setter carries the old response's headers over
  c.res = res;
  return res;
}
