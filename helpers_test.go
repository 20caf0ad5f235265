package main

import (
	"net"
	"testing"
)

// envMap returns a getenv that reads m.
func envMap(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// freeAddr returns a loopback address with a port free at the time of the call.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
