// Inline SVG charts over time buckets: stacked bars or a line. No
// library; colours come from CSS classes (s1, s2, s3) so they follow the
// light and dark themes.

import { h } from './dom.js';

const W = 800;
const H = 220;
const M = { top: 12, right: 12, bottom: 30, left: 64 };

/**
 * timeChart draws buckets [{label, values: [n, ...], title}] as stacked
 * bars (kind 'bar') or as a line of values[0] (kind 'line'). series names
 * the values for the legend; format renders axis numbers.
 */
export function timeChart({ id, title, summary, buckets, series, kind = 'bar', format = String }) {
  const titleId = `${id}-title`;
  const descId = `${id}-desc`;
  const totals = buckets.map((b) => (kind === 'bar' ? b.values.reduce((a, v) => a + (v || 0), 0) : (b.values[0] ?? 0)));
  const max = niceMax(Math.max(0, ...totals));
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const step = pw / Math.max(1, buckets.length);
  const y = (v) => M.top + ph - (max ? (v / max) * ph : 0);

  const svg = h('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': `${titleId} ${descId}`, id },
    h('title', { id: titleId }, title),
    h('desc', { id: descId }, summary));

  // Y axis: four ticks from 0 to max.
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    const yy = y(v);
    svg.append(h('line', { class: 'axis', x1: M.left, x2: W - M.right, y1: yy, y2: yy }),
      h('text', { class: 'tick', x: M.left - 6, y: yy + 4, 'text-anchor': 'end' }, format(v)));
  }
  // X labels: at most ~8, evenly spaced.
  const every = Math.max(1, Math.ceil(buckets.length / 8));
  buckets.forEach((b, i) => {
    if (i % every === 0) {
      svg.append(h('text', { class: 'tick', x: M.left + step * i + step / 2, y: H - 10, 'text-anchor': 'middle' }, b.label));
    }
  });

  if (kind === 'bar') {
    const bw = Math.max(1, step * 0.7);
    buckets.forEach((b, i) => {
      let base = 0;
      const g = h('g', {}, h('title', {}, b.title));
      b.values.forEach((v, s) => {
        if (!v) return;
        const top = y(base + v);
        g.append(h('rect', { class: series[s].cls, x: M.left + step * i + (step - bw) / 2, y: top, width: bw, height: Math.max(0.5, y(base) - top) }));
        base += v;
      });
      svg.append(g);
    });
  } else {
    const pts = [];
    buckets.forEach((b, i) => {
      if (b.values[0] === null || b.values[0] === undefined) return;
      const cx = M.left + step * i + step / 2;
      const cy = y(b.values[0]);
      pts.push(`${cx.toFixed(1)},${cy.toFixed(1)}`);
      svg.append(h('circle', { class: 'dot', cx, cy, r: 3.5 }, h('title', {}, b.title)));
    });
    // The line goes under the dots, after the title and description.
    if (pts.length > 1) svg.insertBefore(h('polyline', { class: 'line', points: pts.join(' ') }), svg.children[2]);
  }

  return h('figure', { class: 'chart' },
    h('figcaption', {}, h('strong', {}, title)),
    svg,
    h('ul', { class: 'legend', 'aria-hidden': 'true' }, series.map((s) => h('li', {}, h('span', { class: `swatch ${s.cls}` }), s.name))));
}

// niceMax rounds a maximum up to 1, 2 or 5 times a power of ten.
function niceMax(v) {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}
