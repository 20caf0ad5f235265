import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getRunner, getToolsFromRun, getToolsFromRunStream } from 'langbase';
import { FAKE_TEXT, client, rejects, weatherTool } from './helpers.mjs';

// agent.run sends the provider key as LB-LLM-Key (and in the body as apiKey).
const run = (options) => client().agent.run({ model: 'openai:gpt-4o-mini', apiKey: 'sk-llmkey-valid', ...options });

test('agent.run without stream returns output and the completion, flat', async () => {
  const res = await run({ input: 'Hello', instructions: 'Be terse.', temperature: 0.2, max_tokens: 50 });
  assert.equal(res.output, FAKE_TEXT);
  assert.equal(res.object, 'chat.completion');
  assert.equal(res.model, 'gpt-4o-mini');
  assert.equal(res.choices[0].message.content, FAKE_TEXT);
  assert.equal(res.choices[0].finish_reason, 'stop');
  assert.equal(res.usage.total_tokens, 17);
  assert.ok('system_fingerprint' in res);

  const msgs = await run({ input: [{ role: 'system', content: 'Be kind.' }, { role: 'user', content: 'Hi' }] });
  assert.equal(msgs.output, FAKE_TEXT);
});

test('agent.run with stream: true streams through getRunner', async () => {
  const { stream } = await run({ input: 'Hi', stream: true });
  const runner = getRunner(stream);
  let text = '';
  runner.on('content', (delta) => { text += delta; });
  const final = await runner.finalChatCompletion();
  assert.equal(text, FAKE_TEXT);
  assert.equal(final.choices[0].message.content, FAKE_TEXT);
  assert.equal(final.choices[0].finish_reason, 'stop');
});

test('agent.run tool calls: output is null, getToolsFromRun and getToolsFromRunStream', async () => {
  const res = await run({ input: 'What is the weather in Paris?', tools: [weatherTool], tool_choice: 'auto' });
  assert.equal(res.output, null);
  const calls = await getToolsFromRun(res);
  assert.equal(calls.length, 1);
  assert.equal(calls[0].function.name, 'get_weather');
  assert.deepEqual(JSON.parse(calls[0].function.arguments), { location: 'Paris' });

  const { stream } = await run({ input: 'And the weather in Rome?', tools: [weatherTool], stream: true });
  const streamed = await getToolsFromRunStream(stream);
  assert.equal(streamed.length, 1);
  assert.equal(streamed[0].id, calls[0].id);
  assert.equal(streamed[0].type, 'function');
  assert.deepEqual(JSON.parse(streamed[0].function.arguments), { location: 'Paris' });
});

test('agent.run with an MCP server runs its tool and answers with the result', async () => {
  const mcpUrl = process.env.HEARTH_MCP_URL;
  assert.ok(mcpUrl, 'HEARTH_MCP_URL is set by the Go harness');
  const mcp_servers = [{ name: 'calc', type: 'url', url: mcpUrl, authorization_token: 'e2e-token',
    tool_configuration: { allowed_tools: ['echo'], enabled: true }, custom_headers: { 'X-Team': 'e2e' } }];
  const res = await run({ input: 'Please use the mcp tool.', mcp_servers });
  assert.equal(res.output, 'The MCP tool said: mcp-e2e-ok');

  const { stream } = await run({ input: 'Please use the mcp tool.', mcp_servers, stream: true });
  const final = await getRunner(stream).finalChatCompletion();
  assert.equal(final.choices[0].message.content, 'The MCP tool said: mcp-e2e-ok');
});

test('agent.run errors: 400 naming the field, a refused provider key, an unreachable MCP server', async () => {
  const bad = await rejects(run({ input: 'Hi', temperature: 5 }));
  assert.equal(bad.status, 400);
  assert.match(bad.message, /temperature/);
  const noModel = await rejects(run({ model: undefined, input: 'Hi' }));
  assert.equal(noModel.status, 400);
  assert.match(noModel.message, /model/);
  const key = await rejects(client().agent.run({ model: 'openai:gpt-4o-mini', apiKey: 'sk-wrong', input: 'Hi' }));
  assert.equal(key.status, 400);
  assert.match(key.message, /rejected the provider API key/);
  const down = await rejects(run({ input: 'Hi', mcp_servers: [{ name: 'gone', type: 'url', url: 'http://127.0.0.1:1/mcp' }] }));
  // 5xx bodies are {success, error: "<message>", code, status} (spec/api.md), so the SDK
  // reads no error.status; the message names the server.
  assert.match(down.message, /MCP server \\?"gone\\?".*unreachable/);
});
