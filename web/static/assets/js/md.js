// A small, safe markdown renderer for chat answers. It builds DOM nodes
// with createElement and text nodes only (never innerHTML), so raw HTML in
// an answer shows as text. Supported: headings, paragraphs with line
// breaks, fenced code blocks (with a copy button), inline code, bold,
// italic, links (http, https and mailto only), bullet and numbered lists,
// block quotes and rules. Anything else stays as written.

import { h, announce } from './dom.js';

const FENCE = /^\s*(```|~~~)\s*([\w+.#-]*)\s*$/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const ORDERED = /^\s*(\d{1,9})[.)]\s+(.*)$/;
const QUOTE = /^\s*>\s?(.*)$/;
const RULE = /^\s*([-*_])(\s*\1){2,}\s*$/;
const INLINE = /`([^`\n]+)`|\*\*(.+?)\*\*|__(.+?)__|\*([^*\s](?:[^*]*[^*\s])?)\*|(?<![\w])_([^_\s](?:[^_]*[^_\s])?)_(?![\w])|\[([^\]\n]+)\]\(([^()\s]+)\)/g;
const SAFE_URL = /^(https?:\/\/|mailto:)/i;

/** renderMarkdown returns a fragment with text rendered as markdown. */
export function renderMarkdown(text) {
  const frag = document.createDocumentFragment();
  const lines = String(text ?? '').replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if (line.trim() === '') {
      i++;
    } else if ((m = FENCE.exec(line))) {
      const body = [];
      i++;
      while (i < lines.length && !(lines[i].trim().startsWith(m[1]) && lines[i].trim().replace(/[`~]/g, '') === '')) body.push(lines[i++]);
      i++;
      frag.append(codeBlock(body.join('\n'), m[2]));
    } else if ((m = HEADING.exec(line))) {
      frag.append(h(`h${Math.min(m[1].length + 2, 6)}`, {}, inline(m[2])));
      i++;
    } else if (RULE.test(line)) {
      frag.append(h('hr'));
      i++;
    } else if (QUOTE.test(line)) {
      const body = [];
      while (i < lines.length && (m = QUOTE.exec(lines[i]))) { body.push(m[1]); i++; }
      frag.append(h('blockquote', {}, renderMarkdown(body.join('\n'))));
    } else if (BULLET.test(line) || ORDERED.test(line)) {
      const ordered = !BULLET.test(line);
      const re = ordered ? ORDERED : BULLET;
      const start = ordered ? Number(ORDERED.exec(line)[1]) : 1;
      const items = [];
      while (i < lines.length && (m = re.exec(lines[i]))) {
        items.push(ordered ? m[2] : m[1]);
        i++;
        // Indented continuation lines belong to the item.
        while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !BULLET.test(lines[i]) && !ORDERED.test(lines[i])) {
          items[items.length - 1] += `\n${lines[i].trim()}`;
          i++;
        }
      }
      const list = h(ordered ? 'ol' : 'ul', ordered && start !== 1 ? { start: String(start) } : {},
        items.map((t) => h('li', {}, inlineLines(t))));
      frag.append(list);
    } else {
      const body = [];
      while (i < lines.length && lines[i].trim() !== '' && !FENCE.test(lines[i]) && !HEADING.test(lines[i])
        && !BULLET.test(lines[i]) && !ORDERED.test(lines[i]) && !QUOTE.test(lines[i]) && !RULE.test(lines[i])) {
        body.push(lines[i++]);
      }
      frag.append(h('p', {}, inlineLines(body.join('\n'))));
    }
  }
  return frag;
}

/** inlineLines renders inline markdown, keeping line breaks as <br>. */
function inlineLines(text) {
  const out = [];
  text.split('\n').forEach((l, n) => {
    if (n) out.push(h('br'));
    out.push(...inline(l));
  });
  return out;
}

/** inline renders code spans, emphasis and links of one line. */
function inline(text) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[1] !== undefined) out.push(h('code', {}, m[1]));
    else if (m[2] !== undefined || m[3] !== undefined) out.push(h('strong', {}, inline(m[2] ?? m[3])));
    else if (m[4] !== undefined || m[5] !== undefined) out.push(h('em', {}, inline(m[4] ?? m[5])));
    else if (SAFE_URL.test(m[7])) out.push(h('a', { href: m[7], rel: 'noopener noreferrer nofollow', target: '_blank' }, inline(m[6])));
    else out.push(m[0]);
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** codeBlock is a <pre><code> with its language and a copy button. */
function codeBlock(code, lang) {
  const pre = h('pre', {}, h('code', lang ? { 'data-lang': lang } : {}, code));
  return h('div', { class: 'codeblock' },
    h('div', { class: 'codebar' }, h('span', { class: 'muted' }, lang || 'code'), copyButton(() => code, lang ? `Copy ${lang} code` : 'Copy code')),
    pre);
}

/**
 * copyButton copies text() to the clipboard; where the clipboard API is
 * refused (plain HTTP on another host) it says to copy by hand.
 */
export function copyButton(text, label = 'Copy') {
  const btn = h('button', { type: 'button', class: 'small copy', 'aria-label': label }, 'Copy');
  btn.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text());
      btn.textContent = 'Copied';
      announce('Copied to the clipboard');
    } catch {
      btn.textContent = 'Copy failed';
      announce('The browser refused the clipboard: select the text and copy it');
    }
    setTimeout(() => { btn.textContent = 'Copy'; }, 2000);
  });
  return btn;
}

/** renderInto replaces el's children with text rendered as markdown. */
export function renderInto(el, text) {
  el.replaceChildren(renderMarkdown(text));
  el.classList.add('md');
  return el;
}
