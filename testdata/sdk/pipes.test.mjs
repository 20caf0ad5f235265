import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getRunner, getToolsFromRun, getToolsFromRunStream } from 'langbase';
import { FAKE_TEXT, UUID, baseUrl, client, rejects, uniq, upstreamUrl, weatherTool } from './helpers.mjs';

const msg = (content) => [{ role: 'user', content }];

test('pipes.create returns the create shape with a pipe key', async () => {
  const name = uniq('create');
  const res = await client().pipes.create({ name, description: 'made by the SDK' });
  assert.equal(res.name, name);
  assert.equal(res.description, 'made by the SDK');
  assert.equal(res.status, 'public');
  assert.equal(res.type, 'chat');
  assert.equal(res.url, `${baseUrl}/studio/pipes/${res.owner_login}/${name}`);
  assert.match(res.api_key, /^hth_pipe_/);
});

test('pipes.list shows every field with its default', async () => {
  const name = uniq('list');
  await client().pipes.create({ name });
  const list = await client().pipes.list();
  const p = list.find((x) => x.name === name);
  assert.ok(p, 'created pipe is listed');
  assert.deepEqual(
    {
      model: p.model, stream: p.stream, json: p.json, store: p.store, moderate: p.moderate, top_p: p.top_p,
      max_tokens: p.max_tokens, temperature: p.temperature, presence_penalty: p.presence_penalty,
      frequency_penalty: p.frequency_penalty, stop: p.stop, tool_choice: p.tool_choice,
      parallel_tool_calls: p.parallel_tool_calls, messages: p.messages, variables: p.variables, tools: p.tools, memory: p.memory,
    },
    {
      model: 'openai:gpt-4o-mini', stream: true, json: false, store: true, moderate: false, top_p: 1, max_tokens: 1000,
      temperature: 0.7, presence_penalty: 1, frequency_penalty: 1, stop: [], tool_choice: 'auto', parallel_tool_calls: true,
      messages: [], variables: [], tools: [], memory: [],
    },
  );
});

test('pipes.update changes only the given fields', async () => {
  const name = uniq('update');
  const lb = client();
  await lb.pipes.create({ name, temperature: 0.2, description: 'before' });
  const res = await lb.pipes.update({ name, description: 'after', status: 'private' });
  assert.equal(res.name, name);
  assert.equal(res.description, 'after');
  assert.equal(res.status, 'private');
  const p = (await lb.pipes.list()).find((x) => x.name === name);
  assert.equal(p.temperature, 0.2);
  assert.equal(p.status, 'private');
});

test('pipes.create errors: 409 on a duplicate, 400 naming the field', async () => {
  const name = uniq('dup');
  const lb = client();
  await lb.pipes.create({ name });
  const dup = await rejects(lb.pipes.create({ name }));
  assert.equal(dup.status, 409);
  assert.match(dup.message, /^409 .*already exists/);
  const bad = await rejects(lb.pipes.create({ name: uniq('bad'), temperature: 5 }));
  assert.equal(bad.status, 400);
  assert.match(bad.message, /temperature/);
  const upserted = await lb.pipes.create({ name, upsert: true, description: 'upserted' });
  assert.equal(upserted.description, 'upserted');
});

test('pipes.run without stream returns JSON with the completion and a thread id', async () => {
  const name = uniq('run');
  const lb = client();
  await lb.pipes.create({ name, messages: [{ role: 'system', content: 'You are {{persona}}.' }], variables: { persona: 'terse' } });
  const res = await lb.pipes.run({ name, messages: msg('Hello') });
  assert.equal(res.completion, FAKE_TEXT);
  assert.match(res.threadId, UUID);
  assert.equal(res.object, 'chat.completion');
  assert.equal(res.choices[0].message.content, FAKE_TEXT);
  assert.equal(res.choices[0].finish_reason, 'stop');
  assert.equal(res.usage.total_tokens, 17);

  const next = await lb.pipes.run({ name, threadId: res.threadId, messages: msg('Again'), variables: [{ name: 'persona', value: 'kind' }] });
  assert.equal(next.threadId, res.threadId);
  const messages = await lb.threads.messages.list({ threadId: res.threadId });
  assert.deepEqual(messages.map((m) => [m.role, m.content]), [
    ['user', 'Hello'], ['assistant', FAKE_TEXT], ['user', 'Again'], ['assistant', FAKE_TEXT],
  ]);
});

test('pipes.run with stream: true streams through getRunner', async () => {
  const name = uniq('stream');
  const lb = client();
  await lb.pipes.create({ name });
  const { stream, threadId } = await lb.pipes.run({ name, stream: true, messages: msg('Hi') });
  assert.match(threadId, UUID);
  const runner = getRunner(stream);
  let text = '';
  runner.on('content', (delta) => { text += delta; });
  const final = await runner.finalChatCompletion();
  assert.equal(text, FAKE_TEXT);
  assert.equal(final.choices[0].message.content, FAKE_TEXT);
  assert.equal(final.choices[0].finish_reason, 'stop');
});

