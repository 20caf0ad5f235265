package server_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestClusterAnyNodeServes: two nodes on one PostgreSQL database serve one
// API: a pipe created on A runs on B, a thread appended on A is read on B,
// a key revoked on A is refused on B once B's change feed delivered the
// revoke, and an upload URL signed by A
// is accepted by B.
func TestClusterAnyNodeServes(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	nodes := servertest.StartCluster(t, 2, servertest.WithProvider("openai", up.BaseURL(), "sk-server"))
	a, b := nodes[0], nodes[1]
	admin := servertest.AdminKey

	mustStatus(t, a.Do("POST", "/v1/pipes", admin, map[string]any{"name": "helper", "model": "openai:gpt-4o-mini"}), 200)
	r := b.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "helper", "stream": false,
		"messages": []map[string]string{{"role": "user", "content": "hi"}}})
	mustStatus(t, r, 200)
	thread := r.Header.Get("lb-thread-id")
	if thread == "" || len(up.Requests()) != 1 {
		t.Fatalf("run on B: thread %q, %d upstream calls", thread, len(up.Requests()))
	}

	mustStatus(t, a.Do("POST", "/v1/threads/"+thread+"/messages", admin, []any{map[string]any{"role": "user", "content": "from A"}}), 200)
	var msgs []map[string]any
	r = b.Do("GET", "/v1/threads/"+thread+"/messages", admin, nil)
	mustStatus(t, r, 200)
	r.JSON(t, &msgs)
	if len(msgs) != 3 || msgs[2]["content"] != "from A" {
		t.Fatalf("thread on B: %s", r.Body)
	}

	var created struct {
		Key  string `json:"key"`
		Info struct {
			ID string `json:"id"`
		} `json:"info"`
	}
	r = a.Do("POST", "/v1/keys", admin, map[string]any{"name": "short-lived"})
	mustStatus(t, r, 200)
	r.JSON(t, &created)
	mustStatus(t, b.Do("GET", "/v1/pipes", created.Key, nil), 200)
	mustStatus(t, a.Do("DELETE", "/v1/keys/"+created.Info.ID, admin, nil), 200)
	eventually(t, "revoked key refused on B", func() bool { return b.Do("GET", "/v1/pipes", created.Key, nil).Status == 401 })

	createMemory(t, a, admin, map[string]any{"name": "kb", "embedding_model": "openai:text-embedding-3-small"})
	signed := signedURL(t, a, admin, "kb", "a.md", nil)
	onB := b.URL + strings.TrimPrefix(signed, a.URL)
	if status, out := put(t, onB, "", "text/markdown", []byte("# A\n\nhello")); status != 200 || out["ok"] != true {
		t.Fatalf("upload URL of A on B: %d %v", status, out)
	}
	// A URL whose signature was tampered with is refused on B too.
	if status, _ := put(t, onB+"x", "", "text/markdown", []byte("x")); status < 400 {
		t.Fatalf("tampered upload URL accepted: %d", status)
	}
}

// TestClusterConcurrentAppends: two nodes append to one thread at once, 250
// messages each, one at a time per writer: none is lost and each writer's
// messages keep their order.
func TestClusterConcurrentAppends(t *testing.T) {
	nodes := servertest.StartCluster(t, 2)
	admin := servertest.AdminKey
	r := nodes[0].Do("POST", "/v1/threads", admin, map[string]any{})
	mustStatus(t, r, 200)
	var th struct {
		ID string `json:"id"`
	}
	r.JSON(t, &th)
	const each = 250
	var wg sync.WaitGroup
	for w, node := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				r := node.Do("POST", "/v1/threads/"+th.ID+"/messages", admin,
					[]any{map[string]any{"role": "user", "content": fmt.Sprintf("w%d-%03d", w, i)}})
				if r.Status != 200 {
					t.Errorf("writer %d message %d: %d %s", w, i, r.Status, r.Body)
					return
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	var page []map[string]any
	r = nodes[1].Do("GET", "/v1/threads/"+th.ID+"/messages", admin, nil)
	mustStatus(t, r, 200)
	r.JSON(t, &page)
	var all []string
	for _, m := range page {
		all = append(all, m["content"].(string))
	}
	next := [2]int{}
	for _, c := range all {
		var w, i int
		if _, err := fmt.Sscanf(c, "w%d-%d", &w, &i); err != nil || i != next[w] {
			t.Fatalf("message %q out of order (writer %d expected %d)", c, w, next[w])
		}
		next[w]++
	}
	if len(all) != 2*each || next != [2]int{each, each} {
		t.Fatalf("%d messages (per writer %v), want %d", len(all), next, 2*each)
	}
}

// TestClusterRateLimit: the per-key limit counts the requests of every
// node: with a budget of 6, six requests spread over two nodes pass and the
// next ones are refused on either node.
func TestClusterRateLimit(t *testing.T) {
	// 1 a minute in bursts of 6: a fixed window of 6 minutes admitting 6.
	nodes := servertest.StartCluster(t, 2, servertest.WithConfig(func(c *server.Config) {
		c.RateLimitPerKey, c.RateLimitBurst = 1, 6
	}))
	const window = 6 * time.Minute
	for attempt := 0; ; attempt++ {
		start := time.Now().Truncate(window)
		key := nodes[0].UserWithKey(fmt.Sprintf("u%d", attempt))
		var statuses []int
		for i := 0; i < 8; i++ {
			statuses = append(statuses, nodes[i%2].Do("GET", "/v1/pipes", key, nil).Status)
		}
		if !time.Now().Truncate(window).Equal(start) && attempt == 0 {
			continue // the window turned during the test: count again
		}
		want := []int{200, 200, 200, 200, 200, 200, 429, 429}
		if fmt.Sprint(statuses) != fmt.Sprint(want) {
			t.Fatalf("statuses %v, want %v", statuses, want)
		}
		r := nodes[1].Do("GET", "/v1/pipes", key, nil)
		if r.Status != 429 || r.Header.Get("Retry-After") == "" || r.Header.Get(server.HeaderRateLimitRemaining) != "0" {
			t.Fatalf("refusal: %d %v", r.Status, r.Header)
		}
		return
	}
}

// TestClusterQuota: storage usage is a store record charged inside each
// write, so a document stored through A counts against the quota on B.
func TestClusterQuota(t *testing.T) {
	nodes := servertest.StartCluster(t, 2, func(c *app.Config) { c.QuotaMaxDocuments = 1 })
	a, b := nodes[0], nodes[1]
	admin := servertest.AdminKey
	createMemory(t, a, admin, map[string]any{"name": "kb", "embedding_model": "openai:text-embedding-3-small"})
	if status, out := put(t, signedURL(t, a, admin, "kb", "one.md", nil), "", "text/markdown", []byte("# one")); status != 200 {
		t.Fatalf("first upload: %d %v", status, out)
	}
	r := b.Do("POST", "/v1/memory/documents", admin, map[string]any{"memoryName": "kb", "fileName": "two.md"})
	if r.Status != 403 || !strings.Contains(string(r.Body), "USAGE_EXCEEDED") {
		t.Fatalf("second document on B: %d %s", r.Status, r.Body)
	}
}

// TestClusterSDKEndToEnd runs the official SDK's suite against two hearth
// processes on one PostgreSQL database, behind a proxy that alternates
// between them request by request.
func TestClusterSDKEndToEnd(t *testing.T) { runSDKSuite(t, 2) }
