// Small DOM helpers. Everything is built with createElement and text
// nodes, never innerHTML, so data from the API cannot inject markup.

/**
 * h builds an element. attrs: class, for, text, on<Event> handlers,
 * boolean attributes (true sets, false/null/undefined skips), anything
 * else as an attribute. Children may be nodes, strings, numbers, arrays,
 * or null/false (skipped).
 */
export function h(tag, attrs, ...children) {
  const el = tag === 'svg' || svgTags.has(tag)
    ? document.createElementNS('http://www.w3.org/2000/svg', tag)
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') {
      el.addEventListener(k.slice(2).toLowerCase(), v);
    } else if (k === 'class') {
      el.setAttribute('class', Array.isArray(v) ? v.filter(Boolean).join(' ') : v);
    } else if (k === 'for') {
      el.setAttribute('for', v);
    } else if (k === 'value' && 'value' in el && !(el instanceof SVGElement)) {
      el.value = v;
    } else if (k === 'checked' || k === 'selected') {
      el[k] = true;
    } else {
      el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

const svgTags = new Set(['g', 'rect', 'line', 'path', 'polyline', 'circle', 'text', 'title', 'desc']);

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

/** add appends children to el, skipping null, undefined and false. */
export function add(el, ...children) {
  append(el, children);
  return el;
}

/** replace empties el and appends children. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let uid = 0;
/** id returns a document-unique id for label/aria wiring. */
export function id(prefix = 'f') {
  uid += 1;
  return `${prefix}-${uid}`;
}

/**
 * field builds a labelled control: the label is always a real <label for>.
 * hint, when given, is linked with aria-describedby.
 */
export function field(label, control, hint) {
  if (!control.id) control.id = id('in');
  const parts = [h('label', { for: control.id }, label)];
  if (hint) {
    const hid = id('hint');
    const existing = control.getAttribute('aria-describedby');
    control.setAttribute('aria-describedby', existing ? `${existing} ${hid}` : hid);
    parts.push(control, h('p', { class: 'hint', id: hid }, hint));
  } else {
    parts.push(control);
  }
  return h('div', { class: 'field' }, parts);
}

/** checkbox builds a labelled checkbox with an optional hint. */
export function checkbox(name, label, checked, hint) {
  const input = h('input', { type: 'checkbox', name, id: id('cb'), checked: !!checked });
  const hid = hint ? id('hint') : null;
  if (hid) input.setAttribute('aria-describedby', hid);
  return {
    input,
    el: h('div', { class: 'check' }, input, h('label', { for: input.id }, label),
      hint ? h('p', { class: 'hint', id: hid }, hint) : null),
  };
}

/** announce reads msg to screen readers through the polite live region. */
export function announce(msg) {
  const region = document.getElementById('announcer');
  if (!region) return;
  region.textContent = '';
  // A new text node after a tick is announced even when the text repeats.
  setTimeout(() => { region.textContent = msg; }, 30);
}

/**
 * errorBox is a role=alert paragraph for a form or a page; show(err)
 * fills it with the API's message, clear() hides it.
 */
export function errorBox() {
  const el = h('div', { class: 'error', role: 'alert', hidden: true });
  return {
    el,
    show(err) {
      const msg = err && err.message ? err.message : String(err);
      replace(el, h('strong', {}, 'Error: '), msg);
      el.hidden = false;
    },
    clear() { el.hidden = true; el.replaceChildren(); },
  };
}

/** confirmDialog asks a yes/no question in a modal <dialog>; resolves to a boolean. */
export function confirmDialog(question, { confirmLabel = 'Delete', danger = true } = {}) {
  return new Promise((resolve) => {
    const titleId = id('dlg');
    const yes = h('button', { type: 'button', class: danger ? 'danger' : 'primary' }, confirmLabel);
    const no = h('button', { type: 'button' }, 'Cancel');
    const dlg = h('dialog', { class: 'confirm', 'aria-labelledby': titleId },
      h('p', { id: titleId }, question),
      h('div', { class: 'actions' }, no, yes));
    const done = (v) => { dlg.close(); dlg.remove(); resolve(v); };
    yes.addEventListener('click', () => done(true));
    no.addEventListener('click', () => done(false));
    dlg.addEventListener('cancel', (e) => { e.preventDefault(); done(false); });
    document.body.appendChild(dlg);
    dlg.showModal();
    no.focus();
  });
}

/** secretReveal shows a secret once, with a copy button and a warning. */
export function secretReveal(title, secret, note) {
  const code = h('code', { class: 'secret', 'data-secret': '' }, secret);
  const copy = h('button', { type: 'button', class: 'small' }, 'Copy');
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(secret);
      copy.textContent = 'Copied';
      announce('Copied to the clipboard');
    } catch {
      const r = document.createRange();
      r.selectNodeContents(code);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(r);
      announce('Select and copy the key manually');
    }
  });
  const box = h('section', { class: 'reveal', tabindex: '-1', 'aria-label': title },
    h('h2', {}, title),
    h('p', {}, note || 'This key is shown once. Copy it now: it cannot be shown again.'),
    h('div', { class: 'secret-row' }, code, copy));
  return box;
}

