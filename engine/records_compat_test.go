package engine

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine/guard"
)

var updateRecords = flag.Bool("update-records", false, "rewrite testdata/records from today's encoders")

// storedRecordSamples are records of each type a store keeps, with the
// values whose encoding is easy to get wrong: HTML characters, U+2028,
// invalid UTF-8, nil against empty maps and slices, zones and fractions.
func storedRecordSamples() map[string][]any {
	cost, ft := 0.00125, int64(42)
	name, callID, idx := "bob <b>", "call_1", 0
	cet := time.FixedZone("CET", 3600)
	return map[string][]any{
		"thread": {
			&Thread{},
			&Thread{ID: "t1", Owner: "ann", Key: "abc", CreatedAt: time.Unix(1700000000, 5).UTC(), Metadata: map[string]string{}, NextSeq: 4},
			&Thread{ID: "t<2>", Owner: "bob", Key: "k", CreatedAt: time.Unix(1, 0).In(cet),
				Metadata: map[string]string{"z": "1", "a": "<&>", "m\xff": "\u2028", "": ""}, NextSeq: -1, Pipe: "p", PipeID: "pipe_1"},
		},
		"thread_message": {
			&ThreadMessage{},
			&ThreadMessage{ID: "m1", ThreadID: "t1", CreatedAt: 1700000000, Role: "user", Content: TextContent("hi <there>\n\u2029\x01 \xfe"),
				Metadata: map[string]string{"b": "2", "a": "1"}},
			&ThreadMessage{ID: "m2", Role: "tool", Content: TextContent(""), Name: &name, ToolCallID: &callID, ToolCalls: []ToolCall{}, Attachments: []json.RawMessage{}},
			&ThreadMessage{ID: "m3", Role: "assistant", Content: Content{Parts: []ContentPart{{Type: "text", Text: "x & y"}}, Set: true}},
			&ThreadMessage{ID: "m4", Role: "assistant", ToolCalls: []ToolCall{{Index: &idx, ID: "c", Type: "function",
				Function: FunctionCall{Name: "f", Arguments: `{"q":"<a>"}`}}}},
			&ThreadMessage{ID: "m5", Role: "user", Content: TextContent("x"), Attachments: []json.RawMessage{json.RawMessage(`{"a":"b"}`)}},
		},
		"run": {
			&RunRecord{CreatedAt: time.Unix(0, 0).UTC()},
			&RunRecord{ID: "0123456789abcdef", Owner: "ann", PipeID: "pipe_1", Pipe: "summary", Model: "openai:gpt-4o-mini", Deployment: "gpu-1 \"eu\"",
				ThreadID: "t-1", Endpoint: "/v1/pipes/run", Status: RunSuccess, PromptTokens: 10, CompletionTokens: 5,
				TotalTokens: 15, CachedTokens: 6, CacheWriteTokens: 4, CacheWrite1hTokens: 1, LatencyMs: 12, CostUSD: &cost,
				CreatedAt: time.Unix(1700000000, 123456789).UTC(), KeyID: "key_x", Kind: RunKindPipe, Cache: "hit"},
			&RunRecord{ID: "r2", Owner: "bob", Pipe: `we<i>rd "name" & \ more`, PipeVersion: 3, Stream: true, Status: RunError,
				Error: "upstream said \"no\"\n\u2028 \xff", FirstTokenMs: &ft, CreatedAt: time.Unix(1700000000, 0).In(cet), Kind: RunKindAgent,
				ToolCalls: []RunToolCall{{Name: "search", Server: "docs", DurationMs: 7}, {Name: "x", Error: "boom <>"}},
				Images:    2, ContentStored: true, LatencyMs: -1, Guard: []guard.Event{{Stage: "input", Rule: "pii", Action: "redact", Count: 2}}},
		},
		"spend": {
			&Spend{},
			&Spend{Tokens: 1 << 40, NanoUSD: -5, Requests: 9223372036854775807},
		},
	}
}

// newLike returns a new zero value of the type v points to.
func newLike(v any) any {
	switch v.(type) {
	case *Thread:
		return new(Thread)
	case *ThreadMessage:
		return new(ThreadMessage)
	case *RunRecord:
		return new(RunRecord)
	case *Spend:
		return new(Spend)
	}
	panic("unknown record type")
}

// TestStoredRecordsReadBack checks that records written by earlier
// releases (testdata/records, one JSON record a line) still decode, and
// that today's encoder writes the same samples to the same bytes and
// re-encodes what it read to the bytes it read: stores hold these bytes
// and compare them across releases and cluster nodes.
func TestStoredRecordsReadBack(t *testing.T) {
	for kind, samples := range storedRecordSamples() {
		path := filepath.Join("testdata", "records", kind+".jsonl")
		var today []byte
		for _, v := range samples {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("%s: encode %+v: %v", kind, v, err)
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
			t.Errorf("%s: today's encoding differs from the stored records:\n got %s\nwant %s", kind, today, stored)
		}
		lines := bytes.Split(bytes.TrimSuffix(stored, []byte("\n")), []byte("\n"))
		if len(lines) != len(samples) {
			t.Fatalf("%s: %d stored records, %d samples", kind, len(lines), len(samples))
		}
		for i, line := range lines {
			v := newLike(samples[i])
			if err := json.Unmarshal(line, v); err != nil {
				t.Fatalf("%s record %d: decode: %v", kind, i, err)
			}
			again, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("%s record %d: re-encode: %v", kind, i, err)
			}
			std, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("%s record %d: encoding/json: %v", kind, i, err)
			}
			if !bytes.Equal(again, std) {
				t.Errorf("%s record %d: re-encoded\n got %s\nencoding/json %s", kind, i, again, std)
			}
			// An invalid UTF-8 byte was stored as \ufffd and reads back as
			// U+FFFD, which encoding/json writes as itself.
			if want := bytes.ReplaceAll(line, []byte(`\ufffd`), []byte("\ufffd")); !bytes.Equal(again, want) {
				t.Errorf("%s record %d does not round-trip:\n got %s\nwant %s", kind, i, again, want)
			}
		}
	}
}
