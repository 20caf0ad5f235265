package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/providers/fake"
)

// TestFaultKill9ThreadGroupCommit: sixteen clients run a pipe (store on)
// against the real binary, half starting a new thread each time, half
// continuing their own thread, so thread writes are group-committed with
// each other's; a quarter of the new threads are made by a pipe with
// store off, whose runs name an empty thread (a signed id, written by
// nothing: docs/pipes-and-threads.md#threads). The server is killed with
// SIGKILL while they run; after the restart every run that was answered
// has its question and the answer in the thread its answer named, and
// every empty thread a store-off run named exists (docs/pipes-and-threads.md#threads).
//
// The oracle does not hang on luck: the server runs with the slow-commit
// fault (HEARTH_FAULTS=slow-commit=D), which holds every group commit for
// D between its writes and its commit, and the kill follows the answer
// that reached the target at once (the client that got it signals the
// killer). A change that answered a batch before committing it leaves
// that answer's write uncommitted for D after the answer, far longer than
// the signal and SIGKILL take, so it is lost and the test fails. Checked
// by hand with two broken variants of engine.GroupStore, neither
// committed: Update returning as soon as its write is queued, and commit
// answering a batch before running its transaction; each failed 5 runs
// out of 5.
func TestFaultKill9ThreadGroupCommit(t *testing.T) {
	bin := hearthBinary(t)
	up := fake.NewOpenAI()
	defer up.Close()
	up.SetDefault(fake.Reply{Text: groupCommitAnswer})
	env, addr := faultEnv(t, up.BaseURL())
	env = append(env, "HEARTH_FAULTS=slow-commit="+groupCommitDelay.String())
	start := func() *proc { return startBinary(t, bin, env, addr) }
	checkKill9GroupCommit(t, start, start)
}

// TestClusterKill9ThreadGroupCommit is TestFaultKill9ThreadGroupCommit on
// a cluster node (PostgreSQL store, whose transactions send their BEGIN,
// writes and COMMIT in one round trip), with the answers checked on
// another node started afterwards on a data dir of its own: what one node
// answered is committed to the shared database, where every node reads it.
func TestClusterKill9ThreadGroupCommit(t *testing.T) {
	url := pgtest.URL(t)
	bin := hearthBinary(t)
	up := fake.NewOpenAI()
	defer up.Close()
	up.SetDefault(fake.Reply{Text: groupCommitAnswer})
	node := func(faults ...string) func() *proc {
		env, addr := faultEnv(t, up.BaseURL())
		env = append(env, "HEARTH_DATABASE_URL="+url, "HEARTH_SECRET_KEY="+clusterSecret)
		env = append(env, faults...)
		return func() *proc { return startBinary(t, bin, env, addr) }
	}
	checkKill9GroupCommit(t, node("HEARTH_FAULTS=slow-commit="+groupCommitDelay.String()), node())
}

// The reply of the fake upstream and the slow-commit delay of the
// group-commit kill tests.
const (
	groupCommitAnswer = "the answer"
	groupCommitDelay  = 100 * time.Millisecond
)

// checkKill9GroupCommit runs the clients of TestFaultKill9ThreadGroupCommit
// against the server start starts, kills it with SIGKILL once target runs
// are answered, and checks every answer on the server check starts.
func checkKill9GroupCommit(t *testing.T, start, check func() *proc) {
	const target = 400 // answered runs before the kill
	const answer = groupCommitAnswer
	p := start()
	p.must(t, "POST", "/v1/pipes", map[string]any{"name": "gc"})
	p.must(t, "POST", "/v1/pipes", map[string]any{"name": "gcnostore", "store": false})

	var mu sync.Mutex
	answered := map[string][]string{} // thread id -> questions answered in it, in order
	empty := map[string]string{}      // thread id of a store-off run -> its question
	total := 0
	reached := make(chan struct{}) // closed by the client whose answer is the target's
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			thread := ""
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				q := fmt.Sprintf("client %d question %d", w, i)
				pipe := "gc"
				if w%4 == 2 {
					pipe = "gcnostore"
				}
				body := map[string]any{"name": pipe, "messages": []any{map[string]any{"role": "user", "content": q}}}
				if w%2 == 1 && thread != "" {
					body["threadId"] = thread
				}
				status, _, h, err := p.do("POST", "/v1/pipes/run", body)
				if err != nil || status != 200 {
					continue
				}
				id := h.Get("lb-thread-id")
				if w%2 == 1 {
					thread = id
				}
				mu.Lock()
				if pipe == "gcnostore" {
					empty[id] = q
				} else {
					answered[id] = append(answered[id], q)
				}
				if total++; total == target {
					close(reached)
				}
				mu.Unlock()
			}
		})
	}
	select {
	case <-reached:
	case <-time.After(120 * time.Second):
		mu.Lock()
		n := total
		mu.Unlock()
		close(stop)
		wg.Wait()
		t.Fatalf("only %d runs answered in 120 s", n)
	}
	p.kill() // the clients are still sending
	close(stop)
	wg.Wait()

	p = check()
	for id, qs := range answered {
		var msgs []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}
		status, b, _, err := p.do("GET", "/v1/threads/"+id+"/messages", nil)
		if err == nil && status == 404 {
			t.Errorf("thread %s: gone after the restart, with %d answered runs (first %q)", id, len(qs), qs[0])
			continue
		}
		if err != nil || status != 200 {
			t.Fatalf("thread %s: %d %v %s", id, status, err, b)
		}
		if err := json.Unmarshal(b, &msgs); err != nil {
			t.Fatal(err)
		}
		// Each answered question is in the thread, followed by the answer,
		// in the order the client asked them.
		next := 0
		for j := 0; j+1 < len(msgs) && next < len(qs); j++ {
			if msgs[j].Role == "user" && msgs[j].Content == qs[next] && msgs[j+1].Role == "assistant" && msgs[j+1].Content == answer {
				next++
			}
		}
		if next < len(qs) {
			t.Errorf("thread %s: answered %q is missing after the restart (%d messages)", id, qs[next], len(msgs))
		}
	}
	for id, q := range empty {
		status, b, _, err := p.do("GET", "/v1/threads/"+id+"/messages", nil)
		if err != nil || status != 200 || strings.TrimSpace(string(b)) != "[]" {
			t.Errorf("empty thread %s of the store-off run %q after the restart: %d %v %s", id, q, status, err, b)
		}
	}
	t.Logf("%d answered runs in %d threads (%d of them empty) survived SIGKILL", total, len(answered)+len(empty), len(empty))
}
