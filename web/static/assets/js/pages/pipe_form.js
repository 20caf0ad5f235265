// Create or edit a pipe: every setting of the v1 pipe API.

import { api } from '../api.js';
import { h, field, checkbox, errorBox, announce, confirmDialog, secretReveal, busy, id, replace, add } from '../dom.js';
import { link, navigate, state } from '../app.js';
import { pipeSubnav } from './pipes.js';
import { snippetsPanel } from './snippets.js';

// The defaults of a v1-created pipe (https://langbase.com/docs/api-reference/pipe/create).
const DEFAULTS = {
  name: '', description: '', status: 'public', type: 'chat', model: 'openai:gpt-4o-mini',
  stream: true, json: false, store: true, moderate: false,
  top_p: 1, max_tokens: 1000, temperature: 0.7, presence_penalty: 1, frequency_penalty: 1,
  stop: [], tool_choice: 'auto', parallel_tool_calls: true,
  messages: [], variables: [], tools: [], memory: [], response_format: { type: 'text' },
};

// Parameter ranges the server enforces.
const PARAMS = [
  ['temperature', 'Temperature', 0, 2, 0.1, 'Randomness: 0 is focused, 2 is very random.'],
  ['top_p', 'Top P', 0, 1, 0.05, 'Nucleus sampling: the probability mass considered.'],
  ['max_tokens', 'Max tokens', 1, 1000000, 1, 'Upper bound on the completion length.'],
  ['presence_penalty', 'Presence penalty', -2, 2, 0.1, 'Positive values favour new topics.'],
  ['frequency_penalty', 'Frequency penalty', -2, 2, 0.1, 'Positive values discourage repetition.'],
];

const PROMPTS = [
  ['', 'System prompt', 'Instructions at the top of every run. Use {{name}} to insert a variable.'],
  ['safety', 'Safety prompt', 'Rules the model must not break; sent as its own system message.'],
  ['json', 'JSON prompt', 'Describes the JSON to answer with (used with JSON mode).'],
  ['rag', 'RAG prompt', 'How to use the memory chunks retrieved for a run.'],
  ['opening', 'Opening message', 'A greeting for chat front-ends (not sent to the model).'],
];

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

// A pipe key shown once after creation, carried across the navigation to
// the pipe's page.
let pendingKey = null;

