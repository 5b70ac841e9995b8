// A scripted model for the AI SDK and the frameworks that take its models (Mastra): the SDK's own
// MockLanguageModelV4 (ai/test) answering each request with the next turn of a script.
import { MockLanguageModelV4 } from 'ai/test';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };

/**
 * Each turn is the content of one response, after `thinkMs` from the second on (a model takes its
 * time to answer); `requests` records every request the model gets.
 */
export function scriptedModel(turns, thinkMs = 0) {
  const requests = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (request) => {
      requests.push(request);
      const content = turns[requests.length - 1];
      if (!content) throw new Error(`the script has no turn ${requests.length}`);
      if (requests.length > 1 && thinkMs > 0) await new Promise((r) => setTimeout(r, thinkMs));
      const calls = content.some((c) => c.type === 'tool-call');
      return { content, finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: undefined }, usage, warnings: [] };
    },
  });
  return { model, requests };
}
