// `hearth serve --ephemeral` spawned the way a Node test suite would
// (README "Using Hearth in your tests"): it reads the server's URL and
// admin key from the one JSON line on stdout, talks to it with the
// langbase SDK, stops it, and checks the data dir is gone.
// server/sdk_e2e_test.go passes the binary it built as HEARTH_BIN.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync } from 'node:fs';
import { Langbase } from 'langbase';

// startHearth spawns an ephemeral server and resolves once it listens
// with { url, admin_key, data, pid, stop }.
async function startHearth(bin = process.env.HEARTH_BIN ?? 'hearth') {
  const child = spawn(bin, ['serve', '--ephemeral'], {
    env: { ...process.env, HEARTH_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    exited.then((code) => reject(new Error(`hearth exited (${code}) before it was ready`)));
  });
  const ready = JSON.parse(line);
  const stop = async () => {
    child.kill('SIGTERM');
    return exited;
  };
  return { ...ready, stop };
}

test('hearth serve --ephemeral: address and key on stdout, data removed on exit', async () => {
  const hearth = await startHearth();
  try {
    assert.match(hearth.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(hearth.admin_key, /^hth_user_/);
    assert.ok(existsSync(hearth.data), 'the data dir exists while the server runs');

    const lb = new Langbase({ apiKey: hearth.admin_key, baseUrl: hearth.url });
    await lb.pipes.create({ name: 'echo', model: 'hearth:echo' });
    const run = await lb.pipes.run({ name: 'echo', messages: [{ role: 'user', content: 'ping from node' }] });
    assert.equal(run.completion, 'ping from node');
  } finally {
    assert.equal(await hearth.stop(), 0);
  }
  assert.equal(existsSync(hearth.data), false, 'the data dir is removed on exit');
});
