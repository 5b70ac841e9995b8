// One process of the OpenAI Agents SDK's kill-and-resume story (test/openai-agents.test.mjs):
//
//   node killed-agents.mjs DIR bare|oncely first|second
//
// A Runner turn on session `session-7`, whose items the SDK keeps in a Session persisted to a
// file (DIR/session.json): the SDK's own MemorySession, written out whenever it changes (the
// Session interface is how the SDK takes a store of your own). The first process has one turn
// ended (saved in the session), then a turn whose model asks for a refund: the tool pays and the
// process is killed. The SDK saves a turn's items when the turn ends, so the killed turn leaves
// nothing in the session. The second process runs a turn on the same session: its model reads the
// conversation so far and asks again, a new call id, the arguments respelled. Through oncely the
// run is the session id. Prints the session's items before the turn, what the model read, the
// final output and the tool's output.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, MemorySession, run, setTracingDisabled, tool } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import { once } from 'oncely/openai-agents';
import { z } from 'zod';
import { asked, pay, STORY_POLICY, storyLedger } from './killed.mjs';

const [dir, guarded, phase] = process.argv.slice(2);
setTracingDisabled(true);

/** The SDK's MemorySession, its items saved to `file` after every change and loaded from it. */
class FileSession extends MemorySession {
  constructor(file, sessionId) {
    super({ sessionId, initialItems: existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : [] });
    this.file = file;
  }
  async save() {
    writeFileSync(`${this.file}.tmp`, JSON.stringify(await super.getItems()));
    renameSync(`${this.file}.tmp`, this.file);
  }
  async addItems(items) {
    await super.addItems(items);
    await this.save();
  }
  async popItem() {
    const item = await super.popItem();
    await this.save();
    return item;
  }
  async clearSession() {
    await super.clearSession();
    await this.save();
  }
  async applyHistoryMutations(args) {
    await super.applyHistoryMutations(args);
    await this.save();
  }
  async applyHistoryTransaction(args) {
    await super.applyHistoryTransaction(args);
    await this.save();
  }
}

const SESSION = 'session-7';
let options = {
  name: 'refund',
  description: 'Refund a charge',
  parameters: z.object({ charge_id: z.string(), amount_cents: z.number().int() }),
  execute: async (args, _runContext, details) => pay(dir, phase, args, details?.oncely?.key),
};
if (guarded === 'oncely') options = once(options, { ledger: await storyLedger(dir, phase), run: SESSION, policy: STORY_POLICY });

const session = new FileSession(join(dir, 'session.json'), SESSION);
const agent = (model) => new Agent({ name: 'support', instructions: 'Refund what is asked.', model, tools: [tool(options)] });
if (phase === 'first') {
  // An earlier turn of the conversation, ended (and so saved in the session).
  await run(agent(new ScriptedModel([[assistantMessage('I see a $5 charge on ch_1. Shall I refund it?')]])), 'I was charged twice on ch_1.', { session });
}
const before = await session.getItems();
const { toolCallId, input, said } = asked(phase);
const model = new ScriptedModel([[functionCall('refund', input, { callId: toolCallId })], [assistantMessage('Refunded.')]]);
const result = await run(agent(model), said, { session });
const output = result.newItems.filter((i) => i.type === 'tool_call_output_item').map((i) => i.output);
// What the model read before it asked: the session's conversation, then what was said now.
const read = model.calls[0].request.input.map((i) => i.content?.[0]?.text ?? i.content);
console.log(JSON.stringify({ before: before.map((i) => i.role ?? i.type), read, final: result.finalOutput, output }));
