// One process of the AI SDK's kill-and-resume story (test/ai.test.mjs):
//
//   node killed-ai.mjs DIR bare|oncely first|second
//
// The AI SDK keeps no conversation of its own: the app stores the chat's messages (the SDK's chat
// persistence) and gives them back to generateText when the chat goes on. Here the chat `chat-7`
// is a file (DIR/messages.json): the user's message saved when it arrives, the response messages
// of each step saved when the step ends (onStepEnd), loaded again by a process that restarts. The
// first process has one exchange ended and saved, then a turn whose model asks for a refund: the
// tool pays and the process is killed, before its step ended. The second process loads the saved
// messages and the user asks again; the model (the SDK's MockLanguageModelV4) asks again, a new
// call id, the arguments respelled. Through oncely the run is the chat id. Prints the saved
// messages' roles before the turn, what the model read, the text and the tool's output.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateText, stepCountIs, tool } from 'ai';
import { once } from 'oncely/ai';
import { z } from 'zod';
import { scriptedModel } from './ai-model.mjs';
import { asked, pay, STORY_POLICY, storyLedger } from './killed.mjs';

const [dir, guarded, phase] = process.argv.slice(2);
const CHAT = 'chat-7';

// The app's message store: the chat's messages in a file, replaced whole on every save.
const file = join(dir, 'messages.json');
const load = () => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : []);
function save(messages) {
  writeFileSync(`${file}.tmp`, JSON.stringify(messages));
  renameSync(`${file}.tmp`, file);
}

let refund = tool({
  description: 'Refund a charge',
  inputSchema: z.object({ charge_id: z.string(), amount_cents: z.number().int() }),
  execute: async (args, { oncely }) => pay(dir, phase, args, oncely?.key),
});
if (guarded === 'oncely') refund = once(refund, { ledger: await storyLedger(dir, phase), name: 'refund', run: CHAT, policy: STORY_POLICY });

/** One chat turn: the user's message saved, then each step's response messages as it ends. */
async function turn(model, said) {
  const messages = [...load(), { role: 'user', content: said }];
  save(messages);
  return generateText({
    model,
    tools: { refund },
    messages,
    stopWhen: stepCountIs(4),
    onStepEnd: (step) => save([...load(), ...step.response.messages]), // a step's own messages
  });
}

if (phase === 'first') await turn(scriptedModel([[{ type: 'text', text: 'I see a $5 charge on ch_1. Shall I refund it?' }]]).model, 'I was charged twice on ch_1.');
const before = load();
const { toolCallId, input, said } = asked(phase);
const { model, requests } = scriptedModel([[{ type: 'tool-call', toolCallId, toolName: 'refund', input }], [{ type: 'text', text: 'Refunded.' }]]);
const result = await turn(model, said);
const output = result.steps.flatMap((s) => s.content).filter((c) => c.type === 'tool-result' || c.type === 'tool-error').map((c) => c.output ?? String(c.error));
const read = requests[0].prompt.map((m) => (typeof m.content === 'string' ? m.content : m.content.map((c) => c.text).join('')));
console.log(JSON.stringify({ before: before.map((m) => m.role), read, text: result.text, output, saved: load().map((m) => m.role) }));
