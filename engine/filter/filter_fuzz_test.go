package filter

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// FuzzParse checks that Parse never panics, that every error is a
// BAD_REQUEST FieldError, and that a parsed filter can be evaluated. The
// seed corpus in testdata/fuzz/FuzzParse runs under plain go test.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`["company","Eq","Langbase"]`))
	f.Add([]byte(`["Eq",["author","AuthorA"]]`))
	f.Add([]byte(`["Or",[["a","In",["x","y"]],["b","NotIn",["z"]]]]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		flt, err := Parse(json.RawMessage(raw))
		if err != nil {
			var e *engine.Error
			if !errors.As(err, &e) || e.Code != engine.CodeBadRequest || e.Field != DefaultField {
				t.Fatalf("unexpected error type: %#v", err)
			}
			return
		}
		for _, meta := range docs {
			flt.Match(meta)
		}
	})
}
