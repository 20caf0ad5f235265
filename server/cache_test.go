package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/servertest"
)

const cacheModel = "openai:gpt-4o-mini"

// withCache turns the response cache on with cfg.
func withCache(cfg engine.ResponseCacheConfig) servertest.Option {
	return func(c *app.Config) { c.Cache = &cfg }
}

// startCache starts a server with the response cache on, its openai
// provider a fake upstream (with a server key), and a pipe "cached" at
// temperature 0.
func startCache(t *testing.T, opts ...servertest.Option) (*servertest.Server, *fake.Server) {
	t.Helper()
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, append([]servertest.Option{servertest.WithProvider("openai", up.BaseURL(), "sk-server"), withCache(engine.ResponseCacheConfig{})}, opts...)...)
	createCachePipe(t, ts, servertest.AdminKey)
	return ts, up
}

func createCachePipe(t *testing.T, ts *servertest.Server, key string) {
	t.Helper()
	r := ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "cached", "model": cacheModel, "temperature": 0, "store": false,
		"messages": []any{map[string]any{"role": "system", "content": "You answer briefly."}}})
	if r.Status != 200 {
		t.Fatalf("create pipe: %d %s", r.Status, r.Body)
	}
}

// cacheSurface is one API surface: how to ask it a question.
type cacheSurface struct {
	name string
	call func(ts *servertest.Server, key, question string, stream bool, headers ...string) *servertest.Response
}

func cacheSurfaces() []cacheSurface {
	return []cacheSurface{
		{"chat", func(ts *servertest.Server, key, q string, stream bool, h ...string) *servertest.Response {
			return ts.Do("POST", "/openai/v1/chat/completions", key, map[string]any{"model": cacheModel, "stream": stream,
				"messages": []any{map[string]any{"role": "user", "content": q}}}, h...)
		}},
		{"pipe", func(ts *servertest.Server, key, q string, stream bool, h ...string) *servertest.Response {
			return ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "cached", "stream": stream,
				"messages": []any{map[string]any{"role": "user", "content": q}}}, h...)
		}},
		{"agent", func(ts *servertest.Server, key, q string, stream bool, h ...string) *servertest.Response {
			// An agent run's temperature is 0.7 unless it sets one.
			return ts.Do("POST", "/v1/agent/run", key, map[string]any{"model": cacheModel, "input": q, "stream": stream, "temperature": 0}, h...)
		}},
		{"responses", func(ts *servertest.Server, key, q string, stream bool, h ...string) *servertest.Response {
			return ts.Do("POST", "/openai/v1/responses", key, map[string]any{"model": cacheModel, "input": q, "stream": stream, "store": false}, h...)
		}},
		{"messages", func(ts *servertest.Server, key, q string, stream bool, h ...string) *servertest.Response {
			return postMessages(ts, key, msgReq(cacheModel, q, "stream", stream), h...)
		}},
	}
}

// TestCacheHitsOnEverySurface: with LB-Cache: on, the second identical
// question on each surface is answered from the cache (no upstream call),
// stream or not, marked hit in lb-cache and in the run log with no tokens
// and no cost.
func TestCacheHitsOnEverySurface(t *testing.T) {
	ts, up := startCache(t)
	for _, s := range cacheSurfaces() {
		for _, stream := range []bool{false, true} {
			name := s.name
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				q := "What is the capital of France? (" + name + ")"
				up.SetDefault(fake.Reply{Text: "Paris, asked via " + name + "."})
				before := up.Count()
				first := s.call(ts, servertest.AdminKey, q, stream, "LB-Cache", "on")
				if first.Status != 200 || first.Header.Get("lb-cache") != "miss" || up.Count() != before+1 {
					t.Fatalf("first: %d lb-cache=%q, %d upstream calls: %s", first.Status, first.Header.Get("lb-cache"), up.Count()-before, first.Body)
				}
				up.SetDefault(fake.Reply{Text: "A different answer."})
				second := s.call(ts, servertest.AdminKey, q, stream, "LB-Cache", "on")
				if second.Status != 200 || second.Header.Get("lb-cache") != "hit" {
					t.Fatalf("second: %d lb-cache=%q: %s", second.Status, second.Header.Get("lb-cache"), second.Body)
				}
				if up.Count() != before+1 {
					t.Fatalf("a hit called the upstream (%d calls)", up.Count()-before)
				}
				if !strings.Contains(string(second.Body), "Paris,") || strings.Contains(string(second.Body), "different") {
					t.Fatalf("the hit does not carry the cached answer: %s", second.Body)
				}
				if stream && !strings.Contains(second.Header.Get("Content-Type"), "text/event-stream") {
					t.Fatalf("a replayed stream is served as %q", second.Header.Get("Content-Type"))
				}
				ts.RunLog.Flush()
				var page struct {
					Data []engine.RunRecord `json:"data"`
				}
				ts.Do("GET", "/v1/runs?limit=1", servertest.AdminKey, nil).JSON(t, &page)
				if len(page.Data) != 1 {
					t.Fatal("no run recorded")
				}
				rec := page.Data[0]
				if rec.Cache != "hit" || rec.TotalTokens != 0 || (rec.CostUSD != nil && *rec.CostUSD != 0) || rec.Status != engine.RunSuccess {
					t.Fatalf("run record of the hit: cache %q, %d tokens, cost %v, status %q", rec.Cache, rec.TotalTokens, rec.CostUSD, rec.Status)
				}
			})
		}
	}
}

