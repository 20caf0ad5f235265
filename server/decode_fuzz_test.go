package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// refDepth is the nesting depth of valid JSON, counted by the standard
// decoder's tokens.
func refDepth(b []byte) int {
	dec := json.NewDecoder(bytes.NewReader(b))
	depth, most := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return most
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			most = max(most, depth)
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// FuzzDecodeJSON checks the request decoder on arbitrary bodies: no panic,
// the depth limit agrees with the real nesting of valid JSON, and every
// refusal is a BAD_REQUEST engine error (never a 500). The seed corpus in
// testdata/fuzz/FuzzDecodeJSON runs under plain go test.
func FuzzDecodeJSON(f *testing.F) {
	f.Add([]byte(`{"name":"p","messages":[{"role":"user","content":"hi"}],"variables":{"a":"1"},"stream":true}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"variables":[{"name":"a","value":"b"}]}`))
	f.Add([]byte(`{"name":"p","description":5,"upsert":"yes"}`))
	f.Add([]byte(`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`))
	f.Add([]byte(`{"a":"[[[[\"\\"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		depthErr := checkDepth(b)
		if json.Valid(b) {
			if deep := refDepth(b) > maxJSONDepth; deep != (depthErr != nil) {
				t.Fatalf("checkDepth = %v for depth %d", depthErr, refDepth(b))
			}
		}
		for _, v := range []any{&runBody{}, &pipeRun{}, &pipeBody{}, &betaPipeBody{}, &retrieveBody{}, &map[string]any{}} {
			err := decodeBytes(b, v)
			if err == nil {
				continue
			}
			var e *engine.Error
			if !errors.As(err, &e) || e.Code != engine.CodeBadRequest || e.Message == "" {
				t.Fatalf("decode %T: %#v", v, err)
			}
		}
	})
}
