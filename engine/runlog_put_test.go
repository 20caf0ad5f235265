package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// ownedTx is a Tx that keeps what SetOwned hands it; Put and PutRaw
// count their calls.
type ownedTx struct {
	Tx
	keys, values [][]byte
	puts         int
}

func (t *ownedTx) SetOwned(key, value []byte) error {
	t.keys, t.values = append(t.keys, key), append(t.values, value)
	return nil
}

func (t *ownedTx) Put(string, any) error       { t.puts++; return nil }
func (t *ownedTx) PutRaw(string, []byte) error { t.puts++; return nil }

// TestPutRunOwned: through a Tx that takes owned slices, a run record and
// its index entry are written with the keys Put and PutRaw used and the
// value Put encodes.
func TestPutRunOwned(t *testing.T) {
	cost := 0.25
	r := RunRecord{ID: "run_1", Owner: "ann", PipeID: "pipe_9", Pipe: "p", Model: "openai:gpt-4o-mini", Status: RunSuccess,
		TotalTokens: 12, CostUSD: &cost, KeyID: "key_a"}
	tx := &ownedTx{keys: make([][]byte, 0, 2), values: make([][]byte, 0, 2)}
	n, err := putRun(tx, &r, runValueHint)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	if len(tx.keys) != 2 || string(tx.keys[0]) != "run/ann/run_1" || !bytes.Equal(tx.values[0], want) ||
		string(tx.keys[1]) != "runpipe/ann/pipe_9/run_1" || len(tx.values[1]) != 0 || n != len(want) || tx.puts != 0 {
		t.Fatalf("wrote %q = %q (size %d), %d puts", tx.keys, tx.values, n, tx.puts)
	}
}

// BenchmarkPutRunAllocs: through a Tx that takes owned slices, a run
// record and its index entry are one allocation, the keys and the value in
// one buffer, and so is a run without a pipe's record (Go 1.26).
func BenchmarkPutRunAllocs(b *testing.B) {
	cost := 0.25
	for _, c := range []struct {
		name string
		r    RunRecord
	}{
		{"pipe", RunRecord{ID: "run_1", Owner: "ann", PipeID: "pipe_9", Pipe: "p", Model: "openai:gpt-4o-mini", Status: RunSuccess,
			TotalTokens: 12, CostUSD: &cost, KeyID: "key_a"}},
		{"no pipe", RunRecord{ID: "run_2", Owner: "ann", Model: "openai:gpt-4o-mini", Endpoint: "/v1/agent/run", Status: RunSuccess,
			Kind: RunKindAgent}},
	} {
		b.Run(c.name, func(b *testing.B) {
			tx := &ownedTx{keys: make([][]byte, 0, 2), values: make([][]byte, 0, 2)}
			b.ReportAllocs()
			for b.Loop() {
				tx.keys, tx.values = tx.keys[:0], tx.values[:0]
				if _, err := putRun(tx, &c.r, runValueHint); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// ownedStore hands the run log an ownedTx.
type ownedStore struct {
	Store
	tx ownedTx
}

func (s *ownedStore) Update(_ context.Context, fn func(Tx) error) error { return fn(&s.tx) }

// TestRunLogWritesOwned: the run log writes its records through SetOwned
// when the store's Tx offers it.
func TestRunLogWritesOwned(t *testing.T) {
	s := &ownedStore{}
	l := newRunLog(s, nil, nil, 0)
	l.Record(RunRecord{ID: "run_1", Owner: "ann", PipeID: "p", Status: RunSuccess})
	l.Record(RunRecord{ID: "run_2", Owner: "ann", PipeID: "p", Status: RunSuccess})
	l.Flush()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if len(s.tx.keys) != 4 || s.tx.puts != 0 || string(s.tx.keys[2]) != "run/ann/run_2" {
		t.Fatalf("SetOwned keys %q, %d puts", s.tx.keys, s.tx.puts)
	}
}

// pricedProviders prices a text run at one dollar a prompt token.
type pricedProviders struct{ Providers }

func (pricedProviders) Cost(_ ModelRef, prompt, _ int) (float64, bool) {
	return float64(prompt), prompt > 0
}

// TestRunLogWriteCosts: each record of a batch gets its own price (or
// none).
func TestRunLogWriteCosts(t *testing.T) {
	s := &ownedStore{}
	l := &RunLog{store: s, providers: pricedProviders{}, valueHint: runValueHint}
	batch := make([]RunRecord, 9)
	for i := range batch {
		batch[i] = RunRecord{ID: "run_" + string(rune('a'+i)), Owner: "ann", PipeID: "p", Model: "openai:m", PromptTokens: i}
	}
	l.write(batch)
	var r struct {
		Cost *float64 `json:"cost_usd"`
	}
	for i := range batch {
		if err := json.Unmarshal(s.tx.values[2*i], &r); err != nil {
			t.Fatal(err)
		}
		if i == 0 && r.Cost != nil || i > 0 && (r.Cost == nil || *r.Cost != float64(i)) {
			t.Fatalf("record %d: cost %v, want %d", i, r.Cost, i)
		}
	}
}

// BenchmarkRunLogWriteAllocs: writing a batch of one priced record and one
// of nine. Pricing allocates nothing beyond putRun's buffer a record (the
// prices live in the writer's reused slice): one allocation a record more
// on Go 1.26.
func BenchmarkRunLogWriteAllocs(b *testing.B) {
	batch := make([]RunRecord, 9)
	for i := range batch {
		batch[i] = RunRecord{ID: "run_" + string(rune('a'+i)), Owner: "ann", PipeID: "p", Model: "openai:m", PromptTokens: i}
	}
	for _, n := range []int{1, len(batch)} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			s := &ownedStore{}
			l := &RunLog{store: s, providers: pricedProviders{}, valueHint: runValueHint}
			s.tx.keys, s.tx.values = make([][]byte, 0, 2*len(batch)), make([][]byte, 0, 2*len(batch))
			b.ReportAllocs()
			for b.Loop() {
				s.tx.keys, s.tx.values = s.tx.keys[:0], s.tx.values[:0]
				l.write(batch[:n])
			}
		})
	}
}
