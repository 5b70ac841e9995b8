// oncely/fetch: an HTTP call with the key as Idempotency-Key, its outcome in the ledger's words.
import type { Call } from './index.js';

/** Statuses read as "not performed" unless told otherwise: 400–406, 410–417, 421, 422, 426, 428, 429, 431, 451. */
export const NOT_PERFORMED: readonly number[];

/** A status in the ledger's words: 'done' (2xx), 'not-performed' (in `notPerformed`), else 'unknown'. */
export function classifyStatus(status: number, notPerformed?: Iterable<number>): 'done' | 'not-performed' | 'unknown';

export interface KeyedFetchInit extends Omit<RequestInit, 'signal'> {
  /** The idempotency key (or give `call`). */
  key?: string;
  /** The ledger's call (`ledger.effect(…, (key, call) => …)`): its key, and its signal (the deadline). */
  call?: Pick<Call, 'key' | 'signal'>;
  /** A body sent as JSON (sets content-type unless given). */
  json?: unknown;
  /** Abort after this long: an ambiguous failure. */
  timeoutMs?: number;
  /** Statuses the provider documents as "the request was not performed" (default NOT_PERFORMED). */
  notPerformed?: Iterable<number>;
  /** The header's name (default 'Idempotency-Key'). */
  header?: string;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof fetch;
  signal?: AbortSignal | null;
}

export interface KeyedResponse<T = unknown> {
  status: number;
  /** The body: parsed when the response is JSON, else its text; null when empty. */
  body: T;
}

/**
 * 2xx: `{status, body}`. A status in `notPerformed`: DefiniteFailure. Any other status, a timeout,
 * an abort, a network error: AmbiguousFailure. The failures carry `status` and `body` when the
 * server answered.
 */
export function keyedFetch<T = unknown>(input: string | URL | Request, init?: KeyedFetchInit): Promise<KeyedResponse<T>>;
