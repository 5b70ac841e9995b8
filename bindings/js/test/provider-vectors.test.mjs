// tests/vectors/provider.json through the package's calls of the core's provider interface (the
// calls oncely/hono, oncely/express and oncely/mcp make): admit, record-http, record-mcp,
// replay-http and refuse give, for every case, what every host must get.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { before, test } from 'node:test';
import { PACKAGE_DIR, vectors } from './helpers/env.mjs';

const V = vectors('provider.json');
let core;

before(async () => {
  core = await import(pathToFileURL(join(PACKAGE_DIR, 'src/core.js')).href);
});

const bytes = (o) => (o.body64 !== undefined ? new Uint8Array(Buffer.from(o.body64, 'base64')) : new TextEncoder().encode(o.body ?? ''));

// The vectors' body: UTF-8 text as `body`, else `body64`.
function bodyOut(b) {
  const buf = Buffer.from(b);
  const text = buf.toString('utf8');
  return Buffer.from(text, 'utf8').equals(buf) ? { body: text } : { body64: buf.toString('base64') };
}

function requestIn(r) {
  if (r.http) {
    const h = r.http;
    return { tag: 'http', val: { method: h.method, path: h.path, query: h.query, contentType: h.contentType, body: bytes(h), keys: h.keys } };
  }
  const m = r.mcp;
  return { tag: 'mcp', val: { argumentsJson: m.arguments ?? '', metaJson: m.meta ?? '', paramsKey: m.paramsKey ?? undefined } };
}

const refusalOut = (r) => ({ status: r.status, kind: r.kind, pointer: r.pointer, part: r.part, retryAfterS: r.retryAfterS, title: r.title, detail: r.detail, problem: r.problemJson });

function recordingOut(r) {
  if (r.tag === 'returned') return { returned: r.val };
  if (r.tag === 'unrecordable') return { unrecordable: r.val };
  return { failed: { definite: r.val.definite, reason: r.val.reason } };
}

// The vectors' effect-error (JSON) as the core's WIT record.
function effectErrorIn(e) {
  const [[tag, v]] = Object.entries(e);
  if (tag === 'in-progress') return { tag, val: { ...v, retryAfterMs: BigInt(v.retryAfterMs) } };
  if (tag === 'in-doubt') return { tag, val: { ...v, retryAfterMs: v.retryAfterMs === null ? undefined : BigInt(v.retryAfterMs) } };
  if (tag === 'ledger') return { tag, val: { kind: v.kind, state: v.state ?? undefined, message: v.message } };
  return { tag, val: v };
}

test('provider.json: admit', () => {
  assert.ok(V.admit.length >= 40);
  for (const c of V.admit) {
    let got;
    try {
      const a = core.providerAdmit(c.scope, { tool: c.operation.tool, policyJson: c.operation.policy, required: c.operation.required }, requestIn(c.request));
      if (a.tag === 'pass') got = { pass: true };
      else if (a.tag === 'refuse') got = { refuse: refusalOut(a.val) };
      else got = { keyed: { clientKey: a.val.clientKey, key: a.val.key, tool: a.val.intent.tool, args: a.val.intent.args, ignore: [...a.val.policy.key.ignore] } };
    } catch (e) {
      assert.equal(e.code, 'configuration', `${c.name}: ${e}`);
      got = { error: e.message };
    }
    assert.deepEqual(got, c.expect, c.name);
  }
});

test('provider.json: record-http and record-mcp', () => {
  for (const c of V.record) {
    const r = c.response;
    assert.deepEqual(recordingOut(core.providerRecordHttp({ status: r.status, headers: r.headers, body: bytes(r) })), c.expect, c.name);
  }
  for (const c of V.recordMcp) assert.deepEqual(recordingOut(core.providerRecordMcp(c.result)), c.expect, c.name);
});

test('provider.json: replay-http', () => {
  for (const c of V.replay) {
    const r = core.providerReplayHttp(c.recorded);
    assert.deepEqual({ status: r.status, headers: r.headers, ...bodyOut(r.body) }, c.expect, c.name);
  }
});

test('provider.json: oversized', () => {
  for (const c of V.oversized) assert.deepEqual(refusalOut(core.providerOversized(c.limitBytes)), c.expect, c.name);
});

test('provider.json: refuse', () => {
  for (const c of V.refuse) {
    const a = core.providerRefuse(effectErrorIn(c.error), c.handlerRan);
    assert.deepEqual(a.tag === 'handler' ? { handler: true } : refusalOut(a.val), c.expect, c.name);
  }
});
