package providers

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// TestH1Concurrent: many calls at once through one lean client against a
// net/http server, some read whole, some closed early, some closed from
// another goroutine while a read waits. Every whole read gets its answer,
// and connections are reused (run with -race).
func TestH1Concurrent(t *testing.T) {
	var accepts atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/slow" {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: 1\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		io.WriteString(w, `{"ok":true}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			accepts.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	lean, _ := h1Callers(t, 0)
	var wg sync.WaitGroup
	var early atomic.Int64
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				switch (g + i) % 8 {
				case 0:
					early.Add(1)
					st := &callState{data: []byte(`{}`)}
					req, _ := ctxRequest(st, context.Background(), "POST", srv.URL+"/slow", 0)
					resp, err := lean.do(req)
					if err != nil {
						t.Error(err)
						return
					}
					done := make(chan struct{})
					go func() { io.ReadAll(resp.Body); close(done) }()
					resp.Body.Close()
					<-done
				default:
					if x := callOnce(t, lean, "POST", srv.URL+"/v1/chat/completions", []byte(`{}`)); x.err != "" || x.body != `{"ok":true}` {
						t.Errorf("call: %+v", x)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if n, e := accepts.Load(), early.Load(); n > e+16 {
		t.Fatalf("%d connections for 640 calls (%d closed early, 16 at once): connections were not reused", n, e)
	}
}