// TestCacheReplayedStreamMatchesLive: a chat completion stream served from
// the cache is the live stream's bytes.
func TestCacheReplayedStreamMatchesLive(t *testing.T) {
	ts, up := startCache(t)
	chat := cacheSurfaces()[0]
	up.SetDefault(fake.Reply{Text: "One two three four five."})
	live := chat.call(ts, servertest.AdminKey, "count to five", true, "LB-Cache", "on")
	replay := chat.call(ts, servertest.AdminKey, "count to five", true, "LB-Cache", "on")
	if replay.Header.Get("lb-cache") != "hit" || up.Count() != 1 {
		t.Fatalf("replay: lb-cache=%q, %d upstream calls", replay.Header.Get("lb-cache"), up.Count())
	}
	if string(live.Body) != string(replay.Body) || !strings.Contains(string(replay.Body), "data: [DONE]") {
		i := 0
		for i < len(live.Body) && i < len(replay.Body) && live.Body[i] == replay.Body[i] {
			i++
		}
		t.Fatalf("replayed stream differs from the live one at byte %d:\nlive:   %q\nreplay: %q", i, live.Body[i:], replay.Body[i:])
	}
}

// TestCacheModes: no opt-in and off never touch the cache; refresh calls
// the model and replaces the entry; the body's cache field opts in; a bad
// mode is a 400 naming the field.
func TestCacheModes(t *testing.T) {
	ts, up := startCache(t)
	chat := cacheSurfaces()[0]
	r := chat.call(ts, servertest.AdminKey, "q", false)
	if r.Header.Get("lb-cache") != "" {
		t.Fatalf("no opt-in: lb-cache=%q", r.Header.Get("lb-cache"))
	}
	chat.call(ts, servertest.AdminKey, "q", false, "LB-Cache", "on")
	if r = chat.call(ts, servertest.AdminKey, "q", false, "LB-Cache", "off"); r.Header.Get("lb-cache") != "" || up.Count() != 3 {
		t.Fatalf("off: lb-cache=%q, %d calls", r.Header.Get("lb-cache"), up.Count())
	}
	up.SetDefault(fake.Reply{Text: "Refreshed answer."})
	if r = chat.call(ts, servertest.AdminKey, "q", false, "LB-Cache", "refresh"); r.Header.Get("lb-cache") != "refresh" || up.Count() != 4 {
		t.Fatalf("refresh: lb-cache=%q, %d calls", r.Header.Get("lb-cache"), up.Count())
	}
	// The body's cache field (an SDK's extra body) opts in as well.
	r = ts.Do("POST", "/openai/v1/chat/completions", servertest.AdminKey, map[string]any{"model": cacheModel, "cache": "on",
		"messages": []any{map[string]any{"role": "user", "content": "q"}}})
	if r.Header.Get("lb-cache") != "hit" || !strings.Contains(string(r.Body), "Refreshed answer.") || up.Count() != 4 {
		t.Fatalf("body cache field after refresh: lb-cache=%q, %d calls: %s", r.Header.Get("lb-cache"), up.Count(), r.Body)
	}
	if body := upstreamBody(t, up, -1); body["cache"] != nil {
		t.Fatalf("the cache field reached the upstream: %v", body)
	}
	r = chat.call(ts, servertest.AdminKey, "q", false, "LB-Cache", "sometimes")
	if r.Status != 400 || !strings.Contains(string(r.Body), "LB-Cache") {
		t.Fatalf("bad header: %d %s", r.Status, r.Body)
	}
	r = postMessages(ts, servertest.AdminKey, msgReq(cacheModel, "q", "cache", "always"))
	if r.Status != 400 || !strings.Contains(string(r.Body), "cache") {
		t.Fatalf("bad body field: %d %s", r.Status, r.Body)
	}
}

