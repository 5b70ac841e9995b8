// scripts/snippets: runs before a README block that settles an entry: `ledger`, and the `key` of
// an escalated refund (its reply was lost, and only a person can reconcile it). Its imports are
// under a name of their own, so that the block's imports stay the block's.
import * as snippetOncely from 'oncely';

const ledger = new snippetOncely.Ledger(new snippetOncely.MemoryStore());
const key = await ledger
  .effect(
    { scope: 'acme', run: 'run-7', tool: 'refund', args: { charge_id: 'ch_1' } },
    { class: 'irreversible-external', reconcile: 'manual' },
    async () => {
      throw new Error("the provider's reply was lost");
    },
  )
  .then(
    () => {
      throw new Error('a lost reply with manual reconciliation escalates');
    },
    (e) => {
      if (!(e instanceof snippetOncely.EscalatedError)) throw e;
      return e.key;
    },
  );
