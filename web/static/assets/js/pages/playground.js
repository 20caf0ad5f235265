// Playground: chat with a pipe through POST /v1/pipes/run, streamed as it
// arrives, continuing one thread (lb-thread-id) until "New thread".

import { api } from '../api.js';
import { h, field, checkbox, errorBox, announce, fmt, replace, add } from '../dom.js';
import { link, state } from '../app.js';
import { readSSE, ChatAccumulator } from '../sse.js';
import { renderInto, copyButton } from '../md.js';
import { pipeSubnav } from './pipes.js';

const VAR_RE = /\{\{\s*([^{}]+?)\s*\}\}/g;

export async function render(view, ctx) {
  const pipe = await api.pipe(ctx.params.name);
  const s = { threadId: ctx.query.get('thread') || '', running: null };

  add(view, 
    h('div', { class: 'page-head' }, h('h1', {}, `${pipe.name} playground`),
      h('span', { class: 'muted' }, h('code', {}, pipe.model))),
    pipeSubnav(pipe.owner_login, pipe.name, 'playground'));
  if (ctx.params.owner !== state.me.login) {
    add(view, h('p', { class: 'notice' }, `This link names the owner "${ctx.params.owner}"; you are signed in as ${state.me.login} and run your own pipe "${pipe.name}".`));
  }

  // Settings column: stream, variables, thread.
  const stream = checkbox('stream', 'Stream the answer', pipe.stream !== false, 'Show tokens as they arrive (stream: true).');
  const varInputs = variablesOf(pipe).map(([name, value]) => {
    const input = h('input', { type: 'text', name: `var-${name}`, value });
    input.dataset.var = name;
    return { name, input, el: field(name, input) };
  });
  const llmKey = h('input', { type: 'password', name: 'llm-key', autocomplete: 'off', spellcheck: 'false' });
  const threadInfo = h('dd', { id: 'thread-id' });
  const newThread = h('button', { type: 'button', id: 'new-thread' }, 'New thread');
  const settings = h('aside', { class: 'panel', 'aria-labelledby': 'pg-settings' },
    h('h2', { id: 'pg-settings' }, 'Run settings'),
    stream.el,
    h('fieldset', {}, h('legend', {}, 'Variables'),
      varInputs.length ? varInputs.map((v) => v.el)
        : h('p', { class: 'hint' }, 'This pipe has no variables. Add {{name}} placeholders to its prompts to get fields here.')),
    field('Provider key for these runs (optional)', llmKey,
      'Sent as the LB-LLM-Key header instead of your stored keys; kept only on this page.'),
    h('h3', {}, 'Thread'),
    h('dl', { class: 'kv' }, h('dt', {}, 'Thread id'), threadInfo),
    pipe.store === false ? h('p', { class: 'hint' }, 'Store is off for this pipe: messages are not kept, so each message runs without the earlier ones.') : null,
    h('div', { class: 'actions' }, newThread));

  // Conversation column.
  const transcript = h('ol', { class: 'transcript', id: 'transcript', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation' });
  const err = errorBox();
  const input = h('textarea', { name: 'message', rows: '3', required: true, placeholder: 'Write a message…' });
  const send = h('button', { type: 'submit', class: 'primary', id: 'send' }, 'Send');
  const stop = h('button', { type: 'button', id: 'stop', hidden: true }, 'Stop');
  const composer = h('form', { class: 'panel composer', id: 'composer', 'aria-label': 'Send a message' },
    field('Message', input, 'Enter sends; Shift+Enter adds a line.'),
    h('div', { class: 'actions' }, send, stop));
  const chat = h('section', { 'aria-labelledby': 'pg-chat' },
    h('h2', { id: 'pg-chat', class: 'visually-hidden' }, 'Conversation'),
    transcript, err.el, composer);
  add(view, h('div', { class: 'cols' }, settings, chat));

  const showThread = () => {
    if (s.threadId) {
      replace(threadInfo, link(`/threads/${encodeURIComponent(s.threadId)}`, s.threadId, { 'data-thread': s.threadId }));
    } else {
      replace(threadInfo, h('span', { class: 'muted' }, 'a new thread starts with the next message'));
    }
  };
  showThread();

  newThread.addEventListener('click', () => {
    if (s.running) s.running.abort();
    s.threadId = '';
    transcript.replaceChildren();
    err.clear();
    showThread();
    announce('New thread: the next message starts a new conversation');
    input.focus();
  });
  stop.addEventListener('click', () => s.running && s.running.abort());
  ctx.signal.addEventListener('abort', () => s.running && s.running.abort());
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      composer.requestSubmit();
    }
  });
  composer.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = input.value;
    if (!text.trim() || s.running) return;
    input.value = '';
    run([{ role: 'user', content: text }]);
  });

  if (s.threadId) await loadThread();

  async function loadThread() {
    try {
      const msgs = await api.threadMessages(s.threadId);
      for (const m of msgs) transcript.append(messageItem(m.role, m.content, m.tool_calls, m.name));
    } catch (ex) {
      err.show(ex);
    }
  }

  function variables() {
    const out = {};
    for (const v of varInputs) out[v.name] = v.input.value;
    return out;
  }

  async function run(messages) {
    err.clear();
    for (const m of messages) transcript.append(messageItem(m.role, m.content, null, m.name));
    const answer = messageItem('assistant', '', null);
    const content = answer.querySelector('.content');
    const meta = h('p', { class: 'meta' }, 'Waiting for the model…');
    answer.append(meta);
    answer.setAttribute('aria-busy', 'true');
    transcript.setAttribute('aria-busy', 'true');
    transcript.append(answer);
    answer.scrollIntoView({ block: 'nearest' });

    const controller = new AbortController();
    s.running = controller;
    send.disabled = true;
    stop.hidden = false;
    const body = { name: pipe.name, messages, variables: variables(), stream: stream.input.checked };
    if ((pipe.memory || []).length) body.include_sources = true;
    if (s.threadId) body.threadId = s.threadId;
    const acc = new ChatAccumulator();
    const t0 = performance.now();
    const startedAt = Date.now();
    let firstToken = null;
    let failed = null;
    try {
      const res = await api.runPipe(body, controller.signal, llmKey.value.trim());
      const tid = res.headers.get('lb-thread-id');
      if (tid) {
        s.threadId = tid;
        showThread();
      }
      if (body.stream && (res.headers.get('Content-Type') || '').startsWith('text/event-stream')) {
        await readSSE(res, (chunk) => {
          const added = acc.add(chunk);
          if (added) {
            if (firstToken === null) {
              firstToken = performance.now() - t0;
              meta.textContent = 'Streaming…';
            }
            content.append(added);
          }
        });
      } else {
        const json = await res.json();
        const raw = json.raw || json;
        const msg = ((raw.choices || [])[0] || {}).message || {};
        acc.add({ choices: [{ index: 0, delta: { content: json.completion ?? msg.content ?? '', tool_calls: (msg.tool_calls || []).map((t, i) => ({ index: i, ...t })) }, finish_reason: ((raw.choices || [])[0] || {}).finish_reason }], usage: raw.usage, model: raw.model, sources: json.sources });
        content.textContent = acc.text;
      }
    } catch (ex) {
      failed = ex;
    }
    const total = performance.now() - t0;
    s.running = null;
    send.disabled = false;
    stop.hidden = true;
    answer.setAttribute('aria-busy', 'false');
    transcript.setAttribute('aria-busy', 'false');
    if (acc.toolCalls.length) answer.append(toolCallsBlock(acc.toolCalls, (results) => run(results)));
    if (acc.sources) answer.append(sourcesBlock(acc.sources));
    if (failed && failed.name === 'AbortError') {
      if (acc.text) answerTools(answer, content, acc.text);
      meta.textContent = `Stopped after ${fmt.ms(total)}.`;
      announce('Run stopped');
      return;
    }
    if (failed) {
      if (!acc.text && !acc.toolCalls.length) answer.remove();
      else meta.textContent = `Interrupted after ${fmt.ms(total)}.`;
      err.show(failed);
      announce(`Run failed: ${failed.message}`);
      return;
    }
    if (!acc.text && !acc.toolCalls.length) content.append(h('span', { class: 'muted' }, '(empty answer)'));
    else if (acc.text) answerTools(answer, content, acc.text);
    const usage = acc.usage || await usageFromRunLog(pipe.name, s.threadId, startedAt, ctx.signal);
    meta.replaceChildren(runMeta(usage, total, firstToken, acc));
    announce(acc.toolCalls.length ? `The model called ${acc.toolCalls.map((t) => t.function.name).join(', ')}` : 'Answer complete');
    input.focus();
  }
}

