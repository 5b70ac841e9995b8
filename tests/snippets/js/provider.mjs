// scripts/snippets: runs before a README block that keys a provider's route or tool: what a
// reader already has — the `ledger`, the `refund` it makes (and `refundResult`, the same as an MCP
// tool result) and the tool's `inputSchema`. Its imports are under names of their own.
import * as snippetOncely from 'oncely';
import { z as snippetZ } from 'zod';

const ledger = new snippetOncely.Ledger(new snippetOncely.MemoryStore());
const refund = async (body, key) => ({ refund_id: 're_1', ...body, key });
const refundResult = async (args, key) => ({
  content: [{ type: 'text', text: JSON.stringify(await refund(args, key)) }],
});
const inputSchema = { charge_id: snippetZ.string(), amount: snippetZ.number() };
