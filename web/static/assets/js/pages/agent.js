// Agent: one POST /v1/agent/run with every parameter in the form: a model,
// instructions, the input, optional function tools and MCP servers. Nothing
// is stored; the answer streams in and can be stopped.

import { api } from '../api.js';
import { h, field, checkbox, errorBox, announce, fmt, add } from '../dom.js';
import { readSSE, ChatAccumulator } from '../sse.js';
import { renderInto, copyButton } from '../md.js';

const MCP_EXAMPLE = '[{"name": "calc", "type": "url", "url": "https://mcp.example.com/mcp"}]';

export async function render(view, ctx) {
  const catalogue = await api.models().catch(() => ({}));
  const chatModels = Object.values(catalogue).flat().filter((m) => m.type === 'text');
  const listId = 'agent-models';
  const model = h('input', { type: 'text', name: 'model', list: listId, value: 'hearth:echo', required: true, spellcheck: 'false' });
  const instructions = h('textarea', { name: 'instructions', rows: '2' });
  const input = h('textarea', { name: 'input', rows: '4', required: true, placeholder: 'What should the agent do?' });
  const tools = h('textarea', { name: 'tools', rows: '4', class: 'code', spellcheck: 'false', placeholder: '[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]' });
  const mcp = h('textarea', { name: 'mcp_servers', rows: '3', class: 'code', spellcheck: 'false', placeholder: MCP_EXAMPLE });
  const stream = checkbox('stream', 'Stream the answer', true);
  const run = h('button', { type: 'submit', class: 'primary', id: 'agent-run' }, 'Run');
  const stop = h('button', { type: 'button', id: 'agent-stop', hidden: true }, 'Stop');
  const err = errorBox();
  const form = h('form', { class: 'panel', id: 'agent-form', 'aria-label': 'Agent run' },
    field('Model', model, 'provider:model, e.g. openai:gpt-4o-mini; hearth:echo answers offline.'),
    h('datalist', { id: listId }, chatModels.map((m) => h('option', { value: m.id }))),
    field('Instructions (system message)', instructions),
    field('Input', input),
    field('Tools (JSON array, optional)', tools, 'Function tools the model may call; their calls are shown below.'),
    field('MCP servers (JSON array, optional)', mcp, 'Remote MCP servers whose tools the agent calls itself (README "MCP servers").'),
    stream.el,
    h('div', { class: 'actions' }, run, stop));
  const out = h('section', { class: 'panel', id: 'agent-output', 'aria-labelledby': 'agent-out-h', 'aria-live': 'polite', hidden: true });
  add(view,
    h('div', { class: 'page-head' }, h('h1', {}, 'Agent')),
    h('p', { class: 'muted' }, 'Run a model once with tools and MCP servers, without a stored pipe. Nothing is kept.'),
    h('div', { class: 'cols' }, form, h('div', {}, err.el, out)));

  let running = null;
  stop.addEventListener('click', () => running && running.abort());
  ctx.signal.addEventListener('abort', () => running && running.abort());
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (running) return;
    err.clear();
    const body = { model: model.value.trim(), input: input.value, stream: stream.input.checked };
    if (instructions.value.trim()) body.instructions = instructions.value;
    try {
      if (tools.value.trim()) body.tools = parseJSON('tools', tools.value);
      if (mcp.value.trim()) body.mcp_servers = parseJSON('mcp_servers', mcp.value);
    } catch (ex) {
      err.show(ex);
      return;
    }
    const content = h('div', { class: 'content', id: 'agent-answer' });
    const meta = h('p', { class: 'meta muted', id: 'agent-meta' }, 'Waiting for the model…');
    out.replaceChildren(h('h2', { id: 'agent-out-h' }, 'Answer'), content, meta);
    out.hidden = false;
    out.setAttribute('aria-busy', 'true');
    running = new AbortController();
    run.disabled = true;
    stop.hidden = false;
    const acc = new ChatAccumulator();
    const t0 = performance.now();
    let failed = null;
    try {
      const res = await api.agentRun(body, running.signal);
      if (body.stream && (res.headers.get('Content-Type') || '').startsWith('text/event-stream')) {
        await readSSE(res, (chunk) => {
          const added = acc.add(chunk);
          if (added) content.append(added);
        });
      } else {
        const json = await res.json();
        const msg = ((json.choices || [])[0] || {}).message || {};
        acc.add({ choices: [{ index: 0, delta: { content: json.output ?? msg.content ?? '', tool_calls: (msg.tool_calls || []).map((t, i) => ({ index: i, ...t })) } }], usage: json.usage });
      }
    } catch (ex) {
      failed = ex;
    }
    const total = performance.now() - t0;
    running = null;
    run.disabled = false;
    stop.hidden = true;
    out.setAttribute('aria-busy', 'false');
    if (acc.text) {
      renderInto(content, acc.text);
      content.after(h('div', { class: 'msg-tools' }, copyButton(() => acc.text, 'Copy answer')));
    }
    for (const c of acc.toolCalls) {
      out.append(h('div', { class: 'toolcall', 'data-tool': c.function.name },
        h('h4', {}, 'Tool call: ', h('code', {}, c.function.name)), h('pre', {}, c.function.arguments || '')));
    }
    if (failed && failed.name === 'AbortError') {
      meta.textContent = `Stopped after ${fmt.ms(total)}.`;
      announce('Run stopped');
      return;
    }
    if (failed) {
      meta.textContent = `Failed after ${fmt.ms(total)}.`;
      err.show(failed);
      return;
    }
    const u = acc.usage;
    meta.textContent = [u ? `${fmt.int(u.total_tokens)} tokens` : 'tokens not reported', `${fmt.ms(total)} total`].join(' · ');
    announce('Answer complete');
  });
}

/** parseJSON parses a JSON array field, naming it in the error. */
function parseJSON(name, text) {
  let v;
  try {
    v = JSON.parse(text);
  } catch (ex) {
    throw new Error(`${name}: not valid JSON (${ex.message})`);
  }
  if (!Array.isArray(v)) throw new Error(`${name}: must be a JSON array`);
  return v;
}
