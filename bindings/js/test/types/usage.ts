// Compiled (not run) by types.test.mjs: the declarations describe the API as used.
import {
  canonicalize, checkTools, deriveKey, deriveKeys, explain, intentKey, happened, notHappened, parsePolicy, unknown,
  DefiniteFailure, DurableObjectStore, KeyDerivationError, Ledger, MemoryStore, ResultNotRecordedError,
  type DerivedKey, type Entry, type Outcome, type Policy,
} from 'oncely';
import { SqliteStore } from 'oncely/sqlite';
import { PostgresStore } from 'oncely/postgres';

const c: string = canonicalize('{"a":1}') + canonicalize(new Uint8Array([0x31]));
const k: DerivedKey = deriveKey({ scope: 's', run: 'r', step: 't', tool: 'x', args: { a: 1 }, policy: { class: 'irreversible-external', key: { only: ['/a'] } } });
const many = deriveKeys([{ scope: 's', tool: 'x', args: '{}' }]);
const justKey: string = intentKey({ scope: 's', run: 'r', step: 't', tool: 'x', args: { a: 1 } });
for (const r of many) if (r instanceof KeyDerivationError) console.log(r.kind, r.canon?.offset);
const e = explain({ scope: 's', tool: 'x', args: {} }, { scope: 's', tool: 'y', args: {} });
const v: 'same-intent' | 'conflict' | 'different-keys' = e.verdict;
const p: Policy = parsePolicy('{"class":"read-only"}');
const ok: boolean = checkTools({ tools: [] }).passed;

async function main() {
  const ledger = new Ledger(new MemoryStore(), { owner: 'w1', clock: () => Date.now() });
  ledger.reconciler('refund', async (req) => (req.attempt > 1 ? happened({ id: 1 }) : req.path === 'manual' ? unknown('?') : notHappened()));
  const r = await ledger.effect({ scope: 's', run: 'r', step: 't', tool: 'refund', args: { charge: 'ch' } }, p, async (key: string) => {
    if (!key) throw new DefiniteFailure('no');
    return { refund: key };
  });
  const refund: string = r.value.refund;
  const o: Outcome = (await ledger.begin({ scope: 's', tool: 't', args: 1 }, p)).outcome;
  if (o.tag === 'execute') await ledger.complete('s', 'k', o.val, { ok: true });
  const entries: Entry[] = await ledger.list('s', { state: 'done', limit: 5 });
  const sqlite = await SqliteStore.open(':memory:');
  const pg = await PostgresStore.connect('postgres://x', { max: 2 });
  const report = await new Ledger(sqlite, { clock: () => 0, sleep: async (ms: number) => void ms }).sweep();
  const purged: number = report.purged + (await new Ledger(sqlite).purgeExpired());
  const due: Entry[] = await sqlite.due(null, Date.now(), 10);
  const dueAt: number | null = due[0]?.dueAt ?? null;
  try {
    await ledger.effect({ scope: 's', tool: 'x', args: 1 }, p, () => 1n);
  } catch (err) {
    if (err instanceof ResultNotRecordedError) console.log(err.code, err.key, err.reason, purged, dueAt);
  }
  await pg.close();
  // Every shipped store has the Store methods and a required close().
  const shipped: Array<import('oncely').ShippedStore> = [new MemoryStore(), sqlite, pg];
  const first: Entry | null = await shipped[0].get('s', 'k');
  await Promise.all(shipped.map((s) => s.close()));
  console.log(c, k, v, ok, refund, entries, first, DurableObjectStore);
}
main();
