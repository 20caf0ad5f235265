package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// gatewayOptions shape the gateway section.
type gatewayOptions struct {
	// Conc lists the client counts of each run kind.
	Conc []int
	// Cell is the measuring time per side of each row.
	Cell time.Duration
	// Runs keeps only the run kinds named (nil: all).
	Runs map[string]bool
	// UpstreamAddr fixes the fake upstream's listen address ("" picks a
	// free loopback port), so a peer gateway can be configured against it
	// before the run.
	UpstreamAddr string
	// Soak, when above 0, replaces the table: each run kind is sent by
	// SoakConc clients for that long while the process's memory is
	// sampled (soak.go).
	Soak     time.Duration
	SoakConc int
	// SoakHeapProfile, when set, is the prefix of the heap profile each
	// soaked run kind writes at its end (-soak-heapprofile).
	SoakHeapProfile string
	// Postgres runs Hearth on a throwaway PostgreSQL store (one cluster
	// node, as HEARTH_DATABASE_URL does) instead of Badger.
	Postgres bool
	// Turns is the server's CPU turns per CPU (HEARTH_CPU_TURNS; 0: off).
	Turns int
	// HTTP1 is "stdlib" to serve requests and call the upstream with
	// net/http alone (HEARTH_SERVER_HTTP1 and HEARTH_UPSTREAM_HTTP1),
	// else the lean paths (the default).
	HTTP1 string
	// Peer, when URL is set, is another OpenAI-compatible gateway
	// configured against the fake upstream, measured in the same run.
	Peer peerGateway
}

// peerGateway is the gateway of the peer row (HEARTH_BENCH_PEER_*).
type peerGateway struct {
	// URL is its OpenAI-compatible base URL, up to and including /v1.
	URL string
	// Key is sent as the bearer token.
	Key string
	// Model replaces the upstream request's model (Bifrost wants
	// "openai/gpt-4o-mini", LiteLLM the model_name of its config); ""
	// keeps "gpt-4o-mini".
	Model string
}

// parseConc reads a comma-separated list of client counts.
func parseConc(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-conc: %q is not a positive client count", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// startUpstream starts the fake OpenAI upstream, on addr when it is set.
func startUpstream(addr string) (f *fake.Server, err error) {
	// Started under role=upstream: its listener's goroutine, and so every
	// connection's, carries the label in profiles (profiles.go).
	asRole("upstream", func() { f, err = startUpstreamOn(addr) })
	return f, err
}

func startUpstreamOn(addr string) (*fake.Server, error) {
	f := fake.NewOpenAI()
	// Recording keeps every request's body and headers: on only for the
	// one call that captures the direct side's request (runGateway), or a
	// soak would measure the fake's growing record instead of Hearth.
	f.SetRecording(false)
	if addr == "" {
		return f, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("HEARTH_BENCH_UPSTREAM_ADDR: %w", err)
	}
	// Move the started fake onto the fixed address: a fresh httptest
	// server with the same handler.
	h := f.Config.Handler
	f.Close()
	f.Server = httptest.NewUnstartedServer(h)
	f.Listener.Close()
	f.Listener = ln
	f.Start()
	return f, nil
}

// startHearth starts the server under test against the fake upstream,
// under role=hearth: its listener's goroutine and so every connection's,
// and its workers, carry the label in profiles (profiles.go).
func startHearth(tb *benchTB, opts gatewayOptions, upstream string) (ts *servertest.Server, err error) {
	asRole("hearth", func() { ts, err = startHearthAs(tb, opts, upstream) })
	return ts, err
}

func startHearthAs(tb *benchTB, opts gatewayOptions, upstream string) (*servertest.Server, error) {
	provider := servertest.WithProvider("openai", upstream, "sk-bench")
	serverCfg := servertest.WithConfig(func(c *server.Config) {
		c.TurnsPerCPU = serverTurns(opts.Turns)
		c.LeanOff = opts.HTTP1 == "stdlib"
	})
	client := servertest.WithProviders(func(c *providers.Config) {
		if opts.HTTP1 == "stdlib" {
			c.HTTP1 = "stdlib"
		}
	})
	if !opts.Postgres {
		return servertest.Start(tb, provider, serverCfg, client), nil
	}
	if pgtest.BinDir() == "" {
		return nil, fmt.Errorf("-store postgres: no PostgreSQL 15+ binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql)")
	}
	pg := pgtest.Shared(tb)
	tb.Cleanup(func() { pg.Stop() })
	return servertest.StartNodes(tb, pgtest.URL(tb), 1, provider, serverCfg, client)[0], nil
}

// peerTarget is the direct request sent to the peer instead of the fake.
func (p peerGateway) target(direct gatewayTarget) gatewayTarget {
	body := direct.body
	if p.Model != "" {
		var m map[string]any
		if json.Unmarshal(body, &m) == nil {
			m["model"] = p.Model
			body, _ = json.Marshal(m)
		}
	}
	key := p.Key
	if key == "" {
		key = "sk-bench"
	}
	return gatewayTarget{url: strings.TrimRight(p.URL, "/") + "/chat/completions", key: key, body: body, stream: direct.stream}
}

// printPeer prints the peer rows next to Hearth's: both against the same
// direct leg, as a share of its throughput and as added p50.
func printPeer(w io.Writer, rs []GatewayResult) {
	have := false
	for _, r := range rs {
		have = have || r.Peer != nil
	}
	if !have {
		return
	}
	fmt.Fprintf(w, "\nPeer gateway (HEARTH_BENCH_PEER_URL) against the same fake upstream, same run; share = rps / direct rps.\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\tconc\tdirect rps\tpeer rps\thearth rps\tpeer share\thearth share\tpeer added p50 ms\thearth added p50 ms\tpeer errors\t")
	for _, r := range rs {
		if r.Peer == nil {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.0f\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t\n", r.Run, r.Concurrency, r.Direct.RPS, r.Peer.RPS,
			r.Hearth.RPS, r.share(*r.Peer), r.share(r.Hearth), r.Peer.P50ms-r.Direct.P50ms, r.AddedP50ms, r.Peer.Errors)
	}
	tw.Flush()
}