/** Formatting helpers. */
export const fmt = {
  date(v) {
    if (v === null || v === undefined || v === '') return '';
    const d = typeof v === 'number' ? new Date(v * 1000) : new Date(v);
    if (Number.isNaN(d.getTime())) return String(v);
    return d.toLocaleString();
  },
  iso(v) {
    const d = typeof v === 'number' ? new Date(v * 1000) : new Date(v);
    return Number.isNaN(d.getTime()) ? '' : d.toISOString();
  },
  bytes(n) {
    if (typeof n !== 'number') return '';
    if (n < 1024) return `${n} B`;
    if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
    return `${(n / 1024 / 1024).toFixed(1)} MB`;
  },
  usd(n) {
    if (typeof n !== 'number') return '–';
    if (n === 0) return '$0';
    if (n < 0.01) return `$${n.toPrecision(2)}`;
    return `$${n.toFixed(2)}`;
  },
  ms(n) {
    if (typeof n !== 'number') return '–';
    return n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${Math.round(n)} ms`;
  },
  int(n) { return typeof n === 'number' ? n.toLocaleString() : '–'; },
};

/** time returns a <time> element with a machine-readable datetime. */
export function time(v) {
  return h('time', { datetime: fmt.iso(v) }, fmt.date(v));
}

/** button builds a <button type=button> with a click handler. */
export function button(label, onClick, attrs = {}) {
  return h('button', { type: 'button', ...attrs, onclick: onClick }, label);
}

/**
 * busy disables a button while fn runs and restores it afterwards; it
 * returns what fn returns.
 */
export async function busy(btn, fn) {
  const was = btn.disabled;
  btn.disabled = true;
  btn.setAttribute('aria-busy', 'true');
  try {
    return await fn();
  } finally {
    btn.disabled = was;
    btn.removeAttribute('aria-busy');
  }
}

/**
 * stackTables gives every table under root the class "stack" and each
 * body cell a data-label naming its column, which studio.css shows when
 * the screen is too narrow for columns. Visually hidden headers give no
 * label.
 */
export function stackTables(root) {
  for (const table of root.querySelectorAll('table')) {
    table.classList.add('stack');
    const heads = [...table.querySelectorAll('thead th')].map((th) =>
      (th.querySelector('.visually-hidden') ? '' : th.textContent.trim()));
    for (const tr of table.querySelectorAll('tbody tr')) {
      [...tr.children].forEach((cell, i) => {
        if (cell.tagName === 'TD' && heads[i] && !cell.hasAttribute('data-label')) cell.setAttribute('data-label', heads[i]);
      });
    }
  }
}
