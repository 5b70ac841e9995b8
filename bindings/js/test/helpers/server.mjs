// A server process of the tests: `node SCRIPT ARGS…`, which prints "listening PORT" once it serves
// on 127.0.0.1. Stopped by `stop()`, and killed when the test process exits whatever ends it.
import { spawn } from 'node:child_process';

export async function startServer(script, args = [], { env } = {}) {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  process.on('exit', () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let logs = '';
  const port = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${script} did not listen within 30 s:\n${logs}`)), 30_000);
    child.stdout.on('data', (d) => {
      logs += d;
      const m = /listening (\d+)/.exec(logs);
      if (m) {
        clearTimeout(t);
        resolve(Number(m[1]));
      }
    });
    child.stderr.on('data', (d) => (logs += d));
    child.once('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`${script} exited (${code}) before listening:\n${logs}`));
    });
  });
  return {
    base: `http://127.0.0.1:${port}`,
    logs: () => logs,
    async stop() {
      if (child.exitCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(t);
    },
  };
}

/** Poll `f` until it returns a truthy value (every 20 ms, at most `timeoutMs`). */
export async function until(what, f, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
