// Usage: run records (pipes, agent, completions, images; GET /v1/runs, /v1/pipes/{name}/runs) as
// tokens, cost and latency over time, with the latest runs in a table.

import { api } from '../api.js';
import { h, field, errorBox, fmt, time, replace, add } from '../dom.js';
import { link } from '../app.js';
import { timeChart } from '../chart.js';
import { egressSection } from './egress.js';
import { budgetSection } from './budgets.js';
import { runSettingsSection } from './run_settings.js';

const RANGES = [
  ['24h', 'Last 24 hours', 24, 3600e3],
  ['7d', 'Last 7 days', 7, 86400e3],
  ['30d', 'Last 30 days', 30, 86400e3],
];
const PAGE = 500;
const MAX_RUNS = 5000;

export async function render(view, ctx) {
  const err = errorBox();
  const pipes = await api.pipes().catch(() => []);
  const pipeSel = h('select', { name: 'pipe', id: 'usage-pipe' },
    h('option', { value: '' }, 'All pipes'),
    pipes.map((p) => h('option', { value: p.name }, p.name)));
  const rangeSel = h('select', { name: 'range', id: 'usage-range' }, RANGES.map(([v, l]) => h('option', { value: v }, l)));
  pipeSel.value = ctx.query.get('pipe') || '';
  rangeSel.value = RANGES.some(([v]) => v === ctx.query.get('range')) ? ctx.query.get('range') : '7d';
  const out = h('div', { id: 'usage-body', 'aria-live': 'polite', 'aria-busy': 'true' });
  add(view, 
    h('div', { class: 'page-head' }, h('h1', {}, 'Usage')),
    h('form', { class: 'panel', 'aria-label': 'Usage filters' },
      h('div', { class: 'grid' }, field('Pipe', pipeSel), field('Period', rangeSel))),
    err.el, out);

  let seq = 0;
  async function load() {
    const mine = ++seq;
    err.clear();
    out.setAttribute('aria-busy', 'true');
    const q = new URLSearchParams();
    if (pipeSel.value) q.set('pipe', pipeSel.value);
    q.set('range', rangeSel.value);
    history.replaceState(null, '', `${location.pathname}?${q}`);
    const [, , n, size] = RANGES.find(([v]) => v === rangeSel.value);
    const since = bucketStart(Date.now(), size) - (n - 1) * size;
    try {
      const runs = await fetchRuns(pipeSel.value, since, ctx.signal);
      if (mine !== seq || ctx.signal.aborted) return;
      draw(out, runs, since, n, size, pipeSel.value);
    } catch (ex) {
      if (mine === seq) err.show(ex);
    } finally {
      if (mine === seq) out.setAttribute('aria-busy', 'false');
    }
  }
  pipeSel.addEventListener('change', load);
  rangeSel.addEventListener('change', load);
  await load();
  const budgets = await budgetSection(ctx.signal);
  if (!ctx.signal.aborted) add(view, budgets);
  const settings = await runSettingsSection(ctx.signal);
  if (settings && !ctx.signal.aborted) add(view, settings);
  const egress = await egressSection(ctx.signal);
  if (egress && !ctx.signal.aborted) add(view, egress);
}

// fetchRuns pages through the run log (newest first) back to since.
async function fetchRuns(pipe, since, signal) {
  const out = [];
  let cursor = null;
  while (!signal.aborted && out.length < MAX_RUNS) {
    const page = await api.runs({ pipe, limit: PAGE, cursor });
    for (const r of page.data || []) {
      if (new Date(r.created_at).getTime() < since) return out;
      out.push(r);
    }
    cursor = page.next_cursor;
    if (!cursor) break;
  }
  return out;
}

function bucketStart(t, size) {
  const d = new Date(t);
  if (size >= 86400e3) d.setHours(0, 0, 0, 0);
  else d.setMinutes(0, 0, 0);
  return d.getTime();
}

