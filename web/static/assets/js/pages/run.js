// One run of the run log (GET /v1/runs/{id}): its record, the MCP tool
// calls an agent made and, when the pipe or the owner opted in, the
// messages sent and the completion (README "Run log").

import { api } from '../api.js';
import { h, fmt, time, add } from '../dom.js';
import { link } from '../app.js';

export async function render(view, ctx) {
  const r = await api.run(ctx.params.id);
  add(view,
    h('div', { class: 'page-head' }, h('h1', {}, 'Run'), h('div', { class: 'actions' }, link('/usage', 'Back to Usage'))),
    h('dl', { class: 'kv panel', id: 'run-record' },
      row('Id', h('code', { id: 'run-id' }, r.id)),
      row('When', time(r.created_at)),
      row('Kind', h('span', { id: 'run-kind' }, r.kind)),
      r.pipe ? row('Pipe', h('code', {}, r.pipe), r.pipe_version ? ` (version ${r.pipe_version})` : '') : null,
      row('Endpoint', h('code', {}, r.endpoint)),
      row('Model', h('code', {}, r.model)),
      row('Status', h('span', { class: `badge ${r.status}` }, r.status), r.error ? h('p', { class: 'hint', id: 'run-error' }, r.error) : null),
      row('Tokens', `${fmt.int(r.prompt_tokens)} prompt + ${fmt.int(r.completion_tokens)} completion = ${fmt.int(r.total_tokens)}`),
      r.images ? row('Images', fmt.int(r.images)) : null,
      row('Cost', fmt.usd(r.cost_usd)),
      row('Latency', fmt.ms(r.latency_ms)),
      r.stream ? row('First token', fmt.ms(r.first_token_ms)) : null,
      r.thread_id ? row('Thread', link(`/threads/${encodeURIComponent(r.thread_id)}`, r.thread_id)) : null),
    toolCalls(r.tool_calls || []),
    content(r));
}

function row(k, ...v) {
  return [h('dt', {}, k), h('dd', {}, ...v)];
}

function toolCalls(calls) {
  if (!calls.length) return null;
  return h('section', { 'aria-labelledby': 'run-tools-h' },
    h('h2', { id: 'run-tools-h' }, 'MCP tool calls'),
    h('div', { class: 'table-wrap' }, h('table', { id: 'run-tools' },
      h('thead', {}, h('tr', {}, ['Tool', 'Server', 'Duration', 'Error'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, calls.map((c) => h('tr', { 'data-tool': c.name },
        h('td', {}, h('code', {}, c.name)), h('td', {}, c.server), h('td', { class: 'num' }, fmt.ms(c.duration_ms)),
        h('td', {}, c.error || '–')))))));
}

function content(r) {
  const head = h('h2', { id: 'run-content-h' }, 'Prompt and completion');
  if (!r.content) {
    return h('section', { 'aria-labelledby': 'run-content-h' }, head,
      h('p', { class: 'empty', id: 'run-no-content' }, r.content_stored
        ? 'The content of this run was kept, and its retention period has ended.'
        : 'The content of this run was not stored. Turn on "log_content" for the pipe, or for every run of the owner with PUT /v1/runs/settings.'));
  }
  const c = r.content;
  return h('section', { 'aria-labelledby': 'run-content-h' }, head,
    h('p', { class: 'muted' }, 'Kept until ', time(c.expires_at), '; keys are redacted.'),
    h('ol', { class: 'transcript', id: 'run-messages', 'aria-label': 'Messages sent' }, (c.messages || []).map(message)),
    h('h3', {}, 'Completion'),
    h('pre', { id: 'run-completion' }, c.completion || ''),
    (c.tool_calls || []).map((t) => h('div', { class: 'toolcall', 'data-tool': t.function.name },
      h('h4', {}, 'Tool call: ', h('code', {}, t.function.name)), h('pre', {}, t.function.arguments || ''))));
}

function message(m) {
  const text = typeof m.content === 'string' ? m.content
    : Array.isArray(m.content) ? m.content.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('\n') : '';
  return h('li', { class: `msg ${m.role}` }, h('div', { class: 'role' }, m.role), text ? h('div', { class: 'content' }, text) : null,
    (m.tool_calls || []).map((t) => h('p', { class: 'meta' }, 'calls ', h('code', {}, t.function.name))));
}
