package memory

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

var chunkRecordCases = []chunkRecord{
	{},
	{Doc: "notes.md", Text: "Otters hold hands while sleeping."},
	{Doc: "a\"b\\c.md", Text: "<b>bold</b> & \"quotes\"\n\ttab \u2028 \u2029 \x01 \x7f", Heading: "# Intro > Otters"},
	{Doc: "d.md", Text: "bad \xff\xfe utf8 \xc3", Heading: "h", Parent: "section text", ParentChunk: "v1.000003"},
	{Doc: "日本語.md", Text: "naïve café 日本語", ParentChunk: "v2.000001"},
}

// TestChunkRecordJSONMatchesEncodingJSON: a chunk record encodes to the
// bytes json.Marshal writes for it (records written before read the same).
func TestChunkRecordJSONMatchesEncodingJSON(t *testing.T) {
	for _, r := range chunkRecordCases {
		sameChunkRecordJSON(t, r)
	}
}

// TestChunkRecordPutWithoutReflection: the store gets the record as a
// JSONAppender, so encoding/json is not used for chunk records.
func TestChunkRecordPutWithoutReflection(t *testing.T) {
	var v any = &chunkRecord{Doc: "d", Text: "t"}
	if _, ok := v.(engine.JSONAppender); !ok {
		t.Fatal("*chunkRecord is not a JSONAppender")
	}
}

// BenchmarkChunkRecordAllocs: encoding a 10 KB chunk record into a buffer
// too small for it is one allocation, the buffer's growth (Go 1.26).
func BenchmarkChunkRecordAllocs(b *testing.B) {
	r := chunkRecord{Doc: "notes.md", Text: strings.Repeat("Otters hold hands. ", 520)}
	buf := make([]byte, 0, 600)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.AppendJSON(buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

func sameChunkRecordJSON(t *testing.T, r chunkRecord) {
	t.Helper()
	want, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := engine.AppendValue([]byte("prefix"), &r)
	if err != nil || string(got) != "prefix"+string(want) {
		t.Fatalf("AppendJSON(%+v) = %q, %v\nwant %q", r, got, err, want)
	}
}

// FuzzChunkRecordJSON compares the record's encoding with json.Marshal's.
func FuzzChunkRecordJSON(f *testing.F) {
	for _, r := range chunkRecordCases {
		f.Add(r.Doc, r.Text, r.Heading, r.Parent, r.ParentChunk)
	}
	f.Fuzz(func(t *testing.T, doc, text, heading, parent, parentChunk string) {
		sameChunkRecordJSON(t, chunkRecord{Doc: doc, Text: text, Heading: heading, Parent: parent, ParentChunk: parentChunk})
	})
}
