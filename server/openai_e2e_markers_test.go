package server_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"regexp"
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

// markerUpstream serves a fake upstream scripted by scriptByMarkers.
func markerUpstream(t *testing.T, up *fake.Server) *httptest.Server {
	srv := httptest.NewServer(scriptedUpstream(up, func(_ *http.Request, body []byte) { scriptByMarkers(up, body) }))
	t.Cleanup(srv.Close)
	return srv
}
