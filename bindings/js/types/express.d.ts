// oncely/express: an Express 5 route middleware that honours the Idempotency-Key its clients send.
// Typed structurally: it needs neither Express's nor Node's types.
import type { OncelyRequestInfo, ProviderOptions } from './provider.js';

export type { OncelyRequestInfo, ProviderOptions } from './provider.js';

/** The request as once() reads it and leaves it: the raw body, and the key on keyed requests. */
export interface OncelyExpressRequest {
  method: string;
  url: string;
  originalUrl?: string;
  headers: Record<string, string | string[] | undefined>;
  /** The raw body bytes (read by once(), or kept by a parser's `verify: rawBody`). */
  rawBody?: Uint8Array;
  /** Set by once() when it read the body (parsed when it is JSON), unless a parser set it. */
  body?: unknown;
  /** On keyed requests. */
  oncely?: OncelyRequestInfo;
}

/**
 * `app.post('/refunds', once({ ledger, scope }), handler)`: a keyed request runs the handler once;
 * repeats replay its response (`Idempotent-Replayed: true`); refusals are problem+json.
 */
export function once<Req extends OncelyExpressRequest = OncelyExpressRequest>(
  options: ProviderOptions<Req>,
): (req: Req, res: any, next: (err?: unknown) => void) => Promise<void>;

/** `express.json({ verify: rawBody })`: keep the raw bytes for once() when a parser runs before it. */
export function rawBody(req: unknown, res: unknown, buf: Uint8Array): void;
