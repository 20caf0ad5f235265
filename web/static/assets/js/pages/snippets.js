// Ready-to-copy snippets running one pipe: curl against /v1/pipes/run, the
// langbase SDK, and an OpenAI client against /openai/v1 with the model
// pipe:<name> (README "OpenAI-compatible API").

import { h } from '../dom.js';
import { copyButton } from '../md.js';

/** snippetsFor returns [id, title, code] for each snippet of a pipe. */
export function snippetsFor(name, origin) {
  const q = JSON.stringify(name);
  const curl = `curl -N ${origin}/v1/pipes/run \\
  -H "Authorization: Bearer $HEARTH_KEY" \\
  -H "Content-Type: application/json" \\
  -d '${JSON.stringify({ name, stream: true, messages: [{ role: 'user', content: 'Hello' }] }).replace(/'/g, "'\\''")}'`;
  const sdk = `import { Langbase } from 'langbase';

const langbase = new Langbase({ apiKey: process.env.HEARTH_KEY, baseUrl: ${JSON.stringify(origin)} });
const { completion, threadId } = await langbase.pipes.run({
  name: ${q},
  stream: false,
  messages: [{ role: 'user', content: 'Hello' }],
});
console.log(completion);`;
  const openai = `import OpenAI from 'openai';

const client = new OpenAI({ baseURL: ${JSON.stringify(`${origin}/openai/v1`)}, apiKey: process.env.HEARTH_KEY });
const res = await client.chat.completions.create({
  model: ${JSON.stringify(`pipe:${name}`)},
  messages: [{ role: 'user', content: 'Hello' }],
});
console.log(res.choices[0].message.content);`;
  const python = `import os
from openai import OpenAI

client = OpenAI(base_url=${JSON.stringify(`${origin}/openai/v1`)}, api_key=os.environ["HEARTH_KEY"])
res = client.chat.completions.create(model=${JSON.stringify(`pipe:${name}`)}, messages=[{"role": "user", "content": "Hello"}])
print(res.choices[0].message.content)`;
  return [
    ['curl', 'curl', curl],
    ['sdk', 'langbase SDK (JavaScript)', sdk],
    ['openai-js', 'OpenAI client (JavaScript)', openai],
    ['openai-py', 'OpenAI client (Python)', python],
  ];
}

/** snippetsPanel shows the snippets of a pipe, each with a copy button. */
export function snippetsPanel(name, origin = location.origin) {
  return h('section', { class: 'panel snippets', id: 'snippets', 'aria-labelledby': 'snippets-h' },
    h('h2', { id: 'snippets-h' }, 'Use this pipe'),
    h('p', { class: 'hint' }, 'HEARTH_KEY is a user, organization or pipe key of this server.'),
    snippetsFor(name, origin).map(([id, title, code]) => h('div', { class: 'codeblock', 'data-snippet': id },
      h('div', { class: 'codebar' }, h('span', {}, title), copyButton(() => code, `Copy the ${title} snippet`)),
      h('pre', {}, h('code', {}, code)))));
}
