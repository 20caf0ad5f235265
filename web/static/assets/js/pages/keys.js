// Keys: the caller's provider keysets (write-only, shown by their last
// four characters) and the caller's own API keys (shown once at creation).

import { api } from '../api.js';
import { h, field, checkbox, errorBox, announce, confirmDialog, secretReveal, time, busy, replace, add } from '../dom.js';
import { state } from '../app.js';

export async function render(view) {
  const keysetsSection = h('section', { 'aria-labelledby': 'ks-h' });
  const keysSection = h('section', { 'aria-labelledby': 'ak-h' });
  add(view, 
    h('div', { class: 'page-head' }, h('h1', {}, 'Keys')),
    h('p', { class: 'muted' }, `Keys of ${state.me.login}. Provider keys are used by your pipe runs and memories; API keys sign in here and call the API.`),
    keysetsSection, keysSection);
  await Promise.all([renderKeysets(keysetsSection), renderAPIKeys(keysSection)]);
}

async function providerNames() {
  try {
    const cat = await api.models();
    return Object.keys(cat).filter((p) => p !== 'hearth').sort();
  } catch {
    return [];
  }
}

async function renderKeysets(section) {
  const err = errorBox();
  const list = h('div', { class: 'table-wrap' });
  const providers = await providerNames();
  const dlId = 'provider-list';
  const provider = h('input', { type: 'text', name: 'provider', list: dlId, required: true, autocomplete: 'off', spellcheck: 'false' });
  const secret = h('input', { type: 'password', name: 'key', required: true, autocomplete: 'off', spellcheck: 'false' });
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save provider key');
  const form = h('form', { class: 'panel', id: 'keyset-form', 'aria-labelledby': 'ks-form-h' },
    h('h3', { id: 'ks-form-h' }, 'Set or replace a provider key'),
    h('datalist', { id: dlId }, providers.map((p) => h('option', { value: p }))),
    h('div', { class: 'grid' },
      field('Provider', provider, 'e.g. openai, anthropic, google, cohere'),
      field('Key', secret, 'Stored encrypted; never shown again in full.')),
    h('div', { class: 'actions' }, save));

  async function load() {
    const rows = await api.keysets();
    if (!rows.length) {
      replace(list, h('p', { class: 'empty' }, 'No provider keys yet. Runs use the server-wide keys, if any.'));
      return;
    }
    replace(list, h('table', {},
      h('caption', { class: 'visually-hidden' }, 'Provider keys'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Provider'), h('th', { scope: 'col' }, 'Key'),
        h('th', { scope: 'col' }, 'Updated'), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')))),
      h('tbody', {}, rows.map((r) => {
        const replaceBtn = h('button', { type: 'button', class: 'small' }, 'Replace');
        replaceBtn.setAttribute('aria-label', `Replace the ${r.provider} key`);
        replaceBtn.addEventListener('click', () => {
          provider.value = r.provider;
          secret.value = '';
          secret.focus();
        });
        const remove = h('button', { type: 'button', class: 'small danger', 'aria-label': `Remove the ${r.provider} key` }, 'Remove');
        remove.addEventListener('click', async () => {
          if (!await confirmDialog(`Remove the ${r.provider} provider key? Runs fall back to the server-wide key.`, { confirmLabel: 'Remove' })) return;
          err.clear();
          try {
            await api.deleteKeyset(r.provider);
            announce(`${r.provider} key removed`);
            await load();
          } catch (ex) { err.show(ex); }
        });
        return h('tr', { 'data-provider': r.provider },
          h('th', { scope: 'row' }, r.provider),
          h('td', {}, h('code', {}, `…${r.last4}`)),
          h('td', {}, time(r.updated_at)),
          h('td', {}, h('div', { class: 'actions' }, replaceBtn, remove)));
      }))));
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.clear();
    const p = provider.value.trim();
    const k = secret.value.trim();
    if (!p || !k) {
      err.show(new Error(!p ? 'Enter the provider name.' : 'Enter the key.'));
      (!p ? provider : secret).focus();
      return;
    }
    await busy(save, async () => {
      try {
        const entry = await api.setKeyset(p, k);
        secret.value = '';
        provider.value = '';
        announce(`${entry.provider} key saved, ending ${entry.last4}`);
        await load();
      } catch (ex) { err.show(ex); }
    });
  });

  replace(section, h('h2', { id: 'ks-h' }, 'Provider keys'), err.el, list, form);
  try { await load(); } catch (ex) { err.show(ex); }
}

