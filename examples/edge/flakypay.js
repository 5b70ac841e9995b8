// FlakyPay: a toy payment provider for the edge example, run as its own Worker and bound to the
// example as the service `PAY`. Like many real providers without deduplication, it makes every
// refund it is asked for. It remembers the Idempotency-Key it was given (so a reconciler can
// look a refund up by key), and a request can ask it to lose its reply (`x-simulate: lose-reply`:
// the refund is made, the caller sees a 504), to lose track of it too (`x-simulate: lose-track`:
// as lose-reply, and looking that refund up by its key answers 503: only a person checking can
// tell) or to decline (`x-simulate: decline`: 402, nothing made). State lives in the isolate's
// memory: a demo, not a bank.

const refunds = [];

const view = ({ refund_id, charge_id, amount }) => ({ refund_id, charge_id, amount });

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (request.method === 'POST' && url.pathname === '/refunds') {
      const simulate = request.headers.get('x-simulate');
      const { charge_id, amount } = await request.json();
      if (simulate === 'decline') return new Response('card declined', { status: 402 });
      const refund = { refund_id: `re_${refunds.length + 1}`, charge_id, amount, key: request.headers.get('idempotency-key'), untracked: simulate === 'lose-track' };
      refunds.push(refund);
      if (simulate === 'lose-reply' || simulate === 'lose-track') return new Response('upstream timed out', { status: 504 });
      return Response.json(view(refund));
    }
    if (request.method === 'GET' && url.pathname === '/refunds') {
      const key = url.searchParams.get('idempotency_key');
      if (key !== null) {
        const found = refunds.find((r) => r.key === key);
        if (found?.untracked) return new Response('lookups are unavailable', { status: 503 });
        return found ? Response.json(view(found)) : new Response('no refund with this key', { status: 404 });
      }
      const charge = url.searchParams.get('charge_id');
      return Response.json(refunds.filter((r) => charge === null || r.charge_id === charge).map(view));
    }
    return new Response('not found', { status: 404 });
  },
};
