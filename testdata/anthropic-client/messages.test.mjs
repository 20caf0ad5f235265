// End-to-end tests of Hearth's Anthropic-compatible surface with the
// official @anthropic-ai/sdk npm client (pinned in package-lock.json).
// server/anthropic_e2e_test.go starts the real hearth binary and runs
// `node --test` here with:
//   HEARTH_URL  base URL of the running server
//   HEARTH_KEY  a user key of that server
// The server's anthropic provider points at a fake Anthropic upstream that
// answers "Hello from the fake upstream.", calls get_weather when offered
// it (then answers "Sunny in Paris." to the tool result), checks that
// thinking blocks come back before the tool calls they preceded, answers
// 529 for claude-busy and 429 for claude-limited. The aliases claude-haiku-4-5
// and claude-echo map to the offline hearth:echo test double, which
// answers the last user message, calls a tool on "call_tool:<name> {args}"
// and answers "tool result: <content>" after a tool result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';

const baseURL = `${process.env.HEARTH_URL}/anthropic`;
const apiKey = process.env.HEARTH_KEY;
if (!process.env.HEARTH_URL || !apiKey) {
  throw new Error('HEARTH_URL and HEARTH_KEY must be set (run through server/anthropic_e2e_test.go)');
}
const client = new Anthropic({ baseURL, apiKey, maxRetries: 0 });

const weatherTool = {
  name: 'get_weather',
  description: 'Weather of a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

test('messages.create on a Claude model and on an alias', async () => {
  const { data, response } = await client.messages
    .create({ model: 'claude-sonnet-4-5', max_tokens: 256, system: 'Be brief.', messages: [{ role: 'user', content: 'Hello?' }] })
    .withResponse();
  assert.equal(data.type, 'message');
  assert.equal(data.role, 'assistant');
  assert.equal(data.model, 'claude-sonnet-4-5');
  assert.match(data.id, /^msg_/);
  assert.deepEqual(data.content, [{ type: 'text', text: 'Hello from the fake upstream.' }]);
  assert.equal(data.stop_reason, 'end_turn');
  assert.equal(data.usage.input_tokens, 12);
  assert.equal(data.usage.output_tokens, 5);
  assert.equal(response.headers.get('lb-model'), 'anthropic:claude-sonnet-4-5');

  const local = await client.messages.create({
    model: 'claude-haiku-4-5-20251001', max_tokens: 256,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'echo this back' }] }],
  });
  assert.equal(local.model, 'claude-haiku-4-5-20251001');
  assert.equal(local.content[0].text, 'echo this back');
  assert.equal(local.stop_reason, 'end_turn');

  const cut = await client.messages.create({ model: 'claude-echo', max_tokens: 2, messages: [{ role: 'user', content: 'one two three four' }] });
  assert.equal(cut.stop_reason, 'max_tokens');
  assert.equal(cut.content[0].text, 'one two');
});

test('messages.stream with finalMessage', async () => {
  const stream = client.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'Stream please' }] });
  const events = [];
  let text = '';
  stream.on('streamEvent', (e) => events.push(e.type));
  stream.on('text', (t) => { text += t; });
  const final = await stream.finalMessage();
  assert.equal(text, 'Hello from the fake upstream.');
  assert.equal(final.content[0].text, text);
  assert.equal(final.stop_reason, 'end_turn');
  assert.equal(final.usage.input_tokens, 12);
  assert.equal(final.usage.output_tokens, 5);
  assert.equal(events[0], 'message_start');
  assert.equal(events.at(-1), 'message_stop');
  assert.ok(events.includes('content_block_delta'));

  const local = client.messages.stream({ model: 'claude-echo', max_tokens: 256, messages: [{ role: 'user', content: 'one two three' }] });
  assert.equal((await local.finalText()), 'one two three');
});

test('tool_use then tool_result, with thinking, on a Claude model', async () => {
  const messages = [{ role: 'user', content: 'What is the weather in Paris?' }];
  const params = { model: 'claude-sonnet-4-5', max_tokens: 4096, tools: [weatherTool], thinking: { type: 'enabled', budget_tokens: 1024 } };
  const first = await client.messages.create({ ...params, messages });
  assert.equal(first.stop_reason, 'tool_use');
  assert.equal(first.content[0].type, 'thinking');
  assert.ok(first.content[0].signature);
  const use = first.content.find((b) => b.type === 'tool_use');
  assert.equal(use.id, 'toolu_paris');
  assert.equal(use.name, 'get_weather');
  assert.deepEqual(use.input, { city: 'Paris' });
  messages.push({ role: 'assistant', content: first.content });
  messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18°C, sunny' }] });
  // The fake refuses the turn unless the thinking block came back first.
  const second = await client.messages.create({ ...params, messages });
  assert.equal(second.stop_reason, 'end_turn');
  assert.equal(second.content.find((b) => b.type === 'text').text, 'Sunny in Paris.');
});