async function renderAPIKeys(section) {
  const err = errorBox();
  const list = h('div', { class: 'table-wrap' });
  const reveal = h('div');
  const name = h('input', { type: 'text', name: 'name', maxlength: '100', autocomplete: 'off' });
  const create = h('button', { type: 'submit', class: 'primary' }, 'Create API key');
  const expires = h('input', { type: 'datetime-local', name: 'expires_at' });
  const lists = {
    models: h('input', { type: 'text', name: 'models', autocomplete: 'off', spellcheck: 'false' }),
    pipes: h('input', { type: 'text', name: 'pipes', autocomplete: 'off', spellcheck: 'false' }),
    memories: h('input', { type: 'text', name: 'memories', autocomplete: 'off', spellcheck: 'false' }),
  };
  const readOnly = checkbox('read_only', 'Read-only', false, 'Reads and runs, never creates, changes or deletes.');
  const form = h('form', { class: 'panel', id: 'apikey-form', 'aria-labelledby': 'ak-form-h' },
    h('h3', { id: 'ak-form-h' }, 'Create an API key'),
    field('Name', name, 'A label to recognise the key by, e.g. "laptop" or "ci".'),
    h('fieldset', {}, h('legend', {}, 'Scope (optional; empty means no limit)'),
      h('div', { class: 'grid' },
        field('Expires', expires, 'The key stops working at this time (your local time).'),
        field('Models', lists.models, 'Comma-separated providers or provider:model ids, e.g. openai, anthropic:claude-sonnet-4-5.'),
        field('Pipes', lists.pipes, 'Comma-separated pipe names the key may use.'),
        field('Memories', lists.memories, 'Comma-separated memory names the key may use.')),
      readOnly.el),
    h('div', { class: 'actions' }, create));

  function scopeBody() {
    const out = {};
    if (expires.value) out.expires_at = new Date(expires.value).toISOString();
    for (const [k, input] of Object.entries(lists)) {
      const v = input.value.split(',').map((x) => x.trim()).filter(Boolean);
      if (v.length) out[k] = v;
    }
    if (readOnly.input.checked) out.read_only = true;
    return out;
  }

  async function load() {
    const keys = await api.keys();
    if (!keys.length) {
      replace(list, h('p', { class: 'empty' }, 'No API keys.'));
      return;
    }
    replace(list, h('table', {},
      h('caption', { class: 'visually-hidden' }, 'API keys'),
      h('thead', {}, h('tr', {}, ['Name', 'Key', 'Kind', 'Created', 'State', 'Scope'].map((t) => h('th', { scope: 'col' }, t)),
        h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')))),
      h('tbody', {}, keys.map((k) => {
        const current = state.me.key && state.me.key.id === k.id;
        let action = null;
        if (!k.revoked_at && !current) {
          action = h('button', { type: 'button', class: 'small danger', 'aria-label': `Revoke key ${k.name || k.prefix}` }, 'Revoke');
          action.addEventListener('click', async () => {
            if (!await confirmDialog(`Revoke the key "${k.name || k.prefix}"? Programs using it stop working at once.`, { confirmLabel: 'Revoke' })) return;
            err.clear();
            try {
              await api.revokeKey(k.id);
              announce('Key revoked');
              await load();
            } catch (ex) { err.show(ex); }
          });
        }
        return h('tr', { 'data-key-id': k.id },
          h('th', { scope: 'row' }, k.name || h('span', { class: 'muted' }, '(unnamed)')),
          h('td', {}, h('code', {}, k.prefix)),
          h('td', {}, k.kind),
          h('td', {}, time(k.created_at)),
          h('td', {}, k.revoked_at ? h('span', { class: 'badge error' }, 'revoked')
            : current ? h('span', { class: 'badge success' }, 'this session') : h('span', { class: 'badge success' }, 'active')),
          h('td', { class: 'key-scope' }, scopeText(k.scope)),
          h('td', {}, action));
      }))));
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.clear();
    await busy(create, async () => {
      try {
        const res = await api.createKey(name.value.trim(), scopeBody());
        name.value = '';
        expires.value = '';
        Object.values(lists).forEach((i) => { i.value = ''; });
        readOnly.input.checked = false;
        const box = secretReveal('New API key', res.key);
        replace(reveal, box);
        box.focus();
        announce('API key created. It is shown once: copy it now.');
        await load();
      } catch (ex) { err.show(ex); }
    });
  });

  replace(section, h('h2', { id: 'ak-h' }, 'API keys'), err.el, reveal, list, form);
  try { await load(); } catch (ex) { err.show(ex); }
}

// scopeText summarises a key's scope (README "Scoped keys").
function scopeText(scope) {
  if (!scope) return h('span', { class: 'muted' }, 'full access');
  const parts = [];
  if (scope.expires_at) parts.push(`expires ${new Date(scope.expires_at).toLocaleString()}`);
  for (const k of ['models', 'pipes', 'memories']) {
    if (scope[k] && scope[k].length) parts.push(`${k}: ${scope[k].join(', ')}`);
  }
  if (scope.read_only) parts.push('read-only');
  return parts.join('; ');
}
