// A payment provider for the adapter tests: it makes every refund it is asked for (it does not
// deduplicate by key, so a second request pays again), and records the idempotency key it was
// given, which its lookup can search by. Its replies can be slowed or lost, and its lookup can
// be unreachable, as scripted.
//
//   slowReplies: the first N replies arrive `replyMs` after the refund was made;
//   lostReplies: the first N replies never arrive (the call waits for its abort signal);
//   lookupDown:  the first N lookups fail as if the provider could not be reached.

export function payProvider({ slowReplies = 0, replyMs = 0, lostReplies = 0, lookupDown = 0 } = {}) {
  const refunds = [];
  let replies = 0;
  let lookups = 0;
  return {
    refunds,
    /** The refunds made: what the customer got. */
    get count() {
      return refunds.length;
    },
    async refund({ charge_id, amount_cents }, { idempotencyKey = null, signal } = {}) {
      signal?.throwIfAborted();
      const refund = { id: `re_${refunds.length + 1}`, charge_id, amount_cents, idempotencyKey };
      refunds.push(refund);
      const n = ++replies;
      if (n <= lostReplies) await aborted(signal);
      else if (n <= slowReplies) await delay(replyMs, signal);
      return { refund_id: refund.id, charge_id, amount_cents, status: 'succeeded' };
    },
    /** The refund made with this key, if any; throws while the lookup is down. */
    async findByKey(key) {
      if (++lookups <= lookupDown) throw new Error('the provider cannot be reached');
      const r = refunds.find((x) => x.idempotencyKey === key);
      return r ? { refund_id: r.id, charge_id: r.charge_id, amount_cents: r.amount_cents, status: 'succeeded' } : null;
    },
  };
}

function delay(ms, signal) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });
}

// A reply that never comes: the call ends when its signal aborts, or when the connection is
// dropped 5 s later (an open socket keeps the process alive; AbortSignal.timeout does not).
function aborted(signal) {
  return new Promise((_, reject) => {
    const t = setTimeout(() => reject(new Error('connection reset')), 5000);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });
}
