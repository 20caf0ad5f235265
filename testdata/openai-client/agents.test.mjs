// End-to-end tests of Hearth's Responses API with the OpenAI Agents SDK
// (@openai/agents, pinned in package-lock.json), run by
// server/openai_e2e_test.go. The SDK is set up only as the README says:
// OPENAI_BASE_URL (<hearth>/openai/v1) and OPENAI_API_KEY (a Hearth key)
// in the environment, trace export off (OPENAI_AGENTS_DISABLE_TRACING).
// The model is the offline hearth:echo test double, which calls a tool on
// "call_tool:<name> {args}" and answers "tool result: <output>" after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, run, tool } from '@openai/agents';
import { z } from 'zod';

if (!process.env.OPENAI_BASE_URL?.endsWith('/openai/v1') || !process.env.OPENAI_API_KEY) {
  throw new Error('OPENAI_BASE_URL and OPENAI_API_KEY must be set (run through server/openai_e2e_test.go)');
}

const calls = [];
const getWeather = tool({
  name: 'get_weather', description: 'Weather of a city', parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => { calls.push(city); return `sunny in ${city}`; },
});
const agent = new Agent({ name: 'helper', instructions: 'Answer briefly.', model: 'hearth:echo', tools: [getWeather] });

test('agents SDK: a run calls the function tool and answers from its result', async () => {
  const result = await run(agent, 'call_tool:get_weather {"city":"Paris"}');
  assert.equal(result.finalOutput, 'tool result: sunny in Paris');
  assert.ok(calls.includes('Paris'));
  assert.match(result.lastResponseId, /^resp_/);
});

test('agents SDK: a streamed run, then a turn continued with previousResponseId', async () => {
  const streamed = await run(agent, 'call_tool:get_weather {"city":"Oslo"}', { stream: true });
  let text = '';
  for await (const event of streamed) {
    if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta') text += event.data.delta;
  }
  await streamed.completed;
  assert.equal(streamed.finalOutput, 'tool result: sunny in Oslo');
  assert.equal(text, 'tool result: sunny in Oslo');
  const next = await run(agent, 'plain hello', { previousResponseId: streamed.lastResponseId });
  assert.equal(next.finalOutput, 'plain hello');
});
