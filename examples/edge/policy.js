/** The refund tool's oncely policy: one refund per charge, ever; reconciled by a lookup. */
export const REFUND_POLICY = {
  class: 'irreversible-external',
  key: { only: ['/charge_id'], identity: 'scope' },
  reconcile: { lookup: 'find_refund' },
  leaseMs: 30_000,
};
