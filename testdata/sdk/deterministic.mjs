// A fixed script for deterministic mode: server/sdk_deterministic_test.go
// runs it twice, against two servers started with HEARTH_DETERMINISTIC=on,
// and wants byte-identical stdout. It prints every answer the langbase SDK
// returns, ids and timestamps included, as one JSON document.
// Environment: HEARTH_URL (base URL) and HEARTH_KEY (a user key).
import { Langbase, getRunner } from 'langbase';

const lb = () => new Langbase({ apiKey: process.env.HEARTH_KEY, baseUrl: process.env.HEARTH_URL });
const msg = (content) => [{ role: 'user', content }];
const out = {};

out.pipe = await lb().pipes.create({ name: 'snapshot', model: 'hearth:echo' });
out.run = await lb().pipes.run({ name: 'snapshot', messages: msg('hello there') });
const { stream, threadId } = await lb().pipes.run({ name: 'snapshot', stream: true, messages: msg('a streamed answer') });
const chunks = [];
const runner = getRunner(stream);
runner.on('chunk', (c) => chunks.push(c));
out.stream = { threadId, final: await runner.finalChatCompletion(), chunks };
out.followUp = await lb().pipes.run({ name: 'snapshot', threadId, messages: msg('and more') });
out.messages = await lb().threads.messages.list({ threadId });
out.thread = await lb().threads.create({ messages: msg('stored') });
out.agent = await lb().agent.run({ model: 'hearth:echo', apiKey: 'unused', input: 'echo me' });
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