export async function render(view, ctx) {
  const create = !!ctx.params.create;
  const err = errorBox();
  const [catalogue, memories, keyStatus, pipe] = await Promise.all([
    api.models().catch(() => ({})),
    api.memories().catch(() => null),
    api.providers().catch(() => null),
    create ? Promise.resolve(null) : api.pipe(ctx.params.name),
  ]);
  const p = { ...DEFAULTS, ...(pipe || {}) };
  if (create) p.model = keyStatus ? keyStatus.default_model : pickDefaultModel(catalogue, p.model);

  const head = h('div', { class: 'page-head' },
    h('h1', {}, create ? 'New pipe' : p.name),
    create ? null : h('span', { class: `badge ${p.status}` }, p.status));
  add(view, head);
  if (!create) {
    add(view, pipeSubnav(p.owner_login, p.name, 'settings'));
    if (ctx.params.owner !== state.me.login) {
      add(view, h('p', { class: 'notice' }, `This link names the owner "${ctx.params.owner}"; you are signed in as ${state.me.login}, so you see your own pipe "${p.name}".`));
    }
  }
  const reveal = h('div');
  add(view, reveal, err.el);
  if (!create && pendingKey && pendingKey.name === p.name) {
    const box = secretReveal('Pipe key', pendingKey.key,
      'Pipe created. This key runs this one pipe (POST /v1/pipes/run). It is shown once: copy it now. You can issue a new one below.');
    reveal.append(box);
    pendingKey = null;
    setTimeout(() => box.focus(), 0);
  }

  const form = h('form', { id: 'pipe-form', 'aria-label': create ? 'New pipe' : `Settings of ${p.name}` });
  const controls = {};

  // Basics
  controls.name = h('input', { type: 'text', name: 'name', value: p.name, required: true, maxlength: '100',
    pattern: '[a-zA-Z0-9][a-zA-Z0-9._\\-]{0,99}', autocomplete: 'off', spellcheck: 'false' });
  controls.description = h('textarea', { name: 'description', rows: '2' });
  controls.description.value = p.description || '';
  controls.type = select('type', [['chat', 'chat'], ['generate', 'generate'], ['run', 'run']], p.type);
  const status = radioGroup('status', 'Visibility', [['public', 'Public'], ['private', 'Private']], p.status);
  form.append(h('fieldset', {}, h('legend', {}, 'Pipe'),
    h('div', { class: 'grid' },
      field('Name', controls.name, 'Letters, digits, ".", "_" or "-"; used in API calls.'),
      field('Type', controls.type)),
    field('Description', controls.description),
    status.el));

  // Model and parameters
  const model = modelPicker(catalogue, p.model, keyStatus);
  const params = {};
  for (const [key, label, min, max, step] of PARAMS) {
    params[key] = h('input', { type: 'number', name: key, min: String(min), max: String(max), step: String(step),
      value: String(p[key]), required: true, inputmode: 'decimal' });
    params[key].dataset.label = label;
  }
  const stops = [0, 1, 2, 3].map((i) => h('input', { type: 'text', name: 'stop', value: p.stop[i] || '', maxlength: '500', 'aria-label': `Stop sequence ${i + 1}` }));
  form.append(h('fieldset', {}, h('legend', {}, 'Model'),
    model.el,
    h('div', { class: 'grid' }, PARAMS.map(([key, label, min, max, , hint]) =>
      field(`${label} (${min} to ${max})`, params[key], hint))),
    h('div', { class: 'field' },
      h('span', { class: 'label', id: 'stops-label' }, 'Stop sequences (up to 4)'),
      h('div', { class: 'grid', role: 'group', 'aria-labelledby': 'stops-label' }, stops))));

  // Prompts
  const sysMsgs = {};
  const fewShot = [];
  for (const m of p.messages || []) {
    if (m.role === 'system' && (!m.name || PROMPTS.some(([n]) => n === m.name))) sysMsgs[m.name || ''] = textOf(m.content);
    else fewShot.push(m);
  }
  const prompts = {};
  form.append(h('fieldset', {}, h('legend', {}, 'Prompts'),
    PROMPTS.map(([name, label, hint]) => {
      const ta = h('textarea', { name: `prompt-${name || 'system'}`, rows: name ? '2' : '5' });
      ta.value = sysMsgs[name] || '';
      prompts[name] = ta;
      return field(label, ta, hint);
    })));

  // Few-shot messages
  const shots = rowEditor({
    title: 'Few-shot messages',
    hint: 'Example exchanges placed after the system prompts, before the conversation.',
    addLabel: 'Add example message',
    rows: fewShot,
    build: (m, row) => {
      const role = select('role', [['user', 'user'], ['assistant', 'assistant']], m.role === 'assistant' ? 'assistant' : 'user');
      const content = h('textarea', { name: 'content', rows: '2' });
      content.value = textOf(m.content);
      row.read = () => ({ ...m, role: role.value, content: content.value });
      return [field('Role', role), field('Content', content)];
    },
    blank: () => ({ role: 'user', content: '' }),
  });
  form.append(shots.el);

  // Variables
  const vars = rowEditor({
    title: 'Variables',
    hint: 'Default values for {{name}} placeholders in the prompts; runs can override them.',
    addLabel: 'Add variable',
    rows: p.variables || [],
    rowClass: 'vars',
    build: (v, row) => {
      const name = h('input', { type: 'text', name: 'var-name', value: v.name || '', maxlength: '100', autocomplete: 'off', spellcheck: 'false' });
      const value = h('input', { type: 'text', name: 'var-value', value: v.value || '' });
      row.read = () => ({ name: name.value.trim(), value: value.value });
      return [field('Name', name), field('Value', value)];
    },
    blank: () => ({ name: '', value: '' }),
  });
  form.append(vars.el);

  // Tools and tool choice
  const tools = toolsEditor(p.tools || []);
  const toolChoice = select('tool_choice', [], '');
  const refreshChoice = () => {
    const cur = toolChoice.value || choiceValue(p.tool_choice);
    const opts = [['auto', 'auto: the model decides'], ['required', 'required: the model must call a tool'], ['none', 'none: no tool calls']];
    for (const t of tools.valid() || []) opts.push([`fn:${t.function.name}`, `always call ${t.function.name}`]);
    replace(toolChoice, opts.map(([v, l]) => h('option', { value: v }, l)));
    toolChoice.value = opts.some(([v]) => v === cur) ? cur : 'auto';
  };
  tools.textarea.addEventListener('input', refreshChoice);
  const parallel = checkbox('parallel_tool_calls', 'Parallel tool calls', p.parallel_tool_calls, 'Let the model call several tools in one turn.');
  form.append(h('fieldset', {}, h('legend', {}, 'Tools'),
    tools.el, field('Tool choice', toolChoice), parallel.el));
  toolChoice.value = choiceValue(p.tool_choice);
  refreshChoice();

  // Memories
  const memBoxes = [];
  const memSet = new Set((p.memory || []).map((m) => m.name));
  let memBody;
  if (memories === null) {
    memBody = h('p', { class: 'muted' }, 'Memories are not available on this server.');
  } else if (!memories.length && !memSet.size) {
    memBody = h('p', { class: 'muted' }, 'No memories yet. ', link('/memory', 'Create a memory'), ' to give this pipe documents to answer from.');
  } else {
    const names = [...new Set([...memories.map((m) => m.name), ...memSet])].sort();
    memBody = h('div', { class: 'grid' }, names.map((n) => {
      const cb = checkbox('memory', n, memSet.has(n));
      cb.input.value = n;
      memBoxes.push(cb.input);
      return cb.el;
    }));
  }
  form.append(h('fieldset', { id: 'pipe-memories' }, h('legend', {}, 'Memories'),
    h('p', { class: 'hint' }, 'Runs retrieve the chunks most similar to the last user message from these memories.'), memBody));

  // Output and behaviour
  const rf = responseFormatEditor(p.response_format || { type: 'text' });
  const toggles = {
    stream: checkbox('stream', 'Stream', p.stream, 'Stream the answer as it is generated (when the request asks with stream: true).'),
    json: checkbox('json', 'JSON mode', p.json, 'Force the output to be a JSON object.'),
    store: checkbox('store', 'Store', p.store, 'Keep prompts and completions in threads.'),
    moderate: checkbox('moderate', 'Moderate', p.moderate, 'Check inputs with the provider moderation endpoint.'),
    log_content: checkbox('log_content', 'Log content', !!p.log_content, 'Keep each run\'s prompt and completion in the run log for debugging (keys redacted, deleted after the retention period); shown in Usage.'),
  };
  form.append(h('fieldset', {}, h('legend', {}, 'Output and behaviour'),
    h('div', { class: 'grid' }, Object.values(toggles).map((t) => t.el)),
    rf.el));

  const save = h('button', { type: 'submit', class: 'primary' }, create ? 'Create pipe' : 'Save changes');
  const actions = h('div', { class: 'actions' }, save);
  if (!create) {
    actions.append(
      link(`/pipes/${encodeURIComponent(p.owner_login)}/${encodeURIComponent(p.name)}/playground`, 'Open playground', { class: 'button' }),
      h('button', { type: 'button', id: 'rotate-key', onclick: () => rotateKey(p.name, reveal, err) }, 'New pipe key'),
      h('button', { type: 'button', class: 'danger', id: 'delete-pipe', onclick: () => deletePipe(p.name, err) }, 'Delete pipe'));
  }
  form.append(actions);
  add(view, form);
  if (!create) add(view, snippetsPanel(p.name));

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.clear();
    clearInvalid(form);
    tools.validate();
    rf.validate();
    if (!form.checkValidity()) {
      form.reportValidity();
      return;
    }
    const body = {
      name: controls.name.value.trim(),
      description: controls.description.value,
      status: status.value(),
      type: controls.type.value,
      model: model.value(),
      stop: stops.map((s) => s.value).filter((s) => s !== ''),
      tool_choice: choiceFromValue(toolChoice.value),
      parallel_tool_calls: parallel.input.checked,
      messages: [
        ...PROMPTS.filter(([n]) => prompts[n].value.trim() !== '').map(([n]) =>
          (n ? { role: 'system', name: n, content: prompts[n].value } : { role: 'system', content: prompts[n].value })),
        ...shots.read(),
      ],
      variables: vars.read().filter((v) => v.name !== ''),
      tools: tools.valid() || [],
      memory: memBoxes.filter((b) => b.checked).map((b) => ({ name: b.value })),
      response_format: rf.value(),
    };
    for (const [k] of PARAMS) body[k] = Number(params[k].value);
    for (const [k, t] of Object.entries(toggles)) body[k] = t.input.checked;
    await busy(save, async () => {
      try {
        if (create) {
          const res = await api.createPipe(body);
          pendingKey = { name: res.name, key: res.api_key };
          state.flash = res.warning;
          announce(`Pipe ${res.name} created`);
          navigate(`/pipes/${encodeURIComponent(res.owner_login)}/${encodeURIComponent(res.name)}`);
        } else {
          const res = await api.updatePipe(p.name, body);
          announce(`Pipe ${res.name} saved`);
          if (res.name !== p.name) {
            navigate(`/pipes/${encodeURIComponent(res.owner_login)}/${encodeURIComponent(res.name)}`, { replace: true });
          } else {
            replace(reveal, h('p', { class: 'notice', role: 'status', tabindex: '-1' }, `Saved ${res.name}.`));
          }
        }
      } catch (ex) {
        err.show(ex);
        markInvalid(form, ex.field);
        err.el.scrollIntoView({ block: 'center' });
      }
    });
  });
}

