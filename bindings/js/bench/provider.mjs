#!/usr/bin/env node
// The provider middleware's cost: a keyed POST through oncely against the same app bare, over
// real HTTP, in ONE run.
//
//   node bench/provider.mjs [--python PYTHON] [--only hono,fastapi] [--quick]
//                           [--rounds N] [--seconds S] [--connections C]
//
// Servers (each its own process, one at a time, listening on 127.0.0.1):
//   hono     bench/provider-server.mjs: Hono on @hono/node-server, bare or behind oncely/hono's
//            once() over a SQLite ledger (a new file per round).
//   fastapi  bindings/python/bench_provider_app.py in uvicorn (--python: an interpreter with
//            oncely, fastapi and uvicorn; without it this row is skipped), bare or behind
//            oncely.provider.asgi.IdempotencyMiddleware over a SQLite ledger.
// Both answer `POST /refunds` by reading the JSON body and answering 201 with JSON; through
// oncely with the middleware's defaults (required key, the route's tool, the core's policy).
//
// Load: autocannon, --connections keep-alive connections (default 8) for --seconds (default 2),
// every request a fresh effect: its own Idempotency-Key, and the same ~60-byte body. Rounds
// alternate bare and oncely (the order flips every round); reported: the MEDIAN requests per
// second of each over --rounds (default 7) and the ratio oncely ÷ bare (goal ≥ 0.5, issue 26).
// Every response must be a 201 and, through oncely, a fresh effect (no replay): a run with
// anything else fails. The load generator shares the machine with the server: trust the ratio,
// not the rates.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const pythonDir = join(here, '..', '..', 'python');
const { values: opt } = parseArgs({
  options: {
    python: { type: 'string' },
    only: { type: 'string', default: 'hono,fastapi' },
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    connections: { type: 'string', default: '8' },
  },
});
const rounds = Number(opt.rounds ?? (opt.quick ? 3 : 7));
const seconds = Number(opt.seconds ?? (opt.quick ? 1 : 2));
const connections = Number(opt.connections);
const only = new Set(opt.only.split(','));
const BODY = JSON.stringify({ charge: 'ch_3PqR8s2eZvKYlo2C', amount: 4999, reason: 'requested' });

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

const live = new Set();
process.on('exit', () => {
  for (const child of live) if (child.exitCode === null) child.kill('SIGKILL');
});

/** A server process; `stop()` ends it (SIGTERM, then SIGKILL after 5 s). */
function spawnServer(cmd, args, { cwd, env } = {}) {
  const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  const out = { logs: '', child };
  child.stdout.on('data', (d) => (out.logs += d));
  child.stderr.on('data', (d) => (out.logs += d));
  out.stop = () =>
    new Promise((done) => {
      if (child.exitCode !== null) return done(undefined);
      child.once('exit', done);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  return out;
}

/** Wait until `port()` names the server's port and it answers HTTP; its base URL. */
async function listening(server, port, what) {
  for (let i = 0; i < 600; i++) {
    if (server.child.exitCode !== null) throw new Error(`${what} exited (${server.child.exitCode}):\n${server.logs}`);
    const p = port();
    if (p) {
      try {
        await fetch(`http://127.0.0.1:${p}/`);
        return `http://127.0.0.1:${p}`;
      } catch {
        // not yet
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await server.stop();
  throw new Error(`${what} did not listen in 60 s:\n${server.logs}`);
}

const servers = {
  hono: async (ledger) => {
    const server = spawnServer(process.execPath, [join(here, 'provider-server.mjs'), ledger ?? 'bare']);
    return { url: await listening(server, () => /listening (\d+)/.exec(server.logs)?.[1], 'the Hono server'), stop: server.stop };
  },
  fastapi: async (ledger) => {
    const port = await freePort();
    const args = ['-m', 'uvicorn', 'bench_provider_app:app', '--host', '127.0.0.1', '--port', String(port), '--log-level', 'warning', '--no-access-log'];
    const server = spawnServer(/** @type {string} */ (opt.python), args, { cwd: pythonDir, env: ledger ? { ONCELY_BENCH_LEDGER: ledger } : {} });
    return { url: await listening(server, () => port, 'uvicorn'), stop: server.stop };
  },
};

/** One round of one contender: requests per second, every answer checked. */
async function load(kind, withOncely, round) {
  const dir = mkdtempSync(join(tmpdir(), `oncely-provider-${kind}-`));
  const server = await servers[kind](withOncely ? join(dir, 'ledger.db') : null);
  try {
    let n = 0;
    let replays = 0;
    const result = await autocannon({
      url: server.url,
      connections,
      duration: seconds,
      requests: [
        {
          method: 'POST',
          path: '/refunds',
          headers: { 'content-type': 'application/json' },
          body: BODY,
          setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': `bench-${round}-${n++}` } }),
          onResponse: (status, body, context, headers) => {
            if (headers?.['idempotent-replayed'] !== undefined) replays += 1;
          },
        },
      ],
    });
    const bad = result.non2xx + result.errors + result.timeouts;
    if (bad > 0 || result['2xx'] === 0) throw new Error(`${kind} ${withOncely ? 'oncely' : 'bare'}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts of ${result.requests.total}`);
    if (replays > 0) throw new Error(`${kind}: ${replays} replays among fresh keys`);
    return result.requests.average;
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kinds = ['hono', 'fastapi'].filter((k) => only.has(k) && (k !== 'fastapi' || opt.python));
if (only.has('fastapi') && !opt.python) console.log('fastapi: skipped (no --python with oncely, fastapi and uvicorn)');
const rows = [];
for (const kind of kinds) {
  const rates = { bare: [], oncely: [] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [false, true] : [true, false];
    for (const withOncely of order) rates[withOncely ? 'oncely' : 'bare'].push(await load(kind, withOncely, r));
  }
  const bare = median(rates.bare);
  const oncely = median(rates.oncely);
  rows.push({ kind, bare, oncely, ratio: oncely / bare });
}
console.log(`node ${process.version}; ${connections} connections, ${rounds} rounds x ${seconds} s per contender, median kept`);
console.log('server    bare req/s  oncely req/s  ratio  goal');
for (const r of rows) {
  console.log(`${r.kind.padEnd(8)}  ${Math.round(r.bare).toLocaleString('en-US').padStart(10)}  ${Math.round(r.oncely).toLocaleString('en-US').padStart(12)}  ${r.ratio.toFixed(2)}x  >=0.5 ${r.ratio >= 0.5 ? 'met' : 'NOT met'}`);
}
