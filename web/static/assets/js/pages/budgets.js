// Budgets: the owner's spending limits and their use this period
// (GET/POST /v1/budgets, DELETE /v1/budgets/{id}; README "Budgets"),
// shown on the Usage page.

import { request } from '../api.js';
import { h, field, errorBox, announce, confirmDialog, fmt, time, busy, replace } from '../dom.js';

const enc = encodeURIComponent;

// budgetSection returns the Budgets section of the Usage page.
export async function budgetSection(signal) {
  const err = errorBox();
  const list = h('div', { class: 'table-wrap', id: 'budgets-body', 'aria-live': 'polite' });
  const keys = await request('GET', '/v1/keys', undefined, { signal }).catch(() => []);
  const live = keys.filter((k) => !k.revoked_at);
  const keyName = (id) => {
    const k = keys.find((x) => x.id === id);
    return k ? `key ${k.name || k.prefix} (${id})` : `key ${id}`;
  };
  const subject = h('select', { name: 'key_id' },
    h('option', { value: '' }, 'The whole account (all keys)'),
    live.map((k) => h('option', { value: k.id }, `Key ${k.name || k.prefix} (${k.id})`)));
  const period = h('select', { name: 'period' }, h('option', { value: 'month' }, 'Month (UTC)'), h('option', { value: 'day' }, 'Day (UTC)'));
  const usd = h('input', { type: 'number', name: 'limit_usd', min: '0', step: 'any', inputmode: 'decimal' });
  const tokens = h('input', { type: 'number', name: 'limit_tokens', min: '1', step: '1', inputmode: 'numeric' });
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save budget');
  const form = h('form', { class: 'panel', id: 'budget-form', 'aria-labelledby': 'budget-form-h' },
    h('h3', { id: 'budget-form-h' }, 'Set or replace a budget'),
    h('div', { class: 'grid' },
      field('Applies to', subject),
      field('Period', period, 'Days and months are UTC calendar periods.'),
      field('Limit (USD)', usd, 'List prices, as in the cost chart. Optional if a token limit is set.'),
      field('Limit (tokens)', tokens, 'Prompt plus completion tokens. Optional if a dollar limit is set.')),
    h('div', { class: 'actions' }, save));

  async function load() {
    const rows = await request('GET', '/v1/budgets', undefined, { signal });
    if (!rows.length) {
      replace(list, h('p', { class: 'empty' }, 'No budgets. Runs are not limited by spend.'));
      return;
    }
    replace(list, h('table', { id: 'budgets-table' },
      h('caption', { class: 'visually-hidden' }, 'Budgets and their use this period'),
      h('thead', {}, h('tr', {}, [['Applies to'], ['Period'], ['Dollars', 1], ['Tokens', 1], ['Resets'], ['']]
        .map(([t, num]) => h('th', { scope: 'col', class: num ? 'num' : null }, t || h('span', { class: 'visually-hidden' }, 'Actions'))))),
      h('tbody', {}, rows.map((b) => {
        const who = b.key_id ? keyName(b.key_id) : 'Whole account';
        const remove = h('button', { type: 'button', class: 'small danger', 'aria-label': `Delete the ${b.period} budget of ${who}` }, 'Delete');
        remove.addEventListener('click', async () => {
          if (!await confirmDialog(`Delete the ${b.period === 'day' ? 'daily' : 'monthly'} budget of ${who}?`, { confirmLabel: 'Delete' })) return;
          err.clear();
          try {
            await request('DELETE', `/v1/budgets/${enc(b.id)}`);
            announce('Budget deleted');
            await load();
          } catch (ex) { err.show(ex); }
        });
        const used = [usage(b.used_usd, b.limit_usd, fmt.usd), usage(b.used_tokens, b.limit_tokens, fmt.int)];
        const over = used.some((u) => u.reached);
        return h('tr', { 'data-budget': b.id, 'data-reached': over ? 'true' : 'false' },
          h('th', { scope: 'row' }, who, over ? [' ', h('span', { class: 'badge error' }, 'reached')] : null),
          h('td', {}, b.period),
          h('td', { class: 'num' }, used[0].el),
          h('td', { class: 'num' }, used[1].el),
          h('td', { class: 'nowrap' }, time(b.resets_at)),
          h('td', {}, h('div', { class: 'actions' }, remove)));
      }))));
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.clear();
    const body = { period: period.value };
    if (subject.value) body.key_id = subject.value;
    if (usd.value !== '') body.limit_usd = Number(usd.value);
    if (tokens.value !== '') body.limit_tokens = Number(tokens.value);
    await busy(save, async () => {
      try {
        await request('POST', '/v1/budgets', body);
        usd.value = '';
        tokens.value = '';
        announce('Budget saved');
        await load();
      } catch (ex) { err.show(ex); }
    });
  });

  const section = h('section', { 'aria-labelledby': 'budgets-h', id: 'budgets' },
    h('h2', { id: 'budgets-h' }, 'Budgets'),
    h('p', { class: 'hint' }, 'Spending limits of this account and its keys. A run that would start past a budget is refused (429) until the budget resets.'),
    err.el, list, form);
  try { await load(); } catch (ex) { err.show(ex); }
  return section;
}

// usage renders "used of limit" with a meter; "–" when there is no limit.
function usage(used, limit, format) {
  if (typeof limit !== 'number') return { el: '–', reached: false };
  const reached = used >= limit;
  const label = `${format(used)} of ${format(limit)}`;
  return {
    reached,
    el: h('span', { class: 'budget-use' }, label, ' ',
      h('meter', { min: '0', max: String(limit), value: String(Math.min(used, limit)), high: String(limit * 0.8), 'aria-label': label })),
  };
}
