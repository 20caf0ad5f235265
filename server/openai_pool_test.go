package server_test

import (
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestOpenAIImagesKeyPool: image generation spreads over a pooled server
// key like chat does. A 429 on one key moves the same request to the
// other key at once, and the next request skips the cooling key.
func TestOpenAIImagesKeyPool(t *testing.T) {
	up := fake.NewOpenAIImages()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-pool-a,sk-pool-b"))
	up.Enqueue(fake.Reply{Status: 429, Message: "Rate limit reached", RetryAfter: "60"})
	body := map[string]any{"model": "openai:gpt-image-1", "prompt": "a red fox", "response_format": "b64_json"}
	r := ts.Do("POST", "/openai/v1/images/generations", servertest.AdminKey, body)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	reqs := up.Requests()
	if len(reqs) != 2 {
		t.Fatalf("upstream saw %d requests, want 2 (429 then the other key)", len(reqs))
	}
	first, second := reqs[0].Header.Get("Authorization"), reqs[1].Header.Get("Authorization")
	if first == second || (first != "Bearer sk-pool-a" && first != "Bearer sk-pool-b") ||
		(second != "Bearer sk-pool-a" && second != "Bearer sk-pool-b") {
		t.Fatalf("keys sent: %q then %q; want both pool keys, one each", first, second)
	}
	for i := 0; i < 2; i++ {
		if r := ts.Do("POST", "/openai/v1/images/generations", servertest.AdminKey, body); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	for _, q := range up.Requests()[2:] {
		if got := q.Header.Get("Authorization"); got != second {
			t.Fatalf("a request used %q while %q cools down", got, first)
		}
	}
}
