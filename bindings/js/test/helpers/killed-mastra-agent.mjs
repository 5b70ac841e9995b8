// One process of Mastra's agent kill-and-resume story (test/mastra.test.mjs):
//
//   node killed-mastra-agent.mjs DIR bare|oncely first|second
//
// A Mastra agent with memory in a libSQL file (DIR/mastra.db) on thread `thread-7`, driven by the
// AI SDK's MockLanguageModelV4. The first process's tool pays and is killed before it returns; the
// second asks again (a new call id, the arguments respelled) on the same thread (an agent run has
// no snapshot to resume: the thread is what survives). Through oncely the run is the thread.
// Prints the text, the tool's last output the model read, and the thread found before the turn.
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { once } from 'oncely/mastra';
import { z } from 'zod';
import { scriptedModel } from './ai-model.mjs';
import { asked, pay, STORY_POLICY, storyLedger } from './killed.mjs';

const [dir, guarded, phase] = process.argv.slice(2);
let tool = createTool({
  id: 'refund',
  description: 'Refund a charge',
  inputSchema: z.object({ charge_id: z.string(), amount_cents: z.number().int() }),
  execute: async (args, context) => pay(dir, phase, args, context.oncely?.key),
});
if (guarded === 'oncely') tool = once(tool, { ledger: await storyLedger(dir, phase), policy: STORY_POLICY });
const { toolCallId, input, said } = asked(phase);
const { model, requests } = scriptedModel([[{ type: 'tool-call', toolCallId, toolName: 'refund', input }], [{ type: 'text', text: 'Refunded.' }]]);
const memory = new Memory({ storage: new LibSQLStore({ id: 'story', url: `file:${dir}/mastra.db` }) });
const agent = new Agent({ id: 'refunds', name: 'refunds', instructions: 'You refund charges.', model, tools: { refund: tool }, memory });
const before = await memory.getThreadById({ threadId: 'thread-7' });
const result = await agent.generate(said, { maxSteps: 4, memory: { thread: 'thread-7', resource: 'user-1' } });
const tools = requests[1].prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content);
console.log(JSON.stringify({ text: result.text, tool: tools.at(-1)?.output, thread: before?.id ?? null }));