function pickDefaultModel(catalogue, fallback) {
  const text = Object.values(catalogue).flat().filter((m) => m.type === 'text');
  if (text.some((m) => m.id === fallback)) return fallback;
  return text.length ? text[0].id : fallback;
}

function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  return '';
}

function select(name, options, value) {
  const el = h('select', { name }, options.map(([v, l]) => h('option', { value: v }, l)));
  if (value !== undefined) el.value = value;
  return el;
}

function radioGroup(name, legend, options, value) {
  const inputs = options.map(([v, l]) => {
    const input = h('input', { type: 'radio', name, value: v, id: id('r'), checked: v === value });
    return h('div', { class: 'check' }, input, h('label', { for: input.id }, l));
  });
  const el = h('fieldset', { class: 'inline' }, h('legend', {}, legend), inputs);
  return { el, value: () => (el.querySelector('input:checked') || {}).value || options[0][0] };
}

// providerOrder lists the catalogue's providers as GET /v1/providers
// orders them (a key available first), each with a label saying whether
// a key is missing; alphabetical, unmarked, without that answer.
export function providerOrder(catalogue, status) {
  const names = Object.keys(catalogue).sort();
  if (!status) return names.map((name) => ({ name, label: name, ready: true }));
  const byName = new Map(status.providers.map((p, i) => [p.provider, { ...p, i }]));
  const rank = (n) => (byName.has(n) ? byName.get(n).i : names.length + 1000);
  return names.slice().sort((a, b) => rank(a) - rank(b)).map((name) => {
    const st = byName.get(name);
    const ready = !st || st.ready;
    return { name, ready, label: ready ? name : `${name} (no API key: add one under Keys)` };
  });
}

