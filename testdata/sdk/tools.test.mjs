// SDK end-to-end cases for images.generate, tools.webSearch and
// tools.crawl. The harness (server/sdk_e2e_test.go, sdkToolFakes) points
// the server at the fakes of providers/fake:
//   HEARTH_TOGETHER_BASE_URL   -> fake.NewTogetherImages()
//   HEARTH_EXA_BASE_URL        -> fake.NewExa()
//   HEARTH_SPIDER_BASE_URL     -> fake.NewSpider()
//   HEARTH_FIRECRAWL_BASE_URL  -> fake.NewFirecrawl()
// and, for the built-in crawler, sets HEARTH_OUTBOUND_ALLOW=127.0.0.0/8
// and gives this test HEARTH_SITE_URL, a local site whose "/" links to
// "/docs".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { client, rejects } from './helpers.mjs';

const site = process.env.HEARTH_SITE_URL;
if (!site) throw new Error('HEARTH_SITE_URL must be set (run through server/sdk_e2e_test.go)');
const PNG_DATA_URL = /^data:image\/png;base64,/;

test('images.generate answers the ImageGenerationResponse shape', async () => {
  const res = await client().images.generate({
    prompt: 'a lighthouse at dusk', model: 'together:black-forest-labs/FLUX.1-schnell',
    width: 1024, height: 768, steps: 4, n: 2, apiKey: 'together-key',
  });
  assert.equal(res.provider, 'together');
  assert.equal(typeof res.id, 'string');
  assert.equal(typeof res.created, 'number');
  const [choice] = res.choices;
  assert.equal(choice.logprobs, null);
  assert.equal(choice.message.role, 'assistant');
  assert.equal(choice.message.content, null);
  assert.equal(choice.message.images.length, 2);
  choice.message.images.forEach((img, i) => {
    assert.equal(img.type, 'image_url');
    assert.equal(img.index, i);
    assert.match(img.image_url.url, PNG_DATA_URL);
  });
  for (const k of ['prompt_tokens', 'completion_tokens', 'total_tokens']) assert.equal(typeof res.usage[k], 'number');
  assert.equal(typeof res.usage.prompt_tokens_details.cached_tokens, 'number');
  assert.equal(typeof res.usage.completion_tokens_details.image_tokens, 'number');
});

test('images.generate surfaces a validation error naming the field', async () => {
  // The SDK rethrows image errors as a plain Error carrying the message.
  const e = await rejects(client().images.generate({ prompt: 'p', model: 'openai:dall-e-3', n: 2, apiKey: 'k' }));
  assert.match(e.message, /^400 n: openai:dall-e-3 makes 1 image per request \(allowed: 1\)/);
});

test('tools.webSearch maps to Exa and answers [{url, content}]', async () => {
  const res = await client().tools.webSearch({
    query: 'self-hosted llm', service: 'exa', totalResults: 3, domains: ['go.dev'], apiKey: 'exa-key',
  });
  assert.deepEqual(res, [1, 2, 3].map((i) => ({ url: `https://go.dev/result-${i}`, content: `Result ${i} for self-hosted llm.` })));
});

test('tools.webSearch without a key is a 400 naming the header', async () => {
  const e = await rejects(client().tools.webSearch({ query: 'q', service: 'exa' }));
  assert.equal(e.status, 400);
  assert.match(e.message, /LB-WEB-SEARCH-KEY: header is required/);
});

test('tools.crawl with Spider (the default) and Firecrawl', async () => {
  const spider = await client().tools.crawl({ url: ['https://a.example/docs'], maxPages: 2, apiKey: 'spider-key' });
  assert.deepEqual(spider.map((r) => r.url), ['https://a.example/docs', 'https://a.example/docs/page-2']);
  assert.match(spider[0].content, /^# Page 1 of https:\/\/a\.example\/docs/);
  const fc = await client().tools.crawl({ url: ['https://b.example/'], maxPages: 3, service: 'firecrawl', apiKey: 'fc-key' });
  assert.deepEqual(fc.map((r) => r.url), ['https://b.example/', 'https://b.example/page-2', 'https://b.example/page-3']);
});

test('tools.crawl with the built-in crawler needs no key', async () => {
  const res = await client().tools.crawl({ url: [`${site}/`], maxPages: 2, service: 'hearth' });
  assert.deepEqual(res, [
    { url: `${site}/`, content: `# Intranet\n\nWelcome.\n\n[Docs](${site}/docs)` },
    { url: `${site}/docs`, content: 'The docs.' },
  ]);
});

test('tools.crawl refuses more than 100 URLs', async () => {
  const e = await rejects(client().tools.crawl({ url: Array(101).fill('https://a.example/'), apiKey: 'k' }));
  assert.equal(e.status, 400);
  assert.match(e.message, /url: must have at most 100 entries/);
});
