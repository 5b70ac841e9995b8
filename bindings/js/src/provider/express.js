// oncely/express: an Express 5 route middleware that honours the Idempotency-Key its clients send.
//
//   app.post('/refunds', once({ ledger, scope: (req) => req.user.tenant }), async (req, res) => {
//     const { key, clientKey } = req.oncely;   // store them with the refund
//     res.status(201).json(await refund(req.body));
//   });
//
// The fingerprint is taken from the raw body bytes (canonical JSON for a JSON body), never from
// `req.body` (JSON.parse rounds big integers and keeps only the last of duplicate members). Mount
// once() before any body parser: it reads the body itself, keeps it as `req.rawBody` and sets
// `req.body` (parsed when the body is JSON). With a parser mounted before it, give the parser
// `verify: rawBody` (`express.json({ verify: rawBody })`). The handler's response (writeHead,
// write, end: res.json, res.send, res.sendFile, pipes) is buffered, recorded, then sent; an error
// handler's 5xx (a handler that threw) leaves the key in doubt. No streaming responses (SSE) on
// these routes. Every rule is the core's (wit/provider.wit).

import { ConfigurationError } from '../errors.js';
import { admit, ledgerOf, NO_BODY, oversizedHttp, prepareProvider, recordHttp, refusalHttp, replayHttp, runKeyed, scopeOf, splitTarget } from './shared.js';

/** `express.json({ verify: rawBody })`: keep the raw bytes for once() when a parser runs before it. */
export function rawBody(req, _res, buf) {
  req.rawBody = buf;
}

/**
 * The middleware. Options: `ledger` (a Ledger, or `(req) => ledger`), `scope` (a string or
 * `(req) => string`: the client's stable tenant or principal id, never its bearer token), `tool`
 * (default: `METHOD route`, e.g. `POST /refunds/:id`), `policy`, `required`, `waitMs`, `owner`,
 * `maxBody` (default 1 MiB: a larger keyed body is answered 413 `request-too-large`).
 */
export function once(options) {
  const p = prepareProvider('oncely/express', options);
  return async function oncely(req, res, next) {
    const keys = req.headersDistinct?.['idempotency-key'] ?? (req.headers['idempotency-key'] === undefined ? [] : [req.headers['idempotency-key']]);
    const { path, query } = splitTarget(req.originalUrl ?? req.url);
    const tool = p.tool ?? routeOf(req);
    const scope = await scopeOf(p, req);
    const request = (body) => ({ tag: 'http', val: { method: req.method, path, query, contentType: req.headers['content-type'] ?? '', body, keys } });
    // First without the body: whether a request passes or is refused never depends on it, so an
    // unkeyed request goes on with its body unread (a body parser after once() reads it); only a
    // keyed one is read here, whole, up to maxBody (req.rawBody, and req.body for JSON: a parser
    // after once() then finds the request finished and leaves them).
    let admission = admit(p, scope, tool, request(new Uint8Array(0)));
    if (admission.tag === 'pass') return next();
    if (admission.tag === 'keyed') {
      const body = await readRaw(req, p.maxBody);
      if (body === null) return capture(res).send(oversizedHttp(p), true);
      admission = admit(p, scope, tool, request(body));
    }
    const out = capture(res);
    // (keyed without its body, a request is keyed or refused with it: as in hono.js)
    if (admission.tag !== 'keyed') return out.send(refusalHttp(admission.val), true);
    const keyed = admission.val;
    req.oncely = { clientKey: keyed.clientKey, key: keyed.key, scope, tool };
    const ledger = await ledgerOf(p, req);
    const r = await runKeyed(
      ledger,
      keyed,
      p.waitMs,
      () => {
        next();
        return out.answer;
      },
      recordHttp,
    );
    if (r.kind === 'fresh' || r.kind === 'handler') out.send(r.answer, false);
    else if (r.kind === 'replay') out.send(replayHttp(r.recorded), true);
    else out.send(refusalHttp(r.refusal), true);
  };
}

function routeOf(req) {
  if (!req.route?.path) throw new ConfigurationError('oncely/express: once() runs outside a route here (app.use): give options.tool, or mount it on the route (app.post(path, once(…), handler))');
  return `${req.method.toUpperCase()} ${req.baseUrl ?? ''}${req.route.path}`;
}

