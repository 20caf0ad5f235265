package providers

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

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
// delta's role, content, refusal and tool calls, finish_reason, usage)
// and skips fields no struct field matches; anything else (errors, web
// sources, annotations, logprobs, extra_content, escapes it does not
// know, numbers that are not plain integers, duplicate or case-folded
// keys) goes through encoding/json, so behaviour cannot differ.
func decodeChunk(data []byte, cs *chunkStrings) (*oaiStreamEvent, error) {
	ce := new(chunkEvent)
	p := chunkParser{b: data, ev: ce, cs: cs}
	if p.chunk() {
		return &ce.oaiStreamEvent, nil
	}
	ev := new(oaiStreamEvent)
	if err := json.Unmarshal(data, ev); err != nil {
		return nil, err
	}
	return ev, nil
}

// chunkParser reads a JSON document, checking its syntax as json.Valid
// does as it goes; every method reports false on invalid JSON and on a
// shape it does not handle (the caller then leaves it to encoding/json).
type chunkParser struct {
	b  []byte
	i  int
	ev *chunkEvent
	cs *chunkStrings
}

func (p *chunkParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte (0 at the end).
func (p *chunkParser) peek() byte {
	p.ws()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// null consumes a null literal when one is next.
func (p *chunkParser) null() bool {
	if p.peek() == 'n' {
		return p.literal("null")
	}
	return false
}

// literal consumes lit when it is next.
func (p *chunkParser) literal(lit string) bool {
	if !bytes.HasPrefix(p.b[p.i:], []byte(lit)) {
		return false
	}
	p.i += len(lit)
	return true
}

// object calls field for each key of the object that is next; keys must
// be plain lower-case ASCII and each may appear once (seen is a bit set
// over the known keys' positions in names).
func (p *chunkParser) object(names []string, field func(k int) bool) bool {
	if p.peek() != '{' {
		return false
	}
	p.i++
	var seen uint32
	if p.peek() == '}' {
		p.i++
		return true
	}
	for {
		key, ok := p.rawString()
		if !ok {
			return false
		}
		if p.peek() != ':' {
			return false
		}
		p.i++
		k := -1
		for j, n := range names {
			if string(key) == n {
				k = j
				break
			}
		}
		if k >= 0 {
			if seen&(1<<k) != 0 || !field(k) {
				return false
			}
			seen |= 1 << k
		} else {
			if !plainKey(key) || !p.skip(0) {
				return false
			}
		}
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return true
		default:
			return false
		}
	}
}

// plainKey reports whether an unknown key can be skipped: encoding/json
// matches keys case-insensitively (with Unicode folding), so a key is
// skipped only when it is lower-case ASCII (names are all lower-case, so
// it cannot fold to one of them).
func plainKey(key []byte) bool {
	for _, c := range key {
		if c >= 0x80 || (c >= 'A' && c <= 'Z') || c == '\\' {
			return false
		}
	}
	return true
}

// array calls elem for each element of the array that is next.
func (p *chunkParser) array(elem func() bool) bool {
	if p.peek() != '[' {
		return false
	}
	p.i++
	if p.peek() == ']' {
		p.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return true
		default:
			return false
		}
	}
}

// maxSkipDepth bounds the nesting skip follows; deeper values are left
// to encoding/json (which refuses past 10000 levels).
const maxSkipDepth = 100

// skip passes over one JSON value, checking its syntax.
func (p *chunkParser) skip(depth int) bool {
	if depth > maxSkipDepth {
		return false
	}
	switch c := p.peek(); {
	case c == '"':
		_, ok := p.rawString()
		return ok
	case c == '{':
		p.i++
		if p.peek() == '}' {
			p.i++
			return true
		}
		for {
			if _, ok := p.rawString(); !ok || p.peek() != ':' {
				return false
			}
			p.i++
			if !p.skip(depth + 1) {
				return false
			}
			switch p.peek() {
			case ',':
				p.i++
			case '}':
				p.i++
				return true
			default:
				return false
			}
		}
	case c == '[':
		p.i++
		if p.peek() == ']' {
			p.i++
			return true
		}
		for {
			if !p.skip(depth + 1) {
				return false
			}
			switch p.peek() {
			case ',':
				p.i++
			case ']':
				p.i++
				return true
			default:
				return false
			}
		}
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return false
}

// number consumes a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *chunkParser) number() bool {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	digits := func() bool {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	p.i = i
	return true
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// rawString returns the bytes between the quotes of the string that is
// next, escapes left in.
func (p *chunkParser) rawString() ([]byte, bool) {
	if p.peek() != '"' {
		return nil, false
	}
	start := p.i + 1
	for j := start; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			p.i = j + 1
			return p.b[start:j], true
		case c == '\\':
			if j++; j >= len(p.b) {
				return nil, false
			}
			switch p.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if _, ok := jsonread.Hex4(p.b[j+1:]); !ok {
					return nil, false
				}
				j += 4
			default:
				return nil, false
			}
		case c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// str decodes the string that is next; the result is valid until the
// next call. Invalid UTF-8 (which encoding/json replaces) reports false.
func (p *chunkParser) str() ([]byte, bool) {
	raw, ok := p.rawString()
	if !ok || !utf8.Valid(raw) {
		return nil, false
	}
	for _, c := range raw {
		if c == '\\' {
			out, ok := jsonread.Unescape(p.cs.scratch[:0], raw)
			p.cs.scratch = out
			return out, ok
		}
	}
	return raw, true
}

// integer decodes a plain integer (no fraction or exponent) that fits
// comfortably in an int; anything else reports false.
func (p *chunkParser) integer() (int64, bool) {
	p.ws()
	j := p.i
	neg := false
	if j < len(p.b) && p.b[j] == '-' {
		neg = true
		j++
	}
	start := j
	var n int64
	for j < len(p.b) && p.b[j] >= '0' && p.b[j] <= '9' && j-start < 15 {
		n = n*10 + int64(p.b[j]-'0')
		j++
	}
	if j == start || (j < len(p.b) && !isDelim(p.b[j])) || (p.b[start] == '0' && j-start > 1) {
		return 0, false
	}
	p.i = j
	if neg {
		n = -n
	}
	return n, true
}
