package memory

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

var updateRecords = flag.Bool("update-records", false, "rewrite testdata/records from today's encoder")

// TestChunkRecordsReadBack checks that chunk records written by earlier
// releases (testdata/records/chunk.jsonl, one a line) still decode, that
// today's encoder writes chunkRecordCases to the same bytes, and that a
// record read back re-encodes to the bytes encoding/json writes for it.
func TestChunkRecordsReadBack(t *testing.T) {
	path := filepath.Join("testdata", "records", "chunk.jsonl")
	var today []byte
	for i := range chunkRecordCases {
		b, err := engine.AppendValue(nil, &chunkRecordCases[i])
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
		if err := engine.DecodeValue(line, &r); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		again, err := engine.AppendValue(nil, &r)
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
