// The Rust CLI as the reference: keys, canonical forms, explanations and checks computed by
// `target/release/oncely`, for comparison with what the JS package (or the Worker) computes.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireCli, requireTestWorker } from './env.mjs';
import { tempDir } from './tmp.mjs';

const dir = () => (dir.d ??= tempDir('cli'));
let n = 0;
function file(name, content) {
  const p = join(dir(), `${n++}-${name}`);
  writeFileSync(p, content);
  return p;
}

function run(args, input) {
  const r = spawnSync(requireCli(), args, { input, encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.error) throw r.error;
  return r;
}

/** An intent as one JSON object line; `args` (JSON text) is embedded raw, as the CLI reads it. */
function intentLine(i) {
  return `{"scope":${JSON.stringify(i.scope)},"run":${JSON.stringify(i.run)},"step":${JSON.stringify(i.step)},"tool":${JSON.stringify(i.tool)},"args":${i.args}}`;
}

const policyFile = (policy) => (policy === undefined ? [] : ['--policy', file('policy.json', typeof policy === 'string' ? policy : JSON.stringify(policy))]);

const derived = (d) => ({ key: d.key, preimage: d.preimage, fingerprint: d.fingerprint, argsCanonical: d.args_canonical });

/**
 * Keys of many intents (args: JSON text without line breaks) in one `oncely key --lines --json`
 * run: one entry per intent, a derived key or `{error: message}`.
 */
export function cliKeysLines(intents, policy) {
  for (const i of intents) if (/[\r\n]/.test(i.args)) throw new Error('cliKeysLines: args must be one line');
  const r = run(['key', '--lines', '--json', ...policyFile(policy)], intents.map(intentLine).join('\n') + '\n');
  if (r.status !== 0 && r.status !== 1) throw new Error(`oncely key --lines failed (${r.status}): ${r.stderr}`);
  const errors = new Map();
  for (const line of r.stderr.split('\n')) {
    const m = /^oncely: line (\d+): (.*)$/.exec(line);
    if (m) errors.set(Number(m[1]) - 1, m[2]);
  }
  const out = r.stdout.split('\n').filter((l) => l.length > 0);
  let k = 0;
  return intents.map((_, i) => (errors.has(i) ? { error: errors.get(i) } : derived(JSON.parse(out[k++]))));
}

/** The key of one intent (`args` any JSON text), by `oncely key --args … --json`: a key or {error}. */
export function cliKey(i, policy) {
  const r = run(['key', `--scope=${i.scope}`, `--run=${i.run}`, `--step=${i.step}`, `--tool=${i.tool}`, `--args=${i.args}`, '--json', ...policyFile(policy)]);
  if (r.status === 0) return derived(JSON.parse(r.stdout));
  return { error: r.stderr.replace(/^oncely: /, '').trimEnd() };
}

/** `oncely canon FILE`: the canonical text, or {error: message}. */
export function cliCanon(bytes) {
  const r = spawnSync(requireCli(), ['canon', file('doc.json', bytes)], { maxBuffer: 256 << 20 });
  if (r.status === 0) return r.stdout.toString('utf8');
  return { error: r.stderr.toString('utf8').replace(/^oncely: /, '').trimEnd() };
}

/** `oncely explain A B --policy P --json` on intents whose args are JSON text. */
export function cliExplain(a, b, policy) {
  const r = run(['explain', file('a.json', intentLine(a)), file('b.json', intentLine(b)), '--json', ...policyFile(policy)]);
  if (r.status !== 0) return { error: r.stderr.replace(/^oncely: /, '').trimEnd() };
  return JSON.parse(r.stdout);
}

/** `oncely check FILE --json`: the report (exit 0 passed, 1 failed), or {error}. */
export function cliCheck(list) {
  const r = run(['check', file('tools.json', typeof list === 'string' ? list : JSON.stringify(list)), '--json']);
  if (r.status !== 0 && r.status !== 1) return { error: r.stderr.replace(/^oncely: /, '').trimEnd() };
  return JSON.parse(r.stdout);
}

/**
 * The arguments of `oncely-test-worker` (the Rust host's test-only worker, run by `cliExec` or
 * spawned with `requireTestWorker()`): one effect through the Rust host's ledger whose tool
 * appends "<key> <owner>" to `marker`.
 */
export function execArgs({ db, scope, run: r, step, tool, args, policy, owner, marker, sleepMs, waitMs, crashAfterCall }) {
  const a = [`--db=${db}`, `--scope=${scope}`, `--run=${r}`, `--step=${step}`, `--tool=${tool}`, `--args=${args}`];
  a.push(`--policy=${typeof policy === 'string' ? policy : JSON.stringify(policy)}`, `--owner=${owner}`, `--marker=${marker}`);
  if (sleepMs) a.push('--sleep-ms', String(sleepMs));
  if (waitMs) a.push('--wait-ms', String(waitMs));
  if (crashAfterCall) a.push('--crash-after-call');
  return a;
}

/** One effect through the Rust host's ledger, by `oncely-test-worker`: {status, result, stderr}. */
export function cliExec(opts) {
  const r = spawnSync(requireTestWorker(), execArgs(opts), { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.error) throw r.error;
  return { status: r.status, result: r.status === 0 ? JSON.parse(r.stdout) : null, stderr: r.stderr };
}
