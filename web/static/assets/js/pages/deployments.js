// Deployments: the models served by several servers, each deployment's
// state as this node sees it (GET /v1/providers: health, calls in flight,
// median latency, errors), and for the operator the declarations with
// where each comes from (GET /v1/deployments, admin user only).

import { api, request } from '../api.js';
import { h, errorBox, fmt, time, replace, add } from '../dom.js';

const STATE_BADGE = { healthy: 'success', cooling: 'error', probing: 'in_progress' };
const REFRESH_MS = 5000;

export async function render(view, ctx) {
  const err = errorBox();
  const state = h('div', { id: 'deployments-state', 'aria-live': 'polite' });
  const declared = h('div', { id: 'deployments-declared' });
  add(view,
    h('div', { class: 'page-head' }, h('h1', {}, 'Deployments')),
    h('p', { class: 'muted' }, 'Models served by several servers. Health, calls in flight and latency are this node\'s own view: each node of a cluster keeps its own.'),
    err.el, state, declared);

  async function load() {
    try {
      const st = await api.providers();
      if (ctx.signal.aborted) return;
      const rows = (st.providers || []).flatMap((p) => p.deployments || []);
      replace(state, rows.length ? stateTable(rows)
        : h('p', { class: 'empty' }, 'No model is served by deployments. Declare them in the configuration, with POST /v1/deployments or in hearth apply files.'));
      err.clear();
    } catch (ex) {
      if (!ctx.signal.aborted) err.show(ex);
    }
  }
  await load();
  const timer = setInterval(load, REFRESH_MS);
  ctx.signal.addEventListener('abort', () => clearInterval(timer));

  let list = null;
  try {
    list = await request('GET', '/v1/deployments', undefined, { signal: ctx.signal });
  } catch {
    return; // not the operator: the declarations are the admin's
  }
  if (!ctx.signal.aborted) replace(declared, declaredSection(list.deployments || []));
}

// stateTable shows each deployment's state, one row per deployment.
function stateTable(rows) {
  const heads = [['Model'], ['Deployment'], ['State'], ['In flight', 1], ['p50', 1], ['Errors', 1], ['Requests', 1], ['Weight', 1], ['Last error']];
  return h('div', { class: 'table-wrap' }, h('table', { id: 'deployments-table' },
    h('caption', { class: 'visually-hidden' }, 'Deployments and their state on this node'),
    h('thead', {}, h('tr', {}, heads.map(([t, num]) => h('th', { scope: 'col', class: num ? 'num' : null }, t)))),
    h('tbody', {}, rows.map((d) => h('tr', { 'data-deployment': `${d.model}/${d.name}`, 'data-state': d.state },
      h('td', {}, h('code', {}, d.model)),
      h('th', { scope: 'row' }, d.name),
      h('td', {}, h('span', { class: `badge ${STATE_BADGE[d.state] || ''}` }, d.state),
        d.cooling_until ? h('span', { class: 'muted' }, ' until ', time(d.cooling_until)) : null),
      h('td', { class: 'num', 'data-col': 'in_flight' }, fmt.int(d.in_flight)),
      h('td', { class: 'num', 'data-col': 'p50' }, d.p50_ms ? fmt.ms(d.p50_ms) : '–'),
      h('td', { class: 'num', 'data-col': 'errors' }, fmt.int(d.errors)),
      h('td', { class: 'num', 'data-col': 'requests' }, fmt.int(d.requests)),
      h('td', { class: 'num' }, fmt.int(d.weight)),
      h('td', { class: 'muted' }, d.last_error || ''))))));
}

// declaredSection lists the declarations: stored ones (API, hearth apply)
// and the configuration's, read-only; keys show their last four
// characters only.
function declaredSection(list) {
  return h('section', { 'aria-labelledby': 'declared-h' },
    h('h2', { id: 'declared-h' }, 'Declared deployments'),
    h('p', { class: 'hint' }, 'Stored ones are managed with /v1/deployments or hearth apply; the configuration\'s are read-only.'),
    list.length
      ? h('div', { class: 'table-wrap' }, h('table', { id: 'declared-table' },
        h('caption', { class: 'visually-hidden' }, 'Declared deployments'),
        h('thead', {}, h('tr', {}, [['Name'], ['Model'], ['Base URL'], ['Source'], ['Key'], ['Weight', 1], ['Max concurrency', 1], ['TPM', 1]]
          .map(([t, num]) => h('th', { scope: 'col', class: num ? 'num' : null }, t)))),
        h('tbody', {}, list.map((d) => h('tr', { 'data-declared': d.name, 'data-source': d.source },
          h('th', { scope: 'row' }, d.name),
          h('td', {}, h('code', {}, d.model)),
          h('td', {}, h('code', {}, d.base_url)),
          h('td', {}, h('span', { class: `badge ${d.source === 'config' ? 'private' : 'public'}` }, d.source)),
          h('td', { 'data-col': 'key' }, d.api_key_last4 ? `…${d.api_key_last4}` : h('span', { class: 'muted' }, 'none')),
          h('td', { class: 'num' }, fmt.int(d.weight || 1)),
          h('td', { class: 'num' }, d.max_concurrency ? fmt.int(d.max_concurrency) : '–'),
          h('td', { class: 'num' }, d.tpm ? fmt.int(d.tpm) : '–'))))))
      : h('p', { class: 'empty' }, 'No deployments are declared.'));
}
