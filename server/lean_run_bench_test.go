package server_test

import (
	"bufio"
	"encoding/json"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkLeanRun serves whole runs (POST /v1/pipes/run of a store:false
// pipe, POST /v1/agent/run) through the lean path on loopback with the
// server's own connection settings, from raw keep-alive clients, eight
// at a time, against a fake OpenAI upstream. cpu-µs/op is the process's
// CPU time a run (clients and fake included): compare builds run minutes
// apart, alternating, never against a figure from elsewhere.
func BenchmarkLeanRun(b *testing.B) {
	ts := startRunServer(b)
	srv := ts.Server.HTTPServer()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	l := ts.Server.Listen(ln, srv)
	go func() { _ = srv.Serve(l) }()
	b.Cleanup(func() { _ = srv.Close(); ts.Server.CloseConnections() })
	addr := ln.Addr().String()
	pipe, _ := json.Marshal(map[string]any{"messages": []any{user("Say something about foxes.")}})
	agent, _ := json.Marshal(map[string]any{"model": "openai:gpt-4o-mini", "instructions": "You are terse.", "input": "Say something about foxes."})
	for _, c := range []struct {
		name, path, key string
		body            []byte
	}{{"pipe", "/v1/pipes/run", ts.pipeKey, pipe}, {"agent", "/v1/agent/run", admin, agent}} {
		req := []byte("POST " + c.path + " HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + c.key +
			"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(c.body)) + "\r\n\r\n" + string(c.body))
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(4)
			cpu0 := benchCPU()
			b.RunParallel(func(pb *testing.PB) {
				conn, err := net.Dial("tcp", addr)
				if err != nil {
					b.Error(err)
					return
				}
				defer conn.Close()
				br := bufio.NewReader(conn)
				for pb.Next() {
					if _, err := conn.Write(req); err != nil {
						b.Error(err)
						return
					}
					if status, err := readRawAnswer(br); err != nil || status != 200 {
						b.Errorf("answer %d: %v", status, err)
						return
					}
				}
			})
			b.ReportMetric(float64(benchCPU()-cpu0)/float64(b.N)/1e3, "cpu-µs/op")
		})
	}
}

// readRawAnswer reads one answer with a Content-Length and returns its
// status.
func readRawAnswer(br *bufio.Reader) (int, error) {
	status, n := 0, 0
	for first := true; ; first = false {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if first && len(line) > 12 {
			status, _ = strconv.Atoi(string(line[9:12]))
		}
		if len(line) == 2 {
			break
		}
		const cl = "Content-Length: "
		if len(line) > len(cl) && string(line[:len(cl)]) == cl {
			n, _ = strconv.Atoi(string(line[len(cl) : len(line)-2]))
		}
	}
	_, err := br.Discard(n)
	return status, err
}

// benchCPU is the process's user and system CPU time so far.
func benchCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
