// One memory: its documents with live status, uploads (drag and drop or a
// file input) through the API's two-step signed-URL flow, and a retrieval
// tester.

import { api, putDocument, contentTypeOf, APIError } from '../api.js';
import { h, field, checkbox, errorBox, announce, confirmDialog, busy, fmt, time, replace, id, add } from '../dom.js';
import { navigate, state, link } from '../app.js';

const POLL_MS = 1500;
const ACTIVE = new Set(['queued', 'in_progress']);

export async function render(view, ctx) {
  const all = await api.memories();
  const mem = all.find((m) => m.name === ctx.params.name);
  if (!mem) throw new APIError(404, 'NOT_FOUND', `memory "${ctx.params.name}" not found`);

  const err = errorBox();
  const del = h('button', { type: 'button', class: 'danger' }, 'Delete memory');
  add(view, 
    h('div', { class: 'page-head' }, h('h1', {}, mem.name), h('div', { class: 'actions' }, del)),
    ctx.params.owner !== state.me.login
      ? h('p', { class: 'notice' }, `This link names the owner "${ctx.params.owner}"; you are signed in as ${state.me.login} and see your own memory "${mem.name}".`) : null,
    mem.description ? h('p', {}, mem.description) : null,
    h('dl', { class: 'kv panel' },
      h('dt', {}, 'Embedding model'), h('dd', {}, h('code', {}, mem.embeddingModel || mem.embedding_model)),
      h('dt', {}, 'Chunk size'), h('dd', {}, `${mem.chunk_size ?? '–'} characters, overlap ${mem.chunk_overlap ?? '–'}`),
      h('dt', {}, 'Chunks per pipe run'), h('dd', {}, String(mem.top_k ?? '–'))),
    err.el);
  del.addEventListener('click', async () => {
    if (!await confirmDialog(`Delete the memory ${mem.name} and all its documents? Pipes that use it will fail until you remove it from them.`)) return;
    try {
      await api.deleteMemory(mem.name);
      announce(`Memory ${mem.name} deleted`);
      navigate('/memory');
    } catch (ex) { err.show(ex); }
  });

  const docs = documentsTable(mem, ctx.signal, err);
  add(view, uploadSection(mem, docs.refresh), docs.el, retrieveSection(mem, all));
  await docs.refresh();
}

