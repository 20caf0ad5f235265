// Studio entry point: the signed-in session, the page shell and a small
// history-API router. Every /studio/* URL is served index.html by the
// server, so deep links (the url fields of pipes and memories) open here.

import { api, session } from './api.js';
import { h, replace, announce, stackTables } from './dom.js';

export const BASE = '/studio';

/** routes map URL patterns (after /studio) to lazily imported pages. */
const routes = [
  { re: /^\/signin$/, page: () => import('./pages/signin.js'), public: true },
  { re: /^\/pipes$/, page: () => import('./pages/pipes.js'), nav: 'pipes' },
  { re: /^\/pipes\/new$/, page: () => import('./pages/pipe_form.js'), nav: 'pipes', params: () => ({ create: true }) },
  { re: /^\/pipes\/([^/]+)\/([^/]+)$/, page: () => import('./pages/pipe_form.js'), nav: 'pipes', params: (m) => ({ owner: m[1], name: m[2] }) },
  { re: /^\/pipes\/([^/]+)\/([^/]+)\/playground$/, page: () => import('./pages/playground.js'), nav: 'pipes', params: (m) => ({ owner: m[1], name: m[2] }) },
  { re: /^\/pipes\/([^/]+)\/([^/]+)\/history$/, page: () => import('./pages/pipe_history.js'), nav: 'pipes', params: (m) => ({ owner: m[1], name: m[2] }) },
  { re: /^\/memory$/, page: () => import('./pages/memory.js'), nav: 'memory' },
  { re: /^\/memory\/([^/]+)\/([^/]+)$/, page: () => import('./pages/memory_detail.js'), nav: 'memory', params: (m) => ({ owner: m[1], name: m[2] }) },
  { re: /^\/memory\/([^/]+)\/([^/]+)\/documents\/([^/]+)$/, page: () => import('./pages/chunks.js'), nav: 'memory', params: (m) => ({ owner: m[1], name: m[2], doc: m[3] }) },
  { re: /^\/agent$/, page: () => import('./pages/agent.js'), nav: 'agent' },
  { re: /^\/images$/, page: () => import('./pages/images.js'), nav: 'images' },
  { re: /^\/web$/, page: () => import('./pages/webtools.js'), nav: 'web' },
  { re: /^\/threads$/, page: () => import('./pages/threads.js'), nav: 'threads' },
  { re: /^\/threads\/([^/]+)$/, page: () => import('./pages/thread.js'), nav: 'threads', params: (m) => ({ id: m[1] }) },
  { re: /^\/usage$/, page: () => import('./pages/usage.js'), nav: 'usage' },
  { re: /^\/runs\/([^/]+)$/, page: () => import('./pages/run.js'), nav: 'usage', params: (m) => ({ id: m[1] }) },
  { re: /^\/keys$/, page: () => import('./pages/keys.js'), nav: 'keys' },
  { re: /^\/deployments$/, page: () => import('./pages/deployments.js'), nav: 'deployments' },
];

const navItems = [
  ['pipes', 'Pipes'],
  ['memory', 'Memory'],
  ['threads', 'Threads'],
  ['agent', 'Agent'],
  ['images', 'Images'],
  ['web', 'Web'],
  ['usage', 'Usage'],
  ['keys', 'Keys'],
  ['deployments', 'Deployments'],
];

/** state is the signed-in identity (GET /v1/me), or null. */
// flash is a notice shown once on the next page rendered (a warning the
// server sent with a create, shown on the created item's page).
export const state = { me: null, flash: '' };

let current = null; // {controller} of the page on screen
let rendered = ''; // path and query of the page on screen

/** link builds an in-app link: <a href="/studio/..."> handled by the router. */
export function link(path, text, attrs = {}) {
  return h('a', { href: BASE + path, 'data-nav': '', ...attrs }, text);
}

/** navigate moves to an in-app path (with or without the /studio prefix). */
export function navigate(path, { replace: rep = false } = {}) {
  const url = path.startsWith(BASE) ? path : BASE + path;
  if (rep) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  render();
}

