// SDK end-to-end cases for memories.*, memories.documents.*, retrieve,
// embed, chunker, parser and a pipe run with a memory attached. Memories
// use the offline hearth:hash-embed double (texts sharing words are close)
// except where the default OpenAI model, served by the fake upstream, is
// the point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getRunner } from 'langbase';
import { FAKE_TEXT, baseUrl, client, rejects, uniq } from './helpers.mjs';

const HASH = 'hearth:hash-embed';

// waitDoc polls the documents list until the document is completed or failed.
async function waitDoc(lb, memoryName, name) {
  for (let i = 0; i < 400; i++) {
    const docs = await lb.memories.documents.list({ memoryName });
    const d = docs.find((x) => x.name === name);
    if (d && (d.status === 'completed' || d.status === 'failed')) return d;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`document ${name} not done in time`);
}

async function upload(lb, memoryName, documentName, text, contentType = 'text/plain', meta) {
  const res = await lb.memories.documents.upload({ memoryName, documentName, document: Buffer.from(text), contentType, meta });
  assert.equal(res.ok, true, `upload of ${documentName}: ${res.status}`);
  assert.equal(res.status, 200);
  return res;
}

test('memories.create, list and delete', async () => {
  const lb = client();
  const name = uniq('mem');
  const created = await lb.memories.create({ name, description: 'sdk memory' });
  assert.deepEqual(
    { ...created, url: undefined },
    { name, description: 'sdk memory', owner_login: created.owner_login, url: undefined, chunk_size: 10000, chunk_overlap: 2048,
      embedding_model: 'openai:text-embedding-3-large', top_k: 10 },
  );
  assert.equal(created.url, `${baseUrl}/studio/memory/${created.owner_login}/${name}`);
  const dup = await rejects(lb.memories.create({ name }));
  assert.equal(dup.status, 409);
  const listed = (await lb.memories.list()).find((m) => m.name === name);
  assert.equal(listed.embeddingModel, 'openai:text-embedding-3-large');
  assert.equal(listed.embedding_model, 'openai:text-embedding-3-large');
  assert.deepEqual(await lb.memories.delete({ name }), { success: true });
  const gone = await rejects(lb.memories.delete({ name }));
  assert.equal(gone.status, 404);
  const bad = await rejects(lb.memories.create({ name: uniq('m'), chunk_size: 40000 }));
  assert.equal(bad.status, 400);
  assert.match(bad.message, /chunk_size/);
});

test('documents.upload, list, retry and delete; retrieve with filters', async () => {
  const lb = client();
  const memoryName = uniq('docs');
  await lb.memories.create({ name: memoryName, embedding_model: HASH, chunk_size: 1000, chunk_overlap: 100 });
  await upload(lb, memoryName, 'zebra facts.md', '# Zebras\n\nZebras have black and white stripes.', 'text/markdown', { kind: 'animal' });
  await upload(lb, memoryName, 'moss.txt', 'Moss grows in damp forests.', 'text/plain', { kind: 'plant' });
  const zebra = await waitDoc(lb, memoryName, 'zebra facts.md');
  assert.equal(zebra.status, 'completed');
  assert.equal(zebra.status_message, null);
  assert.deepEqual(zebra.metadata, { size: 46, type: 'text/markdown' });
  assert.deepEqual(zebra.meta, { kind: 'animal' });
  assert.equal(zebra.enabled, true);
  assert.equal(zebra.chunk_size, 1000);
  assert.equal((await waitDoc(lb, memoryName, 'moss.txt')).status, 'completed');

  const hits = await lb.memories.retrieve({ query: 'zebra stripes', memory: [{ name: memoryName }], topK: 2 });
  assert.equal(hits.length, 2);
  assert.match(hits[0].text, /stripes/);
  assert.equal(typeof hits[0].similarity, 'number');
  assert.ok(hits[0].similarity >= hits[1].similarity);
  assert.equal(hits[0].meta.documentName, 'zebra facts.md');
  assert.equal(hits[0].meta.kind, 'animal');
  const plants = await lb.memories.retrieve({ query: 'zebra stripes', memory: [{ name: memoryName, filters: ['kind', 'Eq', 'plant'] }] });
  assert.deepEqual(plants.map((h) => h.meta.documentName), ['moss.txt']);
  const nested = await lb.memories.retrieve({
    query: 'zebra', memory: [{ name: memoryName, filters: ['Or', [['kind', 'In', ['mineral']], ['documentName', 'Eq', 'zebra facts.md']]] }],
  });
  assert.deepEqual(nested.map((h) => h.meta.documentName), ['zebra facts.md']);

  // Nothing to retry on a completed document: still a 2xx {success:false}.
  const retry = await lb.memories.documents.embeddings.retry({ memoryName, documentName: 'moss.txt' });
  assert.equal(retry.success, false);
  assert.deepEqual(await lb.memories.documents.delete({ memoryName, documentName: 'zebra facts.md' }), { success: true });
  const docs = await lb.memories.documents.list({ memoryName });
  assert.deepEqual(docs.map((d) => d.name), ['moss.txt']);
  const missing = await rejects(lb.memories.documents.delete({ memoryName, documentName: 'zebra facts.md' }));
  assert.equal(missing.status, 404);
});

