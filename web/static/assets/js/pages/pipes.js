// Pipes: the caller's pipes, with links to their settings, playground and usage.

import { api } from '../api.js';
import { h, errorBox, add } from '../dom.js';
import { link } from '../app.js';

export async function render(view) {
  const err = errorBox();
  const body = h('div', { class: 'table-wrap' }, h('p', { class: 'loading' }, 'Loading pipes…'));
  add(view, 
    h('div', { class: 'page-head' }, h('h1', {}, 'Pipes'),
      h('div', { class: 'actions' }, link('/pipes/new', 'New pipe', { class: 'button primary' }))),
    h('p', { class: 'muted' }, 'A pipe is a stored LLM call: a model, its parameters, prompts, tools and memories. Run it from the playground or the API.'),
    err.el, body);
  let pipes;
  try {
    pipes = await api.pipes();
  } catch (ex) {
    body.replaceChildren();
    err.show(ex);
    return;
  }
  if (!pipes.length) {
    body.replaceChildren(h('p', { class: 'empty' }, 'No pipes yet. ', link('/pipes/new', 'Create your first pipe'), '.'));
    return;
  }
  body.replaceChildren(h('table', { id: 'pipes-table' },
    h('caption', { class: 'visually-hidden' }, 'Your pipes'),
    h('thead', {}, h('tr', {}, ['Name', 'Model', 'Status', 'Description'].map((t) => h('th', { scope: 'col' }, t)),
      h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Links')))),
    h('tbody', {}, pipes.map((p) => {
      const base = `/pipes/${encodeURIComponent(p.owner_login)}/${encodeURIComponent(p.name)}`;
      return h('tr', { 'data-pipe': p.name },
        h('th', { scope: 'row' }, link(base, p.name)),
        h('td', {}, h('code', {}, p.model)),
        h('td', {}, h('span', { class: `badge ${p.status}` }, p.status)),
        h('td', {}, p.description || h('span', { class: 'muted' }, '—')),
        h('td', {}, h('div', { class: 'actions' },
          link(`${base}/playground`, 'Playground', { class: 'button small', 'aria-label': `Open ${p.name} in the playground` }),
          link(`/usage?pipe=${encodeURIComponent(p.name)}`, 'Usage', { class: 'button small', 'aria-label': `Usage of ${p.name}` }))));
    }))));
}

/** pipeSubnav is the tab bar of one pipe's pages. */
export function pipeSubnav(owner, name, active) {
  const base = `/pipes/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
  const items = [
    ['settings', 'Settings', base],
    ['playground', 'Playground', `${base}/playground`],
    ['history', 'History', `${base}/history`],
    ['usage', 'Usage', `/usage?pipe=${encodeURIComponent(name)}`],
  ];
  return h('nav', { 'aria-label': `Pipe ${name}` }, h('ul', { class: 'subnav' }, items.map(([key, label, href]) =>
    h('li', {}, link(href, label, key === active ? { 'aria-current': 'page' } : {})))));
}
