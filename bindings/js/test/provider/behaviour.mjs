// What the test handlers do with a request body (the same for Hono, Express and MCP): record the
// run with the probe (the effect the test counts), then, as the body asks, wait at a gate, sleep
// past the client's timeout, raise, or answer 503. The body's fields are part of the request (and
// of its fingerprint), so a retry asks for the same thing.
import { unknown } from 'oncely';

/** The policy of /refunds: looked up when in doubt, at once (the reconciler cannot tell). */
export const REFUND_POLICY = { class: 'irreversible-external', reconcile: { lookup: 'refund' }, reconcileAfterMs: 0 };

/**
 * The lookup of `refund`: the bank cannot say, so an entry whose handler raised stays in doubt
 * (409 outcome-in-doubt), never run again.
 */
export function withLookup(ledger) {
  return ledger.reconciler('refund', async () => unknown('the bank cannot say yet'));
}

/** Run the effect: `{kind: 'throw'}`, `{kind: '503'}` or `{kind: 'ok', id}` (the refund made). */
export async function behave(probe, { route, key, body }) {
  const id = `re_${crypto.randomUUID()}`;
  await probe.record({ route, key, id, charge: body?.charge ?? null, amount: body?.amount ?? null });
  if (body?.gate) await probe.gate(body.gate);
  if (body?.sleepMs) await new Promise((r) => setTimeout(r, body.sleepMs));
  if (body?.fail === 'throw') return { kind: 'throw' };
  if (body?.fail === '503') return { kind: '503' };
  return { kind: 'ok', id };
}