// TestCacheTenantIsolation: another user asking the same question gets
// its own answer from the model, never the first user's.
func TestCacheTenantIsolation(t *testing.T) {
	ts, up := startCache(t)
	bobKey := ts.UserWithKey("bob")
	createCachePipe(t, ts, bobKey)
	for _, s := range cacheSurfaces() {
		t.Run(s.name, func(t *testing.T) {
			q := "secret plans (" + s.name + ")"
			up.SetDefault(fake.Reply{Text: "Admin's answer."})
			s.call(ts, servertest.AdminKey, q, false, "LB-Cache", "on")
			up.SetDefault(fake.Reply{Text: "Bob's answer."})
			before := up.Count()
			r := s.call(ts, bobKey, q, false, "LB-Cache", "on", "LB-LLM-Key", "sk-bob")
			if r.Status != 200 || r.Header.Get("lb-cache") != "miss" || up.Count() != before+1 || strings.Contains(string(r.Body), "Admin's") {
				t.Fatalf("bob: %d lb-cache=%q, %d calls: %s", r.Status, r.Header.Get("lb-cache"), up.Count()-before, r.Body)
			}
		})
	}
}

// TestCacheSkipsToolRunsAndTemperature: an agent run whose model called a
// tool is not cached, nor is a call with a temperature above 0.
func TestCacheSkipsToolRunsAndTemperature(t *testing.T) {
	ts, up := startCache(t)
	body := map[string]any{"model": cacheModel, "temperature": 0.8, "messages": []any{map[string]any{"role": "user", "content": "q"}}}
	for i := 0; i < 2; i++ {
		r := ts.Do("POST", "/openai/v1/chat/completions", servertest.AdminKey, body, "LB-Cache", "on")
		if r.Header.Get("lb-cache") != "bypass" {
			t.Fatalf("temperature 0.8: lb-cache=%q", r.Header.Get("lb-cache"))
		}
	}
	if up.Count() != 2 {
		t.Fatalf("temperature 0.8: %d upstream calls, want 2", up.Count())
	}
	// A model answer with a tool call is handed to the client, not stored.
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "lookup", "parameters": map[string]any{"type": "object"}}}}
	body = map[string]any{"model": cacheModel, "tools": tools, "messages": []any{map[string]any{"role": "user", "content": "look it up"}}}
	for i := 0; i < 2; i++ {
		up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{Name: "lookup", Arguments: `{}`}}})
		r := ts.Do("POST", "/openai/v1/chat/completions", servertest.AdminKey, body, "LB-Cache", "on")
		if r.Status != 200 || r.Header.Get("lb-cache") != "miss" {
			t.Fatalf("tool call answer %d: %d lb-cache=%q %s", i, r.Status, r.Header.Get("lb-cache"), r.Body)
		}
	}
	if up.Count() != 4 {
		t.Fatalf("tool call answers: %d upstream calls, want 4", up.Count())
	}
	n, err := ts.App.Cache.Len(context.Background())
	if err != nil || n != 0 {
		t.Fatalf("%d entries stored (err %v), want none", n, err)
	}
}

// TestCacheOffIgnoresHeader: without HEARTH_CACHE the header is checked
// but nothing is cached or reported.
func TestCacheOffIgnoresHeader(t *testing.T) {
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-server"))
	chat := cacheSurfaces()[0]
	for i := 0; i < 2; i++ {
		if r := chat.call(ts, servertest.AdminKey, "q", false, "LB-Cache", "on"); r.Status != 200 || r.Header.Get("lb-cache") != "" {
			t.Fatalf("cache off: %d lb-cache=%q", r.Status, r.Header.Get("lb-cache"))
		}
	}
	if up.Count() != 2 {
		t.Fatalf("cache off: %d upstream calls, want 2", up.Count())
	}
}

