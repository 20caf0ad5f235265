// Memories: the caller's memories and a form to create one.

import { api } from '../api.js';
import { h, field, errorBox, announce, busy, replace, add } from '../dom.js';
import { link, navigate, state } from '../app.js';

// Embedding models a memory can use (the API accepts any model of a
// configured provider; these are suggestions).
export const EMBEDDING_MODELS = [
  ['openai:text-embedding-3-large', 'OpenAI'],
  ['openai:text-embedding-3-small', 'OpenAI'],
  ['cohere:embed-v4.0', 'Cohere'],
  ['cohere:embed-multilingual-v3.0', 'Cohere'],
  ['cohere:embed-multilingual-light-v3.0', 'Cohere'],
  ['google:text-embedding-004', 'Google'],
  ['hearth:bm25', 'keyword search only, no embeddings'],
  ['hearth:hash-embed', 'offline test double'],
];

export async function render(view) {
  const err = errorBox();
  const list = h('div', { class: 'table-wrap' }, h('p', { class: 'loading' }, 'Loading memories…'));
  add(view, 
    h('div', { class: 'page-head' }, h('h1', {}, 'Memory')),
    h('p', { class: 'muted' }, 'A memory holds documents, split into chunks and embedded, so pipes can answer from them (RAG).'),
    err.el, list, createForm());
  try {
    const mems = await api.memories();
    if (!mems.length) {
      replace(list, h('p', { class: 'empty' }, 'No memories yet. Create one below.'));
      return;
    }
    replace(list, h('table', { id: 'memory-table' },
      h('caption', { class: 'visually-hidden' }, 'Your memories'),
      h('thead', {}, h('tr', {}, ['Name', 'Embedding model', 'Chunk size', 'Overlap', 'Description'].map((t, i) =>
        h('th', { scope: 'col', class: i === 2 || i === 3 ? 'num' : null }, t)))),
      h('tbody', {}, mems.map((m) => h('tr', { 'data-memory': m.name },
        h('th', { scope: 'row' }, link(`/memory/${encodeURIComponent(m.owner_login)}/${encodeURIComponent(m.name)}`, m.name)),
        h('td', {}, h('code', {}, m.embeddingModel || m.embedding_model)),
        h('td', { class: 'num' }, m.chunk_size ?? '–'),
        h('td', { class: 'num' }, m.chunk_overlap ?? '–'),
        h('td', {}, m.description || h('span', { class: 'muted' }, '—')))))));
  } catch (ex) {
    list.replaceChildren();
    err.show(ex);
  }
}

function createForm() {
  const err = errorBox();
  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: '100', pattern: '[a-zA-Z0-9][a-zA-Z0-9._\\-]{0,99}', autocomplete: 'off', spellcheck: 'false' });
  const description = h('input', { type: 'text', name: 'description', maxlength: '2000' });
  const model = h('input', { type: 'text', name: 'embedding_model', list: 'embedding-models', value: EMBEDDING_MODELS[0][0], required: true, autocomplete: 'off', spellcheck: 'false' });
  const size = h('input', { type: 'number', name: 'chunk_size', min: '1', max: '30000', step: '1', value: '10000', required: true });
  const overlap = h('input', { type: 'number', name: 'chunk_overlap', min: '0', max: '29999', step: '1', value: '2048', required: true });
  const topK = h('input', { type: 'number', name: 'top_k', min: '1', max: '100', step: '1', value: '10', required: true });
  const checkOverlap = () => overlap.setCustomValidity(Number(overlap.value) >= Number(size.value) ? 'The overlap must be smaller than the chunk size.' : '');
  size.addEventListener('input', checkOverlap);
  overlap.addEventListener('input', checkOverlap);
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create memory');
  const options = h('datalist', { id: 'embedding-models' }, EMBEDDING_MODELS.map(([v, l]) => h('option', { value: v }, l)));
  // The server's default embedder, and which suggestions lack a key.
  api.providers().then((st) => {
    if (!model.dataset.edited) model.value = st.default_embedding_model;
    const ready = new Map(st.providers.map((p) => [p.provider, p.ready]));
    const rows = EMBEDDING_MODELS.map(([v, l]) => [v, l, ready.get(v.split(':')[0]) !== false]);
    rows.sort((a, b) => Number(b[2]) - Number(a[2]));
    options.replaceChildren(...rows.map(([v, l, ok]) => h('option', { value: v },
      `${l}${v === st.default_embedding_model ? ', default' : ''}${ok ? '' : ' (no API key)'}`)));
  }).catch(() => {}).finally(() => { form.dataset.defaults = 'loaded'; });
  model.addEventListener('input', () => { model.dataset.edited = '1'; });
  const form = h('form', { class: 'panel', id: 'memory-form', 'aria-labelledby': 'mem-create-h' },
    h('h2', { id: 'mem-create-h' }, 'Create a memory'),
    err.el,
    options,
    h('div', { class: 'grid wide' },
      field('Name', name, 'Letters, digits, ".", "_" or "-".'),
      field('Embedding model', model, 'provider:model. It cannot change later: documents are embedded with it.')),
    field('Description', description),
    h('div', { class: 'grid' },
      field('Chunk size (1 to 30000 characters)', size),
      field('Chunk overlap (less than the chunk size)', overlap),
      field('Chunks per memory in a pipe run (top_k, 1 to 100)', topK)),
    h('div', { class: 'actions' }, submit));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.clear();
    checkOverlap();
    if (!form.checkValidity()) {
      form.reportValidity();
      return;
    }
    await busy(submit, async () => {
      try {
        const m = await api.createMemory({
          name: name.value.trim(), description: description.value, embedding_model: model.value.trim(),
          chunk_size: Number(size.value), chunk_overlap: Number(overlap.value), top_k: Number(topK.value),
        });
        announce(`Memory ${m.name} created`);
        state.flash = m.warning;
        navigate(`/memory/${encodeURIComponent(m.owner_login)}/${encodeURIComponent(m.name)}`);
      } catch (ex) {
        err.show(ex);
      }
    });
  });
  return form;
}
