// A pipe's version history: every configuration change as a numbered
// version, a field-level diff of any two, and restore (which makes a new
// version). README "Pipe versions".

import { api } from '../api.js';
import { h, field, errorBox, announce, confirmDialog, time, busy, replace, add } from '../dom.js';
import { pipeSubnav } from './pipes.js';

export async function render(view, ctx) {
  const name = ctx.params.name;
  const pipe = await api.pipe(name);
  const err = errorBox();
  const list = h('div', { class: 'table-wrap', id: 'versions' });
  const diffOut = h('div', { id: 'version-diff', 'aria-live': 'polite' });
  const from = h('select', { name: 'from' });
  const to = h('select', { name: 'to' });
  const show = h('button', { type: 'submit', class: 'primary' }, 'Show differences');
  const diffForm = h('form', { class: 'panel', id: 'diff-form', 'aria-labelledby': 'diff-h' },
    h('h2', { id: 'diff-h' }, 'Compare two versions'),
    h('div', { class: 'grid' }, field('From version', from), field('To version', to)),
    h('div', { class: 'actions' }, show), diffOut);

  add(view,
    h('div', { class: 'page-head' }, h('h1', {}, `${pipe.name} history`)),
    pipeSubnav(pipe.owner_login, pipe.name, 'history'),
    err.el, list, diffForm);

  async function load() {
    const versions = await api.pipeVersions(name);
    if (!versions.length) {
      replace(list, h('p', { class: 'empty' }, 'No versions yet: the pipe has not changed since versions began.'));
      return;
    }
    const latest = versions[versions.length - 1].version;
    const opts = (sel) => versions.map((v) => h('option', { value: String(v.version), selected: v.version === sel }, `Version ${v.version}`));
    replace(from, opts(Math.max(1, latest - 1)));
    replace(to, opts(latest));
    replace(list, h('table', {},
      h('caption', { class: 'visually-hidden' }, 'Versions'),
      h('thead', {}, h('tr', {}, ['Version', 'Created', 'Author key', 'Model'].map((t) => h('th', { scope: 'col' }, t)),
        h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')))),
      h('tbody', {}, versions.slice().reverse().map((v) => {
        let action = h('span', { class: 'badge success' }, 'current');
        if (v.version !== latest) {
          action = h('button', { type: 'button', class: 'small', 'aria-label': `Restore version ${v.version}` }, 'Restore');
          action.addEventListener('click', async () => {
            if (!await confirmDialog(`Make version ${v.version} the configuration of "${name}" again? This adds a new version.`, { confirmLabel: 'Restore', danger: false })) return;
            err.clear();
            try {
              const r = await api.restorePipeVersion(name, v.version);
              announce(`Version ${v.version} restored as version ${r.version}`);
              await load();
            } catch (ex) { err.show(ex); }
          });
        }
        return h('tr', { 'data-version': String(v.version) },
          h('th', { scope: 'row' }, String(v.version)),
          h('td', {}, time(v.created_at)),
          h('td', {}, v.author_key_id ? h('code', {}, v.author_key_id) : h('span', { class: 'muted' }, '(apply)')),
          h('td', {}, h('code', {}, v.config.model)),
          h('td', {}, action));
      }))));
  }

  diffForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.clear();
    await busy(show, async () => {
      try {
        const d = await api.pipeVersionDiff(name, from.value, to.value);
        if (!d.changes.length) {
          replace(diffOut, h('p', { class: 'empty' }, `Versions ${d.from} and ${d.to} have the same configuration.`));
          return;
        }
        const json = (v) => h('pre', {}, h('code', {}, JSON.stringify(v, null, 2)));
        replace(diffOut, h('table', {},
          h('caption', {}, `Changes from version ${d.from} to version ${d.to}`),
          h('thead', {}, h('tr', {}, ['Field', `Version ${d.from}`, `Version ${d.to}`].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, d.changes.map((c) => h('tr', { 'data-field': c.field },
            h('th', { scope: 'row' }, c.field), h('td', {}, json(c.from)), h('td', {}, json(c.to)))))));
      } catch (ex) { err.show(ex); }
    });
  });

  try { await load(); } catch (ex) { err.show(ex); }
}
