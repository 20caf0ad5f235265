package app

import (
	"context"
	"errors"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fault"
)

// commitLog is a store whose Update runs fn and records whether it
// committed.
type commitLog struct {
	engine.Store
	steps []string
}

func (c *commitLog) Update(ctx context.Context, fn func(engine.Tx) error) error {
	if err := fn(nil); err != nil {
		c.steps = append(c.steps, "abort")
		return err
	}
	c.steps = append(c.steps, "commit")
	return nil
}

// TestSlowCommits: without a slow-commit rule the store is used as is;
// with one, the wait sits between the write and the commit, so a caller
// whose context ends during it gets the error and nothing is committed.
func TestSlowCommits(t *testing.T) {
	base := &commitLog{}
	rules, err := fault.Parse("openai:429@0.5")
	if err != nil {
		t.Fatal(err)
	}
	if s := slowCommits(base, rules); s != engine.Store(base) {
		t.Fatalf("no slow-commit rule: store wrapped as %T", s)
	}
	rules, err = fault.Parse("slow-commit=1ms")
	if err != nil {
		t.Fatal(err)
	}
	s := slowCommits(base, rules)
	if err := s.Update(context.Background(), func(engine.Tx) error { base.steps = append(base.steps, "write"); return nil }); err != nil {
		t.Fatal(err)
	}
	rules, err = fault.Parse("slow-commit=5m") // never waited out: the context ends first
	if err != nil {
		t.Fatal(err)
	}
	held := slowCommits(base, rules)
	ctx, cancel := context.WithCancel(context.Background())
	err = held.Update(ctx, func(engine.Tx) error { base.steps = append(base.steps, "write"); cancel(); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled during the hold: %v", err)
	}
	boom := errors.New("boom")
	if err := s.Update(context.Background(), func(engine.Tx) error { return boom }); err != boom {
		t.Fatalf("failed write: %v", err)
	}
	want := []string{"write", "commit", "write", "abort", "abort"}
	if len(base.steps) != len(want) {
		t.Fatalf("steps %v, want %v", base.steps, want)
	}
	for i := range want {
		if base.steps[i] != want[i] {
			t.Fatalf("steps %v, want %v", base.steps, want)
		}
	}
}
