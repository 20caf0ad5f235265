package providers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// streamHead is an SSE answer's head and first event; the body never ends.
const streamHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
	"14\r\ndata: {\"x\":1}\n\n\n\n\r\n"

// endedCall runs one call to a server that never answers in full, waiting
// for its head (stream false) or reading its body (stream true), ends it
// with end once the request reached the server, and returns its error.
func endedCall(t *testing.T, c caller, ctx context.Context, stream bool, end func()) error {
	t.Helper()
	head := ""
	if stream {
		head = streamHead
	}
	srv := startHung(t, head)
	errs := make(chan error, 1)
	go func() {
		up, err := c.post(ctx, srv.url(), []byte(`{}`), stream, func(http.Header) {})
		if err == nil {
			b, rerr := readPooled("openai", up)
			if rerr == nil {
				rerr = fmt.Errorf("the body was read whole (%d bytes)", b.Len())
			}
			err = rerr
		}
		errs <- err
	}()
	if end != nil {
		select { // the request is out, the call waits
		case <-srv.received:
		case <-time.After(10 * time.Second):
			t.Fatal("the request did not reach the server")
		}
		end()
	}
	var err error
	select {
	case err = <-errs:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end")
	}
	srv.waitClosed(t, "ended call")
	return err
}

// callEndCase is one kind of call endedCall ends: on the lean client or
// on net/http's, waiting for its answer's head or reading a stream.
type callEndCase struct {
	name   string
	c      caller
	stream bool
}

func callEndCases(lean, std caller) []callEndCase {
	return []callEndCase{{"lean", lean, false}, {"lean stream", lean, true}, {"net/http", std, false}, {"net/http stream", std, true}}
}

// errHangUp is the cause a test's client hang-up cancels with.
var errHangUp = errors.New("client hung up")

// TestCallHangUpEndsCall: a client hang-up (the context the call was made
// in cancelled with a cause) ends a call at once, waiting for its answer's
// head or reading its body, on the lean client and on net/http's: the
// connection in use is closed and the error is worded from the cause.
func TestCallHangUpEndsCall(t *testing.T) {
	lean, std := h1Callers(t, 0)
	for _, tc := range callEndCases(lean, std) {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			err := endedCall(t, tc.c, ctx, tc.stream, func() { cancel(errHangUp) })
			var e *engine.Error
			if !errors.As(err, &e) || e.Code != engine.CodeUpstream || !strings.HasPrefix(e.Message, "request to openai was cancelled") || !errors.Is(err, errHangUp) {
				t.Fatalf("error %v (%#v), want the cancellation worded from its cause", err, e)
			}
		})
	}
}

// TestCallTimeoutEndsCall: the call's timeout ends a call waiting for its
// answer's head or reading its body, on both clients: the connection is
// closed and the error is the timeout's, with errTimeout (not Canceled)
// in its chain, as net/http's error carries the call's cause too.
func TestCallTimeoutEndsCall(t *testing.T) {
	lean, std := h1Callers(t, 0)
	lean.timeout, std.timeout = 250*time.Millisecond, 250*time.Millisecond
	for _, tc := range callEndCases(lean, std) {
		t.Run(tc.name, func(t *testing.T) {
			err := endedCall(t, tc.c, context.Background(), tc.stream, nil)
			var e *engine.Error
			if !errors.As(err, &e) || e.Code != engine.CodeUpstreamTimeout || e.Message != "openai did not answer in time" {
				t.Fatalf("error %v, want the call's timeout", err)
			}
			if !tc.stream && (!errors.Is(err, errTimeout) || errors.Is(err, context.Canceled)) {
				t.Fatalf("error chain %#v: want errTimeout in it and not Canceled", e.Err)
			}
		})
	}
}

// TestCallParentDeadlineEndsCall: the deadline of the context a call was
// made in ends it as the request's deadline, on both clients.
func TestCallParentDeadlineEndsCall(t *testing.T) {
	lean, std := h1Callers(t, 0)
	for _, tc := range []struct {
		name string
		c    caller
	}{{"lean", lean}, {"net/http", std}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
			defer cancel()
			err := endedCall(t, tc.c, ctx, false, nil)
			var e *engine.Error
			if !errors.As(err, &e) || e.Code != engine.CodeUpstreamTimeout || e.Message != "openai did not answer before the request deadline" ||
				!errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("error %v, want the request's deadline", err)
			}
		})
	}
}

// TestCallDoneParentFailsAtOnce: a call made in a context already
// cancelled sends nothing and fails with the context's cause.
func TestCallDoneParentFailsAtOnce(t *testing.T) {
	srv := startRaw(t, func(int64, *http.Request) ([]byte, bool) { return []byte(okAnswer), false })
	lean, std := h1Callers(t, 0)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errHangUp)
	for _, c := range []caller{lean, std} {
		if _, err := c.post(ctx, srv.url(), []byte(`{}`), false, func(http.Header) {}); !errors.Is(err, errHangUp) {
			t.Fatalf("error %v, want the cause", err)
		}
	}
	if n := srv.requests.Load(); n != 0 {
		t.Fatalf("%d requests sent in a cancelled context", n)
	}
}

// TestCallHangUpLeaksNoGoroutine: calls through net/http's transport
// ended by their parents, and calls completed before, leave no goroutine
// behind once their connections are closed.
func TestCallHangUpLeaksNoGoroutine(t *testing.T) {
	srv := startRaw(t, func(int64, *http.Request) ([]byte, bool) { return []byte(okAnswer), false })
	_, std := h1Callers(t, 0)
	run := func() {
		for range 20 {
			ctx, cancel := context.WithCancelCause(context.Background())
			postRead(t, std, ctx, srv.url())
			cancel(errHangUp)
		}
	}
	run()
	std.client.CloseIdleConnections()
	time.Sleep(20 * time.Millisecond)
	before := runtime.NumGoroutine()
	run()
	std.client.CloseIdleConnections()
	if after := settledGoroutines(before); after > before {
		t.Fatalf("%d goroutines after the calls, %d before", after, before)
	}
}

// settledGoroutines is the goroutine count once it is at most want, or
// after a second of waiting for it.
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(time.Second); n > want && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(5 * time.Millisecond)
	}
	return n
}

// TestCallLateParentEndSparesLaterCalls: calls whose parents end just as
// they finish, on the lean client and net/http's, never end a later call
// (each call's end is registered through its pooled timer), which all
// get their answers.
func TestCallLateParentEndSparesLaterCalls(t *testing.T) {
	srv := startRaw(t, func(int64, *http.Request) ([]byte, bool) { return []byte(okAnswer), false })
	lean, std := h1Callers(t, 0)
	var failed atomic.Int32
	for _, c := range []caller{lean, std} {
		for i := range 200 {
			ctx, cancel := context.WithCancel(context.Background())
			up, err := c.post(ctx, srv.url(), []byte(`{}`), false, func(http.Header) {})
			if err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			if i%2 == 0 {
				go cancel() // races the call's close
			}
			buf, err := readPooled("openai", up)
			if err == nil {
				releaseBody(buf)
			} else if i%2 == 1 || !errors.Is(err, context.Canceled) {
				failed.Add(1)
				t.Errorf("call %d: %v", i, err)
			}
			cancel()
		}
	}
	if failed.Load() > 0 {
		t.Fatalf("%d calls failed", failed.Load())
	}
}