// modelLabel is a catalogue entry's label in the model picker: its id and
// list price, "(operator)" for an entry of HEARTH_MODELS_FILE, and the
// retirement date and replacement of a retired model.
export function modelLabel(m) {
  let label = m.id;
  if (typeof m.promptCost === 'number') label += ` ($${m.promptCost} / $${m.completionCost} per 1M tokens)`;
  if (m.source === 'operator') label += ' (operator)';
  if (m.retired) label += ` (retired ${m.retired.date}${m.retired.replacement ? `: use ${m.retired.replacement}` : ''})`;
  return label;
}

function modelPicker(catalogue, current, status) {
  const sel = h('select', { name: 'model' });
  let found = false;
  for (const { name: provider, label } of providerOrder(catalogue, status)) {
    const models = catalogue[provider].filter((m) => m.type === 'text');
    if (!models.length) continue;
    sel.append(h('optgroup', { label }, models.map((m) => {
      if (m.id === current) found = true;
      // A retired model cannot be picked, but a pipe already on one shows it.
      return h('option', { value: m.id, disabled: !!m.retired && m.id !== current }, modelLabel(m));
    })));
  }
  const custom = h('input', { type: 'text', name: 'model-custom', autocomplete: 'off', spellcheck: 'false', placeholder: 'provider:model_id',
    pattern: '[^:\\s]+:\\S+' });
  if (!found && current) custom.value = current;
  else sel.value = current;
  const el = h('div', { class: 'grid wide' },
    field('Model', sel, 'From this server\'s model catalogue; providers with an API key come first.'),
    field('Or another model id', custom, 'provider:model_id, e.g. a local ollama model; overrides the list when filled.'));
  return { el, value: () => custom.value.trim() || sel.value };
}

