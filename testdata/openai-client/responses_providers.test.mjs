// The openai client's Responses calls on every provider family Hearth
// has, run by server/openai_e2e_test.go: HEARTH_RESPONSES_MODELS names one
// model per family (OpenAI, Anthropic, Gemini, a local OpenAI-compatible
// server), each served by a fake upstream speaking that provider's wire
// format. The fakes are scripted by markers in what they are sent: a
// message with "upstream_call:get_weather" makes the model call
// get_weather, a tool result "result-N" makes it answer
// "tool result: result-N", anything else answers with the fake's default
// text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';

const apiKey = process.env.HEARTH_KEY;
const models = (process.env.HEARTH_RESPONSES_MODELS || '').split(',').filter(Boolean);
if (!process.env.HEARTH_URL || !apiKey || models.length === 0) {
  throw new Error('HEARTH_URL, HEARTH_KEY and HEARTH_RESPONSES_MODELS must be set (run through server/openai_e2e_test.go)');
}
const client = new OpenAI({ baseURL: `${process.env.HEARTH_URL}/openai/v1`, apiKey, maxRetries: 0 });
const fakeText = 'Hello from the fake upstream.';
const weather = {
  type: 'function', name: 'get_weather', description: 'Weather of a city', strict: false,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

for (const model of models) {
  test(`${model}: responses.create, responses.stream, function tools over two turns, previous_response_id`, async () => {
    const res = await client.responses.create({ model, input: 'hello', instructions: 'Be brief.' });
    assert.equal(res.status, 'completed');
    assert.equal(res.output_text, fakeText);
    assert.ok(res.usage.input_tokens > 0 && res.usage.output_tokens > 0);

    const stream = client.responses.stream({ model, input: [{ role: 'user', content: 'stream please' }] });
    let text = '';
    stream.on('response.output_text.delta', (e) => { text += e.delta; });
    const streamed = await stream.finalResponse();
    assert.equal(text, fakeText);
    assert.equal(streamed.output_text, fakeText);

    // Function tools over two turns, the client replaying the output
    // (with any reasoning item carrying the provider's state).
    const input = [{ role: 'user', content: 'upstream_call:get_weather' }];
    const first = await client.responses.create({ model, input, tools: [weather], store: false });
    const call = first.output.find((o) => o.type === 'function_call');
    assert.ok(call, JSON.stringify(first.output));
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris' });
    const second = await client.responses.create({
      model, tools: [weather], store: false,
      input: [...input, ...first.output, { type: 'function_call_output', call_id: call.call_id, output: 'result-21' }],
    });
    assert.equal(second.output_text, 'tool result: result-21');

    // Streamed, then continued with previous_response_id.
    const callStream = client.responses.stream({ model, input: 'upstream_call:get_weather', tools: [weather] });
    let args = '';
    callStream.on('response.function_call_arguments.delta', (e) => { args += e.delta; });
    const stored = await callStream.finalResponse();
    const streamedCall = stored.output.find((o) => o.type === 'function_call');
    assert.equal(streamedCall.arguments, args);
    const next = await client.responses.create({
      model, tools: [weather], previous_response_id: stored.id,
      input: [{ type: 'function_call_output', call_id: streamedCall.call_id, output: 'result-7' }],
    });
    assert.equal(next.output_text, 'tool result: result-7');
    assert.equal(next.previous_response_id, stored.id);
  });
}
