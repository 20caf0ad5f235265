// Web tools: web search (Exa) and crawl (Spider, Firecrawl or the built-in
// crawler) through /v1/tools/web-search and /v1/tools/crawl, with results.

import { api } from '../api.js';
import { h, field, errorBox, announce, busy, add } from '../dom.js';
import { renderInto, copyButton } from '../md.js';

export async function render(view) {
  add(view,
    h('div', { class: 'page-head' }, h('h1', {}, 'Web tools')),
    h('p', { class: 'muted' }, 'Search the web and crawl pages as the langbase tools do. Service keys are sent with the request only.'),
    h('div', { class: 'cols' }, searchPanel(), crawlPanel()));
}

function searchPanel() {
  const query = h('input', { type: 'search', name: 'query', required: true });
  const total = h('input', { type: 'number', name: 'totalResults', min: '1', max: '100', value: '5' });
  const domains = h('input', { type: 'text', name: 'domains', placeholder: 'github.com, go.dev' });
  const key = h('input', { type: 'password', name: 'search-key', autocomplete: 'off', required: true });
  const go = h('button', { type: 'submit', class: 'primary', id: 'search-run' }, 'Search');
  const err = errorBox();
  const results = h('ol', { class: 'results', id: 'search-results', 'aria-label': 'Search results' });
  const form = h('form', { id: 'search-form', 'aria-label': 'Web search' },
    field('Query', query), field('Results', total),
    field('Only these domains (optional)', domains, 'Comma-separated.'),
    field('Exa key', key, 'Sent as LB-WEB-SEARCH-KEY.'),
    h('div', { class: 'actions' }, go));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    err.clear();
    const body = { query: query.value, service: 'exa', totalResults: Number(total.value) || 5, apiKey: key.value };
    const ds = domains.value.split(',').map((d) => d.trim()).filter(Boolean);
    if (ds.length) body.domains = ds;
    busy(go, async () => {
      try {
        const res = await api.webSearch(body);
        results.replaceChildren(...res.map(pageItem));
        announce(`${res.length} result${res.length === 1 ? '' : 's'}`);
      } catch (ex) { err.show(ex); }
    });
  });
  return h('section', { class: 'panel', 'aria-labelledby': 'search-h' }, h('h2', { id: 'search-h' }, 'Web search'), form, err.el, results);
}

function crawlPanel() {
  const urls = h('textarea', { name: 'urls', rows: '3', required: true, placeholder: 'https://example.com/docs' });
  const maxPages = h('input', { type: 'number', name: 'maxPages', min: '1', max: '50', value: '1' });
  const service = h('select', { name: 'service', id: 'crawl-service' },
    [['hearth', 'Built-in crawler (no key)'], ['spider', 'Spider'], ['firecrawl', 'Firecrawl']].map(([v, l]) => h('option', { value: v }, l)));
  const key = h('input', { type: 'password', name: 'crawl-key', autocomplete: 'off' });
  const go = h('button', { type: 'submit', class: 'primary', id: 'crawl-run' }, 'Crawl');
  const err = errorBox();
  const results = h('ol', { class: 'results', id: 'crawl-results', 'aria-label': 'Crawled pages' });
  const form = h('form', { id: 'crawl-form', 'aria-label': 'Crawl' },
    field('Start URLs (one per line)', urls), field('Pages per start URL', maxPages), field('Service', service),
    field('Service key', key, 'Sent as LB-CRAWL-KEY; the built-in crawler needs none.'),
    h('div', { class: 'actions' }, go));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    err.clear();
    const body = { url: urls.value.split('\n').map((u) => u.trim()).filter(Boolean), maxPages: Number(maxPages.value) || 1, service: service.value };
    if (key.value) body.apiKey = key.value;
    busy(go, async () => {
      try {
        const res = await api.crawl(body);
        results.replaceChildren(...res.map(pageItem));
        announce(`${res.length} page${res.length === 1 ? '' : 's'} crawled`);
      } catch (ex) { err.show(ex); }
    });
  });
  return h('section', { class: 'panel', 'aria-labelledby': 'crawl-h' }, h('h2', { id: 'crawl-h' }, 'Crawl'), form, err.el, results);
}

/** pageItem shows one {url, content} result: the URL and its text as markdown. */
function pageItem(p) {
  const content = h('div', { class: 'content' });
  renderInto(content, p.content.length > 4000 ? `${p.content.slice(0, 4000)}\n\n…` : p.content);
  return h('li', { 'data-url': p.url },
    h('div', { class: 'head' }, h('a', { href: p.url, target: '_blank', rel: 'noopener noreferrer' }, p.url),
      copyButton(() => p.content, `Copy the text of ${p.url}`)),
    h('details', {}, h('summary', {}, `${p.content.length} characters`), content));
}
