// End-to-end tests of Hearth's /mcp endpoint with the official
// @modelcontextprotocol/sdk client (pinned in package-lock.json) over
// streamable HTTP. server/mcp_e2e_test.go starts the real hearth binary
// and runs `node --test` here with:
//   HEARTH_URL  base URL of the running server
//   HEARTH_KEY  a user key of that server
// The server allow-lists one upstream MCP server, "calc" (a fake on
// loopback with the tools add, echo, fail, slow and get.weather), for
// its tools add and fail. Pipes use the offline hearth:echo test double,
// which answers with the last message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

const base = process.env.HEARTH_URL;
const adminKey = process.env.HEARTH_KEY;
if (!base || !adminKey) {
  throw new Error('HEARTH_URL and HEARTH_KEY must be set (run through server/mcp_e2e_test.go)');
}

// api calls Hearth's REST API to set up what the MCP tests read.
async function api(method, path, body, key = adminKey) {
  const res = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, 200, `${method} ${path}: ${text}`);
  return JSON.parse(text);
}

async function connect(key) {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: 'hearth-e2e', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

const docs = {
  'zebra.md': 'Zebras are striped horses of the African savannah.',
  'penguin.md': 'Penguins are flightless birds of the southern ice.',
};
let admin;
let scoped;
let scopedKey;

before(async () => {
  await api('POST', '/v1/memory', { name: 'animals', embedding_model: 'hearth:hash-embed', chunk_size: 2000, chunk_overlap: 0 });
  await api('POST', '/v1/memory', { name: 'secrets', embedding_model: 'hearth:hash-embed' });
  for (const [mem, name, text, kind] of [['animals', 'zebra.md', docs['zebra.md'], 'mammal'], ['animals', 'penguin.md', docs['penguin.md'], 'bird'], ['secrets', 'plan.md', 'The secret plan.', 'plan']]) {
    const { signedUrl } = await api('POST', '/v1/memory/documents', { memoryName: mem, documentName: name, meta: { kind } });
    const put = await fetch(signedUrl, { method: 'PUT', headers: { 'Content-Type': 'text/markdown' }, body: text });
    assert.equal(put.status, 200, await put.text());
  }
  for (const mem of ['animals', 'secrets']) {
    for (let i = 0; ; i++) {
      const list = await api('GET', `/v1/memory/${mem}/documents`);
      if (list.every((d) => d.status === 'completed')) break;
      assert.ok(list.every((d) => d.status !== 'failed'), JSON.stringify(list));
      assert.ok(i < 600, `documents of ${mem} not ingested: ${JSON.stringify(list)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  await api('POST', '/v1/pipes', {
    name: 'greet', model: 'hearth:echo', description: 'Greets someone.',
    messages: [{ role: 'user', content: 'Say hello to {{who}}' }], variables: [{ name: 'who', value: 'nobody' }],
  });
  await api('POST', '/v1/pipes', { name: 'zoo', model: 'hearth:echo', memory: [{ name: 'animals' }] });
  scopedKey = (await api('POST', '/v1/keys', { name: 'mcp-scoped', memories: ['animals'], pipes: ['greet'] })).key;
  admin = await connect(adminKey);
  scoped = await connect(scopedKey);
});

after(async () => {
  await admin?.client.close();
  await scoped?.client.close();
});

test('initialize negotiates the current revision; ping answers', async () => {
  assert.equal(admin.transport.protocolVersion, '2025-11-25');
  assert.equal(admin.client.getServerVersion().name, 'hearth');
  const caps = admin.client.getServerCapabilities();
  assert.ok(caps.tools && caps.resources);
  assert.match(admin.client.getInstructions(), /memories/);
  assert.equal(admin.transport.sessionId, undefined);
  assert.deepEqual(await admin.client.ping(), {});
});

test('tools/list names Hearth tools and the allow-listed upstream tools', async () => {
  const { tools } = await admin.client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ['list_memories', 'retrieve', 'list_pipes', 'run_pipe', 'calc__add', 'calc__fail']);
  for (const t of tools) assert.equal(t.inputSchema.type, 'object');
  assert.deepEqual(tools.find((t) => t.name === 'retrieve').inputSchema.required, ['query']);
});

test('list_memories and list_pipes', async () => {
  const mems = await admin.client.callTool({ name: 'list_memories', arguments: {} });
  assert.equal(mems.isError, undefined);
  assert.deepEqual(mems.structuredContent.memories.map((m) => [m.name, m.documents.sort()]),
    [['animals', ['penguin.md', 'zebra.md']], ['secrets', ['plan.md']]]);
  const pipes = await admin.client.callTool({ name: 'list_pipes', arguments: {} });
  const greet = pipes.structuredContent.pipes.find((p) => p.name === 'greet');
  assert.deepEqual(greet.variables, ['who']);
  assert.equal(JSON.parse(pipes.content[0].text).pipes.length, 2);
});

test('retrieve returns ranked passages and links to their documents', async () => {
  const res = await admin.client.callTool({ name: 'retrieve', arguments: { query: 'striped horses savannah', memories: ['animals'], topK: 1 } });
  assert.equal(res.isError, undefined);
  const [first] = res.structuredContent.results;
  assert.equal(res.structuredContent.results.length, 1);
  assert.equal(first.documentName, 'zebra.md');
  assert.equal(first.text, docs['zebra.md']);
  const link = res.content.find((c) => c.type === 'resource_link');
  assert.equal(link.uri, 'hearth://memory/animals/zebra.md');
  const filtered = await admin.client.callTool({ name: 'retrieve', arguments: { query: 'birds', filters: ['kind', 'Eq', 'bird'] } });
  assert.deepEqual(filtered.structuredContent.results.map((r) => r.documentName), ['penguin.md']);
});

test('run_pipe fills variables and returns sources when asked', async () => {
  const res = await admin.client.callTool({ name: 'run_pipe', arguments: { name: 'greet', variables: { who: 'Ada' } } });
  assert.equal(res.isError, undefined);
  assert.equal(res.content[0].text, 'Say hello to Ada');
  assert.ok(res.structuredContent.thread_id);
  const zoo = await admin.client.callTool({ name: 'run_pipe', arguments: { name: 'zoo', message: 'Tell me about zebras', include_sources: true } });
  assert.equal(zoo.content[0].text, 'Tell me about zebras');
  assert.ok(zoo.structuredContent.sources.some((s) => s.memory === 'animals' && s.document === 'zebra.md'));
});

test('resources: list, templates and read a document', async () => {
  const { resources } = await admin.client.listResources();
  assert.deepEqual(resources.map((r) => r.uri).sort(),
    ['hearth://memory/animals/penguin.md', 'hearth://memory/animals/zebra.md', 'hearth://memory/secrets/plan.md']);
  const { resourceTemplates } = await admin.client.listResourceTemplates();
  assert.equal(resourceTemplates[0].uriTemplate, 'hearth://memory/{memory}/{document}');
  const { contents } = await admin.client.readResource({ uri: 'hearth://memory/animals/penguin.md' });
  assert.deepEqual(contents, [{ uri: 'hearth://memory/animals/penguin.md', mimeType: 'text/plain', text: docs['penguin.md'] }]);
});

test('a scoped key sees and calls only what its scope allows', async () => {
  const { tools } = await scoped.client.listTools();
  assert.ok(tools.some((t) => t.name === 'calc__add'));
  const mems = await scoped.client.callTool({ name: 'list_memories', arguments: {} });
  assert.deepEqual(mems.structuredContent.memories.map((m) => m.name), ['animals']);
  const refused = await scoped.client.callTool({ name: 'retrieve', arguments: { query: 'plan', memories: ['secrets'] } });
  assert.equal(refused.isError, true);
  assert.match(refused.content[0].text, /^FORBIDDEN: .*memories scope/);
  const run = await scoped.client.callTool({ name: 'run_pipe', arguments: { name: 'zoo', message: 'hi' } });
  assert.equal(run.isError, true);
  assert.match(run.content[0].text, /pipes scope/);
  const { resources } = await scoped.client.listResources();
  assert.equal(resources.length, 2);
  await assert.rejects(scoped.client.readResource({ uri: 'hearth://memory/secrets/plan.md' }),
    (err) => err instanceof McpError && err.code === -32602 && /memories scope/.test(err.message));
  await assert.rejects(admin.client.callTool({ name: 'calc__echo', arguments: { text: 'x' } }),
    (err) => err instanceof McpError && err.code === -32602);
});

test('an unknown key is refused at connect', async () => {
  await assert.rejects(connect('hth_user_not_a_real_key_0000000000'));
});

test('an upstream MCP server tool is proxied through Hearth', async () => {
  const sum = await admin.client.callTool({ name: 'calc__add', arguments: { a: 20, b: 22 } });
  assert.equal(sum.isError, undefined);
  assert.deepEqual(sum.content, [{ type: 'text', text: '42' }]);
  const fail = await scoped.client.callTool({ name: 'calc__fail', arguments: {} });
  assert.equal(fail.isError, true);
  assert.match(fail.content[0].text, /boom/);
});
