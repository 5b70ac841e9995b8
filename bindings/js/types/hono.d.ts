// oncely/hono: a Hono route middleware that honours the Idempotency-Key its clients send.
import type { Context, MiddlewareHandler } from 'hono';
import type { OncelyRequestInfo, ProviderOptions } from './provider.js';

export type { OncelyRequestInfo, ProviderOptions } from './provider.js';

/** Variables the middleware sets: `c.get('oncely')` on keyed requests. */
export interface OncelyVariables {
  oncely: OncelyRequestInfo;
}

/**
 * `app.post('/refunds', once({ ledger, scope }), handler)`: a keyed request runs the handler once;
 * repeats replay its response (`Idempotent-Replayed: true`); refusals are problem+json.
 */
export function once<C extends Context = Context>(options: ProviderOptions<C>): MiddlewareHandler<{ Variables: OncelyVariables }>;
