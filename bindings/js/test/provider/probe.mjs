// The file probe of the Node provider servers: every handler run is appended (fsynced) to
// DIR/effects.jsonl, which the test reads from outside the server process; a handler held at a
// gate waits until the test creates DIR/gate-NAME.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export function fileProbe(dir) {
  return {
    async record(event) {
      const fd = openSync(join(dir, 'effects.jsonl'), 'a');
      try {
        writeSync(fd, JSON.stringify(event) + '\n');
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    },
    async gate(name) {
      const deadline = Date.now() + 60_000;
      while (!existsSync(join(dir, `gate-${name}`))) {
        if (Date.now() > deadline) throw new Error(`gate ${name} was never opened`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

/** The test side: the handler runs recorded so far, and opening a gate. */
export function fileProbeReader(dir) {
  return {
    async events() {
      const f = join(dir, 'effects.jsonl');
      if (!existsSync(f)) return [];
      return readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    },
    async open(name) {
      writeFileSync(join(dir, `gate-${name}`), '');
    },
  };
}
