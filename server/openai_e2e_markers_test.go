package server_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"sync"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
)

// toolResultMarker is a tool result the node tests send ("result-21").
var toolResultMarker = regexp.MustCompile(`result-[0-9]+`)

// scriptByMarkers scripts a fake upstream's next answer from what it is
// sent, in any provider's wire format: the last tool result marker
// answers "tool result: <marker>", else "upstream_call:get_weather"
// calls get_weather; anything else gets the fake's default text.
func scriptByMarkers(up *fake.Server, body []byte) {
	if all := toolResultMarker.FindAll(body, -1); len(all) > 0 {
		up.Enqueue(fake.Reply{Text: "tool result: " + string(all[len(all)-1])})
		return
	}
	if bytes.Contains(body, []byte("upstream_call:get_weather")) {
		up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{ID: "call_weather", Name: "get_weather", Arguments: `{"city":"Paris"}`}}})
	}
}

// markerUpstream serves a fake upstream scripted by scriptByMarkers, one
// request at a time so a scripted answer goes to the request that asked
// for it.
func markerUpstream(t *testing.T, up *fake.Server) *httptest.Server {
	target, _ := url.Parse(up.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		scriptByMarkers(up, body)
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}
