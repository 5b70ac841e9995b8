// One process of LangGraph.js's kill-and-resume story (test/langchain.test.mjs):
//
//   node killed-langgraph.mjs DIR bare|oncely first|second
//
// A LangChain.js agent (`createAgent`, a LangGraph graph) whose checkpoints are LangGraph's SQLite
// saver in a file (DIR/checkpoints.db), on thread `thread-9`, with `durability: 'sync'` (a step's
// checkpoint is written before the next step starts; the default, 'async', writes it while the
// next step runs, which a kill can cut short), driven by @langchain/core's fakeModel().
// The first process's model asks for a refund and the tools node pays and is killed. The second
// resumes the thread from its last checkpoint (`invoke(null, config)`): the model's call is still
// pending there, so the tools node runs the same call (the same id and arguments) again. Through
// oncely the run is the thread id. Prints the checkpointed messages before, the tool's message and
// the last message.
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { createAgent } from 'langchain';
import { once } from 'oncely/langchain';
import { z } from 'zod';
import { asked, pay, STORY_POLICY, storyLedger } from './killed.mjs';

const [dir, guarded, phase] = process.argv.slice(2);
let refund = tool(async (args, config) => pay(dir, phase, args, config.oncely?.key), {
  name: 'refund',
  description: 'Refund a charge',
  schema: z.object({ charge_id: z.string(), amount_cents: z.number().int() }),
});
if (guarded === 'oncely') refund = once(refund, { ledger: await storyLedger(dir, phase), policy: STORY_POLICY });

const { toolCallId, input, said } = asked('first');
// The first process's model asks for the refund; the second's only answers the tool's result.
const model = phase === 'first' ? fakeModel().respondWithTools([{ name: 'refund', args: JSON.parse(input), id: toolCallId }]) : fakeModel().respond(new AIMessage('Refunded.'));
const checkpointer = SqliteSaver.fromConnString(`${dir}/checkpoints.db`);
const agent = createAgent({ model, tools: [refund], checkpointer });
const config = { configurable: { thread_id: 'thread-9' }, durability: 'sync' };
const before = (await agent.getState(config)).values.messages ?? [];
const result = await agent.invoke(phase === 'first' ? { messages: [{ role: 'user', content: said }] } : null, config);
const toolMessage = result.messages.find((m) => m.type === 'tool');
console.log(JSON.stringify({
  before: before.map((m) => [m.type, m.tool_calls?.map((c) => c.id) ?? []]),
  tool: { id: toolMessage.tool_call_id, content: JSON.parse(toolMessage.content) },
  last: result.messages.at(-1).content,
}));
