// The real workerd binary (npm package `workerd`), started directly on a config the test wrote:
// waits until `readyUrl` answers, and stops it (SIGTERM, then SIGKILL after 5 s) when asked or
// when this process exits, whatever ends it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const WORKERD = fileURLToPath(new URL('../../node_modules/.bin/workerd', import.meta.url));

/** Start workerd on `config` in `cwd`; resolves to {logs(), stop()} once `readyUrl` answers. */
export async function startWorkerd(config, cwd, readyUrl) {
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
    if (typeof state === 'object') throw new Error(`workerd exited (${state.code}) before serving:\n${logs}`);
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
