package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// recordedUpstream returns the lines of one of the providers' recorded
// upstream files (../providers/testdata/name) that encoding/json decodes
// into a T, decoded.
func recordedUpstream[T any](t testing.TB, name string) []*T {
	t.Helper()
	var out []*T
	for _, line := range recordedUpstreamLines(t, name) {
		v := new(T)
		if json.Unmarshal(line, v) == nil {
			out = append(out, v)
		}
	}
	return out
}

// recordedUpstreamLines returns the lines of ../providers/testdata/name,
// as seeds for a fuzz target or for recordedUpstream.
func recordedUpstreamLines(t testing.TB, name string) [][]byte {
	t.Helper()
	f, err := os.ReadFile("../providers/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(f))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	return out
}
