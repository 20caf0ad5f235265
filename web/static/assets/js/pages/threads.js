// Threads: the caller's stored conversations, newest first, each with the
// pipe that started it, its first message and its length.

import { api } from '../api.js';
import { h, errorBox, time, replace, add } from '../dom.js';
import { link } from '../app.js';

export async function render(view) {
  const err = errorBox();
  const tbody = h('tbody');
  const table = h('table', { id: 'threads-table' },
    h('caption', { class: 'visually-hidden' }, 'Threads'),
    h('thead', {}, h('tr', {}, ['First message', 'Pipe', 'Messages', 'Created'].map((t) => h('th', { scope: 'col' }, t)))),
    tbody);
  const more = h('button', { type: 'button', hidden: true }, 'Load more');
  const body = h('div', { class: 'table-wrap' });
  add(view,
    h('div', { class: 'page-head' }, h('h1', {}, 'Threads')),
    h('p', { class: 'muted' }, 'Conversations stored by pipe runs (with store on) and by the threads API.'),
    err.el, body, h('div', { class: 'actions' }, more));

  let cursor = null;
  async function load() {
    try {
      const page = await api.threads(cursor);
      const rows = page.data || [];
      if (!cursor && !rows.length) {
        replace(body, h('p', { class: 'empty' }, 'No threads yet. Run a pipe in the playground to start one.'));
        return;
      }
      if (!body.contains(table)) replace(body, table);
      for (const t of rows) {
        const title = t.first_message || '(no user message)';
        tbody.append(h('tr', { 'data-thread': t.id },
          h('th', { scope: 'row' }, link(`/threads/${encodeURIComponent(t.id)}`, title, { title: t.id })),
          h('td', { 'data-pipe': t.pipe || '' }, t.pipe ? h('code', {}, t.pipe) : h('span', { class: 'muted' }, 'threads API')),
          h('td', { class: 'num', 'data-count': String(t.message_count ?? '') }, String(t.message_count ?? '–')),
          h('td', {}, time(t.created_at))));
      }
      cursor = page.next_cursor || null;
      more.hidden = !cursor;
    } catch (ex) {
      err.show(ex);
    }
  }
  more.addEventListener('click', load);
  await load();
}
