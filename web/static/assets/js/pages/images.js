// Images: a prompt and a model through POST /v1/images, the results shown
// as a gallery (data: URLs are shown inline; the studio's CSP allows them).

import { api } from '../api.js';
import { h, field, errorBox, announce, busy, add } from '../dom.js';

export async function render(view) {
  const catalogue = await api.models().catch(() => ({}));
  const imageModels = Object.values(catalogue).flat().filter((m) => m.type === 'image');
  const model = h('select', { name: 'model', id: 'image-model' }, imageModels.map((m) => h('option', { value: m.id }, m.id)));
  const custom = h('input', { type: 'text', name: 'custom-model', spellcheck: 'false', placeholder: 'or any provider:model' });
  const prompt = h('textarea', { name: 'prompt', rows: '3', required: true });
  const size = h('input', { type: 'text', name: 'size', placeholder: '1024x1024', pattern: '\\d+x\\d+|auto' });
  const n = h('input', { type: 'number', name: 'n', min: '1', max: '10', value: '1' });
  const llmKey = h('input', { type: 'password', name: 'llm-key', autocomplete: 'off' });
  const go = h('button', { type: 'submit', class: 'primary', id: 'image-run' }, 'Generate');
  const err = errorBox();
  const gallery = h('ul', { class: 'gallery', id: 'gallery', 'aria-label': 'Generated images' });
  const form = h('form', { class: 'panel', id: 'image-form', 'aria-label': 'Generate images' },
    field('Prompt', prompt),
    imageModels.length ? field('Model', model) : null,
    field(imageModels.length ? 'Other model (optional)' : 'Model', custom, 'provider:model; overrides the list.'),
    h('div', { class: 'grid' }, field('Size', size, 'WxH, or empty for the model\'s default.'), field('Images', n)),
    field('Provider key (optional)', llmKey, 'Sent as LB-LLM-Key instead of your stored keys; kept only on this page.'),
    h('div', { class: 'actions' }, go));
  add(view,
    h('div', { class: 'page-head' }, h('h1', {}, 'Images')),
    h('p', { class: 'muted' }, 'Generate images with a provider\'s image model. Results stay on this page only.'),
    form, err.el, gallery);

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    err.clear();
    const body = { prompt: prompt.value, model: custom.value.trim() || model.value, n: Number(n.value) || 1 };
    if (size.value.trim()) body.size = size.value.trim();
    busy(go, async () => {
      try {
        const res = await api.images(body, undefined, llmKey.value.trim());
        let count = 0;
        for (const c of res.choices || []) {
          for (const img of (c.message && c.message.images) || []) {
            gallery.prepend(figure(img.image_url.url, body.prompt, res.model || body.model));
            count++;
          }
        }
        announce(count ? `${count} image${count === 1 ? '' : 's'} generated` : 'The model returned no image');
      } catch (ex) {
        err.show(ex);
      }
    });
  });
}

function figure(url, prompt, model) {
  const inline = url.startsWith('data:image/');
  return h('li', { 'data-image': '' }, h('figure', {},
    inline ? h('img', { src: url, alt: prompt })
      : h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, 'Open the image (hosted by the provider)'),
    h('figcaption', {}, h('code', {}, model), ' · ', prompt,
      inline ? [' · ', h('a', { href: url, download: 'image.png' }, 'Download')] : null)));
}
