// The studio's API client: the same endpoints the SDKs call, with the
// signed-in key from sessionStorage (never localStorage, never a cookie).

const KEY = 'hearth.apiKey';

export const session = {
  key() { return sessionStorage.getItem(KEY) || ''; },
  set(key) { sessionStorage.setItem(KEY, key); },
  clear() { sessionStorage.removeItem(KEY); },
};

/** APIError carries the HTTP status and the error JSON's code and message. */
export class APIError extends Error {
  constructor(status, code, message, field) {
    super(message);
    this.name = 'APIError';
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

/**
 * errorFrom reads an error response: 4xx bodies are
 * {error: {status, code, message, field}}, 5xx bodies {error: "msg", code}.
 */
export async function errorFrom(res) {
  let body = null;
  try {
    body = await res.json();
  } catch {
    // not JSON: fall back to the status line
  }
  const e = body && body.error;
  if (e && typeof e === 'object') {
    return new APIError(res.status, e.code || '', e.message || `${res.status} ${res.statusText}`, e.field);
  }
  if (typeof e === 'string') return new APIError(res.status, body.code || '', e);
  if (body && typeof body.message === 'string') return new APIError(res.status, '', body.message);
  return new APIError(res.status, '', `${res.status} ${res.statusText || 'request failed'}`);
}

/**
 * request calls the API. body is sent as JSON; opts.raw returns the
 * Response instead of its JSON (for streams); opts.key overrides the
 * session key (sign-in).
 */
export async function request(method, path, body, opts = {}) {
  const headers = { ...(opts.headers || {}) };
  const key = opts.key !== undefined ? opts.key : session.key();
  if (key) headers.Authorization = `Bearer ${key}`;
  const init = { method, headers, signal: opts.signal, cache: 'no-store' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new APIError(0, 'NETWORK', `could not reach the server (${err.message})`);
  }
  if (!res.ok) {
    const err = await errorFrom(res);
    if (res.status === 401 && opts.key === undefined) {
      window.dispatchEvent(new CustomEvent('hearth:unauthorized', { detail: err }));
    }
    throw err;
  }
  return opts.raw ? res : res.json();
}

const enc = encodeURIComponent;

/**
 * createWarned POSTs a create and returns its JSON with the server's
 * lb-warning header (a provider without a key) as .warning, '' if none.
 */
async function createWarned(path, body) {
  const res = await request('POST', path, body, { raw: true });
  const out = await res.json();
  return { ...out, warning: res.headers.get('lb-warning') || '' };
}

/** api names every endpoint the studio uses. */
export const api = {
  me: (key) => request('GET', '/v1/me', undefined, key === undefined ? {} : { key }),
  routes: () => request('GET', '/routes', undefined, { key: '' }),
  models: () => request('GET', '/v1/models'),
  providers: () => request('GET', '/v1/providers'),

  keys: () => request('GET', '/v1/keys'),
  createKey: (name, scope = {}) => request('POST', '/v1/keys', { name, ...scope }),
  revokeKey: (id) => request('DELETE', `/v1/keys/${enc(id)}`),
  keysets: () => request('GET', '/v1/keysets'),
  setKeyset: (provider, key) => request('PUT', `/v1/keysets/${enc(provider)}`, { key }),
  deleteKeyset: (provider) => request('DELETE', `/v1/keysets/${enc(provider)}`),

  pipes: () => request('GET', '/v1/pipes'),
  pipe: (name) => request('GET', `/v1/pipes/${enc(name)}`),
  createPipe: (body) => createWarned('/v1/pipes', body),
  updatePipe: (name, body) => request('POST', `/v1/pipes/${enc(name)}`, body),
  deletePipe: (name) => request('DELETE', `/v1/pipes/${enc(name)}`),
  rotatePipeKey: (name) => request('POST', `/v1/pipes/${enc(name)}/keys`, {}),
  pipeVersions: (name) => request('GET', `/v1/pipes/${enc(name)}/versions`),
  pipeVersionDiff: (name, from, to) => request('GET', `/v1/pipes/${enc(name)}/versions/diff?from=${enc(from)}&to=${enc(to)}`),
  restorePipeVersion: (name, n) => request('POST', `/v1/pipes/${enc(name)}/versions/${enc(n)}/restore`, {}),
  runPipe: (body, signal, llmKey) => request('POST', '/v1/pipes/run', body,
    { raw: true, signal, headers: llmKey ? { 'LB-LLM-Key': llmKey } : {} }),
  runs: ({ pipe, limit, cursor } = {}) => {
    const q = new URLSearchParams();
    if (limit) q.set('limit', String(limit));
    if (cursor) q.set('cursor', cursor);
    const base = pipe ? `/v1/pipes/${enc(pipe)}/runs` : '/v1/runs';
    const qs = q.toString();
    return request('GET', qs ? `${base}?${qs}` : base);
  },

  run: (id) => request('GET', `/v1/runs/${enc(id)}`),

  threads: (cursor) => request('GET', cursor ? `/v1/threads?cursor=${enc(cursor)}` : '/v1/threads'),
  thread: (id) => request('GET', `/v1/threads/${enc(id)}`),
  threadMessages: (id) => request('GET', `/v1/threads/${enc(id)}/messages`),
  deleteThread: (id) => request('DELETE', `/v1/threads/${enc(id)}`),

  memories: () => request('GET', '/v1/memory'),
  createMemory: (body) => createWarned('/v1/memory', body),
  deleteMemory: (name) => request('DELETE', `/v1/memory/${enc(name)}`),
  documents: (memory) => request('GET', `/v1/memory/${enc(memory)}/documents`),
  deleteDocument: (memory, doc) => request('DELETE', `/v1/memory/${enc(memory)}/documents/${enc(doc)}`),
  retryDocument: (memory, doc) => request('GET', `/v1/memory/${enc(memory)}/documents/${enc(doc)}/embeddings/retry`),
  startUpload: (memoryName, documentName, meta) =>
    request('POST', '/v1/memory/documents', { memoryName, documentName, ...(meta ? { meta } : {}) }),
  retrieve: (body) => request('POST', '/v1/memory/retrieve', body),
  chunks: (memory, doc, offset = 0) => request('GET', `/v1/memory/${enc(memory)}/documents/${enc(doc)}/chunks?limit=50&offset=${offset}`),

  agentRun: (body, signal) => request('POST', '/v1/agent/run', body, { raw: true, signal }),
  images: (body, signal, llmKey) => request('POST', '/v1/images', body, { signal, headers: llmKey ? { 'LB-LLM-Key': llmKey } : {} }),
  webSearch: (body) => request('POST', '/v1/tools/web-search', body),
  crawl: (body) => request('POST', '/v1/tools/crawl', body),
};

/**
 * sameOrigin maps an absolute URL the server issued (a signed upload URL
 * built from HEARTH_PUBLIC_URL) onto the studio's own origin when they
 * differ, e.g. behind a proxy: the studio's CSP allows only its origin.
 */
export function sameOrigin(url) {
  const u = new URL(url, location.href);
  if (u.origin === location.origin) return u.href;
  return u.pathname + u.search;
}

/** upload runs step 2 of a document upload: PUT the bytes to the signed URL. */
export async function putDocument(signedUrl, file, contentType) {
  const res = await fetch(sameOrigin(signedUrl), {
    method: 'PUT',
    headers: { 'Content-Type': contentType, Authorization: `Bearer ${session.key()}` },
    body: file,
  });
  if (!res.ok) throw await errorFrom(res);
  return res.json();
}

/** contentTypeOf picks the upload Content-Type from a file name. */
export function contentTypeOf(name, fallback) {
  const ext = (name.split('.').pop() || '').toLowerCase();
  const types = {
    pdf: 'application/pdf',
    md: 'text/markdown',
    markdown: 'text/markdown',
    csv: 'text/csv',
    xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    xls: 'application/vnd.ms-excel',
  };
  if (types[ext]) return types[ext];
  if (fallback && fallback.startsWith('text/') && fallback !== 'text/html') return 'text/plain';
  // Text and code files all go up as text/plain, as the API asks.
  return 'text/plain';
}
