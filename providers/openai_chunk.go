package providers

import (
	"encoding/json"
	"unsafe"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/jsonfast"
)

// chunkEvent is one decoded chat.completion.chunk together with the
// storage its common case needs, so a typical event (one choice, one
// content delta) needs no allocation of its own beyond its share of the
// stream's blocks (chunkStrings).
type chunkEvent struct {
	oaiStreamEvent
	choice  [1]engine.ChunkChoice
	content string
	finish  string
	fprint  string
}

// chunkStrings keeps the strings a stream repeats on every event (id,
// model, object, fingerprint), so each is allocated once a stream, and
// the stream's storage for events and their text, allocated a block at a
// time. It is per stream and per process: nothing in it outlives the
// stream, and several Hearth nodes sharing one database share none of it.
type chunkStrings struct {
	id, model, object, fprint string
	// scratch holds the latest unescaped string until it is copied.
	scratch []byte
	// events is the unused rest of the current block of events; every
	// event gets its own element, never reused, so a chunk stays valid
	// for as long as its receiver keeps it.
	events []chunkEvent
	// text is the current block of event text: strings handed out point
	// into text[:len(text)], which is never written again.
	text []byte
}

// Block sizes of chunkStrings: a typical answer of a few dozen events
// takes a handful of allocations instead of two an event.
const (
	chunkEventBlock = 8
	chunkTextBlock  = 256
)

func (cs *chunkStrings) intern(slot *string, b []byte) string {
	if string(b) != *slot {
		if string(b) == chatChunkObject {
			*slot = chatChunkObject
		} else {
			*slot = string(b)
		}
	}
	return *slot
}

// chatChunkObject is the object of every OpenAI stream event.
const chatChunkObject = "chat.completion.chunk"

// event returns a zero event of the stream's current block.
func (cs *chunkStrings) event() *chunkEvent {
	if len(cs.events) == 0 {
		cs.events = make([]chunkEvent, chunkEventBlock)
	}
	ce := &cs.events[0]
	cs.events = cs.events[1:]
	return ce
}

// str returns b as a string stored in the stream's text block (a long
// text gets its own allocation, as string(b) would).
func (cs *chunkStrings) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > chunkTextBlock/4 {
		return string(b)
	}
	if cap(cs.text)-len(cs.text) < len(b) {
		cs.text = make([]byte, 0, chunkTextBlock)
	}
	start := len(cs.text)
	cs.text = append(cs.text, b...)
	return unsafe.String(&cs.text[start], len(b))
}

// decodeChunk decodes one OpenAI chat.completion.chunk
// (https://platform.openai.com/docs/api-reference/chat-streaming/streaming)
// into a new event, giving the same value as json.Unmarshal into a new
// oaiStreamEvent. The hand-written path covers the fields Hearth reads
// (id, object, created, model, system_fingerprint, choices with their
// delta's role, content, refusal and tool calls with their extra_content,
// finish_reason, usage) and skips fields no struct field matches;
// anything else (errors, web sources, annotations, logprobs, numbers that
// are not plain integers, duplicate or case-folded keys, invalid JSON)
// goes through encoding/json (see package jsonfast, which checks the syntax
// as it reads), so behaviour cannot differ.
func decodeChunk(data []byte, cs *chunkStrings) (*oaiStreamEvent, error) {
	ce := cs.event()
	p := chunkParser{Reader: jsonfast.NewReader(data), ev: ce, cs: cs}
	if p.chunk() && p.End() {
		return &ce.oaiStreamEvent, nil
	}
	ev := new(oaiStreamEvent)
	if err := json.Unmarshal(data, ev); err != nil {
		return nil, err
	}
	return ev, nil
}

// chunkParser reads one chunk into ev.
type chunkParser struct {
	jsonfast.Reader
	ev *chunkEvent
	cs *chunkStrings
}

// text decodes the string that is next; the result is valid until the
// next call.
func (p *chunkParser) text() ([]byte, bool) { return p.Text(&p.cs.scratch) }
