package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestRunRecordWriteBudget bounds the bytes a run writes to the store (its
// record's key and value and its per-pipe index key), per record kind, for
// records as the gateway routes make them. The run log writes one for every
// run, about 15,000 a second under the gateway soak, so these bytes are the
// store's write volume under load and every byte added to a record is paid
// in memtable flushes, compactions, disk and mapped pages
// (docs/bench-log/2026-12-04.md, "Memory under sustained load"). Runs without a pipe
// write their record only (no runpipe/ entry, see putRun).
func TestRunRecordWriteBudget(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 11, 25, 0, 53, 59, 164900111, time.UTC)
	cost, first := 0.0000123, int64(41)
	id := NewRunID(ctx, start)
	for _, c := range []struct {
		kind   string
		r      RunRecord
		budget int
	}{
		{"pipe, store off", RunRecord{ID: id, Owner: "acme-team", PipeID: "pipe_8c7v6b5n4m3k2j1h0g9f8d", Pipe: "support-bot",
			Model: "openai:gpt-4o-mini", Endpoint: "/v1/pipes/run", Status: RunSuccess, PromptTokens: 1200, CompletionTokens: 300,
			TotalTokens: 1500, LatencyMs: 850, CostUSD: &cost, CreatedAt: start, KeyID: "key_abcdefgh12345678", Kind: RunKindPipe}, 560},
		{"pipe, thread, streamed", RunRecord{ID: id, Owner: "acme-team", PipeID: "pipe_8c7v6b5n4m3k2j1h0g9f8d", Pipe: "support-bot",
			PipeVersion: 3, Model: "openai:gpt-4o-mini", ThreadID: "thread_0123456789abcdefghijklmn", Endpoint: "/v1/pipes/run", Stream: true,
			Status: RunSuccess, PromptTokens: 1200, CompletionTokens: 300, TotalTokens: 1500, LatencyMs: 850, FirstTokenMs: &first,
			CostUSD: &cost, CreatedAt: start, KeyID: "key_abcdefgh12345678", Kind: RunKindPipe}, 640},
		{"agent", RunRecord{ID: id, Owner: "acme-team", Model: "openai:gpt-4o-mini", Endpoint: "/v1/agent/run", Status: RunSuccess,
			PromptTokens: 1200, CompletionTokens: 300, TotalTokens: 1500, LatencyMs: 850, CostUSD: &cost, CreatedAt: start,
			KeyID: "key_abcdefgh12345678", Kind: RunKindAgent}, 440},
		{"completion", RunRecord{ID: id, Owner: "acme-team", Model: "openai:gpt-4o-mini", Endpoint: "/openai/v1/chat/completions",
			Status: RunSuccess, PromptTokens: 1200, CompletionTokens: 300, TotalTokens: 1500, LatencyMs: 850, CostUSD: &cost, CreatedAt: start,
			KeyID: "key_abcdefgh12345678", Kind: RunKindCompletion}, 460},
		{"image", RunRecord{ID: id, Owner: "acme-team", Model: "openai:gpt-image-1", Endpoint: "/v1/images", Status: RunSuccess,
			LatencyMs: 850, CostUSD: &cost, CreatedAt: start, KeyID: "key_abcdefgh12345678", Kind: RunKindImage, Images: 2}, 440},
	} {
		tx := &ownedTx{}
		if _, err := putRun(tx, &c.r, runValueHint); err != nil {
			t.Fatal(err)
		}
		n, keys := 0, 0
		for i := range tx.keys {
			n, keys = n+len(tx.keys[i])+len(tx.values[i]), keys+len(tx.keys[i])
		}
		t.Logf("%s: %d bytes (record %d, %d keys of %d bytes)", c.kind, n, len(tx.values[0]), len(tx.keys), keys)
		if n > c.budget {
			t.Errorf("%s: a run writes %d bytes, over its budget of %d: %s", c.kind, n, c.budget, tx.values[0])
		}
	}
}

// TestPipelessRunHasNoPipeIndex: a run without a pipe writes only its
// record, through either kind of Tx; a pipe's run
// still gets its runpipe/ entry, and both are listed as before.
func TestPipelessRunHasNoPipeIndex(t *testing.T) {
	r := RunRecord{ID: "run_2", Owner: "ann", Model: "openai:gpt-4o-mini", Endpoint: "/v1/agent/run", Status: RunSuccess, Kind: RunKindAgent}
	tx := &ownedTx{}
	n, err := putRun(tx, &r, runValueHint)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(&r)
	if len(tx.keys) != 1 || string(tx.keys[0]) != "run/ann/run_2" || string(tx.values[0]) != string(want) || n != len(want) || tx.puts != 0 {
		t.Fatalf("wrote %q = %q (size %d), %d puts", tx.keys, tx.values, n, tx.puts)
	}
	plain := &countingTx{}
	if _, err := putRun(plain, &r, runValueHint); err != nil {
		t.Fatal(err)
	}
	if plain.puts != 1 || plain.raws != 0 {
		t.Fatalf("through Put and PutRaw: %d puts, %d raw puts; want the record only", plain.puts, plain.raws)
	}
	r.PipeID = "pipe_9"
	plain = &countingTx{}
	if _, err := putRun(plain, &r, runValueHint); err != nil {
		t.Fatal(err)
	}
	if plain.puts != 1 || plain.raws != 1 {
		t.Fatalf("a pipe's run through Put and PutRaw: %d puts, %d raw puts; want the record and its index entry", plain.puts, plain.raws)
	}
}

// countingTx is a Tx without SetOwned that counts Put and PutRaw.
type countingTx struct {
	Tx
	puts, raws int
}

func (t *countingTx) Put(string, any) error       { t.puts++; return nil }
func (t *countingTx) PutRaw(string, []byte) error { t.raws++; return nil }
