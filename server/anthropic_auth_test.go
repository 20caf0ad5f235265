package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestMessagesKeyHeaders: x-api-key carries a Hearth key on the Anthropic
// surface only (elsewhere only a bearer token does); a read-only key may
// post messages and count tokens; a browser preflight allows the headers
// the Anthropic SDK sends and answers expose lb-token-count.
func TestMessagesKeyHeaders(t *testing.T) {
	ts := servertest.Start(t)
	if r := ts.Do("GET", "/v1/pipes", "", nil, "x-api-key", admin); r.Status != 401 {
		t.Fatalf("x-api-key off the Anthropic surface: %d %s", r.Status, r.Body)
	}
	mustStatus(t, ts.Do("GET", "/anthropic/v1/models", "", nil, "x-api-key", admin), 200)
	r := ts.Do("POST", "/v1/keys", admin, map[string]any{"name": "ro", "read_only": true})
	mustStatus(t, r, 200)
	var k struct {
		Key string `json:"key"`
	}
	r.JSON(t, &k)
	if k.Key == "" {
		t.Fatalf("read-only key: %s", r.Body)
	}
	if r := ts.Do("POST", "/v1/pipes", k.Key, map[string]any{"name": "nope"}); r.Status != 403 {
		t.Fatalf("read-only key created a pipe: %d", r.Status)
	}
	mustStatus(t, postMessages(ts, k.Key, msgReq("hearth:echo", "hi")), 200)
	// Claude Code adds ?beta=true to its calls.
	r = ts.Do("POST", "/anthropic/v1/messages?beta=true", "", msgReq("hearth:echo", "with a query"), "x-api-key", admin)
	if mustStatus(t, r, 200); !strings.Contains(string(r.Body), `"text":"with a query"`) {
		t.Fatalf("?beta=true: %s", r.Body)
	}
	mustStatus(t, ts.Do("POST", "/anthropic/v1/messages/count_tokens", "", map[string]any{"model": "hearth:echo", "messages": []any{user("hi")}}, "x-api-key", k.Key), 200)

	asked := []string{"x-api-key", "anthropic-version", "anthropic-beta", "anthropic-dangerous-direct-browser-access", "content-type", "x-stainless-os"}
	req, _ := http.NewRequest(http.MethodOptions, ts.URL+"/anthropic/v1/messages", nil)
	req.Header.Set("Origin", "http://app.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", strings.Join(asked, ","))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	allowed := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers"))
	for _, h := range asked {
		if !strings.Contains(allowed, h) {
			t.Errorf("preflight does not allow %s (allowed: %s)", h, allowed)
		}
	}
	r = ts.Do("GET", "/anthropic/v1/models", admin, nil, "Origin", "http://app.example")
	if exp := strings.ToLower(r.Header.Get("Access-Control-Expose-Headers")); !strings.Contains(exp, "lb-token-count") {
		t.Fatalf("expose headers %q", exp)
	}
}
