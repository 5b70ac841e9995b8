// oncely/express: an Express 5 route middleware that honours the Idempotency-Key its clients send.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OncelyRequestInfo, ProviderOptions } from './provider.js';

export type { OncelyRequestInfo, ProviderOptions } from './provider.js';

/** The request as once() leaves it: the raw body, and the key on keyed requests. */
export interface OncelyExpressRequest extends IncomingMessage {
  rawBody?: Uint8Array;
  body?: unknown;
  oncely?: OncelyRequestInfo;
}

/**
 * `app.post('/refunds', once({ ledger, scope }), handler)`: a keyed request runs the handler once;
 * repeats replay its response (`Idempotent-Replayed: true`); refusals are problem+json.
 */
export function once<Req extends IncomingMessage = OncelyExpressRequest>(
  options: ProviderOptions<Req>,
): (req: Req, res: ServerResponse, next: (err?: unknown) => void) => Promise<void>;

/** `express.json({ verify: rawBody })`: keep the raw bytes for once() when a parser runs before it. */
export function rawBody(req: IncomingMessage, res: ServerResponse, buf: Uint8Array): void;
