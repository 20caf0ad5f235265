import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UUID, client, rejects, uniq } from './helpers.mjs';

test('threads: create, get, update, append, list messages, delete', async () => {
  const lb = client();
  const created = await lb.threads.create({
    metadata: { user: 'u1' },
    messages: [{ role: 'user', content: 'first' }],
  });
  assert.match(created.id, UUID);
  assert.equal(created.object, 'thread');
  assert.equal(typeof created.created_at, 'number');
  assert.deepEqual(created.metadata, { user: 'u1' });

  assert.deepEqual(await lb.threads.get({ threadId: created.id }), created);

  const updated = await lb.threads.update({ threadId: created.id, metadata: { topic: 'tests' } });
  assert.deepEqual(updated.metadata, { user: 'u1', topic: 'tests' });

  const appended = await lb.threads.append({
    threadId: created.id,
    messages: [
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_1', name: 'f', content: 'result' },
    ],
  });
  assert.equal(appended.length, 2);
  assert.equal(appended[0].thread_id, created.id);

  const messages = await lb.threads.messages.list({ threadId: created.id });
  assert.equal(messages.length, 3);
  const [first, call, result] = messages;
  assert.deepEqual(
    { role: first.role, content: first.content, tool_call_id: first.tool_call_id, tool_calls: first.tool_calls, name: first.name, attachments: first.attachments, metadata: first.metadata },
    { role: 'user', content: 'first', tool_call_id: null, tool_calls: [], name: null, attachments: [], metadata: {} },
  );
  assert.equal(call.content, null);
  assert.equal(call.tool_calls[0].function.name, 'f');
  assert.equal(result.tool_call_id, 'call_1');
  assert.ok(first.created_at <= result.created_at);

  assert.deepEqual(await lb.threads.delete({ threadId: created.id }), { success: true });
  const gone = await rejects(lb.threads.get({ threadId: created.id }));
  assert.equal(gone.status, 404);
});

test('threads: custom ids, 409 on a duplicate, 400 on bad messages', async () => {
  const lb = client();
  const threadId = uniq('thread');
  const t = await lb.threads.create({ threadId });
  assert.equal(t.id, threadId);
  const dup = await rejects(lb.threads.create({ threadId }));
  assert.equal(dup.status, 409);
  const bad = await rejects(lb.threads.append({ threadId, messages: [{ role: 'robot', content: 'x' }] }));
  assert.equal(bad.status, 400);
  assert.match(bad.message, /role/);
  const missing = await rejects(lb.threads.messages.list({ threadId: uniq('nope') }));
  assert.equal(missing.status, 404);
});
