// The owner's run content setting (GET/PUT /v1/runs/settings; README
// "Run log"): keep the prompt and completion of every run, and for how long.

import { request } from '../api.js';
import { h, field, checkbox, errorBox, announce, busy } from '../dom.js';

// runSettingsSection returns the section, or null when the key may not
// read the setting.
export async function runSettingsSection(signal) {
  let set;
  try {
    set = await request('GET', '/v1/runs/settings', undefined, { signal });
  } catch {
    return null;
  }
  const err = errorBox();
  const on = checkbox('log_content', 'Keep the prompt and completion of every run', set.log_content,
    'For debugging: shown in each run\'s detail view, keys redacted. Pipes can also turn it on one by one (Log content in their settings).');
  const retention = h('input', { name: 'retention', value: set.retention || '', placeholder: set.default_retention });
  const save = h('button', { type: 'submit' }, 'Save');
  const status = h('p', { class: 'hint', role: 'status', id: 'run-settings-status' });
  const form = h('form', { class: 'panel', id: 'run-settings', 'aria-labelledby': 'run-settings-h' },
    h('h2', { id: 'run-settings-h' }, 'Run content'),
    on.el,
    field('Retention', retention, `How long content is kept, such as 7d or 36h (empty: the server default, ${set.default_retention}).`),
    err.el, h('div', { class: 'actions' }, save), status);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    err.clear();
    await busy(save, async () => {
      try {
        const res = await request('PUT', '/v1/runs/settings', { log_content: on.input.checked, retention: retention.value.trim() });
        status.textContent = res.log_content ? `Run content is kept for ${res.retention || res.default_retention}.` : 'Run content is not kept.';
        announce('Run content setting saved');
      } catch (ex) {
        err.show(ex);
      }
    });
  });
  return form;
}