test('documents.upload returns the raw upload response, refusals included', async () => {
  const lb = client();
  const memoryName = uniq('raw');
  await lb.memories.create({ name: memoryName, embedding_model: HASH });
  // The SDK does not check the PUT's status: a wrong type comes back as a non-ok Response.
  const res = await lb.memories.documents.upload({ memoryName, documentName: 'a.pdf', document: Buffer.from('not a pdf'), contentType: 'text/plain' });
  assert.equal(res.ok, false);
  assert.equal(res.status, 415);
  const body = await res.json();
  assert.match(body.error.message, /does not match/);
  // A broken PDF is accepted, then fails with the parser's reason; retry is possible.
  await upload(lb, memoryName, 'broken.pdf', '%PDF-1.4\nthis is not really a PDF', 'application/pdf');
  const d = await waitDoc(lb, memoryName, 'broken.pdf');
  assert.equal(d.status, 'failed');
  assert.match(d.status_message, /PDF/);
  assert.deepEqual(await lb.memories.documents.embeddings.retry({ memoryName, documentName: 'broken.pdf' }), { success: true, message: 'embedding generation was queued again' });
});

test('the default OpenAI embedding model ingests through the provider', async () => {
  const lb = client();
  const memoryName = uniq('oai');
  await lb.memories.create({ name: memoryName });
  await upload(lb, memoryName, 'notes.txt', 'Durable ingestion through the fake OpenAI upstream.');
  assert.equal((await waitDoc(lb, memoryName, 'notes.txt')).status, 'completed');
  const hits = await lb.memories.retrieve({ query: 'durable ingestion', memory: [{ name: memoryName }] });
  assert.equal(hits.length, 1);
});

test('embed, chunker and parser', async () => {
  const lb = client();
  const vecs = await lb.embed({ chunks: ['one', 'two'] });
  assert.equal(vecs.length, 2);
  assert.ok(vecs[0].length > 0 && typeof vecs[0][0] === 'number');
  const hashed = await lb.embed({ chunks: ['alpha'], embeddingModel: HASH });
  assert.equal(hashed[0].length, 256);
  const tooMany = await rejects(lb.embed({ chunks: Array(101).fill('x') }));
  assert.equal(tooMany.status, 400);

  const content = 'Hearth splits text into chunks. '.repeat(100);
  const chunks = await lb.chunker({ content, chunkMaxLength: 1024, chunkOverlap: 256 });
  assert.ok(chunks.length >= 3 && chunks.every((c) => typeof c === 'string' && c.length <= 1024));
  const badChunk = await rejects(lb.chunker({ content, chunkMaxLength: 100 }));
  assert.equal(badChunk.status, 400);

  const parsed = await lb.parser({ document: Buffer.from('name,role\nAda,engineer\n'), documentName: 'people.csv', contentType: 'text/csv' });
  assert.deepEqual(parsed, { documentName: 'people.csv', content: 'name: Ada, role: engineer' });
  // The SDK hands parser errors back as data: they are JSON too.
  const failed = await lb.parser({ document: Buffer.from(''), documentName: 'empty.txt', contentType: 'text/plain' });
  assert.equal(failed.success, false);
  assert.match(failed.error.message, /empty/);
});

test('a pipe run with a memory attached retrieves from it', async () => {
  const lb = client();
  const memoryName = uniq('rag');
  await lb.memories.create({ name: memoryName, embedding_model: HASH, top_k: 1 });
  await upload(lb, memoryName, 'facts.txt', 'The secret ingredient is cardamom.');
  assert.equal((await waitDoc(lb, memoryName, 'facts.txt')).status, 'completed');
  const name = uniq('ragpipe');
  await lb.pipes.create({ name, memory: [{ name: memoryName }] });
  const res = await lb.pipes.run({ name, stream: false, messages: [{ role: 'user', content: 'What is the secret ingredient?' }] });
  assert.equal(res.completion, FAKE_TEXT);
  const missing = await rejects(lb.pipes.run({ name, stream: false, memory: [{ name: 'no-such-memory' }], messages: [{ role: 'user', content: 'hi' }] }));
  assert.ok(missing.status === 400 || missing.status === 404);
});

test('include_sources: the SDK result carries sources; its stream helpers pass over the sources event', async () => {
  const lb = client();
  const memoryName = uniq('src');
  await lb.memories.create({ name: memoryName, embedding_model: 'hearth:bm25', top_k: 1 });
  await upload(lb, memoryName, 'facts.txt', 'The secret ingredient is cardamom.');
  assert.equal((await waitDoc(lb, memoryName, 'facts.txt')).status, 'completed');
  const name = uniq('srcpipe');
  await lb.pipes.create({ name, model: 'hearth:echo', memory: [{ name: memoryName }] });
  const messages = [{ role: 'user', content: 'What is the secret ingredient?' }];
  const res = await lb.pipes.run({ name, stream: false, include_sources: true, messages });
  assert.equal(res.completion, 'What is the secret ingredient?');
  assert.equal(res.sources.length, 1);
  assert.equal(res.sources[0].memory, memoryName);
  assert.equal(res.sources[0].document, 'facts.txt');
  assert.match(res.sources[0].text, /cardamom/);

  const { stream } = await lb.pipes.run({ name, stream: true, include_sources: true, messages });
  const [forRunner, forChunks] = stream.tee();
  const runner = getRunner(forRunner);
  let text = '';
  runner.on('content', (delta) => { text += delta; });
  const final = await runner.finalChatCompletion();
  assert.equal(text, 'What is the secret ingredient?');
  assert.equal(final.choices[0].message.content, text);
  assert.deepEqual(final.sources, res.sources);
  // The SDK's stream is newline-separated JSON of each event.
  let lines = '';
  const decoder = new TextDecoder();
  for await (const bytes of forChunks) lines += decoder.decode(bytes, { stream: true });
  const events = lines.trim().split('\n').map((l) => JSON.parse(l));
  const withSources = events.filter((e) => e.sources);
  assert.equal(withSources.length, 1);
  assert.deepEqual(withSources[0].sources, res.sources);
});
