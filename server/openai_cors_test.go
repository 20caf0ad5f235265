package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestOpenAICORSPreflight: a browser running the openai npm SDK (6.x)
// preflights /openai/v1 with the headers the SDK sets (Authorization,
// Content-Type, its X-Stainless-* platform and retry headers,
// OpenAI-Organization and OpenAI-Project) plus Hearth's own request
// headers; every one must be allowed or the browser refuses the call.
func TestOpenAICORSPreflight(t *testing.T) {
	ts := servertest.Start(t)
	asked := []string{"authorization", "content-type", "x-stainless-arch", "x-stainless-lang", "x-stainless-os",
		"x-stainless-package-version", "x-stainless-retry-count", "x-stainless-runtime", "x-stainless-runtime-version",
		"x-stainless-timeout", "openai-organization", "openai-project", "lb-fallback-models", "lb-thread-id", "lb-llm-key"}
	for _, path := range []string{"/openai/v1/chat/completions", "/openai/v1/embeddings", "/openai/v1/models"} {
		req, _ := http.NewRequest(http.MethodOptions, ts.URL+path, nil)
		req.Header.Set("Origin", "http://app.example")
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", strings.Join(asked, ","))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Fatalf("%s: preflight %d", path, resp.StatusCode)
		}
		if o := resp.Header.Get("Access-Control-Allow-Origin"); o != "*" {
			t.Fatalf("%s: Access-Control-Allow-Origin %q", path, o)
		}
		allowed := map[string]bool{}
		for _, h := range strings.Split(resp.Header.Get("Access-Control-Allow-Headers"), ",") {
			allowed[strings.ToLower(strings.TrimSpace(h))] = true
		}
		for _, h := range asked {
			if !allowed[h] {
				t.Errorf("%s: preflight does not allow %s (allowed: %s)", path, h, resp.Header.Get("Access-Control-Allow-Headers"))
			}
		}
	}
	r := ts.Do("GET", "/openai/v1/models", servertest.AdminKey, nil, "Origin", "http://app.example")
	if exp := strings.ToLower(r.Header.Get("Access-Control-Expose-Headers")); !strings.Contains(exp, "lb-model") || !strings.Contains(exp, "lb-thread-id") {
		t.Fatalf("expose headers %q", exp)
	}
}
