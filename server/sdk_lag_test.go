package server_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// lagReleasePath is where the SDK suite tells the fake upstream that its
// client has the first event of a lag probe: POST lagReleasePath+ID.
const lagReleasePath = "/lag-release/"

// lagProbeWait bounds how long a lag probe waits for its client; it only
// keeps a broken client from hanging the suite, so it is far above any
// delivery time of a slow machine.
const lagProbeWait = 60 * time.Second

// lagProbes runs the lockstep stream of the SDK test "stream events arrive
// as they are sent" (testdata/sdk/pipes.test.mjs): the upstream sends the
// first event, then sends the rest only once the client has told it (on
// lagReleasePath) that the first event reached it through Hearth and the
// SDK. A chain that holds an event back until the next one arrives (the
// SDK's SSE boundary bug, docs/pipes-and-threads.md#sdk-end-to-end-test) never releases
// the probe; after lagProbeWait the upstream ends the stream with
// "held-back" instead of "probe", which the test refuses. The oracle is
// the order of events, never their timing.
type lagProbes struct {
	mu       sync.Mutex
	released map[string]chan struct{}
}

// lagProbeID reads the probe id of a user message "lag-probe ID".
func lagProbeID(msg string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(msg), "lag-probe ")
	if !ok || strings.TrimSpace(rest) == "" {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// ch returns the channel closed when probe id is released.
func (l *lagProbes) ch(id string) chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released == nil {
		l.released = map[string]chan struct{}{}
	}
	c, ok := l.released[id]
	if !ok {
		c = make(chan struct{})
		l.released[id] = c
	}
	return c
}

// release lets probe id send the rest of its stream; a second release of
// one probe is a 409, so a test cannot pass by releasing blindly twice.
func (l *lagProbes) release(w http.ResponseWriter, id string) {
	c := l.ch(id)
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-c:
		w.WriteHeader(http.StatusConflict)
	default:
		close(c)
		w.WriteHeader(http.StatusNoContent)
	}
}

// serve streams probe id: the first event at once, the rest when the
// client releases it (content "probe") or after lagProbeWait (content
// "held-back").
func (l *lagProbes) serve(w http.ResponseWriter, r *http.Request, id string) {
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta, finish string) string {
		return `data: {"id":"chatcmpl-lag","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":` +
			delta + `,"finish_reason":` + finish + `}]}` + "\n\n"
	}
	io.WriteString(w, chunk(`{"role":"assistant","content":""}`, "null"))
	http.NewResponseController(w).Flush()
	content := "probe"
	timer := time.NewTimer(lagProbeWait)
	defer timer.Stop()
	select {
	case <-l.ch(id):
	case <-timer.C:
		content = "held-back"
	case <-r.Context().Done():
		return
	}
	io.WriteString(w, chunk(`{"content":"`+content+`"}`, "null")+chunk(`{}`, `"stop"`)+"data: [DONE]\n\n")
}
