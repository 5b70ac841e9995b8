// scripts/snippets: runs before a README block that wraps a framework's tool: what a reader
// already has — the `ledger`, the `policy`, the provider call `pay`, the chat's id and the tool's
// description and argument schemas. Its imports are under names of their own.
import * as snippetOncely from 'oncely';
import { z as snippetZ } from 'zod';

const ledger = new snippetOncely.Ledger(new snippetOncely.MemoryStore());
const policy = { class: 'irreversible-external', reconcile: 'provider-idempotent' };
const pay = async (args, key) => ({ refund_id: 're_1', ...args, key });
const chatId = 'chat-42';
const description = 'Refund part of a charge (amount in cents)';
const inputSchema = snippetZ.object({ charge_id: snippetZ.string(), amount: snippetZ.number() });
const parameters = inputSchema;
const schema = inputSchema;
