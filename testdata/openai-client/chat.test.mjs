// End-to-end tests of Hearth's OpenAI-compatible surface with the official
// openai npm client (pinned in package-lock.json). server/openai_e2e_test.go
// starts the real hearth binary and runs `node --test` here with:
//   HEARTH_URL  base URL of the running server
//   HEARTH_KEY  a user key of that server
// The server's openai provider points at a fake upstream that answers
// "The secret ingredient is cardamom." when the system prompt carries that
// memory chunk, and fails with HTTP 503 for the model "down-model".
// Everything else runs on the offline hearth:echo test double, which
// answers the last user message, calls a tool on "call_tool:<name> {args}"
// and answers {"echo": ...} in JSON modes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';

const baseURL = `${process.env.HEARTH_URL}/openai/v1`;
const apiKey = process.env.HEARTH_KEY;
if (!process.env.HEARTH_URL || !apiKey) {
  throw new Error('HEARTH_URL and HEARTH_KEY must be set (run through server/openai_e2e_test.go)');
}
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });

function uniq(prefix) {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
}

// hearth calls the Langbase-dialect routes (pipes, memories) with fetch.
async function hearth(method, path, body) {
  const res = await fetch(`${process.env.HEARTH_URL}${path}`, {
    method,
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

test('chat completion, both model spellings', async () => {
  for (const model of ['hearth:echo', 'hearth/echo']) {
    const { data, response } = await client.chat.completions
      .create({ model, messages: [{ role: 'user', content: 'hello from openai' }], temperature: 0.2, max_tokens: 50, seed: 7, user: 'u1' })
      .withResponse();
    assert.equal(data.object, 'chat.completion');
    assert.equal(data.choices[0].message.role, 'assistant');
    assert.equal(data.choices[0].message.content, 'hello from openai');
    assert.equal(data.choices[0].finish_reason, 'stop');
    assert.ok(data.usage.total_tokens > 0);
    assert.equal(response.headers.get('lb-model'), 'hearth:echo');
  }
});

test('streaming with include_usage', async () => {
  const stream = await client.chat.completions.create({
    model: 'hearth:echo', stream: true, stream_options: { include_usage: true },
    messages: [{ role: 'developer', content: 'Be brief.' }, { role: 'user', content: 'one two three four' }],
  });
  let text = '';
  let usage = null;
  let finish = null;
  for await (const chunk of stream) {
    assert.equal(chunk.object, 'chat.completion.chunk');
    if (chunk.usage) {
      assert.deepEqual(chunk.choices, []);
      usage = chunk.usage;
    }
    for (const c of chunk.choices) {
      text += c.delta.content ?? '';
      finish = c.finish_reason ?? finish;
    }
  }
  assert.equal(text.trim(), 'one two three four');
  assert.equal(finish, 'stop');
  assert.ok(usage && usage.total_tokens > 0, 'a usage chunk ends the stream');
});

test('stream helper assembles the final completion', async () => {
  const runner = client.chat.completions.stream({ model: 'hearth:echo', messages: [{ role: 'user', content: 'assembled answer' }] });
  const final = await runner.finalChatCompletion();
  assert.equal(final.choices[0].message.content.trim(), 'assembled answer');
});

const weather = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

test('tool calls, JSON and streamed, and the tool result turn', async () => {
  const messages = [{ role: 'user', content: 'call_tool:get_weather {"city":"Paris"}' }];
  const res = await client.chat.completions.create({ model: 'hearth:echo', messages, tools: [weather], tool_choice: 'auto', parallel_tool_calls: true });
  const call = res.choices[0].message.tool_calls[0];
  assert.equal(res.choices[0].finish_reason, 'tool_calls');
  assert.equal(call.type, 'function');
  assert.equal(call.function.name, 'get_weather');
  assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris' });

  const stream = client.chat.completions.stream({ model: 'hearth:echo', messages, tools: [weather] });
  const final = await stream.finalChatCompletion();
  assert.equal(final.choices[0].message.tool_calls[0].function.name, 'get_weather');

  const answer = await client.chat.completions.create({
    model: 'hearth:echo', tools: [weather],
    messages: [...messages, res.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'sunny, 21 C' }],
  });
  assert.equal(answer.choices[0].message.content, 'tool result: sunny, 21 C');
});

test('response_format json_schema and json_object', async () => {
  const schema = await client.chat.completions.create({
    model: 'hearth:echo', messages: [{ role: 'user', content: 'structured' }],
    response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object', properties: { echo: { type: 'string' } } }, strict: true } },
  });
  assert.deepEqual(JSON.parse(schema.choices[0].message.content), { echo: 'structured' });
  const obj = await client.chat.completions.create({ model: 'hearth:echo', messages: [{ role: 'user', content: 'obj' }], response_format: { type: 'json_object' } });
  assert.deepEqual(JSON.parse(obj.choices[0].message.content), { echo: 'obj' });
});

test('embeddings: default base64 decoding, float, string input', async () => {
  const b64 = await client.embeddings.create({ model: 'hearth:hash-embed', input: ['owls hunt at night', 'bees dance'] });
  const flt = await client.embeddings.create({ model: 'hearth/hash-embed', input: ['owls hunt at night', 'bees dance'], encoding_format: 'float' });
  assert.equal(b64.data.length, 2);
  assert.equal(b64.data[0].embedding.length, 256);
  for (let i = 0; i < 2; i++) {
    assert.equal(b64.data[i].index, i);
    b64.data[i].embedding.forEach((v, j) => assert.ok(Math.abs(v - flt.data[i].embedding[j]) < 1e-6));
  }
  const one = await client.embeddings.create({ model: 'hearth:hash-embed', input: 'single', encoding_format: 'float' });
  assert.equal(one.data.length, 1);
  assert.ok(one.usage.prompt_tokens > 0);
});

test('embeddings: dimensions shortens text-embedding-3 vectors, refused elsewhere', async () => {
  const short = await client.embeddings.create({ model: 'openai:text-embedding-3-small', input: ['owls', 'bees'], dimensions: 5 });
  assert.equal(short.data.length, 2);
  short.data.forEach((d) => assert.equal(d.embedding.length, 5));
  await assert.rejects(
    client.embeddings.create({ model: 'openai:text-embedding-ada-002', input: 'owls', dimensions: 5 }),
    (e) => e instanceof OpenAI.BadRequestError && e.param === 'dimensions' && /cannot shorten/.test(e.message),
  );
});

test('models list and retrieve', async () => {
  const pipe = uniq('listed');
  await hearth('POST', '/v1/pipes', { name: pipe, model: 'hearth:echo' });
  const ids = [];
  for await (const m of client.models.list()) ids.push(m.id);
  assert.ok(ids.includes('hearth:echo'), ids.join(','));
  assert.ok(ids.includes(`pipe:${pipe}`), ids.join(','));
  // Embedding models are listed next to chat models.
  assert.ok(ids.includes('openai:text-embedding-3-small'), ids.join(','));
  assert.ok(ids.includes('hearth:hash-embed'), ids.join(','));
  assert.equal((await client.models.retrieve('openai/text-embedding-3-small')).id, 'openai:text-embedding-3-small');
  const m = await client.models.retrieve('hearth:echo');
  assert.equal(m.id, 'hearth:echo');
  assert.equal(m.object, 'model');
  await assert.rejects(client.models.retrieve('openai:no-such-model'), OpenAI.NotFoundError);
});

test('a pipe: model runs the pipe with its memory and stores the thread', async () => {
  const memory = uniq('spices');
  await hearth('POST', '/v1/memory', { name: memory, embedding_model: 'hearth:hash-embed' });
  const { signedUrl } = await hearth('POST', '/v1/memory/documents', { memoryName: memory, documentName: 'facts.txt', contentType: 'text/plain' });
  const put = await fetch(signedUrl, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'The secret ingredient is cardamom.' });
  assert.ok(put.ok, `upload: ${put.status}`);
  for (let i = 0; ; i++) {
    const docs = await hearth('GET', `/v1/memory/${memory}/documents`);
    if (docs[0]?.status === 'completed') break;
    assert.notEqual(docs[0]?.status, 'failed');
    assert.ok(i < 200, 'document not ingested');
    await new Promise((r) => setTimeout(r, 50));
  }
  const pipe = uniq('chef');
  await hearth('POST', '/v1/pipes', { name: pipe, model: 'openai:gpt-4o-mini', memory: [{ name: memory }], store: true });
  const { data, response } = await client.chat.completions
    .create({ model: `pipe:${pipe}`, messages: [{ role: 'user', content: 'What is the secret ingredient?' }] })
    .withResponse();
  assert.equal(data.choices[0].message.content, 'The secret ingredient is cardamom.');
  assert.equal(response.headers.get('lb-model'), 'openai:gpt-4o-mini');
  const thread = response.headers.get('lb-thread-id');
  assert.ok(thread);
  const msgs = await hearth('GET', `/v1/threads/${thread}/messages`);
  assert.deepEqual(msgs.map((m) => m.role), ['user', 'assistant']);

  const stream = await client.chat.completions.create({ model: `pipe:${pipe}`, stream: true, messages: [{ role: 'user', content: 'And again?' }] });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  assert.equal(text, 'The secret ingredient is cardamom.');
});

test('pipe:<org>/<name> runs an org pipe with a member\'s key; others are refused', async () => {
  const res = await client.chat.completions.create({ model: 'pipe:e2e-org/org-helper', messages: [{ role: 'user', content: 'member says hi' }] });
  assert.match(res.choices[0].message.content, /member says hi/);
  const ids = [];
  for await (const m of client.models.list()) ids.push(m.id);
  assert.ok(ids.includes('pipe:e2e-org/org-helper'), ids.join(','));
  assert.equal((await client.models.retrieve('pipe:e2e-org/org-helper')).id, 'pipe:e2e-org/org-helper');
  await assert.rejects(
    client.chat.completions.create({ model: 'pipe:no-such-owner/org-helper', messages: [{ role: 'user', content: 'x' }] }),
    (e) => e instanceof OpenAI.NotFoundError && e.param === 'model',
  );
});

test('provider-model calls are in the run log', async () => {
  const before = (await hearth('GET', '/v1/runs?limit=500')).data.filter((r) => r.endpoint === '/openai/v1/chat/completions' && r.pipe === '').length;
  await client.chat.completions.create({ model: 'hearth:echo', messages: [{ role: 'user', content: 'count me' }] });
  let after = 0;
  for (let i = 0; i < 50 && after <= before; i++) {
    await new Promise((r) => setTimeout(r, 50));
    after = (await hearth('GET', '/v1/runs?limit=500')).data.filter((r) => r.endpoint === '/openai/v1/chat/completions' && r.pipe === '').length;
  }
  assert.ok(after > before, `run records ${before} -> ${after}`);
});

test('fallback models: a provider down before the first byte', async () => {
  const { data, response } = await client.chat.completions
    .create({ model: 'openai:down-model', messages: [{ role: 'user', content: 'still answered' }] }, { headers: { 'LB-Fallback-Models': 'hearth/echo' } })
    .withResponse();
  assert.equal(data.choices[0].message.content, 'still answered');
  assert.equal(response.headers.get('lb-model'), 'hearth:echo');
  const down = await client.chat.completions.create({ model: 'openai:down-model', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
  assert.ok(down instanceof OpenAI.InternalServerError, String(down));
});

test('errors are raised as the client\'s own error classes', async () => {
  const bad = new OpenAI({ baseURL, apiKey: 'hth_not_a_real_key', maxRetries: 0 });
  await assert.rejects(bad.chat.completions.create({ model: 'hearth:echo', messages: [{ role: 'user', content: 'x' }] }), OpenAI.AuthenticationError);
  const err = await client.chat.completions.create({ model: 'hearth:echo', messages: [{ role: 'user', content: 'x' }], temperature: 5 }).catch((e) => e);
  assert.ok(err instanceof OpenAI.BadRequestError, String(err));
  assert.equal(err.status, 400);
  assert.equal(err.param, 'temperature');
  assert.equal(err.type, 'invalid_request_error');
  const missing = await client.chat.completions.create({ model: 'pipe:no-such-pipe', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
  assert.ok(missing instanceof OpenAI.NotFoundError, String(missing));
  assert.equal(missing.code, 'model_not_found');
});

test('moderations and image generation reach their code paths', async () => {
  const mod = await client.moderations.create({ model: 'hearth:moderation', input: ['fine', 'not fine [flag]'] });
  assert.deepEqual(mod.results.map((r) => r.flagged), [false, true]);
  const img = await client.images.generate({ model: 'openai/gpt-image-1', prompt: 'a lighthouse', size: '1024x1024' });
  assert.equal(img.data.length, 1);
  assert.ok(Buffer.from(img.data[0].b64_json, 'base64').subarray(1, 4).toString() === 'PNG', 'a PNG in b64_json');
});
