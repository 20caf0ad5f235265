package main

import (
	"bytes"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestGatewayPeerRow: a peer gateway configured against the benchmark's
// fake upstream at a fixed address (here a second Hearth, through its
// OpenAI-compatible endpoint) is measured in the same run, without
// errors, and printed next to Hearth's rows; CPU per request, the
// thread writes per group commit and the run records per run-log commit
// are reported.
func TestGatewayPeerRow(t *testing.T) {
	settleAfter(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	peer := servertest.Start(t, servertest.WithProvider("openai", "http://"+addr+"/v1", "sk-bench"))

	opts := gatewayOptions{Conc: []int{2}, Cell: 150 * time.Millisecond, UpstreamAddr: addr,
		Runs: map[string]bool{"pipe": true, "pipe stream": true},
		Peer: peerGateway{URL: peer.URL + "/openai/v1", Key: servertest.AdminKey, Model: "openai:gpt-4o-mini"}}
	rows, _, err := runGateway(opts, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want the two run kinds asked for", len(rows))
	}
	for _, r := range rows {
		if r.Peer == nil || r.Peer.Requests == 0 || r.Peer.Errors != 0 {
			t.Fatalf("%s: peer side %+v; want requests and no errors", r.Run, r.Peer)
		}
		if r.Hearth.Requests == 0 || r.Hearth.Errors != 0 || r.Hearth.CPUusPerR <= 0 {
			t.Fatalf("%s: hearth side %+v", r.Run, r.Hearth)
		}
		if r.ThreadWritesPerCommit < 1 {
			t.Fatalf("%s: %.2f thread writes per commit; pipe runs store their thread", r.Run, r.ThreadWritesPerCommit)
		}
		if r.RunsPerCommit < 1 {
			t.Fatalf("%s: %.2f run records per run-log commit; every run is recorded", r.Run, r.RunsPerCommit)
		}
		if r.Run == "pipe stream" && r.Peer.TTFTP50ms <= 0 {
			t.Fatalf("peer stream without a time to first token: %+v", r.Peer)
		}
	}
	var out bytes.Buffer
	printGateway(&out, rows, opts.Cell.Seconds(), "lean")
	if !strings.Contains(out.String(), "Peer gateway (HEARTH_BENCH_PEER_URL)") || !strings.Contains(out.String(), "CPU µs/req") || !strings.Contains(out.String(), "runs/commit") {
		t.Fatalf("report:\n%s", out.String())
	}
}

// settleAfter, called first in a test that starts servers, waits at the
// test's end (after the servers' cleanups, registered later, have run)
// until the test's goroutines are gone, then collects: the retrieval
// tests that follow measure the live heap, which must not shrink under
// them while another test's goroutines wind down.
func settleAfter(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		for i := 0; i < 500 && runtime.NumGoroutine() > before; i++ {
			time.Sleep(10 * time.Millisecond)
		}
		http.DefaultClient.CloseIdleConnections()
		runtime.GC()
	})
}

// TestGatewayStdlibRow: -http1 stdlib serves the gateway rows through
// net/http on both sides, and the table says so.
func TestGatewayStdlibRow(t *testing.T) {
	settleAfter(t)
	opts := gatewayOptions{Conc: []int{2}, Cell: 150 * time.Millisecond, Runs: map[string]bool{"pipe": true}, HTTP1: "stdlib"}
	rows, _, err := runGateway(opts, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Hearth.Requests == 0 || rows[0].Hearth.Errors != 0 {
		t.Fatalf("rows %+v", rows)
	}
	var out bytes.Buffer
	printGateway(&out, rows, opts.Cell.Seconds(), "stdlib")
	if !strings.Contains(out.String(), "net/http for the server's requests and the upstream calls") {
		t.Fatalf("the table does not say it ran on net/http:\n%s", out.String())
	}
}
