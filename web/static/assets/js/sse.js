// Server-sent events over fetch: a line-based parser that follows the SSE
// spec (lines end in \r\n, \n or \r; a blank line ends an event; ':'
// starts a comment; several data lines join with \n), a reader for a
// fetch Response, and an accumulator for OpenAI-style chat chunks.

/**
 * SSEParser turns text pieces, split anywhere, into events
 * {event, data}. push() may be called with any slicing of the stream;
 * end() flushes a last event that had no blank line after it.
 */
export class SSEParser {
  constructor(onEvent) {
    this.onEvent = onEvent;
    this.buf = '';
    this.data = [];
    this.event = '';
  }

  push(text) {
    this.buf += text;
    let start = 0;
    for (let i = 0; i < this.buf.length; i++) {
      const c = this.buf[i];
      if (c !== '\n' && c !== '\r') continue;
      if (c === '\r' && i + 1 === this.buf.length) break; // wait: may be \r\n
      this.line(this.buf.slice(start, i));
      if (c === '\r' && this.buf[i + 1] === '\n') i++;
      start = i + 1;
    }
    this.buf = this.buf.slice(start);
  }

  end() {
    if (this.buf.length) this.line(this.buf.replace(/\r$/, ''));
    this.buf = '';
    this.dispatch();
  }

  line(l) {
    if (l === '') {
      this.dispatch();
      return;
    }
    if (l[0] === ':') return;
    const colon = l.indexOf(':');
    const name = colon < 0 ? l : l.slice(0, colon);
    let value = colon < 0 ? '' : l.slice(colon + 1);
    if (value[0] === ' ') value = value.slice(1);
    if (name === 'data') this.data.push(value);
    else if (name === 'event') this.event = value;
  }

  dispatch() {
    if (this.data.length) this.onEvent({ event: this.event, data: this.data.join('\n') });
    this.data = [];
    this.event = '';
  }
}

/** StreamError is an error event inside a stream that had already started. */
export class StreamError extends Error {
  constructor(message) {
    super(message);
    this.name = 'StreamError';
  }
}

/**
 * parseEvent interprets one SSE event of a run: null for [DONE], the
 * chunk object otherwise; error events (data {"error": ...} or
 * event: error) throw a StreamError with the server's message.
 */
export function parseEvent(ev) {
  if (ev.data.startsWith('[DONE]')) return null;
  let obj;
  try {
    obj = JSON.parse(ev.data);
  } catch {
    throw new StreamError(`the stream sent an event that is not JSON: ${ev.data.slice(0, 120)}`);
  }
  if (ev.event === 'error') {
    throw new StreamError((obj && (obj.message || (obj.error && obj.error.message) || obj.error)) || 'stream error');
  }
  if (obj && obj.error) {
    const e = obj.error;
    throw new StreamError(typeof e === 'string' ? e : (e.message || JSON.stringify(e)));
  }
  return obj;
}

/**
 * readSSE reads a fetch Response body as SSE and calls onChunk for each
 * JSON chunk until [DONE] or the end of the body. It rejects with a
 * StreamError on an error event.
 */
export async function readSSE(res, onChunk) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const queue = [];
  const parser = new SSEParser((ev) => queue.push(ev));
  let done = false;
  try {
    while (!done) {
      const { value, done: eof } = await reader.read();
      if (eof) {
        parser.push(decoder.decode());
        parser.end();
      } else {
        parser.push(decoder.decode(value, { stream: true }));
      }
      while (queue.length) {
        const chunk = parseEvent(queue.shift());
        if (chunk === null) {
          done = true;
          break;
        }
        onChunk(chunk);
      }
      if (eof) break;
    }
  } finally {
    if (done) reader.cancel().catch(() => {});
    else reader.releaseLock();
  }
}

/**
 * ChatAccumulator folds chat completion chunks into one message: text,
 * tool calls keyed by index (arguments concatenated), finish reason and
 * usage.
 */
export class ChatAccumulator {
  constructor() {
    this.text = '';
    this.toolCalls = [];
    this.finishReason = null;
    this.usage = null;
    this.model = '';
    this.id = '';
    this.sources = null; // memory chunks the run used (include_sources)
  }

  add(chunk) {
    if (chunk.model) this.model = chunk.model;
    if (chunk.id) this.id = chunk.id;
    if (chunk.usage) this.usage = chunk.usage;
    if (Array.isArray(chunk.sources)) this.sources = chunk.sources;
    const choice = (chunk.choices || [])[0];
    if (!choice) return '';
    const d = choice.delta || choice.message || {};
    let added = '';
    if (typeof d.content === 'string') {
      this.text += d.content;
      added = d.content;
    }
    for (const tc of d.tool_calls || []) {
      const i = typeof tc.index === 'number' ? tc.index : this.toolCalls.length;
      const cur = this.toolCalls[i] || (this.toolCalls[i] = { id: '', type: 'function', function: { name: '', arguments: '' } });
      if (tc.id) cur.id = tc.id;
      if (tc.type) cur.type = tc.type;
      if (tc.function) {
        if (tc.function.name) cur.function.name = tc.function.name;
        if (tc.function.arguments) cur.function.arguments += tc.function.arguments;
      }
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return added;
  }
}
