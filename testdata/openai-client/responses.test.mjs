// End-to-end tests of Hearth's Responses API (/openai/v1/responses) with
// the official openai npm client, run by server/openai_e2e_test.go like
// chat.test.mjs (same HEARTH_URL and HEARTH_KEY). The model is the offline
// hearth:echo test double: it answers the last user message, calls a tool
// on "call_tool:<name> {args}" and answers "tool result: <output>" after a
// tool result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';

const apiKey = process.env.HEARTH_KEY;
if (!process.env.HEARTH_URL || !apiKey) {
  throw new Error('HEARTH_URL and HEARTH_KEY must be set (run through server/openai_e2e_test.go)');
}
const client = new OpenAI({ baseURL: `${process.env.HEARTH_URL}/openai/v1`, apiKey, maxRetries: 0 });

const weather = {
  type: 'function', name: 'get_weather', description: 'Weather of a city', strict: false,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

test('responses.create: string input, instructions, usage', async () => {
  const res = await client.responses.create({ model: 'hearth:echo', input: 'hello from responses', instructions: 'Be brief.', temperature: 0.2, max_output_tokens: 50 });
  assert.equal(res.object, 'response');
  assert.equal(res.status, 'completed');
  assert.equal(res.output_text, 'hello from responses');
  assert.equal(res.output[0].type, 'message');
  assert.equal(res.output[0].content[0].type, 'output_text');
  assert.ok(res.usage.input_tokens > 0 && res.usage.output_tokens === 3 && res.usage.total_tokens > 3);
  assert.equal(res.usage.input_tokens_details.cached_tokens, 0);
  assert.equal(res.usage.output_tokens_details.reasoning_tokens, 0);
});

test('responses.stream: events in order and the final response', async () => {
  const stream = client.responses.stream({ model: 'hearth:echo', input: [{ role: 'user', content: 'one two three' }] });
  const types = [];
  let text = '';
  stream.on('response.output_text.delta', (e) => { text += e.delta; });
  for await (const event of stream) types.push(event.type);
  const final = await stream.finalResponse();
  assert.equal(text, 'one two three');
  assert.equal(final.output_text, 'one two three');
  assert.equal(types[0], 'response.created');
  assert.equal(types[1], 'response.in_progress');
  assert.equal(types.at(-1), 'response.completed');
  assert.deepEqual(types.filter((t) => t === 'response.output_text.delta').length, 3);
  assert.ok(final.usage.total_tokens > 0);
});

test('function tools over two turns, the client replaying the output', async () => {
  const input = [{ role: 'user', content: 'call_tool:get_weather {"city":"Paris"}' }];
  const first = await client.responses.create({ model: 'hearth:echo', input, tools: [weather], tool_choice: 'auto', store: false });
  const call = first.output.find((o) => o.type === 'function_call');
  assert.ok(call, JSON.stringify(first.output));
  assert.equal(call.name, 'get_weather');
  assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris' });
  const second = await client.responses.create({
    model: 'hearth:echo', tools: [weather], store: false,
    input: [...input, ...first.output, { type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21 C' }],
  });
  assert.equal(second.output_text, 'tool result: sunny, 21 C');
});

test('function tools streamed, continued with previous_response_id', async () => {
  const stream = client.responses.stream({ model: 'hearth:echo', input: 'call_tool:get_weather {"city":"Oslo"}', tools: [weather] });
  let args = '';
  stream.on('response.function_call_arguments.delta', (e) => { args += e.delta; });
  const first = await stream.finalResponse();
  const call = first.output.find((o) => o.type === 'function_call');
  assert.deepEqual(JSON.parse(args), { city: 'Oslo' });
  assert.equal(call.arguments, args);
  const second = await client.responses.create({
    model: 'hearth:echo', tools: [weather], previous_response_id: first.id,
    input: [{ type: 'function_call_output', call_id: call.call_id, output: 'snow' }],
  });
  assert.equal(second.output_text, 'tool result: snow');
  assert.equal(second.previous_response_id, first.id);
});

test('previous_response_id, retrieve, input items and delete', async () => {
  const first = await client.responses.create({ model: 'hearth:echo', input: 'first words', metadata: { run: 'e2e' } });
  const second = await client.responses.create({ model: 'hearth:echo', input: 'second words', previous_response_id: first.id });
  assert.equal(second.output_text, 'second words');
  // The echo model counts the words of everything it was sent.
  assert.equal(second.usage.input_tokens, 6);
  const got = await client.responses.retrieve(first.id);
  assert.equal(got.id, first.id);
  assert.equal(got.output_text, 'first words');
  assert.deepEqual(got.metadata, { run: 'e2e' });
  const items = [];
  for await (const item of client.responses.inputItems.list(second.id)) items.push(item);
  assert.equal(items.length, 1);
  assert.equal(items[0].type, 'message');
  assert.equal(items[0].content[0].text, 'second words');
  await client.responses.delete(first.id);
  await assert.rejects(client.responses.retrieve(first.id), OpenAI.NotFoundError);
  const unstored = await client.responses.create({ model: 'hearth:echo', input: 'x', store: false });
  await assert.rejects(client.responses.retrieve(unstored.id), OpenAI.NotFoundError);
});

test('errors: built-in tools and bad fields are BadRequestError naming the param', async () => {
  const builtin = await client.responses.create({ model: 'hearth:echo', input: 'x', tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }] }).catch((e) => e);
  assert.ok(builtin instanceof OpenAI.BadRequestError, String(builtin));
  assert.equal(builtin.param, 'tools[0].type');
  assert.match(builtin.message, /Hearth does not run/);
  // Hosted web search is left out (Codex offers it on every request), with a warning header.
  const { data, response } = await client.responses.create({ model: 'hearth:echo', input: 'x', tools: [weather, { type: 'web_search' }] }).withResponse();
  assert.equal(data.output_text, 'x');
  assert.match(response.headers.get('lb-warning'), /web_search left out/);
  const temp = await client.responses.create({ model: 'hearth:echo', input: 'x', temperature: 5 }).catch((e) => e);
  assert.ok(temp instanceof OpenAI.BadRequestError, String(temp));
  assert.equal(temp.param, 'temperature');
  const bad = new OpenAI({ baseURL: `${process.env.HEARTH_URL}/openai/v1`, apiKey: 'hth_not_a_real_key', maxRetries: 0 });
  await assert.rejects(bad.responses.create({ model: 'hearth:echo', input: 'x' }), OpenAI.AuthenticationError);
});
