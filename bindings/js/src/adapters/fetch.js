// oncely/fetch: an HTTP call that carries the idempotency key and answers in the ledger's words.
//
//   const r = await ledger.effect(intent, policy, (key, call) =>
//     keyedFetch('https://pay.example/refunds', { method: 'POST', json: args, call }));
//
// The key goes out as the `Idempotency-Key` header. What comes back:
// - 2xx: the effect happened; `{status, body}` is returned (and recorded): the body parsed as JSON
//   when the response says it is JSON, else its text; null when empty;
// - a status in `notPerformed` (by default NOT_PERFORMED: the refusals a server answers before
//   acting — 400–406, 410–417, 421, 422, 426, 428, 429, 431, 451): DefiniteFailure — the effect
//   did not happen;
// - any other status (5xx; 408; 409, which Stripe and the IETF draft answer while the same key is
//   in flight; 423, 424, 425, 499; a 1xx; a 3xx not followed): AmbiguousFailure — the server may
//   have acted; the ledger reconciles, never retries blindly;
// - a timeout (`timeoutMs`, or the call's deadline: `call.signal`), an abort, a network error:
//   AmbiguousFailure.
// Say what your provider documents: `notPerformed: [400, 402, 422]` replaces the default list. A
// status wrongly listed lets a later call run the effect again; one wrongly left out only costs a
// reconciliation. The same table as Python's oncely.adapters.http (both replay
// tests/vectors/http.json).

import { AmbiguousFailure, DefiniteFailure } from '../errors.js';

/**
 * Statuses read as "not performed" unless a provider documents otherwise: the refusals RFC 9110 and
 * RFC 6585 define, which a server answers before acting (429 included). Not 408, 409 (the same key
 * in flight), 423/424 (WebDAV: a part may have run), 425, 499, or a status no RFC defines.
 */
export const NOT_PERFORMED = Object.freeze([400, 401, 402, 403, 404, 405, 406, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422, 426, 428, 429, 431, 451]);

/**
 * A status in the ledger's words: 'done' (2xx), 'not-performed' (a status of `notPerformed`) or
 * 'unknown' (anything else).
 */
export function classifyStatus(status, notPerformed = NOT_PERFORMED) {
  if (status >= 200 && status < 300) return 'done';
  for (const s of notPerformed) if (s === status) return 'not-performed';
  return 'unknown';
}

/**
 * `fetch` with the key as `Idempotency-Key`, its outcome mapped to the ledger's vocabulary.
 * @param input a URL (or Request)
 * @param {Record<string, any>} [init] `fetch` options, plus: `key` (or `call`: the ledger's
 *   call, for its key and signal), `json` (a body sent as JSON), `timeoutMs`, `notPerformed`
 *   (statuses that mean "not done"), `header` (default 'Idempotency-Key'), `fetch` (the
 *   implementation; default globalThis.fetch)
 * @returns `{status, body}` for a 2xx
 * @throws DefiniteFailure | AmbiguousFailure (with `status` and `body` when the server answered)
 */
export async function keyedFetch(input, init = {}) {
  const { key: givenKey, call, json, timeoutMs, notPerformed = NOT_PERFORMED, header = 'Idempotency-Key', fetch: fetchImpl = globalThis.fetch, signal: givenSignal, headers: givenHeaders, ...rest } = init;
  const key = givenKey ?? call?.key;
  if (typeof key !== 'string' || key === '') throw new TypeError('keyedFetch: give the idempotency key (init.key, or init.call from ledger.effect)');
  const headers = new Headers(givenHeaders);
  headers.set(header, key);
  let body = rest.body;
  if (json !== undefined) {
    body = JSON.stringify(json);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const signals = [givenSignal, call?.signal].filter(Boolean);
  if (timeoutMs !== undefined) signals.push(AbortSignal.timeout(timeoutMs));
  const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
  const what = `${rest.method ?? 'GET'} ${typeof input === 'string' ? input : (input?.url ?? String(input))}`;

  let res;
  try {
    res = await fetchImpl(input, { ...rest, body, headers, signal });
  } catch (e) {
    const timedOut = e?.name === 'TimeoutError' || signal?.reason?.name === 'TimeoutError';
    const why = timedOut ? 'timed out' : e?.name === 'AbortError' ? 'aborted' : `failed: ${e?.cause?.code ?? e?.cause?.message ?? e?.message ?? e}`;
    throw new AmbiguousFailure(`${what} ${why}; the server may have acted`, { cause: e });
  }
  let parsed;
  try {
    parsed = await readBody(res);
  } catch (e) {
    // The status line came; the body did not (a reset, the deadline).
    if (res.ok) throw new AmbiguousFailure(`${what}: ${res.status}, but its body could not be read (${e?.message ?? e})`, { cause: e });
    parsed = null;
  }
  const outcome = classifyStatus(res.status, notPerformed);
  if (outcome === 'done') return { status: res.status, body: parsed };
  const detail = `${what}: HTTP ${res.status}${parsed === null ? '' : ` ${snippet(parsed)}`}`;
  /** @type {(DefiniteFailure | AmbiguousFailure) & {status?: number, body?: unknown}} */
  const err = outcome === 'not-performed' ? new DefiniteFailure(`${detail} (not performed)`) : new AmbiguousFailure(`${detail}; the server may have acted`);
  err.status = res.status;
  err.body = parsed;
  throw err;
}

async function readBody(res) {
  const text = await res.text();
  if (text === '') return null;
  const type = res.headers.get('content-type') ?? '';
  if (/[/+]json\b/i.test(type)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function snippet(v) {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}
