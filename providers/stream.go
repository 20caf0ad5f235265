package providers

import (
	"encoding/json"
	"io"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// sseStream is the part every streaming adapter shares: the upstream call,
// the SSE reader, a queue of translated chunks, and the terminal state.
// Adapters implement translate, which turns one upstream event into zero or
// more chunks and reports whether it was the terminal event.
type sseStream struct {
	provider  string
	call      *upstreamCall
	sse       *sseReader
	queue     []*engine.ChatChunk
	head      int  // queue[head:] is what Recv has not returned yet
	finished  bool // the terminal event was seen
	cleanEOF  bool // the end of the body is a normal end (a finish was seen)
	err       error
	translate func(event, data []byte) error
	// tr, when set, stands for translate (a stream type that embeds its
	// sseStream is then one allocation, without a closure).
	tr eventTranslator
}

// eventTranslator is what an sseStream's tr does: translate one event.
type eventTranslator interface {
	translateEvent(event, data []byte) error
}

func newSSEStream(provider string, call *upstreamCall) *sseStream {
	return &sseStream{provider: provider, call: call, sse: newSSEReader(call.resp.Body)}
}

// emit queues a chunk for Recv.
func (s *sseStream) emit(c *engine.ChatChunk) { s.queue = append(s.queue, c) }

// Recv returns the next chunk, io.EOF after a complete stream, or an error
// when the upstream failed or ended without its terminal event.
func (s *sseStream) Recv() (*engine.ChatChunk, error) {
	for {
		if s.head < len(s.queue) {
			c := s.queue[s.head]
			s.queue[s.head] = nil
			s.head++
			if s.head == len(s.queue) {
				// Drained: the next event reuses the queue's array.
				s.queue, s.head = s.queue[:0], 0
			}
			return c, nil
		}
		if s.err != nil {
			return nil, s.err
		}
		if s.finished {
			s.err = io.EOF
			s.Close()
			continue
		}
		s.step()
	}
}

// step reads one upstream event and translates it, or records why the
// stream ended.
func (s *sseStream) step() {
	s.call.extend()
	event, data, err := s.sse.next()
	if err != nil {
		if err == io.EOF {
			if s.cleanEOF {
				s.err = io.EOF
			} else if s.call.ctx.Err() != nil {
				s.err = transportError(s.provider, s.call.ctx, err)
			} else {
				s.err = errTruncated(s.provider)
			}
		} else {
			s.err = s.call.redact(transportError(s.provider, s.call.ctx, err))
		}
		s.Close()
		return
	}
	if s.tr != nil {
		err = s.tr.translateEvent(event, data)
	} else {
		err = s.translate(event, data)
	}
	if err != nil {
		s.err = s.call.redact(err)
		s.Close()
	}
}

// Close releases the upstream connection; it may be called more than once.
func (s *sseStream) Close() error {
	if s.err == nil {
		s.err = errStreamClosed
		s.queue, s.head = nil, 0
	}
	if s.call != nil {
		s.call.close()
		s.sse.release()
		s.call = nil
	}
	return nil
}

// errStreamClosed is returned by Recv after the caller closed the stream.
var errStreamClosed = &engine.Error{Code: engine.CodeUpstream, Message: "stream was closed"}

// chunkBuilder stamps id, model and created on the chunks of one stream,
// keeping the id identical across chunks as OpenAI clients require.
type chunkBuilder struct {
	id      string
	model   string
	created int64
}

func (b *chunkBuilder) chunk(d engine.Delta, finish string) *engine.ChatChunk {
	c := &engine.ChatChunk{ID: b.id, Object: "chat.completion.chunk", Created: b.created, Model: b.model,
		Choices: []engine.ChunkChoice{{Index: 0, Delta: d}}}
	if finish != "" {
		c.Choices[0].FinishReason = &finish
	}
	return c
}

func (b *chunkBuilder) role() *engine.ChatChunk {
	empty := ""
	return b.chunk(engine.Delta{Role: "assistant", Content: &empty}, "")
}

func (b *chunkBuilder) text(s string) *engine.ChatChunk {
	return b.chunk(engine.Delta{Content: &s}, "")
}

func (b *chunkBuilder) toolStart(index int, id, name, args string) *engine.ChatChunk {
	i := index
	return b.chunk(engine.Delta{ToolCalls: []engine.ToolCall{{Index: &i, ID: id, Type: "function", Function: engine.FunctionCall{Name: name, Arguments: args}}}}, "")
}

func (b *chunkBuilder) toolArgs(index int, args string) *engine.ChatChunk {
	i := index
	return b.chunk(engine.Delta{ToolCalls: []engine.ToolCall{{Index: &i, Function: engine.FunctionCall{Arguments: args}}}}, "")
}

func (b *chunkBuilder) usage(u engine.Usage) *engine.ChatChunk {
	return &engine.ChatChunk{ID: b.id, Object: "chat.completion.chunk", Created: b.created, Model: b.model,
		Choices: []engine.ChunkChoice{}, Usage: &u}
}

func newChunkBuilder(id, model string) chunkBuilder {
	return chunkBuilder{id: id, model: model, created: time.Now().Unix()}
}

// decodeResponse reads a whole non-stream answer into v and releases the call.
func decodeResponse(provider string, call *upstreamCall, v any) error {
	defer call.close()
	if err := json.NewDecoder(call.resp.Body).Decode(v); err != nil {
		if call.ctx.Err() != nil {
			return transportError(provider, call.ctx, err)
		}
		return call.redact(&engine.Error{Code: engine.CodeUpstream, Message: provider + " sent a response Hearth could not read", Err: err})
	}
	return nil
}

func badStreamData(provider string, err error) error {
	return &engine.Error{Code: engine.CodeUpstream, Message: provider + " sent a stream event Hearth could not read", Err: err}
}
