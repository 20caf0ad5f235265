// Shared setup for the SDK end-to-end tests. The Go test
// server/sdk_e2e_test.go starts the real hearth binary against a fake
// OpenAI upstream and runs `node --test` here with:
//   HEARTH_URL  base URL of the running server
//   HEARTH_KEY  a user key of that server
//   SDK_UPSTREAM_URL  base URL of the fake upstream (its lag-probe release)
// The fake upstream answers "Hello from the fake upstream." and calls the
// get_weather tool when the last user message mentions "weather". It
// accepts the provider keys sk-server-openai (configured on the server)
// and sk-llmkey-valid, and refuses any other with HTTP 401.
import { Langbase } from 'langbase';

export const baseUrl = process.env.HEARTH_URL;
export const apiKey = process.env.HEARTH_KEY;
export const upstreamUrl = process.env.SDK_UPSTREAM_URL;
if (!baseUrl || !apiKey || !upstreamUrl) {
  throw new Error('HEARTH_URL, HEARTH_KEY and SDK_UPSTREAM_URL must be set (run through server/sdk_e2e_test.go)');
}

export const FAKE_TEXT = 'Hello from the fake upstream.';
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// client returns a fresh SDK instance: pipes.run({apiKey}) replaces an
// instance's key for good (an SDK quirk), so tests never share one.
export function client(key = apiKey) {
  return new Langbase({ apiKey: key, baseUrl });
}

export function uniq(prefix) {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
}

// rejects awaits a promise that must fail and returns the error.
export async function rejects(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to fail');
}

export const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
};
