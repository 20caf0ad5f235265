package providers

import (
	"encoding/json"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/jsonread"
)

// chunkEvent is one decoded chat.completion.chunk together with the
// storage its common case needs, so a typical event (one choice, one
// content delta) is one allocation for the event and one for the text.
type chunkEvent struct {
	oaiStreamEvent
	choice  [1]engine.ChunkChoice
	content string
	finish  string
	fprint  string
}

// chunkStrings keeps the strings a stream repeats on every event (id,
// model, object, fingerprint), so each is allocated once a stream. It is
// per stream and per process: nothing in it outlives the stream.
type chunkStrings struct {
	id, model, object, fprint string
	// scratch holds the latest unescaped string until it is copied.
	scratch []byte
}

func (cs *chunkStrings) intern(slot *string, b []byte) string {
	if string(b) != *slot {
		*slot = string(b)
	}
	return *slot
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
// goes through encoding/json (see package jsonread, which checks the syntax
// as it reads), so behaviour cannot differ.
func decodeChunk(data []byte, cs *chunkStrings) (*oaiStreamEvent, error) {
	ce := new(chunkEvent)
	p := chunkParser{Reader: jsonread.New(data), ev: ce, cs: cs}
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
	jsonread.Reader
	ev *chunkEvent
	cs *chunkStrings
}

// text decodes the string that is next; the result is valid until the
// next call.
func (p *chunkParser) text() ([]byte, bool) { return p.Text(&p.cs.scratch) }
