package engine_test

import (
	"context"
	"sync"
	"testing"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

// TestResponsesConcurrentContinuations: two responses that continue the
// same response at once, as two nodes of a cluster would store them, do
// not interleave in one thread: one is appended to it, the other forks a
// new thread that starts with the shared history.
func TestResponsesConcurrentContinuations(t *testing.T) {
	s := blob.New(blob.Options{InMemory: true})
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	threads := engine.NewThreads(s)
	rs := engine.NewResponses(threads)
	user := func(text string) engine.Message {
		return engine.Message{Role: "user", Content: engine.TextContent(text)}
	}
	answer := func(text string) engine.Message {
		return engine.Message{Role: "assistant", Content: engine.TextContent(text)}
	}

	first := &engine.StoredResponse{ID: "resp_1", Owner: "alice", Body: []byte(`{}`), Input: []byte(`[]`)}
	if err := rs.Save(ctx, first, nil, nil, []engine.Message{user("q1"), answer("a1")}); err != nil {
		t.Fatal(err)
	}
	prev, history, err := rs.History(ctx, "alice", "resp_1", "previous_response_id")
	if err != nil || len(history) != 2 || prev.End != 2 {
		t.Fatalf("history: %v %+v %+v", err, prev, history)
	}
	var wg sync.WaitGroup
	recs := []*engine.StoredResponse{
		{ID: "resp_2a", Owner: "alice", Body: []byte(`{}`), Input: []byte(`[]`)},
		{ID: "resp_2b", Owner: "alice", Body: []byte(`{}`), Input: []byte(`[]`)},
	}
	errs := make([]error, 2)
	for i, rec := range recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = rs.Save(ctx, rec, prev, history, []engine.Message{user("q2 " + rec.ID), answer("a2 " + rec.ID)})
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	same, forked := recs[0], recs[1]
	if forked.ThreadID == first.ThreadID {
		same, forked = forked, same
	}
	if same.ThreadID != first.ThreadID || forked.ThreadID == first.ThreadID || same.Start != 2 || same.End != 4 || forked.Start != 2 || forked.End != 4 {
		t.Fatalf("one appends, one forks: first %+v, %+v, %+v", first, same, forked)
	}
	for _, rec := range []*engine.StoredResponse{same, forked} {
		_, msgs, err := rs.History(ctx, "alice", rec.ID, "previous_response_id")
		if err != nil || len(msgs) != 4 || msgs[0].Content.String() != "q1" || msgs[2].Content.String() != "q2 "+rec.ID {
			t.Fatalf("%s: %v %+v", rec.ID, err, msgs)
		}
	}
	if _, err := rs.Get(ctx, "bob", "resp_1"); !engine.IsNotFound(err) {
		t.Fatalf("another owner's response: %v", err)
	}
}