/**
 * sourcesBlock lists the memory chunks a run used, collapsed: a summary
 * line, each chunk's text inside its own details.
 */
export function sourcesBlock(sources) {
  const summary = sources.length
    ? `Sources: ${sources.length} chunk${sources.length === 1 ? '' : 's'} from memory`
    : 'Sources: no memory chunk matched';
  return h('details', { class: 'sources' },
    h('summary', {}, summary),
    h('ol', {}, sources.map((s) => h('li', { 'data-document': s.document },
      h('details', {},
        h('summary', {}, h('code', {}, `${s.memory} / ${s.document}`), ` · score ${Number(s.score).toFixed(2)}`),
        h('pre', { class: 'chunk' }, s.text))))));
}

/** variablesOf lists the pipe's variables plus {{placeholders}} of its prompts. */
function variablesOf(pipe) {
  const vars = new Map((pipe.variables || []).map((v) => [v.name, v.value]));
  for (const m of pipe.messages || []) {
    if (typeof m.content !== 'string') continue;
    for (const match of m.content.matchAll(VAR_RE)) if (!vars.has(match[1])) vars.set(match[1], '');
  }
  return [...vars.entries()];
}

function messageItem(role, content, toolCalls, name) {
  const text = typeof content === 'string' ? content
    : Array.isArray(content) ? content.filter((p) => p.type === 'text').map((p) => p.text).join('\n') : '';
  const body = h('div', { class: 'content' }, text);
  const li = h('li', { class: `msg ${role}` },
    h('div', { class: 'role' }, role === 'tool' && name ? `tool result (${name})` : role), body);
  if (role === 'assistant' && text) answerTools(li, body, text);
  if (toolCalls && toolCalls.length) li.append(toolCallsBlock(toolCalls, null));
  return li;
}

