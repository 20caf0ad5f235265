package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"
)

func runRecordCases() []RunRecord {
	cost, tiny, ft := 0.00125, 3e-9, int64(42)
	nan := math.NaN()
	return []RunRecord{
		{},
		{ID: "0123456789abcdef", Owner: "ann", PipeID: "pipe_1", Pipe: "summary", Model: "openai:gpt-4o-mini", Deployment: "gpu-1 \"eu\"",
			ThreadID: "t-1", Endpoint: "/v1/pipes/run", Status: RunSuccess, PromptTokens: 10, CompletionTokens: 5,
			TotalTokens: 15, CachedTokens: 6, CacheWriteTokens: 4, CacheWrite1hTokens: 1, LatencyMs: 12, CostUSD: &cost, CreatedAt: time.Unix(1700000000, 123456789).UTC(),
			KeyID: "key_x", Kind: RunKindPipe},
		{ID: "r2", Owner: "bob", Pipe: `we<i>rd "name" & \ more`, PipeVersion: 3, Stream: true, Status: RunError,
			Error: "upstream said \"no\"\n\u2028 \xff", FirstTokenMs: &ft, CostUSD: &tiny,
			CreatedAt: time.Unix(1700000000, 0).In(time.FixedZone("CET", 3600)), Kind: RunKindAgent,
			ToolCalls: []RunToolCall{{Name: "search", Server: "docs", DurationMs: 7}, {Name: "x", Error: "boom <>"}},
			Images:    2, ContentStored: true, LatencyMs: -1},
		{ID: "r3", CostUSD: &nan, CreatedAt: time.Now()},
		{ID: "r4", CreatedAt: time.Date(10001, 1, 1, 0, 0, 0, 0, time.UTC)},
		{ID: "r5", ToolCalls: []RunToolCall{}, CreatedAt: time.Now()},
	}
}

// TestRunRecordAppendJSONMatchesEncodingJSON checks that a record encodes
// to the bytes encoding/json writes (records of every release read back
// the same), including the values left to encoding/json.
func TestRunRecordAppendJSONMatchesEncodingJSON(t *testing.T) {
	for i, r := range runRecordCases() {
		want, wantErr := json.Marshal((*runRecordFields)(&r))
		got, err := r.AppendJSON([]byte("prefix"))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("case %d: error %v, encoding/json %v", i, err, wantErr)
		}
		if err != nil {
			continue
		}
		if !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Errorf("case %d:\n got %s\nwant prefix%s", i, got, want)
		}
		var back RunRecord
		if err := json.Unmarshal(got[len("prefix"):], &back); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		var ref RunRecord
		_ = json.Unmarshal(want, &ref)
		if !reflect.DeepEqual(back, ref) {
			t.Errorf("case %d: read back %+v, want %+v", i, back, ref)
		}
	}
}

func FuzzRunRecordAppendJSON(f *testing.F) {
	f.Add("id", "model\n<x>", "err \xff", int64(5), 0.5, int64(1700000000123456789), "tool")
	f.Fuzz(func(t *testing.T, id, model, errText string, n int64, cost float64, nanos int64, tool string) {
		r := RunRecord{ID: id, Model: model, Error: errText, PromptTokens: int(n), LatencyMs: n, FirstTokenMs: &n,
			CostUSD: &cost, CreatedAt: time.Unix(0, nanos).UTC(), KeyID: tool}
		if tool != "" {
			r.ToolCalls = []RunToolCall{{Name: tool, Server: model, DurationMs: n, Error: errText}}
		}
		want, wantErr := json.Marshal((*runRecordFields)(&r))
		got, err := r.AppendJSON(nil)
		if (err != nil) != (wantErr != nil) || (err == nil && !bytes.Equal(got, want)) {
			t.Fatalf("AppendJSON = %s, %v; encoding/json %s, %v", got, err, want, wantErr)
		}
	})
}