/** documentsTable lists the documents and polls while any is being processed. */
function documentsTable(mem, signal, err) {
  const body = h('div', { class: 'table-wrap', id: 'documents' });
  const el = h('section', { 'aria-labelledby': 'docs-h' }, h('h2', { id: 'docs-h' }, 'Documents'), body);
  const last = new Map(); // name -> status, to announce changes
  let timer = null;

  async function refresh() {
    clearTimeout(timer);
    if (signal.aborted) return;
    let docs;
    try {
      docs = await api.documents(mem.name);
    } catch (ex) {
      err.show(ex);
      return;
    }
    if (signal.aborted) return;
    for (const d of docs) {
      const before = last.get(d.name);
      if (before && before !== d.status) {
        announce(`${d.name}: ${d.status.replace('_', ' ')}${d.status === 'failed' && d.status_message ? ` (${d.status_message})` : ''}`);
      }
      last.set(d.name, d.status);
    }
    draw(docs);
    if (docs.some((d) => ACTIVE.has(d.status))) timer = setTimeout(refresh, POLL_MS);
  }
  signal.addEventListener('abort', () => clearTimeout(timer));

  // Rows are kept and updated one by one, so a poll does not take the
  // keyboard focus (or a click in progress) away from a row that did not
  // change; a changed row keeps focus on its button of the same name.
  const rows = new Map(); // document name -> {sig, tr}
  let tbody = null;
  function draw(docs) {
    if (!docs.length) {
      rows.clear();
      tbody = null;
      replace(body, h('p', { class: 'empty' }, 'No documents yet. Upload some above.'));
      return;
    }
    if (!tbody || !body.contains(tbody)) {
      rows.clear();
      tbody = h('tbody');
      replace(body, h('table', {},
        h('caption', { class: 'visually-hidden' }, `Documents of ${mem.name}`),
        h('thead', {}, h('tr', {}, ['Document', 'Status', 'Size', 'Type', 'Chunks', 'Updated'].map((t, i) =>
          h('th', { scope: 'col', class: i === 2 || i === 4 ? 'num' : null }, t)),
          h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')))),
        tbody));
    }
    const names = new Set(docs.map((d) => d.name));
    for (const [n, r] of rows) {
      if (!names.has(n)) {
        r.tr.remove();
        rows.delete(n);
      }
    }
    let prev = null;
    for (const d of docs) {
      const sig = JSON.stringify([d.status, d.status_message, d.metadata, d.chunks, d.updated_at]);
      let r = rows.get(d.name);
      if (!r || r.sig !== sig) {
        const tr = docRow(d);
        const focused = r && r.tr.contains(document.activeElement) ? document.activeElement.getAttribute('aria-label') : null;
        if (r) r.tr.replaceWith(tr);
        r = { sig, tr };
        rows.set(d.name, r);
        if (focused !== null) {
          const same = [...tr.querySelectorAll('button')].find((b) => b.getAttribute('aria-label') === focused);
          (same || tr.querySelector('button')).focus();
        }
      }
      const want = prev ? prev.nextSibling : tbody.firstChild;
      if (r.tr !== want) tbody.insertBefore(r.tr, want);
      prev = r.tr;
    }
  }

  function docRow(d) {
    const actions = h('div', { class: 'actions' });
    if (d.status === 'failed') {
      const retry = h('button', { type: 'button', class: 'small', 'aria-label': `Retry ${d.name}` }, 'Retry');
      retry.addEventListener('click', () => busy(retry, async () => {
        try {
          const res = await api.retryDocument(mem.name, d.name);
          announce(res.success ? `${d.name}: retry started` : `${d.name}: ${res.message || 'nothing to retry'}`);
          await refresh();
        } catch (ex) { err.show(ex); }
      }));
      actions.append(retry);
    }
    const del = h('button', { type: 'button', class: 'small danger', 'aria-label': `Delete ${d.name}` }, 'Delete');
    del.addEventListener('click', async () => {
      if (!await confirmDialog(`Delete the document ${d.name} from ${mem.name}?`)) return;
      try {
        await api.deleteDocument(mem.name, d.name);
        last.delete(d.name);
        announce(`${d.name} deleted`);
        await refresh();
      } catch (ex) { err.show(ex); }
    });
    actions.append(del);
    return h('tr', { 'data-doc': d.name, 'data-status': d.status },
      h('th', { scope: 'row' }, link(`/memory/${encodeURIComponent(mem.owner_login || ctx.params.owner)}/${encodeURIComponent(mem.name)}/documents/${encodeURIComponent(d.name)}`,
        d.name, { 'aria-label': `Chunks of ${d.name}` })),
      h('td', {}, h('span', { class: `badge ${d.status}` }, d.status.replace('_', ' ')),
        d.status_message ? h('p', { class: d.status === 'failed' ? 'field-error' : 'hint' }, d.status_message) : null),
      h('td', { class: 'num' }, fmt.bytes(d.metadata && d.metadata.size)),
      h('td', {}, (d.metadata && d.metadata.type) || ''),
      h('td', { class: 'num' }, d.chunks ?? '–'),
      h('td', {}, time(d.updated_at || d.created_at)),
      h('td', {}, actions));
  }

  return { el, refresh };
}

/** uploadSection takes files by drag and drop or the file input. */
function uploadSection(mem, refresh) {
  const err = errorBox();
  const inputId = id('files');
  const input = h('input', { type: 'file', id: inputId, name: 'files', multiple: true,
    accept: '.txt,.md,.markdown,.csv,.pdf,.xlsx,.xls,.json,.html,.xml,.yaml,.yml,.js,.ts,.py,.go,.java,.rb,.rs,.c,.h,.cpp,.sh,.sql,text/*,application/pdf' });
  const meta = h('textarea', { name: 'meta', rows: '2', placeholder: 'author=Ada\ncategory=docs' });
  const progress = h('ul', { class: 'uploads', id: 'upload-progress', 'aria-live': 'polite' });
  const zone = h('div', { class: 'dropzone', id: 'dropzone' },
    h('p', {}, h('strong', {}, 'Drop files here'), ' or'),
    h('p', {}, h('label', { for: inputId, class: 'button' }, 'Choose files…'), input),
    h('p', { class: 'hint' }, 'Text, Markdown, CSV, PDF, Excel and code files, up to the server limit (10 MB by default). A file with the name of an existing document replaces it.'));
  input.classList.add('visually-hidden');
  // The label looks like a button; keyboard users tab to the input itself,
  // and the label shows its focus ring (CSS :focus-within).
  input.addEventListener('change', () => {
    upload([...input.files]);
    input.value = '';
  });
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    upload([...(e.dataTransfer ? e.dataTransfer.files : [])]);
  });

  function parseMeta() {
    const out = {};
    for (const line of meta.value.split('\n')) {
      const t = line.trim();
      if (!t) continue;
      const eq = t.indexOf('=');
      if (eq < 1) throw new Error(`Metadata line "${t}" is not key=value.`);
      out[t.slice(0, eq).trim()] = t.slice(eq + 1).trim();
    }
    if (Object.keys(out).length > 10) throw new Error('At most 10 metadata pairs.');
    return Object.keys(out).length ? out : undefined;
  }

  async function upload(files) {
    err.clear();
    if (!files.length) return;
    let m;
    try {
      m = parseMeta();
    } catch (ex) {
      err.show(ex);
      meta.focus();
      return;
    }
    for (const f of files) {
      const item = h('li', { 'data-upload': f.name }, `${f.name}: uploading…`);
      progress.append(item);
      try {
        const { signedUrl } = await api.startUpload(mem.name, f.name, m);
        await putDocument(signedUrl, f, contentTypeOf(f.name, f.type));
        item.textContent = `${f.name}: uploaded; its status is in the documents list`;
      } catch (ex) {
        item.textContent = `${f.name}: upload failed: ${ex.message}`;
        item.classList.add('field-error');
        err.show(new Error(`${f.name}: ${ex.message}`));
      }
      await refresh();
    }
  }

  return h('section', { class: 'panel', 'aria-labelledby': 'upload-h' },
    h('h2', { id: 'upload-h' }, 'Upload documents'),
    err.el, zone,
    field('Metadata for the next uploads (optional, key=value per line, at most 10)', meta, 'Retrieval filters match on these.'),
    progress);
}

