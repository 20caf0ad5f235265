package server_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"

	"github.com/hearth-dev/hearth/providers/fake"
)

// scriptedUpstream proxies to the fake upstream up after script has seen
// each request and its body (and enqueued the reply it should get).
// Requests are served one at a time so a scripted reply goes to the
// request that asked for it.
func scriptedUpstream(up *fake.Server, script func(r *http.Request, body []byte)) http.Handler {
	target, _ := url.Parse(up.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	var mu sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		script(r, body)
		proxy.ServeHTTP(w, r)
	})
}