test('tool calls: getToolsFromRun and getToolsFromRunStream', async () => {
  const name = uniq('tools');
  const lb = client();
  await lb.pipes.create({ name, tools: [weatherTool] });
  const res = await lb.pipes.run({ name, messages: msg('What is the weather in Paris?') });
  assert.equal(res.completion, '');
  const calls = await getToolsFromRun(res);
  assert.equal(calls.length, 1);
  assert.equal(calls[0].type, 'function');
  assert.equal(calls[0].function.name, 'get_weather');
  assert.deepEqual(JSON.parse(calls[0].function.arguments), { location: 'Paris' });

  const { stream } = await lb.pipes.run({ name, stream: true, messages: msg('And the weather in Rome?') });
  const streamed = await getToolsFromRunStream(stream);
  assert.equal(streamed.length, 1);
  assert.equal(streamed[0].id, calls[0].id);
  assert.equal(streamed[0].function.name, 'get_weather');
  assert.deepEqual(JSON.parse(streamed[0].function.arguments), { location: 'Paris' });

  // Request tools replace the pipe's: the answer to a tool result.
  const after = await lb.pipes.run({
    name, threadId: res.threadId,
    messages: [{ role: 'tool', tool_call_id: calls[0].id, name: 'get_weather', content: '{"temp":21}' }],
  });
  assert.equal(after.completion, FAKE_TEXT);
});

test('a pipe key runs its own pipe', async () => {
  const name = uniq('pipekey');
  const created = await client().pipes.create({ name });
  const pipeClient = client(created.api_key);
  const res = await pipeClient.pipes.run({ apiKey: created.api_key, messages: msg('Hi') });
  assert.equal(res.completion, FAKE_TEXT);
  // ...and nothing else.
  const other = uniq('other');
  await client().pipes.create({ name: other });
  const err = await rejects(client(created.api_key).pipes.run({ apiKey: created.api_key, name: other, messages: msg('Hi') }));
  assert.equal(err.status, 403);
});

test('llmKey is used as the provider key', async () => {
  const name = uniq('llmkey');
  const lb = client();
  await lb.pipes.create({ name });
  const ok = await lb.pipes.run({ name, llmKey: 'sk-llmkey-valid', messages: msg('Hi') });
  assert.equal(ok.completion, FAKE_TEXT);
  const bad = await rejects(lb.pipes.run({ name, llmKey: 'sk-llmkey-wrong', messages: msg('Hi') }));
  assert.equal(bad.status, 400);
  assert.match(bad.message, /rejected the provider API key/);
});

test('run errors: 401, 404 and 400', async () => {
  const unauth = await rejects(client('hth_user_not_a_real_key_000000000').pipes.list());
  assert.equal(unauth.status, 401);
  const missing = await rejects(client().pipes.run({ name: uniq('missing'), messages: msg('x') }));
  assert.equal(missing.status, 404);
  assert.match(missing.message, /^404 pipe .* not found/);
  const name = uniq('badrun');
  await client().pipes.create({ name });
  const badThread = await rejects(client().pipes.run({ name, threadId: 'no-such-thread', messages: msg('x') }));
  assert.equal(badThread.status, 404);
  const bad = await rejects(client().pipes.run({ name, messages: [{ role: 'robot', content: 'x' }] }));
  assert.equal(bad.status, 400);
  assert.match(bad.message, /messages\[0\]\.role/);
});

test('stream events arrive as they are sent (no one-event lag)', async () => {
  const name = uniq('lag');
  const lb = client();
  await lb.pipes.create({ name });
  // Lockstep: the upstream sends the first event, then waits for this
  // client to say it has it before sending the rest. A first event held
  // back until the next one arrives never releases the probe, and the
  // upstream gives up and sends "held-back" instead of "probe".
  const probe = uniq('probe');
  const { stream } = await lb.pipes.run({ name, stream: true, messages: msg(`lag-probe ${probe}`) });
  const reader = stream.getReader();
  const first = await reader.read();
  assert.equal(first.done, false, 'the stream ended before its first event');
  const chunk = JSON.parse(new TextDecoder().decode(first.value).split('\n')[0]);
  assert.equal(chunk.choices[0].delta.role, 'assistant');
  assert.equal(chunk.choices[0].delta.content, '');
  const release = await fetch(`${upstreamUrl}/lag-release/${probe}`, { method: 'POST' });
  assert.equal(release.status, 204);
  let rest = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    rest += new TextDecoder().decode(value);
  }
  assert.doesNotMatch(rest, /held-back/, 'the first event was held back until the upstream sent the next one');
  assert.match(rest, /"content":"probe"/);
});