function choiceValue(tc) {
  if (tc && typeof tc === 'object' && tc.function) return `fn:${tc.function.name}`;
  return typeof tc === 'string' ? tc : 'auto';
}

function choiceFromValue(v) {
  if (v.startsWith('fn:')) return { type: 'function', function: { name: v.slice(3) } };
  return v;
}

/** rowEditor edits a list of rows (few-shot messages, variables). */
function rowEditor({ title, hint, addLabel, rows, build, blank, rowClass }) {
  const list = h('div', { class: 'row-editor' });
  const items = [];
  const status = h('p', { class: 'visually-hidden', 'aria-live': 'polite' });
  const addRow = (data, focus) => {
    const row = { el: h('div', { class: ['row', rowClass], role: 'group' }) };
    const fields = build(data, row);
    const remove = h('button', { type: 'button', class: 'small danger' }, 'Remove');
    row.el.append(...fields, h('div', { class: 'actions' }, remove));
    remove.addEventListener('click', () => {
      const i = items.indexOf(row);
      items.splice(i, 1);
      row.el.remove();
      relabel();
      status.textContent = `${title}: row ${i + 1} removed`;
      const next = items[i] || items[i - 1];
      if (next) next.el.querySelector('input,select,textarea').focus();
      else addBtn.focus();
    });
    items.push(row);
    list.append(row.el);
    relabel();
    if (focus) row.el.querySelector('input,select,textarea').focus();
  };
  const relabel = () => items.forEach((r, i) => r.el.setAttribute('aria-label', `${title} ${i + 1}`));
  const addBtn = h('button', { type: 'button', class: 'small' }, addLabel);
  addBtn.addEventListener('click', () => addRow(blank(), true));
  for (const r of rows) addRow(r, false);
  const el = h('fieldset', {}, h('legend', {}, title), h('p', { class: 'hint' }, hint), list, addBtn, status);
  return { el, read: () => items.map((r) => r.read()) };
}