/**
 * toolCallsBlock shows the tool calls of an answer; when onReply is set it
 * also offers a form to send each call's result back to the model.
 */
function toolCallsBlock(calls, onReply) {
  const box = h('div', { class: 'toolcalls' });
  const answers = [];
  for (const c of calls) {
    let args = c.function.arguments || '';
    try {
      args = JSON.stringify(JSON.parse(args), null, 2);
    } catch {
      // keep the raw text
    }
    const item = h('div', { class: 'toolcall', 'data-tool': c.function.name },
      h('h4', {}, 'Tool call: ', h('code', {}, c.function.name)),
      h('pre', { 'aria-label': `Arguments of ${c.function.name}` }, args));
    if (onReply) {
      const ta = h('textarea', { name: 'tool-result', rows: '2' });
      answers.push({ c, ta });
      item.append(field(`Result of ${c.function.name} (${c.id})`, ta));
    }
    box.append(item);
  }
  if (onReply) {
    const send = h('button', { type: 'submit', class: 'small' }, calls.length > 1 ? 'Send tool results' : 'Send tool result');
    const form = h('form', { class: 'actions' }, send);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      send.disabled = true;
      onReply(answers.map(({ c, ta }) => ({ role: 'tool', tool_call_id: c.id, name: c.function.name, content: ta.value })));
    });
    box.append(form);
  }
  return box;
}

function runMeta(usage, total, firstToken, acc) {
  const parts = [];
  if (usage) {
    parts.push(`${fmt.int(usage.total_tokens)} tokens (${fmt.int(usage.prompt_tokens)} prompt + ${fmt.int(usage.completion_tokens)} completion)`);
  } else {
    parts.push('tokens not reported');
  }
  if (usage && typeof usage.cost_usd === 'number') parts.push(fmt.usd(usage.cost_usd));
  parts.push(`${fmt.ms(total)} total`);
  if (firstToken !== null) parts.push(`first token after ${fmt.ms(firstToken)}`);
  if (acc.finishReason) parts.push(`finish: ${acc.finishReason}`);
  return h('span', { 'data-usage': usage ? String(usage.total_tokens) : '' }, parts.join(' · '));
}

/**
 * usageFromRunLog finds the run's record when the stream did not report
 * usage: the newest record of the thread started after the run. The run
 * log is written just after the answer, so it is polled briefly.
 */
async function usageFromRunLog(pipeName, threadId, startedAt, signal) {
  for (let i = 0; i < 6 && !signal.aborted; i++) {
    try {
      const page = await api.runs({ pipe: pipeName, limit: 5 });
      const rec = (page.data || []).find((r) => !threadId || r.thread_id === threadId);
      // A few seconds of slack for clock skew between browser and server.
      if (rec && new Date(rec.created_at).getTime() >= startedAt - 5000) {
        return { prompt_tokens: rec.prompt_tokens, completion_tokens: rec.completion_tokens, total_tokens: rec.total_tokens, cost_usd: rec.cost_usd };
      }
    } catch {
      return null;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return null;
}

/**
 * answerTools renders a finished answer as markdown and adds a button
 * copying its raw text.
 */
export function answerTools(li, content, text) {
  renderInto(content, text);
  li.querySelector(':scope > .msg-tools')?.remove();
  content.after(h('div', { class: 'msg-tools' }, copyButton(() => text, 'Copy answer')));
}
