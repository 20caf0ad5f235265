// Chunk viewer: the chunks of one document's live version, in document
// order, as retrieval searches them.

import { api } from '../api.js';
import { h, errorBox, add, busy } from '../dom.js';
import { link } from '../app.js';

export async function render(view, ctx) {
  const { owner, name, doc } = ctx.params;
  const err = errorBox();
  const list = h('ol', { class: 'chunks', id: 'chunk-list', 'aria-label': `Chunks of ${doc}` });
  const summary = h('p', { class: 'muted', id: 'chunk-summary' });
  const more = h('button', { type: 'button', hidden: true, id: 'chunks-more' }, 'Load more chunks');
  add(view,
    h('p', {}, link(`/memory/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`, `← ${name}`)),
    h('div', { class: 'page-head' }, h('h1', {}, doc)),
    summary, err.el, list, h('div', { class: 'actions' }, more));

  let offset = 0;
  async function load() {
    try {
      const page = await api.chunks(name, doc, offset);
      summary.textContent = page.total
        ? `${page.total} chunk${page.total === 1 ? '' : 's'} of the searchable version (status: ${page.status}).`
        : `No searchable chunks yet (status: ${page.status}).`;
      for (const c of page.data) {
        list.append(h('li', { 'data-chunk': String(c.index) },
          h('div', { class: 'muted' }, `#${c.index + 1} · ${c.text.length} characters · `, h('code', {}, c.id)),
          h('pre', {}, c.text)));
      }
      offset = page.next_offset ?? offset;
      more.hidden = page.next_offset === null || page.next_offset === undefined;
    } catch (ex) {
      err.show(ex);
    }
  }
  more.addEventListener('click', () => busy(more, load));
  await load();
}
