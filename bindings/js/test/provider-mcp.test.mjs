// oncely/mcp in a real MCP server process (test/provider/mcp-server.mjs, a SQLite ledger file),
// over stdio and over Streamable HTTP, driven by the SDK's own Client: a call retried after the
// client's timeout gets the one run's result marked replayed; the same key with other arguments, a
// concurrent duplicate and a retry after the tool raised are isError results; the handler runs are
// counted in a file the server appends to.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startServer, until } from './helpers/server.mjs';
import { tempDir } from './helpers/tmp.mjs';
import { fileProbeReader } from './provider/probe.mjs';

const SERVER = fileURLToPath(new URL('./provider/mcp-server.mjs', import.meta.url));

for (const transportName of ['stdio', 'streamable HTTP']) {
  describe(`mcp over ${transportName}`, () => {
    let client;
    let probe;
    let srv;

    before(async () => {
      const dir = tempDir('mcp');
      probe = fileProbeReader(dir);
      let transport;
      if (transportName === 'stdio') {
        transport = new StdioClientTransport({ command: process.execPath, args: [SERVER, join(dir, 'ledger.db'), dir], stderr: 'pipe' });
        transport.stderr?.on('data', () => {}); // drained (the server logs nothing on success)
      } else {
        srv = await startServer(SERVER, [join(dir, 'ledger.db'), dir, 'http']);
        transport = new StreamableHTTPClientTransport(new URL(`${srv.base}/mcp`));
      }
      client = new Client({ name: 'oncely-test-agent', version: '1.0.0' });
      await client.connect(transport);
    });

    after(async () => {
      await client?.close();
      await srv?.stop();
    });

    scenarios(() => ({ client, probe }));
  });
}

