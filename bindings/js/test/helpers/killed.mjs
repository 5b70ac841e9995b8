// The kill-and-resume stories of the adapter tests (mastra, openai-agents, ai, langchain): a
// framework's process is SIGKILLed inside the refund tool after the provider paid, and a new
// process goes on from what the framework persisted. Both halves are here, once:
//
//   the test's side:   killedThenResumed(script, tag) runs the story bare and through oncely;
//   the process's side: a story script (test/helpers/killed-*.mjs, `node script DIR GUARDED PHASE`)
//                      pays with pay(), which kills the first process once the refund is made,
//                      and through oncely keys it with storyLedger() (SQLite in DIR).
//
// The provider is a file (DIR/refunds.jsonl, one line per refund made, with the key it was given):
// it pays every request (no deduplication of its own), and its lookup finds a refund by key.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { happened, Ledger, notHappened } from 'oncely';
import { SqliteStore } from 'oncely/sqlite';
import { tempDir } from './tmp.mjs';

// ---- the test's side --------------------------------------------------------------------------

/** Run one process of the story: `node script dir guarded phase`, from where 'oncely' resolves. */
export function runPhase(script, dir, guarded, phase) {
  return spawnSync(process.execPath, [fileURLToPath(script), dir, guarded, phase], {
    encoding: 'utf8',
    timeout: 120_000,
    cwd: fileURLToPath(new URL('../..', import.meta.url)), // where 'oncely' and the frameworks resolve
  });
}

/**
 * The story, bare then through oncely: a first process killed inside the tool after it paid (it
 * must die of SIGKILL, having paid once), then a second on the same folder (it must end well).
 * Resolves to `{guarded, out, refunds}` for each: the second process's last stdout line as JSON,
 * and the refunds the provider made.
 * @param {URL} script the story script (a file URL)
 * @param {string} tag names the temporary folders
 */
export function killedThenResumed(script, tag) {
  return ['bare', 'oncely'].map((guarded) => {
    const dir = tempDir(`${tag}-${guarded}`);
    const died = runPhase(script, dir, guarded, 'first');
    assert.equal(died.signal, 'SIGKILL', `${tag} (${guarded}) first process:\n${died.stdout}\n${died.stderr}`);
    assert.equal(refunds(dir).length, 1, 'the first process paid before it was killed');
    const again = runPhase(script, dir, guarded, 'second');
    assert.equal(again.status, 0, `${tag} (${guarded}) second process:\n${again.stdout}\n${again.stderr}`);
    const out = JSON.parse(again.stdout.trim().split('\n').at(-1));
    return { guarded, out, refunds: refunds(dir) };
  });
}

/**
 * What the provider paid in one run of the story: twice bare (the call made again paid again);
 * once through oncely, with the key (the call made again found it by the lookup).
 */
export function assertPaid({ guarded, refunds: made }) {
  if (guarded === 'bare') {
    assert.equal(made.length, 2, 'bare, the story must pay twice');
  } else {
    assert.equal(made.length, 1, 'through oncely, the story pays once');
    assert.match(made[0].key, /^oncely1:[0-9a-f]{64}$/);
  }
}

// ---- the process's side -----------------------------------------------------------------------

/** The refunds the provider made, in order: `{refund_id, charge_id, amount_cents, key}`. */
export function refunds(dir) {
  const file = join(dir, 'refunds.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/**
 * The provider pays: the refund is written; in the first process, the process is then killed
 * (SIGKILL: the answer never leaves the tool, nothing after it is saved).
 */
export function pay(dir, phase, { charge_id, amount_cents }, key = null) {
  const refund = { refund_id: `re_${refunds(dir).length + 1}`, charge_id, amount_cents, key };
  appendFileSync(join(dir, 'refunds.jsonl'), `${JSON.stringify(refund)}\n`);
  if (phase === 'first') process.kill(process.pid, 'SIGKILL');
  return { refund_id: refund.refund_id, status: 'succeeded' };
}

/** Lookup-reconciled; a call may take 200 ms; a new reconciliation as soon as asked. */
export const STORY_POLICY = { class: 'irreversible-external', reconcile: { lookup: 'find_refund' }, maxCallMs: 200, reconcileAfterMs: 1 };

/** The ledger of the story (SQLite in `dir`), its `refund` reconciled by the provider's lookup. */
export async function storyLedger(dir, phase) {
  const ledger = new Ledger(await SqliteStore.open(join(dir, 'ledger.db')), { owner: phase });
  ledger.reconciler('refund', async (req) => {
    const r = refunds(dir).find((x) => x.key === req.key);
    return r ? happened({ refund_id: r.refund_id, status: 'succeeded' }) : notHappened();
  });
  return ledger;
}

/** The refund each process's model asks for: the first, then again with a new id and respelled. */
export function asked(phase) {
  return phase === 'first'
    ? { toolCallId: 'call_1', input: '{"charge_id":"ch_1","amount_cents":500}', said: 'Refund $5 on charge ch_1.' }
    : { toolCallId: 'call_2', input: '{"amount_cents":5e2,"charge_id":"ch_1"}', said: 'Did my refund of $5 on ch_1 go through? If not, refund it.' };
}