function draw(el, runs, since, n, size, pipe) {
  const buckets = [];
  for (let i = 0; i < n; i++) {
    const start = since + i * size;
    const d = new Date(start);
    const label = size >= 86400e3
      ? d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })
      : d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
    buckets.push({ start, label, runs: 0, errors: 0, prompt: 0, completion: 0, cost: 0, costKnown: false, latency: [] });
  }
  for (const r of runs) {
    const i = Math.floor((bucketStart(new Date(r.created_at).getTime(), size) - since) / size);
    const b = buckets[Math.min(Math.max(i, 0), n - 1)];
    b.runs++;
    if (r.status !== 'success') b.errors++;
    b.prompt += r.prompt_tokens || 0;
    b.completion += r.completion_tokens || 0;
    if (typeof r.cost_usd === 'number') {
      b.cost += r.cost_usd;
      b.costKnown = true;
    }
    if (typeof r.latency_ms === 'number') b.latency.push(r.latency_ms);
  }

  const lat = runs.map((r) => r.latency_ms).filter((v) => typeof v === 'number').sort((a, b) => a - b);
  const totalTokens = runs.reduce((a, r) => a + (r.total_tokens || 0), 0);
  const costs = runs.filter((r) => typeof r.cost_usd === 'number');
  const cost = costs.reduce((a, r) => a + r.cost_usd, 0);
  const errors = runs.filter((r) => r.status !== 'success').length;
  const avg = lat.length ? lat.reduce((a, v) => a + v, 0) / lat.length : null;
  const p95 = lat.length ? lat[Math.min(lat.length - 1, Math.floor(lat.length * 0.95))] : null;
  const scope = pipe ? `pipe ${pipe}` : 'all pipes';

  if (!runs.length) {
    replace(el, h('p', { class: 'empty' }, `No runs of ${scope} in this period. Runs appear here after the playground or the API runs a pipe.`));
    return;
  }
  replace(el,
    h('div', { class: 'stats' },
      stat('Runs', fmt.int(runs.length)),
      stat('Errors', fmt.int(errors)),
      stat('Tokens', fmt.int(totalTokens)),
      stat('Cost', costs.length ? fmt.usd(cost) : '–'),
      stat('Avg latency', fmt.ms(avg)),
      stat('p95 latency', fmt.ms(p95))),
    timeChart({
      id: 'chart-tokens', title: 'Tokens', kind: 'bar', format: compact,
      summary: `Prompt and completion tokens of ${scope}: ${fmt.int(totalTokens)} in ${runs.length} runs.`,
      series: [{ name: 'Prompt tokens', cls: 's1' }, { name: 'Completion tokens', cls: 's2' }],
      buckets: buckets.map((b) => ({ label: b.label, values: [b.prompt, b.completion],
        title: `${b.label}: ${b.runs} runs, ${fmt.int(b.prompt)} prompt + ${fmt.int(b.completion)} completion tokens` })),
    }),
    timeChart({
      id: 'chart-cost', title: 'Cost (USD, list prices)', kind: 'bar', format: (v) => `$${v < 1 ? v.toPrecision(2) : v.toFixed(0)}`,
      summary: costs.length ? `Cost of ${scope}: ${fmt.usd(cost)}.` : 'No run had a known price.',
      series: [{ name: 'Cost', cls: 's3' }],
      buckets: buckets.map((b) => ({ label: b.label, values: [b.cost],
        title: `${b.label}: ${b.costKnown ? fmt.usd(b.cost) : 'no known price'}` })),
    }),
    timeChart({
      id: 'chart-latency', title: 'Average latency', kind: 'line', format: (v) => (v > 0 && v < 10 ? `${+v.toPrecision(2)} ms` : fmt.ms(v)),
      summary: `Average latency of ${scope}: ${fmt.ms(avg)}, p95 ${fmt.ms(p95)}.`,
      series: [{ name: 'Average latency', cls: 's3' }],
      buckets: buckets.map((b) => {
        const a = b.latency.length ? b.latency.reduce((x, v) => x + v, 0) / b.latency.length : null;
        return { label: b.label, values: [a], title: `${b.label}: ${a === null ? 'no runs' : fmt.ms(a)}` };
      }),
    }),
    runsTable(runs.slice(0, 50)));
}

function stat(k, v) {
  return h('div', { class: 'stat' }, h('div', { class: 'v' }, v), h('div', { class: 'k' }, k));
}

function compact(v) {
  if (v >= 1e6) return `${(v / 1e6).toFixed(1)}M`;
  if (v >= 1e3) return `${(v / 1e3).toFixed(1)}k`;
  return String(Math.round(v));
}

function runsTable(runs) {
  return h('section', { 'aria-labelledby': 'runs-h' },
    h('h2', { id: 'runs-h' }, 'Latest runs'),
    h('div', { class: 'table-wrap' }, h('table', { id: 'runs-table' },
      h('caption', { class: 'visually-hidden' }, 'Latest runs, newest first'),
      h('thead', {}, h('tr', {}, [['When'], ['Pipe'], ['Kind'], ['Model'], ['Status'], ['Tokens', 1], ['Cost', 1], ['Latency', 1], ['First token', 1], ['Thread']]
        .map(([t, num]) => h('th', { scope: 'col', class: num ? 'num' : null }, t)))),
      h('tbody', {}, runs.map((r) => h('tr', { 'data-run': r.id },
        h('td', { class: 'nowrap' }, link(`/runs/${encodeURIComponent(r.id)}`, time(r.created_at), { 'aria-label': `Run ${r.id}`, 'data-run-link': r.id })),
        h('td', {}, r.pipe || r.endpoint),
        h('td', {}, r.kind || 'pipe'),
        h('td', {}, h('code', {}, r.model)),
        h('td', {}, h('span', { class: `badge ${r.status}` }, r.status), r.error ? h('p', { class: 'hint' }, r.error) : null),
        h('td', { class: 'num' }, `${fmt.int(r.total_tokens)}`),
        h('td', { class: 'num' }, fmt.usd(r.cost_usd)),
        h('td', { class: 'num' }, fmt.ms(r.latency_ms)),
        h('td', { class: 'num' }, fmt.ms(r.first_token_ms)),
        h('td', {}, r.thread_id ? link(`/threads/${encodeURIComponent(r.thread_id)}`, 'open', { 'aria-label': `Open thread ${r.thread_id}` }) : '–')))))));
}
