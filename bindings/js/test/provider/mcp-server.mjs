// An MCP server (@modelcontextprotocol/sdk McpServer) whose tools are wrapped with oncely/mcp:
// `node mcp-server.mjs DB DIR` over stdio; `node mcp-server.mjs DB DIR http` over Streamable HTTP
// (stateless: a server per request, one ledger), printing "listening PORT". `refund` (an inputSchema: the callback gets (args, extra))
// and `ping` (none: the callback gets (extra)). Handler runs go to DIR/effects.jsonl.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express from 'express';
import { Ledger } from 'oncely';
import { once } from 'oncely/mcp';
import { SqliteStore } from 'oncely/sqlite';
import { z } from 'zod';
import { behave, REFUND_POLICY, withLookup } from './behaviour.mjs';
import { fileProbe } from './probe.mjs';

const [db, dir, mode] = process.argv.slice(2);
const ledger = withLookup(new Ledger(await SqliteStore.open(db), { owner: `mcp-${process.pid}` }));
const probe = fileProbe(dir);
const scope = (extra) => extra.authInfo?.clientId ?? 'mcp-tenant';

function buildServer() {
  const server = new McpServer({ name: 'oncely-test-payments', version: '1.0.0' });
  server.registerTool(
    'refund',
    {
      description: 'Refund a charge',
      inputSchema: { charge: z.string(), amount: z.number(), gate: z.string().optional(), sleepMs: z.number().optional(), fail: z.string().optional() },
    },
    once(
      async (args, extra) => {
        const r = await behave(probe, { route: 'refund', key: extra.oncely?.clientKey ?? null, body: args });
        // The client may have cancelled meanwhile (a timeout): the signal a keyed call gets is oncely's.
        if (args.sleepMs) await probe.record({ of: extra.oncely?.clientKey ?? null, signalAborted: extra.signal.aborted });
        if (r.kind === 'throw') throw new Error('the bank exploded after paying');
        if (args.fail === 'declined') return { content: [{ type: 'text', text: 'card declined' }], isError: true };
        const refund = { id: r.id, charge: args.charge, amount: args.amount };
        return { content: [{ type: 'text', text: JSON.stringify(refund) }], structuredContent: refund };
      },
      { ledger, scope, tool: 'refund', policy: REFUND_POLICY },
    ),
  );
  server.registerTool(
    'ping',
    { description: 'Send a ping (no arguments)' },
    once(
      async (extra) => {
        const r = await behave(probe, { route: 'ping', key: extra.oncely?.clientKey ?? null, body: {} });
        return { content: [{ type: 'text', text: r.id }] };
      },
      { ledger, scope, tool: 'ping', required: true },
    ),
  );
  return server;
}

if (mode === 'http') {
  const app = express();
  app.use(express.json());
  app.post('/mcp', async (req, res) => {
    const server = buildServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const http = app.listen(0, '127.0.0.1', () => console.log(`listening ${http.address().port}`));
} else {
  await buildServer().connect(new StdioServerTransport());
}