/** pathSegment decodes one URL path segment. */
function seg(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function match(path) {
  for (const r of routes) {
    const m = r.re.exec(path);
    if (m) {
      const raw = r.params ? r.params(m) : {};
      const params = {};
      for (const [k, v] of Object.entries(raw)) params[k] = typeof v === 'string' ? seg(v) : v;
      return { route: r, params };
    }
  }
  return null;
}

function renderNav(active) {
  const nav = document.getElementById('nav');
  if (!state.me) {
    nav.hidden = true;
    nav.replaceChildren();
    return;
  }
  nav.hidden = false;
  replace(nav, h('ul', {}, navItems.map(([key, label]) =>
    h('li', {}, link(`/${key}`, label, key === active ? { 'aria-current': 'page' } : {})))));
}

function renderWho() {
  const who = document.getElementById('who');
  if (!state.me) {
    who.replaceChildren();
    return;
  }
  const out = h('button', { type: 'button', class: 'small', onclick: signOut }, 'Sign out');
  replace(who, h('span', {}, 'Signed in as ', h('strong', { 'data-login': '' }, state.me.login),
    ` (${state.me.kind === 'org' ? 'organization' : 'user'})`), out);
}

/** signOut forgets the key and returns to the sign-in page. */
export function signOut() {
  session.clear();
  state.me = null;
  renderWho();
  announce('Signed out');
  navigate('/signin', { replace: true });
}

/** signIn checks a key with /v1/me and keeps it for this browser tab. */
export async function signIn(key) {
  const me = await api.me(key);
  if (me.key && me.key.kind === 'pipe') {
    throw new Error('That is a pipe key: it can only run its pipe. Sign in with a user or organization API key.');
  }
  session.set(key);
  state.me = me;
  renderWho();
  return me;
}

async function restore() {
  if (state.me || !session.key()) return;
  try {
    state.me = await api.me();
  } catch {
    session.clear();
    state.me = null;
  }
  renderWho();
}

async function render() {
  const main = document.getElementById('main');
  if (current) current.controller.abort();
  const controller = new AbortController();
  current = { controller };
  rendered = location.pathname + location.search;

  let path = location.pathname.replace(/\/+$/, '');
  if (path.startsWith(BASE)) path = path.slice(BASE.length);
  if (path === '' || path === '/') {
    history.replaceState(null, '', `${BASE}/pipes`);
    path = '/pipes';
  }
  await restore();
  if (controller.signal.aborted) return;
  const found = match(path);
  if (!found) {
    renderNav('');
    replace(main, h('h1', { tabindex: '-1' }, 'Page not found'),
      h('p', {}, 'There is no studio page at this address. ', link('/pipes', 'Go to pipes')));
    focusHeading(main);
    return;
  }
  if (!found.route.public && !state.me) {
    const next = location.pathname + location.search;
    history.replaceState(null, '', `${BASE}/signin?next=${encodeURIComponent(next)}`);
    return render();
  }
  renderNav(found.route.nav);
  let mod;
  try {
    mod = await found.route.page();
  } catch (err) {
    replace(main, h('div', { class: 'error', role: 'alert' }, `This page could not be loaded: ${err.message}`));
    return;
  }
  if (controller.signal.aborted) return;
  const ctx = { params: found.params, query: new URLSearchParams(location.search), signal: controller.signal, me: state.me };
  const view = h('div', { class: 'view' });
  replace(main, view);
  try {
    await mod.render(view, ctx);
  } catch (err) {
    if (controller.signal.aborted) return;
    view.prepend(h('div', { class: 'error', role: 'alert' }, h('strong', {}, 'Error: '), err.message || String(err)));
  }
  if (controller.signal.aborted) return;
  if (state.flash) {
    view.prepend(h('p', { class: 'notice warning', id: 'flash', role: 'status' }, h('strong', {}, 'Warning: '), state.flash));
    state.flash = '';
  }
  rendered = location.pathname + location.search;
  const title = view.querySelector('h1');
  document.title = title ? `${title.textContent} · Hearth Studio` : 'Hearth Studio';
  focusHeading(main);
}

let firstRender = true;
function focusHeading(main) {
  // On in-app navigation move focus to the new page's heading, so screen
  // readers and keyboard users start at the top of the new content.
  if (firstRender) {
    firstRender = false;
    return;
  }
  const h1 = main.querySelector('h1');
  if (h1) {
    h1.setAttribute('tabindex', '-1');
    h1.focus();
  }
}

document.addEventListener('click', (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = e.target.closest('a[href]');
  if (!a || a.target || a.hasAttribute('download')) return;
  const href = a.getAttribute('href');
  if (href.startsWith('#')) {
    // In-page links (the skip link) move focus without touching the URL,
    // which the router owns.
    const target = document.getElementById(href.slice(1));
    if (target) {
      e.preventDefault();
      if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
      target.focus();
      target.scrollIntoView();
    }
    return;
  }
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !(url.pathname === BASE || url.pathname.startsWith(`${BASE}/`))) return;
  if (url.pathname.startsWith(`${BASE}/assets/`)) return;
  e.preventDefault();
  if (url.pathname + url.search === location.pathname + location.search) return;
  history.pushState(null, '', url.pathname + url.search + url.hash);
  render();
});

window.addEventListener('popstate', () => {
  // A change of the #fragment alone is not a new page.
  if (location.pathname + location.search === rendered) return;
  render();
});
window.addEventListener('hearth:unauthorized', () => {
  if (!state.me) return;
  session.clear();
  state.me = null;
  renderWho();
  const next = location.pathname + location.search;
  history.replaceState(null, '', `${BASE}/signin?expired=1&next=${encodeURIComponent(next)}`);
  render();
});

// Tables stack into labelled cards on narrow screens (studio.css); rows
// added later (paging, polling) are labelled as they arrive.
new MutationObserver(() => stackTables(document.getElementById('main')))
  .observe(document.getElementById('main'), { childList: true, subtree: true });

render();
