// One process of Mastra's workflow kill-and-resume story (test/mastra.test.mjs):
//
//   node killed-mastra-workflow.mjs DIR bare|oncely first|second
//
// A workflow whose step is the refund tool (createStep(tool)), in Mastra's storage (a libSQL
// file, DIR/mastra.db). The first process starts run `wf-run-7` and is killed inside the step
// after paying, the run still active in its snapshot; the second finds it among the active runs
// and restarts it from there (`run.restart()`, Mastra's recovery of a run its process lost).
// Through oncely the run is the workflow run. Prints the active runs, the status and the result.
import { Mastra } from '@mastra/core';
import { createTool } from '@mastra/core/tools';
import { createStep, createWorkflow } from '@mastra/core/workflows';
import { LibSQLStore } from '@mastra/libsql';
import { once } from 'oncely/mastra';
import { z } from 'zod';
import { pay, STORY_POLICY, storyLedger } from './killed.mjs';

const [dir, guarded, phase] = process.argv.slice(2);
const schema = z.object({ charge_id: z.string(), amount_cents: z.number().int() });
let tool = createTool({
  id: 'refund',
  description: 'Refund a charge',
  inputSchema: schema,
  outputSchema: z.object({ refund_id: z.string(), status: z.string() }),
  execute: async (args, context) => pay(dir, phase, args, context.oncely?.key),
});
if (guarded === 'oncely') tool = once(tool, { ledger: await storyLedger(dir, phase), policy: STORY_POLICY });
const flow = createWorkflow({ id: 'refund-flow', inputSchema: schema, outputSchema: z.any() }).then(createStep(tool)).commit();
const mastra = new Mastra({ workflows: { flow }, storage: new LibSQLStore({ id: 'story', url: `file:${dir}/mastra.db` }), logger: false });
const workflow = mastra.getWorkflow('flow');
if (phase === 'first') {
  const run = await workflow.createRun({ runId: 'wf-run-7' });
  await run.start({ inputData: { charge_id: 'ch_1', amount_cents: 500 } });
} else {
  const active = await workflow.listActiveWorkflowRuns();
  const run = await workflow.createRun({ runId: active.runs[0].runId });
  const result = await run.restart();
  console.log(JSON.stringify({ active: active.runs.map((r) => r.runId), status: result.status, result: result.result }));
}
