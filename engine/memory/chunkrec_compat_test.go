package memory

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var chunkRecordCases = []chunkRecord{
	{},
	{Doc: "notes.md", Text: "Otters hold hands while sleeping."},
	{Doc: "a\"b\\c.md", Text: "<b>bold</b> & \"quotes\"\n\ttab \u2028 \u2029 \x01 \x7f", Heading: "# Intro > Otters"},
	{Doc: "d.md", Text: "bad \xff\xfe utf8 \xc3", Heading: "h", Parent: "section text", ParentChunk: "v1.000003"},
	{Doc: "日本語.md", Text: "naïve café 日本語", ParentChunk: "v2.000001"},
}

var updateRecords = flag.Bool("update-records", false, "rewrite testdata/records from today's encoder")

// TestChunkRecordsReadBack checks that chunk records written by earlier
// releases (testdata/records/chunk.jsonl, one a line) still decode, that
// today's encoder writes chunkRecordCases to the same bytes, and that a
// record read back re-encodes to the bytes encoding/json writes for it.
func TestChunkRecordsReadBack(t *testing.T) {
	path := filepath.Join("testdata", "records", "chunk.jsonl")
	var today []byte
	for i := range chunkRecordCases {
		b, err := json.Marshal(&chunkRecordCases[i])
		if err != nil {
			t.Fatal(err)
		}
		today = append(append(today, b...), '\n')
	}
	if *updateRecords {
		if err := os.WriteFile(path, today, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stored, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(today, stored) {
		t.Errorf("today's encoding differs from the stored records:\n got %s\nwant %s", today, stored)
	}
	for i, line := range bytes.Split(bytes.TrimSuffix(stored, []byte("\n")), []byte("\n")) {
		var r chunkRecord
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		again, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		std, _ := json.Marshal(&r)
		if !bytes.Equal(again, std) {
			t.Errorf("record %d re-encoded:\n got %s\nencoding/json %s", i, again, std)
		}
		// An invalid UTF-8 byte was stored as \ufffd and reads back as
		// U+FFFD, which encoding/json writes as itself.
		if want := bytes.ReplaceAll(line, []byte(`\ufffd`), []byte("\ufffd")); !bytes.Equal(again, want) {
			t.Errorf("record %d does not round-trip:\n got %s\nwant %s", i, again, want)
		}
	}
}
