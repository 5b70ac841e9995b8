// scripts/snippets: runs before a README block that calls `stripe`, the payment provider's client
// a reader already has. This stand-in refunds once per idempotency key, as a provider does.
const refunds = new Map();
const stripe = {
  async refund({ charge }, { idempotencyKey }) {
    if (!refunds.has(idempotencyKey)) {
      refunds.set(idempotencyKey, { id: `re_${refunds.size + 1}`, charge });
    }
    return refunds.get(idempotencyKey);
  },
  async findRefund(idempotencyKey) {
    return refunds.get(idempotencyKey) ?? null;
  },
};
