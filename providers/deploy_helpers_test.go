package providers

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// depUpstream is one fake OpenAI-wire model server of a deployment test:
// it counts the chat calls it gets and answers them after delay; while
// hold is set, a call waits for it to be closed (arrived signals each
// held call); breakStream makes a stream stop after its first chunk.
type depUpstream struct {
	t     *testing.T
	name  string
	addr  string
	srv   *httptest.Server
	calls atomic.Int64
	// status, when set, is the answer to every chat call.
	status atomic.Int64

	mu          sync.Mutex
	delay       time.Duration
	hold        chan struct{}
	arrived     chan string
	breakStream bool
	// stall, when set, holds a stream after its first chunk until closed.
	stall chan struct{}
}

func newDepUpstream(t *testing.T, name string) *depUpstream {
	u := &depUpstream{t: t, name: name}
	u.start("127.0.0.1:0")
	t.Cleanup(func() { u.srv.Close() })
	return u
}

// start serves on addr (the same address again after kill).
func (u *depUpstream) start(addr string) {
	var l net.Listener
	var err error
	for i := 0; i < 50; i++ { // the port of a killed server may take a moment to free
		if l, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		u.t.Fatalf("listen %s: %v", addr, err)
	}
	u.srv = httptest.NewUnstartedServer(http.HandlerFunc(u.serve))
	u.srv.Listener.Close()
	u.srv.Listener = l
	u.srv.Start()
	u.addr = l.Addr().String()
}

// set changes the fake's behaviour under its lock.
func (u *depUpstream) set(f func()) { u.mu.Lock(); f(); u.mu.Unlock() }

// kill stops the server: new connections are refused.
func (u *depUpstream) kill() {
	u.srv.CloseClientConnections()
	u.srv.Close()
}

func (u *depUpstream) url() string { return "http://" + u.addr + "/v1" }

func (u *depUpstream) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		io.WriteString(w, `{"object":"list","data":[]}`)
		return
	}
	u.calls.Add(1)
	u.mu.Lock()
	delay, hold, arrived, brk, stall := u.delay, u.hold, u.arrived, u.breakStream, u.stall
	u.mu.Unlock()
	if arrived != nil {
		arrived <- u.name
	}
	if hold != nil {
		<-hold
	}
	if delay > 0 {
		time.Sleep(delay)
	}
	if s := u.status.Load(); s != 0 {
		w.WriteHeader(int(s))
		fmt.Fprintf(w, `{"error":{"message":"%s says %d"}}`, u.name, s)
		return
	}
	model := "?"
	if i := strings.Index(string(body), `"model":"`); i >= 0 {
		rest := string(body[i+9:])
		model = rest[:strings.IndexByte(rest, '"')]
	}
	if strings.Contains(string(body), `"stream":true`) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":%q}}]}\n\n", model, u.name)
		w.(http.Flusher).Flush()
		if brk {
			panic(http.ErrAbortHandler) // the connection drops after the first chunk
		}
		if stall != nil {
			select {
			case <-stall:
			case <-r.Context().Done():
			}
		}
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}}\n\ndata: [DONE]\n\n", model)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`, model, u.name)
}

// depClock is a clock tests move by hand.
type depClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *depClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *depClock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// depRegistry builds a registry whose model "local:llama" is served by
// ups with strategy; probes report on the returned channel.
func depRegistry(t *testing.T, strategy string, clock *depClock, ups ...*depUpstream) (*Registry, chan string) {
	t.Helper()
	md := ModelDeployments{Model: "local:llama", Strategy: strategy}
	for _, u := range ups {
		md.Servers = append(md.Servers, Deployment{Name: u.name, BaseURL: u.url(), UpstreamModel: "llama-3-70b"})
	}
	probes := make(chan string, 64)
	cfg := Config{Deployments: []ModelDeployments{md}, Now: clock.now, Counter: &engine.Local{}, Timeout: 5 * time.Second,
		probeDone: func(name string, err error) { probes <- fmt.Sprintf("%s %v", name, err) }}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.CloseIdleConnections)
	return r, probes
}

// depChat sends one non-stream call and returns the deployment that
// answered (the fake puts its name in the answer).
func depChat(t *testing.T, r *Registry) (string, error) {
	t.Helper()
	cm, err := r.ChatModel(engine.ModelRef{Provider: "local", Model: "llama"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, note := engine.WithDeploymentNote(context.Background())
	resp, err := cm.Chat(ctx, &engine.ChatRequest{Model: "llama", Messages: []engine.Message{{Role: "user", Content: engine.TextContent("hi")}}})
	if err != nil {
		return "", err
	}
	got := engine.Completion(resp)
	if note.Name() != got {
		t.Fatalf("deployment noted %q, answer came from %q", note.Name(), got)
	}
	if resp.Model != "llama-3-70b" {
		t.Fatalf("upstream model %q, want the deployment's upstream_model", resp.Model)
	}
	return got, nil
}

// state returns the status of deployment name.
func depState(r *Registry, name string) engine.DeploymentStatus {
	for _, s := range r.Deployments() {
		if s.Name == name {
			return s
		}
	}
	return engine.DeploymentStatus{}
}