test('streamed tool_use then tool_result on a local model', async () => {
  const messages = [{ role: 'user', content: 'call_tool:get_weather {"city":"Oslo"}' }];
  const stream = client.messages.stream({ model: 'claude-echo', max_tokens: 256, tools: [weatherTool], messages });
  const final = await stream.finalMessage();
  assert.equal(final.stop_reason, 'tool_use');
  const use = final.content.find((b) => b.type === 'tool_use');
  assert.equal(use.name, 'get_weather');
  assert.deepEqual(use.input, { city: 'Oslo' });
  messages.push({ role: 'assistant', content: final.content });
  messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '-3°C' }] });
  const answer = await client.messages.create({ model: 'claude-echo', max_tokens: 256, tools: [weatherTool], messages });
  assert.equal(answer.content[0].text, 'tool result: -3°C');
});

test('countTokens: counted by Anthropic or estimated', async () => {
  const req = { messages: [{ role: 'user', content: 'How many tokens is this sentence?' }], system: 'Be brief.', tools: [weatherTool] };
  const { data, response } = await client.messages.countTokens({ model: 'claude-sonnet-4-5', ...req }).withResponse();
  assert.ok(data.input_tokens > 0);
  assert.equal(response.headers.get('lb-token-count'), 'anthropic');
  const est = await client.messages.countTokens({ model: 'claude-echo', ...req }).withResponse();
  assert.ok(est.data.input_tokens > 0);
  assert.equal(est.response.headers.get('lb-token-count'), 'estimate');
});

test('a bearer token (authToken) instead of x-api-key', async () => {
  const bearer = new Anthropic({ baseURL, apiKey: null, authToken: apiKey, maxRetries: 0 });
  const msg = await bearer.messages.create({ model: 'claude-echo', max_tokens: 64, messages: [{ role: 'user', content: 'by bearer' }] });
  assert.equal(msg.content[0].text, 'by bearer');
  const bad = new Anthropic({ baseURL, apiKey: null, authToken: 'hth_not_a_key', maxRetries: 0 });
  await assert.rejects(bad.messages.create({ model: 'claude-echo', max_tokens: 64, messages: [{ role: 'user', content: 'x' }] }), Anthropic.AuthenticationError);
});

test('models.list pages and models.retrieve', async () => {
  const ids = [];
  for await (const m of client.models.list({ limit: 2 })) {
    assert.equal(m.type, 'model');
    ids.push(m.id);
  }
  assert.ok(ids.includes('claude-echo'));
  assert.ok(ids.includes('claude-haiku-4-5'));
  assert.ok(ids.includes('claude-sonnet-4-5'));
  assert.equal(new Set(ids).size, ids.length);
  const page = await client.models.list({ limit: 1 });
  assert.equal(page.data.length, 1);
  assert.equal(page.has_more, true);
  const one = await client.models.retrieve('claude-echo');
  assert.equal(one.id, 'claude-echo');
});

test('errors raise the SDK error classes by status', async () => {
  const msg = { max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
  const cases = [
    [new Anthropic({ baseURL, apiKey: 'hth_wrong', maxRetries: 0 }), { model: 'claude-echo', ...msg }, Anthropic.AuthenticationError, 401, 'authentication_error'],
    [client, { model: 'claude-echo', messages: msg.messages }, Anthropic.BadRequestError, 400, 'invalid_request_error'],
    [client, { model: 'llama-unmapped', ...msg }, Anthropic.NotFoundError, 404, 'not_found_error'],
    [client, { model: 'claude-limited', ...msg }, Anthropic.RateLimitError, 429, 'rate_limit_error'],
    [client, { model: 'claude-busy', ...msg }, Anthropic.InternalServerError, 529, 'overloaded_error'],
  ];
  for (const [c, body, cls, status, type] of cases) {
    await assert.rejects(c.messages.create(body), (err) => {
      assert.ok(err instanceof cls, `${body.model}: ${err.constructor.name}`);
      assert.equal(err.status, status);
      assert.equal(err.error.type, 'error');
      assert.equal(err.error.error.type, type);
      assert.ok(err.error.error.message);
      return true;
    });
  }
  const res = await fetch(`${process.env.HEARTH_URL}/v1/pipes`, {
    method: 'POST', headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: `sdk-pipe-${Date.now()}`, model: 'hearth:echo' }),
  });
  const pipe = await res.json();
  const pipeClient = new Anthropic({ baseURL, apiKey: pipe.api_key, maxRetries: 0 });
  await assert.rejects(pipeClient.messages.create({ model: 'claude-echo', ...msg }), Anthropic.PermissionDeniedError);
  const viaPipe = await pipeClient.messages.create({ model: `pipe:${pipe.name}`, ...msg });
  assert.equal(viaPipe.content[0].text, 'hi');
});
