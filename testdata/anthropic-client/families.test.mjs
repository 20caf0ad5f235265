// The @anthropic-ai/sdk calls of messages.test.mjs, run once per provider
// family behind Hearth: Anthropic itself, an OpenAI-shaped host, Gemini
// and a local OpenAI-compatible server (ollama). Each family's fake
// upstream (server/anthropic_e2e_test.go) answers "Hello from the fake
// upstream.", calls get_weather for Paris when offered it, answers
// "Sunny in Paris." to the tool result and 429 to a message that says
// rate-limit-me. max_tokens leaves room for the thinking Gemini's
// thinking models count in it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';

const baseURL = `${process.env.HEARTH_URL}/anthropic`;
const apiKey = process.env.HEARTH_KEY;
if (!process.env.HEARTH_URL || !apiKey) {
  throw new Error('HEARTH_URL and HEARTH_KEY must be set (run through server/anthropic_e2e_test.go)');
}
const client = new Anthropic({ baseURL, apiKey, maxRetries: 0 });
const bearer = new Anthropic({ baseURL, apiKey: null, authToken: apiKey, maxRetries: 0 });

const weatherTool = {
  name: 'get_weather',
  description: 'Weather of a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const families = [
  ['Anthropic', 'claude-sonnet-4-5', 'anthropic'],
  ['OpenAI', 'openai:gpt-4o-mini', 'estimate'],
  ['Gemini', 'google:gemini-3.8-flash', 'estimate'],
  ['a local OpenAI-compatible server', 'ollama:qwen3:0.6b', 'estimate'],
];

for (const [family, model, counted] of families) {
  test(`create, stream, tools, countTokens, bearer and errors on ${family} (${model})`, async () => {
    const hello = [{ role: 'user', content: 'Hello?' }];
    const msg = await client.messages.create({ model, max_tokens: 8192, system: 'Be brief.', messages: hello });
    assert.equal(msg.type, 'message');
    assert.equal(msg.model, model);
    assert.deepEqual(msg.content, [{ type: 'text', text: 'Hello from the fake upstream.' }]);
    assert.equal(msg.stop_reason, 'end_turn');
    assert.ok(msg.usage.input_tokens > 0 && msg.usage.output_tokens > 0);

    const stream = client.messages.stream({ model, max_tokens: 8192, messages: hello });
    const events = [];
    stream.on('streamEvent', (e) => events.push(e.type));
    const final = await stream.finalMessage();
    assert.equal(final.content[0].text, 'Hello from the fake upstream.');
    assert.equal(final.stop_reason, 'end_turn');
    assert.equal(events[0], 'message_start');
    assert.equal(events.at(-1), 'message_stop');

    // tool_use then tool_result, the first turn streamed.
    const messages = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const first = await client.messages.stream({ model, max_tokens: 8192, tools: [weatherTool], messages }).finalMessage();
    assert.equal(first.stop_reason, 'tool_use');
    const use = first.content.find((b) => b.type === 'tool_use');
    assert.equal(use.name, 'get_weather');
    assert.deepEqual(use.input, { city: 'Paris' });
    messages.push({ role: 'assistant', content: first.content });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18°C, sunny' }] });
    const second = await client.messages.create({ model, max_tokens: 8192, tools: [weatherTool], messages });
    assert.equal(second.stop_reason, 'end_turn');
    assert.equal(second.content.find((b) => b.type === 'text').text, 'Sunny in Paris.');

    const { data, response } = await client.messages.countTokens({ model, messages: hello, tools: [weatherTool] }).withResponse();
    assert.ok(data.input_tokens > 0);
    assert.equal(response.headers.get('lb-token-count'), counted);

    const byBearer = await bearer.messages.create({ model, max_tokens: 8192, messages: hello });
    assert.equal(byBearer.content[0].text, 'Hello from the fake upstream.');

    await assert.rejects(client.messages.create({ model, messages: hello }), (err) => {
      assert.ok(err instanceof Anthropic.BadRequestError, err.constructor.name);
      assert.equal(err.error.error.type, 'invalid_request_error');
      assert.match(err.error.error.message, /max_tokens/);
      return true;
    });
    await assert.rejects(client.messages.create({ model, max_tokens: 8192, messages: [{ role: 'user', content: 'rate-limit-me' }] }), (err) => {
      assert.ok(err instanceof Anthropic.RateLimitError, `${err.constructor.name}: ${err.message}`);
      assert.equal(err.status, 429);
      assert.equal(err.error.type, 'error');
      assert.equal(err.error.error.type, 'rate_limit_error');
      return true;
    });
  });
}
