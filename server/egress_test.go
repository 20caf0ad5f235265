package server_test

import (
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// countingListener counts the connections made to it.
type countingListener struct {
	ln    net.Listener
	count atomic.Int64
}

func newCountingListener(t *testing.T) *countingListener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &countingListener{ln: ln}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.count.Add(1)
			conn.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return c
}

func (c *countingListener) URL() string { return "http://" + c.ln.Addr().String() }

// TestEgressAllowlist: in allowlist mode a pipe on an allowed upstream
// runs; a pipe on another provider, an MCP server and a crawl outside the
// list are refused with the host and the setting named, no connection
// reaches the destination, and the egress record shows both.
func TestEgressAllowlist(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	trap := newCountingListener(t)
	allowed := hostOf(t, up.BaseURL())
	ts := servertest.Start(t,
		servertest.WithProvider("openai", up.BaseURL(), "sk-server"),
		servertest.WithProvider("anthropic", trap.URL(), "sk-server"),
		servertest.WithEgress("allowlist", allowed))
	key := servertest.AdminKey
	msgs := []map[string]string{{"role": "user", "content": "hi"}}

	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "inside", "model": "openai:gpt-4o-mini"}), 200)
	mustStatus(t, ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "inside", "stream": false, "messages": msgs}), 200)

	trapHost := hostOf(t, trap.URL())
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "outside", "model": "anthropic:claude-3-5-haiku-latest"}), 200)
	r := ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "outside", "stream": false, "messages": msgs})
	if r.Status != 502 || !strings.Contains(errorMessage(t, r), trapHost) || !strings.Contains(errorMessage(t, r), "HEARTH_OUTBOUND_HOSTS") {
		t.Fatalf("refused provider: %d %s", r.Status, r.Body)
	}

	r = runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "mcp_servers": []any{mcpServer("tools", trap.URL()+"/mcp")}})
	if r.Status != 400 || !strings.Contains(errorMessage(t, r), trapHost) || !strings.Contains(errorMessage(t, r), "HEARTH_OUTBOUND_HOSTS") {
		t.Fatalf("refused MCP server: %d %s", r.Status, r.Body)
	}
	r = ts.Do("POST", "/v1/tools/crawl", key, map[string]any{"url": []string{trap.URL() + "/"}, "service": "hearth"})
	if r.Status != 403 || !strings.Contains(errorMessage(t, r), trapHost) || !strings.Contains(errorMessage(t, r), "HEARTH_OUTBOUND_HOSTS") {
		t.Fatalf("refused crawl: %d %s", r.Status, r.Body)
	}
	if n := trap.count.Load(); n != 0 {
		t.Fatalf("%d connections reached a destination outside the allow list", n)
	}

	var rep server.EgressReport
	r = ts.Do("GET", "/v1/admin/egress", key, nil)
	r.JSON(t, &rep)
	if r.Status != 200 || rep.Mode != "allowlist" || len(rep.Allow) != 1 || rep.Allow[0] != allowed {
		t.Fatalf("egress report: %d %s", r.Status, r.Body)
	}
	got := map[string]int64{}
	for _, e := range rep.Destinations {
		got[net.JoinHostPort(e.Host, e.Port)+" "+e.Feature+" "+e.Outcome] += e.Count
	}
	for _, want := range []string{allowed + " openai connected", trapHost + " anthropic refused", trapHost + " mcp refused", trapHost + " crawl refused"} {
		if got[want] == 0 {
			t.Errorf("egress record lacks %q: %v", want, got)
		}
	}
}

// TestEgressOpenRecords: open mode (the default) connects anywhere and
// still records where; only the admin user reads the record.
func TestEgressOpenRecords(t *testing.T) {
	ts, _ := startAgent(t)
	mustStatus(t, runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi"}), 200)
	var rep server.EgressReport
	r := ts.Do("GET", "/v1/admin/egress", servertest.AdminKey, nil)
	r.JSON(t, &rep)
	if rep.Mode != "open" || len(rep.Destinations) == 0 || rep.Destinations[0].Host != "127.0.0.1" ||
		rep.Destinations[0].Feature != "openai" || rep.Destinations[0].Outcome != "connected" {
		t.Fatalf("egress report: %d %s", r.Status, r.Body)
	}
	userKey := ts.UserWithKey("eve")
	if r := ts.Do("GET", "/v1/admin/egress", userKey, nil); r.Status != 403 {
		t.Fatalf("non-admin read the egress record: %d %s", r.Status, r.Body)
	}
}

func hostOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}
