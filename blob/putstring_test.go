package blob

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestPutStringMatchesEncodingJSON: a string value is stored as exactly
// the bytes json.Marshal gives, whether it takes the plain path or not.
func TestPutStringMatchesEncodingJSON(t *testing.T) {
	s := New(Options{InMemory: true})
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	values := []string{"", "abc", "a b/c:1", "~", "\x7f", "quote\"", `back\slash`, "<b>", "a&b", "tab\t", "nl\n",
		"\x00", "é", "\u2028", "\xff", "日本", "\x1f"}
	ctx := context.Background()
	for _, v := range values {
		if err := s.Update(ctx, func(tx engine.Tx) error { return tx.Put("k/"+v, v) }); err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		if err := s.View(ctx, func(tx engine.Tx) error {
			var err error
			got, err = tx.GetRaw("k/" + v)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("%q stored as %s, json.Marshal gives %s", v, got, want)
		}
		if plainJSONString(v) && string(want) != `"`+v+`"` {
			t.Fatalf("%q takes the plain path, but json.Marshal gives %s", v, want)
		}
	}
}

// BenchmarkPutEmptyStringAllocs: storing an index entry (the empty
// string) costs only the key and value buffer and Badger's entry, no
// encoder (2 allocations on Go 1.26).
func BenchmarkPutEmptyStringAllocs(b *testing.B) {
	s := New(Options{InMemory: true})
	if err := s.Open(); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	err := s.Update(context.Background(), func(tx engine.Tx) error {
		b.ReportAllocs()
		for b.Loop() {
			if err := tx.Put("idx/some/key", ""); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
