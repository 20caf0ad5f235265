// Sign in with an API key. The key stays in this tab's sessionStorage and
// is sent only to this server.

import { h, field, errorBox, announce, add } from '../dom.js';
import { signIn, navigate, state, BASE } from '../app.js';

export async function render(view, ctx) {
  const next = safeNext(ctx.query.get('next'));
  if (state.me) {
    navigate(next, { replace: true });
    return;
  }
  const err = errorBox();
  const key = h('input', {
    type: 'password', name: 'key', autocomplete: 'off', spellcheck: 'false', required: true,
    placeholder: 'hth_user_…',
  });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h('form', { class: 'panel', novalidate: true },
    err.el,
    field('API key', key, 'A user or organization key: the admin key printed at first start, or one made with "hearth keys create --user <login>". It is kept only in this browser tab and forgotten when the tab closes.'),
    h('div', { class: 'actions' }, submit));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.clear();
    const value = key.value.trim();
    if (!value) {
      key.setAttribute('aria-invalid', 'true');
      err.show(new Error('Enter an API key.'));
      key.focus();
      return;
    }
    key.removeAttribute('aria-invalid');
    submit.disabled = true;
    try {
      const me = await signIn(value);
      announce(`Signed in as ${me.login}`);
      navigate(next, { replace: true });
    } catch (ex) {
      err.show(ex);
      key.setAttribute('aria-invalid', 'true');
      key.focus();
    } finally {
      submit.disabled = false;
    }
  });
  add(view, h('div', { class: 'signin' },
    h('h1', {}, 'Sign in to Hearth Studio'),
    ctx.query.get('expired') ? h('p', { class: 'notice', role: 'status' }, 'Your key was refused (revoked or unknown). Sign in again.') : null,
    form));
  key.focus();
}

// safeNext keeps redirects inside the studio.
function safeNext(next) {
  if (next && next.startsWith(`${BASE}/`) && !next.startsWith('//') && !next.startsWith(`${BASE}/signin`)) return next;
  return `${BASE}/pipes`;
}
