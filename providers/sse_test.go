package providers

import (
	"io"
	"strings"
	"testing"
)

func TestSSEReader(t *testing.T) {
	long := strings.Repeat("x", 40<<10)
	in := ": keep-alive\r\n\r\nevent: a\r\ndata: one\r\n\r\n" +
		"data: two\ndata: lines\nid: 7\nretry: 10\n\n\n" +
		"data:" + long + "\n\n" +
		"event: last\ndata: {\"cut\":true}"
	r := newSSEReader(strings.NewReader(in))
	defer r.release()
	want := []struct{ event, data string }{{"a", "one"}, {"", "two\nlines"}, {"", long}, {"last", `{"cut":true}`}}
	for i, w := range want {
		ev, data, err := r.next()
		if err != nil || string(ev) != w.event || string(data) != w.data {
			t.Fatalf("event %d: %q (%d bytes) %v", i, ev, len(data), err)
		}
	}
	if _, _, err := r.next(); err != io.EOF {
		t.Fatalf("after last event: %v", err)
	}
}