// TestCachePipeSetting: a pipe with cache on answers repeated runs from the
// cache without any header; LB-Cache: off still bypasses it; GET shows it.
func TestCachePipeSetting(t *testing.T) {
	ts, up := startCache(t)
	r := ts.Do("POST", "/v1/pipes/cached", servertest.AdminKey, map[string]any{"cache": true})
	if r.Status != 200 {
		t.Fatalf("update pipe: %d %s", r.Status, r.Body)
	}
	var view struct {
		Cache bool `json:"cache"`
	}
	ts.Do("GET", "/v1/pipes/cached", servertest.AdminKey, nil).JSON(t, &view)
	if !view.Cache {
		t.Fatal("GET /v1/pipes/cached does not show cache: true")
	}
	pipe := cacheSurfaces()[1]
	first := pipe.call(ts, servertest.AdminKey, "q", false)
	second := pipe.call(ts, servertest.AdminKey, "q", false)
	if first.Header.Get("lb-cache") != "miss" || second.Header.Get("lb-cache") != "hit" || up.Count() != 1 {
		t.Fatalf("pipe with cache on: %q then %q, %d upstream calls", first.Header.Get("lb-cache"), second.Header.Get("lb-cache"), up.Count())
	}
	if r := pipe.call(ts, servertest.AdminKey, "q", false, "LB-Cache", "off"); r.Header.Get("lb-cache") != "" || up.Count() != 2 {
		t.Fatalf("LB-Cache: off on a caching pipe: %q, %d upstream calls", r.Header.Get("lb-cache"), up.Count())
	}
	// The same question through the OpenAI surface's pipe: model is a hit too.
	r = ts.Do("POST", "/openai/v1/chat/completions", servertest.AdminKey, map[string]any{"model": "pipe:cached",
		"messages": []any{map[string]any{"role": "user", "content": "q"}}})
	if r.Status != 200 || r.Header.Get("lb-cache") != "hit" || up.Count() != 2 {
		t.Fatalf("pipe:cached on the OpenAI surface: %d %q, %d upstream calls: %s", r.Status, r.Header.Get("lb-cache"), up.Count(), r.Body)
	}
}

// TestCacheKeySetting: a key created with cache "on" caches its requests
// without a header; a key with cache "off" is not cached even by a
// caching pipe; the request's header still wins; a bad value is a 400.
func TestCacheKeySetting(t *testing.T) {
	ts, up := startCache(t)
	newKey := func(mode string) string {
		r := ts.Do("POST", "/v1/keys", servertest.AdminKey, map[string]any{"name": "cache-" + mode, "cache": mode})
		if r.Status != 200 {
			t.Fatalf("create key with cache %q: %d %s", mode, r.Status, r.Body)
		}
		var k struct {
			Key  string `json:"key"`
			Info struct {
				Scope struct {
					Cache string `json:"cache"`
				} `json:"scope"`
			} `json:"info"`
		}
		r.JSON(t, &k)
		if k.Key == "" || k.Info.Scope.Cache != mode {
			t.Fatalf("created key: %s", r.Body)
		}
		return k.Key
	}
	on, off := newKey("on"), newKey("off")
	chat := cacheSurfaces()[0]
	first, second := chat.call(ts, on, "q", false), chat.call(ts, on, "q", false)
	if first.Header.Get("lb-cache") != "miss" || second.Header.Get("lb-cache") != "hit" || up.Count() != 1 {
		t.Fatalf("key with cache on: %q then %q, %d upstream calls", first.Header.Get("lb-cache"), second.Header.Get("lb-cache"), up.Count())
	}
	if r := chat.call(ts, on, "q", false, "LB-Cache", "refresh"); r.Header.Get("lb-cache") != "refresh" || up.Count() != 2 {
		t.Fatalf("header over the key: %q, %d upstream calls", r.Header.Get("lb-cache"), up.Count())
	}
	mustStatus(t, ts.Do("POST", "/v1/pipes/cached", servertest.AdminKey, map[string]any{"cache": true}), 200)
	pipe := cacheSurfaces()[1]
	for i := 0; i < 2; i++ {
		if r := pipe.call(ts, off, "q", false); r.Status != 200 || r.Header.Get("lb-cache") != "" {
			t.Fatalf("key with cache off on a caching pipe: %d %q %s", r.Status, r.Header.Get("lb-cache"), r.Body)
		}
	}
	if up.Count() != 4 {
		t.Fatalf("key with cache off: %d upstream calls, want 4", up.Count())
	}
	r := ts.Do("POST", "/v1/keys", servertest.AdminKey, map[string]any{"name": "bad", "cache": "refresh"})
	if r.Status != 400 || !strings.Contains(string(r.Body), "cache") {
		t.Fatalf("key with cache refresh: %d %s", r.Status, r.Body)
	}
}

// TestCacheCORS: a browser may send LB-Cache and read lb-cache.
func TestCacheCORS(t *testing.T) {
	ts, _ := startCache(t)
	req, _ := http.NewRequest(http.MethodOptions, ts.URL+"/openai/v1/chat/completions", nil)
	req.Header.Set("Origin", "http://app.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,lb-cache")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !strings.Contains(strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), "lb-cache") {
		t.Fatalf("preflight does not allow LB-Cache: %q", resp.Header.Get("Access-Control-Allow-Headers"))
	}
	r := cacheSurfaces()[0].call(ts, servertest.AdminKey, "q", false, "LB-Cache", "on", "Origin", "http://app.example")
	if !strings.Contains(strings.ToLower(r.Header.Get("Access-Control-Expose-Headers")), "lb-cache") {
		t.Fatalf("lb-cache is not exposed: %q", r.Header.Get("Access-Control-Expose-Headers"))
	}
}