function scenarios(ctx) {
  const call = (args, meta, options = {}, name = 'refund') => ctx().client.callTool({ name, arguments: args, _meta: meta }, undefined, { timeout: 30_000, ...options });
  const ranWith = async (key) => (await ctx().probe.events()).filter((e) => e.key === key);
  const refusal = (r) => (r.isError ? r._meta?.['oncely/refusal'] : undefined);

  test('mcp: a call retried after the client\'s timeout gets the one run\'s result, marked replayed', async () => {
    const key = randomUUID();
    const args = { charge: 'ch_mcp_t', amount: 500, sleepMs: 1500 };
    await assert.rejects(call(args, { idempotencyKey: key }, { timeout: 300 }), /timed out/i);
    let r;
    await until('the first call to finish', async () => {
      r = await call(args, { idempotencyKey: key });
      if (refusal(r) === 'request-in-progress') {
        assert.match(r.content[0].text, /^oncely: /);
        return false;
      }
      return true;
    });
    assert.equal(r.isError, undefined, JSON.stringify(r));
    const runs = await ranWith(key);
    assert.equal(runs.length, 1, 'the tool ran once');
    const refund = { id: runs[0].id, charge: 'ch_mcp_t', amount: 500 };
    assert.deepEqual(r.structuredContent, refund);
    assert.deepEqual(r.content, [{ type: 'text', text: JSON.stringify(refund) }]);
    assert.deepEqual(r._meta, { 'oncely/replayed': true, 'oncely/key': key });
    // The client cancelled the timed-out request; the callback's signal was not aborted by it.
    assert.deepEqual((await ctx().probe.events()).filter((e) => e.of === key).map((e) => e.signalAborted), [false]);
    // The key under `oncely/key` is the same key.
    const again = await call(args, { 'oncely/key': key });
    assert.deepEqual([again.structuredContent, again._meta['oncely/replayed']], [refund, true]);
    assert.equal((await ranWith(key)).length, 1);
  });

  test('mcp: a fresh call is not marked; its repeat is; the same key with other arguments is refused at /amount', async () => {
    const key = randomUUID();
    const first = await call({ charge: 'ch_mcp_m', amount: 500 }, { idempotencyKey: key });
    assert.equal(first._meta, undefined);
    const repeat = await call({ amount: 500, charge: 'ch_mcp_m' }, { idempotencyKey: key });
    assert.deepEqual([repeat.structuredContent, repeat._meta['oncely/replayed']], [first.structuredContent, true]);
    const other = await call({ charge: 'ch_mcp_m', amount: 700 }, { idempotencyKey: key });
    assert.deepEqual([other.isError, refusal(other), other._meta['oncely/pointer']], [true, 'idempotency-key-reused', '/amount'], JSON.stringify(other));
    assert.match(other.content[0].text, /^oncely: .*"\/amount"/);
    assert.equal((await ranWith(key)).length, 1);
  });

  test('mcp: a concurrent duplicate is refused while the first runs (isError, request-in-progress); the tool runs once', async () => {
    const key = randomUUID();
    const gate = randomUUID();
    const args = { charge: 'ch_mcp_race', amount: 5, gate };
    const answers = [];
    const both = Promise.all([0, 1].map(() => call(args, { idempotencyKey: key }).then((r) => (answers.push(r), r))));
    await until('one of the two to be answered', () => answers.length === 1);
    assert.deepEqual([answers[0].isError, refusal(answers[0])], [true, 'request-in-progress'], JSON.stringify(answers[0]));
    assert.ok(answers[0]._meta['oncely/retryAfterS'] >= 1);
    assert.equal((await ranWith(key)).length, 1);
    await ctx().probe.open(gate);
    const results = await both;
    assert.equal(results.filter((r) => !r.isError).length, 1);
    const later = await call(args, { idempotencyKey: key });
    assert.equal(later._meta['oncely/replayed'], true);
    assert.equal((await ranWith(key)).length, 1);
  });

  test('mcp: a tool that raised leaves its key in doubt: the retry is an isError outcome-in-doubt, never a second run', async () => {
    const key = randomUUID();
    const args = { charge: 'ch_mcp_fail', amount: 1, fail: 'throw' };
    const first = await call(args, { idempotencyKey: key });
    // The first caller gets the tool's own error (the SDK turns it into an isError result).
    assert.deepEqual([first.isError, first.content[0].text], [true, 'the bank exploded after paying']);
    const retry = await call(args, { idempotencyKey: key });
    assert.deepEqual([retry.isError, refusal(retry)], [true, 'outcome-in-doubt'], JSON.stringify(retry));
    assert.equal((await ranWith(key)).length, 1);
  });

  test('mcp: a tool that answers isError said nothing was done: not recorded, the retry runs again', async () => {
    const key = randomUUID();
    const args = { charge: 'ch_mcp_declined', amount: 1, fail: 'declined' };
    for (let i = 0; i < 2; i++) {
      const r = await call(args, { idempotencyKey: key });
      assert.deepEqual([r.isError, r.content, refusal(r)], [true, [{ type: 'text', text: 'card declined' }], undefined], JSON.stringify(r));
    }
    assert.equal((await ranWith(key)).length, 2);
  });

  test('mcp: a callback without an inputSchema (extra only) is wrapped too; its required key is enforced; unkeyed refund calls pass', async () => {
    const key = randomUUID();
    const a = await call(undefined, { idempotencyKey: key }, {}, 'ping');
    const b = await call(undefined, { idempotencyKey: key }, {}, 'ping');
    assert.equal(a.isError, undefined, JSON.stringify(a));
    assert.deepEqual([b.content, b._meta['oncely/replayed']], [a.content, true]);
    assert.equal((await ranWith(key)).length, 1);
    const missing = await call(undefined, undefined, {}, 'ping');
    assert.deepEqual([missing.isError, refusal(missing)], [true, 'idempotency-key-missing']);
    const clash = await call(undefined, { idempotencyKey: key, 'oncely/key': 'another' }, {}, 'ping');
    assert.deepEqual([clash.isError, refusal(clash)], [true, 'idempotency-key-invalid']);
    // refund does not require a key: without one, every call runs.
    const charge = `ch_mcp_nokey_${key}`;
    for (let i = 0; i < 2; i++) assert.equal((await call({ charge, amount: 1 })).isError, undefined);
    assert.equal((await ctx().probe.events()).filter((e) => e.charge === charge).length, 2);
  });
}