// The raw body: from a parser's verify (rawBody), or read here when no parser has read it; null
// when it is over `limit` bytes.
async function readRaw(req, limit) {
  if (Buffer.isBuffer(req.rawBody) || req.rawBody instanceof Uint8Array) return req.rawBody.length > limit ? null : new Uint8Array(req.rawBody);
  if (req.readableEnded || req.complete) {
    if (req.body === undefined) return new Uint8Array(0);
    throw new ConfigurationError('oncely/express: the body was parsed before once() without its raw bytes: mount once() before the body parser, or give the parser `verify: rawBody` (import { rawBody } from "oncely/express")');
  }
  const chunks = [];
  let n = 0;
  for await (const c of req) {
    n += c.length;
    if (n > limit) return null; // the rest is never read: the connection closes after the 413
    chunks.push(c);
  }
  const buf = Buffer.concat(chunks);
  req.rawBody = buf;
  if (req.body === undefined) req.body = parsedBody(req.headers['content-type'] ?? '', buf);
  return new Uint8Array(buf);
}

function parsedBody(type, buf) {
  if (/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
    try {
      return JSON.parse(buf.toString('utf8'));
    } catch {
      return undefined;
    }
  }
  return buf.length === 0 ? undefined : buf;
}

// Hold the handler's response (writeHead, write, end, flushHeaders) until `send`. `answer`
// resolves to {status, headers, body} once the handler ends it. Writes after the answer was
// taken (a handler abandoned at its deadline) are dropped.
function capture(res) {
  const orig = { writeHead: res.writeHead, write: res.write, end: res.end, flushHeaders: res.flushHeaders };
  const chunks = [];
  let capturing = true;
  let ours = false;
  let done;
  const answer = new Promise((r) => (done = r));
  const pass = (name, self, args) => orig[name].apply(self, args);
  const add = (chunk, encoding) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, /** @type {BufferEncoding} */ (typeof encoding === 'string' ? encoding : 'utf8')) : Buffer.from(chunk.buffer ?? chunk, chunk.byteOffset ?? 0, chunk.byteLength ?? chunk.length));
  };
  const cbOf = (...a) => a.find((x) => typeof x === 'function');
  /** @this {import('node:http').ServerResponse} */
  res.writeHead = function writeHead(status, ...rest) {
    if (ours) return pass('writeHead', this, [status, ...rest]);
    if (!capturing) return this;
    this.statusCode = status;
    const headers = typeof rest[0] === 'string' ? rest[1] : rest[0];
    if (typeof rest[0] === 'string') this.statusMessage = rest[0];
    if (Array.isArray(headers)) {
      if (Array.isArray(headers[0])) for (const [k, v] of headers) this.setHeader(k, v);
      else for (let i = 0; i + 1 < headers.length; i += 2) this.setHeader(headers[i], headers[i + 1]);
    } else if (headers) for (const [k, v] of Object.entries(headers)) this.setHeader(k, v);
    return this;
  };
  res.flushHeaders = function flushHeaders(...a) {
    if (ours) return pass('flushHeaders', this, a);
  };
  res.write = function write(chunk, encoding, cb) {
    if (ours) return pass('write', this, [chunk, encoding, cb]);
    if (capturing) add(chunk, encoding);
    const f = cbOf(encoding, cb);
    if (f) queueMicrotask(() => f());
    return true;
  };
  res.end = function end(chunk, encoding, cb) {
    if (ours) return pass('end', this, [chunk, encoding, cb]);
    if (!capturing) return this;
    add(chunk, encoding);
    capturing = false;
    const f = cbOf(chunk, encoding, cb);
    if (f) this.once('finish', () => f());
    const headers = [];
    for (const [k, v] of Object.entries(this.getHeaders())) {
      if (Array.isArray(v)) for (const x of v) headers.push([k, String(x)]);
      else headers.push([k, String(v)]);
    }
    done({ status: this.statusCode, headers, body: new Uint8Array(Buffer.concat(chunks)) });
    return this;
  };
  return {
    answer,
    // Send `r`; `replace`: its headers replace the response's content headers (a replay, a
    // refusal), else they are already set (the handler's own answer).
    send(r, replace) {
      capturing = false;
      if (res.writableEnded || res.destroyed) return;
      if (replace) {
        for (const h of ['content-type', 'content-length', 'content-encoding', 'etag', 'location', 'retry-after', 'cache-control', 'vary', 'link', 'last-modified', 'content-language', 'content-location', 'transfer-encoding']) res.removeHeader(h);
        res.statusCode = r.status;
        const byName = new Map();
        for (const [k, v] of r.headers) byName.set(k.toLowerCase(), [...(byName.get(k.toLowerCase()) ?? []), v]);
        for (const [k, v] of byName) res.setHeader(k, v.length === 1 ? v[0] : v);
      }
      ours = true;
      try {
        if (NO_BODY.has(res.statusCode)) orig.end.call(res);
        else orig.end.call(res, Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength));
      } finally {
        ours = false;
      }
    },
  };
}
