package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestLeanRequestTakesNoListenerLock: a keep-alive request is read and
// answered while the listener's lock is held (as by closeIdle's scan of
// every connection, or an accept): a connection's state moves and its
// shutdown checks, five a request, take no lock shared by all
// connections.
func TestLeanRequestTakesNoListenerLock(t *testing.T) {
	ll, addr := startLean(t, handlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = w.Write([]byte("ok"))
	}), LeanConfig{IdleTimeout: time.Minute})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	req := []byte(post("/x", `{"a":1}`))
	one := func() error {
		if _, err := conn.Write(req); err != nil {
			return err
		}
		return skipAnswer(br)
	}
	if err := one(); err != nil {
		t.Fatal(err)
	}
	ll.mu.Lock()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	err = one()
	ll.mu.Unlock()
	if err != nil {
		t.Fatalf("no answer while the listener's lock was held: %v", err)
	}
}
