// The real workerd binary (npm package `workerd`), started directly on a config the test wrote:
// waits until `readyUrl` answers, and stops it (SIGTERM, then SIGKILL after 5 s) when asked or
// when this process exits, whatever ends it.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const WORKERD = fileURLToPath(new URL('../../node_modules/.bin/workerd', import.meta.url));

/** A port free on 127.0.0.1 now (another process may take it before workerd binds it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Start workerd: `setup()` picks ports, writes the config and resolves to {config, readyUrl};
 * resolves to {logs(), stop()} once `readyUrl` answers. A port another process took between
 * `setup` picking it and workerd binding it (several test runs on one machine) is retried with
 * new ports, up to 5 times.
 */
export async function startWorkerd(setup, cwd) {
  for (let attempt = 1; ; attempt++) {
    const { config, readyUrl } = await setup();
    try {
      return await start(config, cwd, readyUrl);
    } catch (e) {
      if (!(e instanceof PortTaken) || attempt === 5) throw e;
    }
  }
}

class PortTaken extends Error {}

async function start(config, cwd, readyUrl) {
  let logs = '';
  const proc = spawn(WORKERD, ['serve', config], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  process.on('exit', () => {
    if (proc.exitCode === null) proc.kill('SIGKILL');
  });
  proc.stdout.on('data', (d) => (logs += d));
  proc.stderr.on('data', (d) => (logs += d));
  const exited = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const state = await Promise.race([exited.then((code) => ({ code })), fetch(readyUrl).then(() => 'up', () => 'down')]);
    if (state === 'up') break;
    if (typeof state === 'object') {
      if (/Address already in use/.test(logs)) throw new PortTaken(logs);
      throw new Error(`workerd exited (${state.code}) before serving:\n${logs}`);
    }
    if (Date.now() > deadline) throw new Error(`workerd did not answer within 30 s:\n${logs}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    logs: () => logs,
    async stop() {
      if (proc.exitCode !== null) return;
      const gone = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(t);
    },
  };
}
