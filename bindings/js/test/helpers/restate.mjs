// A Restate server for the tests: the binary of @restatedev/restate-server (its platform package,
// a devDependency), started directly on free 127.0.0.1 ports with a data directory of its own, and
// stopped (SIGKILL) at exit. Its startup version check looks a name up over DNS; where the test
// runs as root with `unshare`, the server gets a resolv.conf naming 127.0.0.1 (a mount namespace
// of its own), so that nothing leaves the machine.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { REPO } from './env.mjs';
import { tempDir } from './tmp.mjs';

const require = createRequire(import.meta.url);

/** The restate-server binary: installed beside the tests, else in the repository's bindings/js. */
export function restateServerBinary() {
  const rel = `@restatedev/restate-server-${platform()}-${arch()}/bin/restate-server`;
  try {
    return require.resolve(rel);
  } catch {
    const inRepo = join(REPO, 'bindings/js/node_modules', rel);
    if (existsSync(inRepo)) return inRepo;
    throw new Error(`restate-server is not installed (${rel}): run npm ci in bindings/js`);
  }
}

/** A free TCP port on 127.0.0.1 (closed again: the caller binds it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const servers = new Set();
process.on('exit', () => {
  for (const child of servers) child.kill('SIGKILL');
});

function isolatedDns(dir) {
  if (process.getuid?.() !== 0) return null;
  const probe = spawnSync('unshare', ['-m', 'true'], { stdio: 'ignore' });
  if (probe.status !== 0) return null;
  const resolv = join(dir, 'resolv.conf');
  writeFileSync(resolv, 'nameserver 127.0.0.1\n');
  return resolv;
}

/**
 * Start a Restate server; resolves once its admin API answers. Retries start after 100 ms and back
 * off to 1 s at most (the default is 500 ms to 1 min), so that a retried invocation finds the
 * restarted service soon.
 * @returns {Promise<{ingress: string, admin: string, log: () => string, stop: () => void}>}
 */
export async function startRestate() {
  const dir = tempDir('restate');
  const [ingress, admin, fabric] = [await freePort(), await freePort(), await freePort()];
  const env = {
    ...process.env,
    RESTATE_DISABLE_TELEMETRY: 'true',
    RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
    RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
    RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
    RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${fabric}/`,
    RESTATE_DEFAULT_RETRY_POLICY__INITIAL_INTERVAL: '100ms',
    RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL: '1s',
    RUST_LOG: 'warn',
    NO_COLOR: '1',
  };
  const args = ['--no-logo', '--base-dir', join(dir, 'data'), '--listen-mode', 'tcp', '--default-num-partitions', '1'];
  const bin = restateServerBinary();
  const resolv = isolatedDns(dir);
  const child = resolv
    ? spawn('unshare', ['-m', 'sh', '-c', 'mount --bind "$0" /etc/resolv.conf && exec "$@"', resolv, bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  servers.add(child);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const server = {
    ingress: `http://127.0.0.1:${ingress}`,
    admin: `http://127.0.0.1:${admin}`,
    log: () => out,
    stop: () => {
      child.kill('SIGKILL');
      servers.delete(child);
    },
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`restate-server exited:\n${out}`);
    try {
      const [a, i] = await Promise.all([fetch(`${server.admin}/health`), fetch(`${server.ingress}/restate/health`)]);
      if (a.ok && i.ok) return server;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      server.stop();
      throw new Error(`restate-server did not start in 60 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Register the service endpoint at `uri` with the server (Restate discovers its services). */
export async function register(server, uri) {
  const res = await fetch(`${server.admin}/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ uri, force: true }),
  });
  if (!res.ok) throw new Error(`registering ${uri}: ${res.status} ${await res.text()}`);
  return res.json();
}
