// One thread: its messages in order, tool calls and tool results included.

import { api } from '../api.js';
import { h, errorBox, announce, confirmDialog, time, add } from '../dom.js';
import { link, navigate } from '../app.js';
import { answerTools } from './playground.js';

export async function render(view, ctx) {
  const threadId = ctx.params.id;
  const [thread, messages, pipes] = await Promise.all([
    api.thread(threadId), api.threadMessages(threadId), api.pipes().catch(() => []),
  ]);
  const err = errorBox();
  const del = h('button', { type: 'button', class: 'danger' }, 'Delete thread');
  del.addEventListener('click', async () => {
    if (!await confirmDialog('Delete this thread and its messages?')) return;
    try {
      await api.deleteThread(threadId);
      announce('Thread deleted');
      navigate('/threads');
    } catch (ex) { err.show(ex); }
  });
  const md = Object.entries(thread.metadata || {});
  add(view, 
    h('div', { class: 'page-head' }, h('h1', {}, 'Thread'), h('div', { class: 'actions' }, del)),
    h('dl', { class: 'kv panel' },
      h('dt', {}, 'Id'), h('dd', {}, h('code', { id: 'thread-title' }, thread.id)),
      h('dt', {}, 'Created'), h('dd', {}, time(thread.created_at)),
      h('dt', {}, 'Messages'), h('dd', {}, String(messages.length)),
      thread.pipe ? [h('dt', {}, 'Pipe'), h('dd', {}, h('code', {}, thread.pipe))] : null,
      md.length ? [h('dt', {}, 'Metadata'), h('dd', {}, md.map(([k, v]) => `${k}=${v}`).join(', '))] : null),
    err.el,
    continueIn(thread, pipes, threadId),
    messages.length
      ? h('ol', { class: 'transcript', id: 'thread-messages', 'aria-label': 'Messages' }, messages.map(messageItem))
      : h('p', { class: 'empty' }, 'This thread has no messages.'));
}

/**
 * continueIn links the playground of the pipe that started the thread; a
 * thread made through the threads API may continue in any pipe.
 */
function continueIn(thread, pipes, threadId) {
  const play = (p) => link(`/pipes/${encodeURIComponent(p.owner_login)}/${encodeURIComponent(p.name)}/playground?thread=${encodeURIComponent(threadId)}`,
    p.name, { 'data-continue': p.name });
  if (thread.pipe) {
    const own = pipes.find((p) => p.name === thread.pipe);
    return own ? h('p', {}, 'Continue this thread in the playground of ', play(own), '.')
      : h('p', { class: 'muted' }, `This thread was started by the pipe "${thread.pipe}", which no longer exists.`);
  }
  if (!pipes.length) return null;
  return h('p', {}, 'Continue this thread in the playground of: ', pipes.map((p, i) => [i ? ', ' : '', play(p)]));
}

function messageItem(m) {
  const text = typeof m.content === 'string' ? m.content
    : Array.isArray(m.content) ? m.content.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('\n') : null;
  const li = h('li', { class: `msg ${m.role}`, 'data-message': m.id },
    h('div', { class: 'role' }, m.role === 'tool' ? `tool result${m.name ? ` (${m.name})` : ''}` : m.role,
      ' · ', time(m.created_at)),
    text !== null && text !== '' ? h('div', { class: 'content' }, text) : null);
  if (m.role === 'assistant' && text) answerTools(li, li.querySelector('.content'), text);
  if (m.tool_call_id) li.append(h('p', { class: 'meta' }, 'answers call ', h('code', {}, m.tool_call_id)));
  for (const c of m.tool_calls || []) {
    let args = c.function.arguments || '';
    try {
      args = JSON.stringify(JSON.parse(args), null, 2);
    } catch {
      // keep the raw text
    }
    li.append(h('div', { class: 'toolcall', 'data-tool': c.function.name },
      h('h4', {}, 'Tool call: ', h('code', {}, c.function.name), ' ', h('span', { class: 'muted' }, c.id)),
      h('pre', {}, args)));
  }
  return li;
}
