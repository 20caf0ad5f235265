package server

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
	"unsafe"

	"github.com/hearth-dev/hearth/engine/agent"
	"github.com/hearth-dev/hearth/engine/jsonread"
	"github.com/labstack/echo/v4"
)

// decodeAgentRun decodes an agent run body into run.req as decodeJSON
// does, with the model, the instructions and the input in one allocation
// instead of one each (and one more for the instructions' pointer, which
// points into run). Their bytes are never modified once decoded (see
// agent.AgentRunRequest.Input); a model name the metrics keep as a label
// keeps those few bytes (not the body) for as long.
func decodeAgentRun(c echo.Context, run *agentRun) error {
	buf, err := readPooledBody(c)
	if err != nil {
		return err
	}
	defer releaseBody(buf)
	b := bytes.TrimSpace(buf.Bytes())
	if len(b) == 0 {
		return nil
	}
	if err := checkDepth(b); err != nil {
		return err
	}
	if decodeAgentRunShared(b, &run.req, &run.instructions) {
		return nil
	}
	if err := json.Unmarshal(b, &run.req); err != nil {
		return jsonError(err)
	}
	return nil
}

// decodeAgentRunShared is decodeFast for an agent run body, with its
// strings in one allocation; instructions is where a.Instructions points.
// On false a is reset to its zero value.
func decodeAgentRunShared(b []byte, a *agent.AgentRunRequest, instructions *string) bool {
	var sh sharedAgentStrings
	if r := jsonread.New(b); !readAgentRun(&r, a, &sh) || !r.End() {
		*a = agent.AgentRunRequest{}
		return false
	}
	sh.own(a, instructions)
	return true
}

// sharedAgentStrings holds the body's bytes of the fields readAgentRun
// leaves for own, until own copies them out of the body.
type sharedAgentStrings struct {
	model, input, instructions sharedField
}

// sharedField is a field's bytes in the body (the whole JSON value for
// the input, the string between the quotes for the others), when set.
type sharedField struct {
	b  []byte
	ok bool
}

func (f *sharedField) set(b []byte) { f.b, f.ok = b, true }

// plainString returns the bytes between the quotes of raw when it is a
// JSON string that decodes to exactly them: no escape and valid UTF-8
// (Raw checked its syntax, so no control character either).
func plainString(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) {
		return nil, false
	}
	return raw[1 : len(raw)-1], true
}

// take reads the next value. A plain string is left in the body (set)
// and done is true; any other value comes back raw for the caller's
// decoder. valid is false when the value is not JSON.
func (f *sharedField) take(r *jsonread.Reader) (raw []byte, done, valid bool) {
	raw, valid = r.Raw()
	if !valid {
		return nil, false, false
	}
	if s, ok := plainString(raw); ok {
		f.set(s)
		return nil, true, true
	}
	f.ok = false
	return raw, false, true
}

// read is jsonread.ReadString, a plain string left in the body.
func (f *sharedField) read(r *jsonread.Reader, out *string) bool {
	raw, done, valid := f.take(r)
	if done || !valid {
		return valid
	}
	*out = ""
	sub := jsonread.New(raw)
	return jsonread.ReadString(&sub, out) && sub.End()
}

// readPtr is jsonread.ReadStringPtr, a plain string left in the body.
func (f *sharedField) readPtr(r *jsonread.Reader, out **string) bool {
	raw, done, valid := f.take(r)
	if done || !valid {
		return valid
	}
	*out = nil
	sub := jsonread.New(raw)
	return jsonread.ReadStringPtr(&sub, out) && sub.End()
}

// own copies the fields left in the body into one allocation and points
// a's fields at it.
func (sh *sharedAgentStrings) own(a *agent.AgentRunRequest, instructions *string) {
	if !sh.model.ok && !sh.input.ok && !sh.instructions.ok {
		return
	}
	n := 0
	for _, f := range [...]*sharedField{&sh.model, &sh.input, &sh.instructions} {
		if f.ok {
			n += len(f.b)
		}
	}
	buf := make([]byte, 0, n)
	take := func(f *sharedField) []byte {
		start := len(buf)
		buf = append(buf, f.b...)
		return buf[start:len(buf):len(buf)]
	}
	if sh.model.ok {
		a.Model = bytesString(take(&sh.model))
	}
	if sh.input.ok {
		a.Input = take(&sh.input)
	}
	if sh.instructions.ok {
		*instructions = bytesString(take(&sh.instructions))
		a.Instructions = instructions
	}
}

// bytesString is b as a string sharing its bytes (b is never modified).
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
