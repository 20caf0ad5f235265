package providers

import (
	"net/http"
	"testing"
)

// TestRegistryCloseIdleConnections: the registry's upstream calls go
// through the lean client by default, and CloseIdleConnections closes the
// connection it kept, so the next call dials again.
func TestRegistryCloseIdleConnections(t *testing.T) {
	srv := startRaw(t, func(int64, *http.Request) ([]byte, bool) { return []byte(okAnswer), false })
	r, err := New(Config{Providers: map[string]ProviderConfig{"openai": {BaseURL: "http://" + srv.ln.Addr().String() + "/v1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.upstream.lean == nil {
		t.Fatal("the registry does not use the lean client by default")
	}
	for range 2 {
		callOnce(t, r.upstream, "POST", srv.url(), []byte(`{}`))
	}
	if n := srv.accepts.Load(); n != 1 {
		t.Fatalf("%d connections before CloseIdleConnections, want 1", n)
	}
	r.CloseIdleConnections()
	if r.upstream.lean.nidle != 0 {
		t.Fatalf("%d idle connections left", r.upstream.lean.nidle)
	}
	callOnce(t, r.upstream, "POST", srv.url(), []byte(`{}`))
	if n := srv.accepts.Load(); n != 2 {
		t.Fatalf("%d connections after CloseIdleConnections, want 2", n)
	}
}
