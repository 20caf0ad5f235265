package engine

import (
	"testing"
	"time"
)

// TestPipeRunRecordContentInRun: a pipe run's record carries its content
// in the prepared run (its slot, and the key it redacts in the run's own
// one-element list), so recording allocates nothing of its own: before,
// the content and the list of secrets were one allocation each.
func TestPipeRunRecordContentInRun(t *testing.T) {
	rl := &RunLog{queue: make(chan runItem, 256)}
	msgs := []Message{{Role: "user", Content: TextContent("hi")}}
	ref := ModelRef{Provider: "openai", Model: "gpt-4o-mini"}
	pr := &PreparedRun{r: &Runner{runs: rl, now: time.Now}, Pipe: &Pipe{ID: "pipe_1", Owner: "alice", Name: "p", LogContent: true},
		Request: &ChatRequest{APIKey: "sk-secret", Messages: msgs}, Ref: ref, parsedRef: ref, modelID: "openai:gpt-4o-mini",
		runID: "run_1", start: time.Now(), created: time.Now()}
	pr.record(runResult{text: "hello"}, RunSuccess, nil)
	it := (<-rl.queue).rec.content
	if it != &pr.content.item || len(it.secrets) != 1 || it.secrets[0] != "sk-secret" || !it.pipeOptIn ||
		it.content.Completion != "hello" || len(it.content.Messages) != 1 {
		t.Fatalf("content %+v", it)
	}
	if RaceEnabled {
		t.Skip("the race detector moves values to the heap")
	}
	if n := testing.AllocsPerRun(100, func() {
		pr.record(runResult{text: "hello"}, RunSuccess, nil)
		<-rl.queue
	}); n != 0 {
		t.Fatalf("recording a pipe run allocates %.0f times, want 0", n)
	}
}