/** toolsEditor is a JSON textarea for the pipe's tools, validated as you type. */
function toolsEditor(initial) {
  const textarea = h('textarea', { name: 'tools', class: 'code', rows: '8', spellcheck: 'false' });
  textarea.value = initial.length ? JSON.stringify(initial, null, 2) : '[]';
  const msgId = id('tools-msg');
  const msg = h('p', { class: 'field-error', id: msgId, 'aria-live': 'polite' });
  textarea.setAttribute('aria-describedby', msgId);
  const example = h('button', { type: 'button', class: 'small' }, 'Insert an example tool');
  example.addEventListener('click', () => {
    const cur = valid() || [];
    cur.push({ type: 'function', function: { name: 'get_weather', description: 'Current weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } });
    textarea.value = JSON.stringify(cur, null, 2);
    validate();
    textarea.dispatchEvent(new Event('input'));
  });
  function parse() {
    const text = textarea.value.trim();
    if (text === '') return { tools: [] };
    let v;
    try {
      v = JSON.parse(text);
    } catch (e) {
      return { error: `Tools are not valid JSON: ${e.message}` };
    }
    if (!Array.isArray(v)) return { error: 'Tools must be a JSON array of {"type": "function", "function": {...}}.' };
    const seen = new Set();
    for (const [i, t] of v.entries()) {
      if (!t || typeof t !== 'object') return { error: `tools[${i}] must be an object.` };
      if (t.type !== 'function') return { error: `tools[${i}].type must be "function".` };
      const fn = t.function;
      if (!fn || typeof fn !== 'object') return { error: `tools[${i}].function is required.` };
      if (typeof fn.name !== 'string' || !TOOL_NAME.test(fn.name)) return { error: `tools[${i}].function.name must be 1-64 letters, digits, "_" or "-".` };
      if (seen.has(fn.name)) return { error: `tools[${i}]: duplicate tool "${fn.name}".` };
      seen.add(fn.name);
      if (fn.parameters !== undefined && (typeof fn.parameters !== 'object' || Array.isArray(fn.parameters) || fn.parameters === null)) {
        return { error: `tools[${i}].function.parameters must be a JSON Schema object.` };
      }
    }
    return { tools: v };
  }
  function validate() {
    const r = parse();
    textarea.setCustomValidity(r.error || '');
    textarea.setAttribute('aria-invalid', r.error ? 'true' : 'false');
    msg.textContent = r.error || '';
    return r;
  }
  function valid() { return parse().tools; }
  textarea.addEventListener('input', validate);
  const wrap = h('div', {},
    field('Tools (JSON)', textarea, 'An array of function tools in the OpenAI format. Runs may also send their own.'),
    msg, h('div', { class: 'actions' }, example));
  validate();
  return { el: wrap, textarea, valid, validate };
}

/** responseFormatEditor edits response_format: text, json_object or json_schema. */
function responseFormatEditor(rf) {
  const type = select('response_format', [['text', 'text'], ['json_object', 'JSON object'], ['json_schema', 'JSON schema']], rf.type || 'text');
  const js = rf.json_schema || {};
  const name = h('input', { type: 'text', name: 'schema-name', value: js.name || '', pattern: '[a-zA-Z0-9_\\-]{1,64}', autocomplete: 'off' });
  const schema = h('textarea', { name: 'schema', class: 'code', rows: '6', spellcheck: 'false' });
  schema.value = js.schema ? JSON.stringify(js.schema, null, 2) : '';
  const strict = checkbox('strict', 'Strict', js.strict === true, 'Require the output to match the schema exactly.');
  const schemaMsg = h('p', { class: 'field-error', 'aria-live': 'polite' });
  const schemaBox = h('div', {}, field('Schema name', name), field('JSON Schema', schema), schemaMsg, strict.el);
  const sync = () => {
    schemaBox.hidden = type.value !== 'json_schema';
    name.required = type.value === 'json_schema';
  };
  type.addEventListener('change', sync);
  sync();
  function validate() {
    let error = '';
    if (type.value === 'json_schema' && schema.value.trim() !== '') {
      try {
        const v = JSON.parse(schema.value);
        if (!v || typeof v !== 'object' || Array.isArray(v)) error = 'The schema must be a JSON object.';
      } catch (e) {
        error = `The schema is not valid JSON: ${e.message}`;
      }
    }
    schema.setCustomValidity(error);
    schema.setAttribute('aria-invalid', error ? 'true' : 'false');
    schemaMsg.textContent = error;
  }
  schema.addEventListener('input', validate);
  return {
    el: h('div', {}, field('Response format', type), schemaBox),
    validate,
    value() {
      if (type.value !== 'json_schema') return { type: type.value };
      const out = { name: name.value.trim(), strict: strict.input.checked };
      if (schema.value.trim()) out.schema = JSON.parse(schema.value);
      return { type: 'json_schema', json_schema: out };
    },
  };
}

function clearInvalid(form) {
  for (const el of form.querySelectorAll('[data-server-invalid]')) {
    el.removeAttribute('aria-invalid');
    el.removeAttribute('data-server-invalid');
  }
}

// markInvalid flags the control the API's error names (e.g. "temperature",
// "tools[0].function.name" or "messages[2].content").
function markInvalid(form, fieldName) {
  if (!fieldName) return;
  const root = fieldName.split(/[.[]/)[0];
  const names = { messages: 'prompt-system', response_format: 'response_format', memory: 'memory' };
  const el = form.querySelector(`[name="${CSS.escape(names[root] || root)}"]`);
  if (el) {
    el.setAttribute('aria-invalid', 'true');
    el.setAttribute('data-server-invalid', '');
  }
}

async function rotateKey(name, reveal, err) {
  if (!await confirmDialog(`Issue a new key for ${name}? The current pipe key stops working at once.`, { confirmLabel: 'Issue new key' })) return;
  err.clear();
  try {
    const res = await api.rotatePipeKey(name);
    const box = secretReveal('New pipe key', res.api_key);
    replace(reveal, box);
    box.focus();
    announce('New pipe key issued. It is shown once.');
  } catch (ex) { err.show(ex); }
}

async function deletePipe(name, err) {
  if (!await confirmDialog(`Delete the pipe ${name}? Its key stops working. This cannot be undone.`)) return;
  err.clear();
  try {
    await api.deletePipe(name);
    announce(`Pipe ${name} deleted`);
    navigate('/pipes');
  } catch (ex) { err.show(ex); }
}
