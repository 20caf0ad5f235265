import test from 'node:test';
import assert from 'node:assert/strict';
import { apiKey, baseUrl, client, uniq, FAKE_TEXT } from './helpers.mjs';

// A Workflow forces rawResponse into traced calls, collects each call's
// lb-trace-id, and posts the whole trace to /v1/traces at end().
test('Workflow: traced steps are stored through traces.create', async () => {
  const langbase = client();
  const name = uniq('pipe-traced');
  await langbase.pipes.create({ name, model: 'openai:gpt-4o-mini', messages: [{ role: 'system', content: 'Be brief.' }] });
  const flowName = uniq('flow');
  const wf = langbase.workflow({ name: flowName });
  const out = await wf.step({
    id: 'ask',
    run: async () => langbase.pipes.run({ name, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(out.completion, FAKE_TEXT);
  assert.ok(out.rawResponse?.headers?.['lb-trace-id'], 'the traced call exposes lb-trace-id');
  await wf.end();

  const res = await fetch(`${baseUrl}/v1/traces?limit=20`, { headers: { Authorization: `Bearer ${apiKey}` } });
  assert.equal(res.status, 200);
  const traces = await res.json();
  const mine = traces.find((t) => t.name === flowName);
  assert.ok(mine, 'the workflow trace was stored');
  const step = mine.trace.workflow.steps.find((s) => s.name === 'ask');
  assert.ok(step, 'the step is in the stored trace');
  assert.equal(step.traces[0], out.rawResponse.headers['lb-trace-id']);
});