/** retrieveSection runs POST /v1/memory/retrieve and ranks the chunks. */
function retrieveSection(mem, all) {
  const err = errorBox();
  const query = h('input', { type: 'search', name: 'query', required: true, autocomplete: 'off' });
  const topK = h('input', { type: 'number', name: 'topK', min: '1', max: '100', step: '1', value: '5', required: true });
  const boxes = all.map((m) => {
    const cb = checkbox('retrieve-memory', m.name, m.name === mem.name);
    cb.input.value = m.name;
    return cb;
  });
  const results = h('div', { id: 'retrieve-results', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Retrieve');
  const form = h('form', { id: 'retrieve-form', 'aria-labelledby': 'ret-h' },
    h('div', { class: 'grid wide' }, field('Query', query), field('Chunks to return (topK, 1 to 100)', topK)),
    h('fieldset', {}, h('legend', {}, 'Search these memories'), h('div', { class: 'grid' }, boxes.map((b) => b.el))),
    h('div', { class: 'actions' }, submit));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.clear();
    if (!form.checkValidity()) {
      form.reportValidity();
      return;
    }
    const memory = boxes.filter((b) => b.input.checked).map((b) => ({ name: b.input.value }));
    if (!memory.length) {
      err.show(new Error('Pick at least one memory.'));
      return;
    }
    await busy(submit, async () => {
      try {
        const t0 = performance.now();
        const chunks = await api.retrieve({ query: query.value, memory, topK: Number(topK.value) });
        drawResults(results, chunks, performance.now() - t0);
      } catch (ex) {
        results.replaceChildren();
        err.show(ex);
      }
    });
  });
  return h('section', { class: 'panel', 'aria-labelledby': 'ret-h' },
    h('h2', { id: 'ret-h' }, 'Test retrieval'),
    h('p', { class: 'hint' }, 'The chunks a pipe run would get for this text, best first.'),
    err.el, form, results);
}

// A chunk longer than this many characters or lines starts collapsed.
const CLAMP_CHARS = 400;
const CLAMP_LINES = 5;

/** clampedText shows a chunk's first lines, with "Show all" for the rest. */
function clampedText(text) {
  const pre = h('pre', {}, text);
  if (text.length <= CLAMP_CHARS && text.split('\n').length <= CLAMP_LINES) return [pre];
  pre.classList.add('clamped');
  const more = h('button', { type: 'button', class: 'small show-all', 'aria-expanded': 'false' }, 'Show all');
  more.addEventListener('click', () => {
    const open = pre.classList.toggle('clamped') === false;
    more.textContent = open ? 'Show less' : 'Show all';
    more.setAttribute('aria-expanded', String(open));
  });
  return [pre, more];
}

function drawResults(el, chunks, ms) {
  if (!chunks.length) {
    replace(el, h('p', { class: 'empty' }, `No chunks found (${fmt.ms(ms)}). Documents still being processed are not searchable yet.`));
    return;
  }
  replace(el,
    h('p', { class: 'muted' }, `${chunks.length} chunk${chunks.length === 1 ? '' : 's'} in ${fmt.ms(ms)}, best first.`),
    h('ol', { class: 'results' }, chunks.map((c, i) => {
      const doc = c.documentName || (c.meta && (c.meta.documentName || c.meta.docName)) || '';
      const extra = Object.entries(c.meta || {}).filter(([k]) => k !== 'documentName' && k !== 'docName');
      const sim = typeof c.similarity === 'number' ? c.similarity : 0;
      return h('li', { 'data-rank': String(i + 1) },
        h('div', { class: 'head' },
          h('strong', {}, `#${i + 1}`),
          h('span', {}, 'similarity ', h('meter', { min: '0', max: '1', value: String(Math.max(0, Math.min(1, sim))), 'aria-hidden': 'true' }),
            ' ', h('span', { class: 'sim' }, sim.toFixed(3))),
          h('span', {}, 'document ', h('code', { class: 'doc' }, doc)),
          c.memoryName ? h('span', {}, 'memory ', h('code', {}, c.memoryName)) : null),
        ...clampedText(c.text),
        extra.length ? h('p', { class: 'hint' }, extra.map(([k, v]) => `${k}=${v}`).join(', ')) : null);
    })));
}
