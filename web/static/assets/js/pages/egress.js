// Outbound connections: the egress policy and record of this node
// (GET /v1/admin/egress, admin user only; README "Running air-gapped").

import { request } from '../api.js';
import { h, fmt, time } from '../dom.js';

// egressSection returns the section, or null for a user who is not the
// admin (the route answers 403) or a server without the record.
export async function egressSection(signal) {
  let rep;
  try {
    rep = await request('GET', '/v1/admin/egress', undefined, { signal });
  } catch {
    return null;
  }
  const allow = rep.allow && rep.allow.length ? rep.allow.join(', ') : 'none';
  const rows = rep.destinations || [];
  return h('section', { 'aria-labelledby': 'egress-h', id: 'egress' },
    h('h2', { id: 'egress-h' }, 'Outbound connections'),
    h('p', { class: 'hint', id: 'egress-policy' },
      `Egress mode ${rep.mode}${rep.mode === 'allowlist' ? ` (allowed: ${allow})` : ''}. Connections this node made or refused since it started.`),
    rows.length
      ? h('div', { class: 'table-wrap' }, h('table', { id: 'egress-table' },
        h('caption', { class: 'visually-hidden' }, 'Outbound connections by destination'),
        h('thead', {}, h('tr', {}, [['Host'], ['Port'], ['Feature'], ['Outcome'], ['Connections', 1], ['Last']]
          .map(([t, num]) => h('th', { scope: 'col', class: num ? 'num' : null }, t)))),
        h('tbody', {}, rows.map((d) => h('tr', { 'data-outcome': d.outcome },
          h('td', {}, h('code', {}, d.host)),
          h('td', {}, d.port),
          h('td', {}, d.feature),
          h('td', {}, h('span', { class: `badge ${d.outcome === 'refused' ? 'error' : 'success'}` }, d.outcome)),
          h('td', { class: 'num' }, fmt.int(d.count)),
          h('td', { class: 'nowrap' }, time(d.last)))))))
      : h('p', { class: 'empty' }, 'No outbound connections since start.'));
}
