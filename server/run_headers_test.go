package server

import (
	"net/http"
	"net/textproto"
	"testing"
)

// TestRunHeaderNamesAreCanonical: the run paths read LB-LLM-Key,
// LB-Fallback-Models and LB-Thread-ID under their canonical names, find
// them however a client spelled them.
func TestRunHeaderNamesAreCanonical(t *testing.T) {
	for name, canon := range map[string]string{"LB-LLM-Key": headerLLMKey, HeaderFallbackModels: headerFallbackModels,
		HeaderThreadRequest: headerThreadRequest, HeaderFault: headerFault} {
		if got := textproto.CanonicalMIMEHeaderKey(name); got != canon {
			t.Fatalf("%s: canonical %q, constant %q", name, got, canon)
		}
	}
	h := http.Header{}
	h.Set("lb-llm-KEY", "sk-1")
	if llmKey(h) != "sk-1" {
		t.Fatalf("llmKey = %q", llmKey(h))
	}
}

// TestSetRunHeaders: the thread and model headers are set under their
// exact lowercase names, the thread header only when the run has a
// thread.
func TestSetRunHeaders(t *testing.T) {
	h := http.Header{}
	setRunHeaders(h, "thread_1", "openai:gpt-4o-mini")
	if len(h) != 2 || h[HeaderThreadID][0] != "thread_1" || h[HeaderModel][0] != "openai:gpt-4o-mini" || len(h[HeaderThreadID]) != 1 {
		t.Fatalf("headers %v", h)
	}
	h[HeaderThreadID] = append(h[HeaderThreadID], "x") // appending to one value must not reach the other
	if h[HeaderModel][0] != "openai:gpt-4o-mini" {
		t.Fatalf("headers share their values: %v", h)
	}
	h = http.Header{}
	setRunHeaders(h, "", "openai:gpt-4o-mini")
	if _, ok := h[HeaderThreadID]; ok || h[HeaderModel][0] != "openai:gpt-4o-mini" {
		t.Fatalf("headers without a thread %v", h)
	}
}

// TestSetRunHeadersIn: with the values' storage in the caller's room, the
// thread and model headers (and the model header alone, for a run without
// a thread) are the room's, and neither value reaches the other.
func TestSetRunHeadersIn(t *testing.T) {
	var room [2]string
	h := http.Header{}
	setRunHeadersIn(h, "", "openai:gpt-4o-mini", &room)
	if _, ok := h[HeaderThreadID]; ok || len(h[HeaderModel]) != 1 || &h[HeaderModel][0] != &room[1] {
		t.Fatalf("headers without a thread %v", h)
	}
	setThreadHeaderIn(h, "thread_1", &room)
	if &h[HeaderThreadID][0] != &room[0] || cap(h[HeaderThreadID]) != 1 || h[HeaderModel][0] != "openai:gpt-4o-mini" {
		t.Fatalf("headers %v", h)
	}
}

// BenchmarkRunHeadersAllocs: reading LB-LLM-Key under its canonical name
// allocates nothing, setting the thread and model headers one allocation,
// none with their values in the caller's room (Go 1.26).
func BenchmarkRunHeadersAllocs(b *testing.B) {
	b.Run("llmKey", func(b *testing.B) {
		h := http.Header{}
		h.Set("lb-llm-KEY", "sk-1")
		b.ReportAllocs()
		for b.Loop() {
			_ = llmKey(h)
		}
	})
	b.Run("setRunHeaders", func(b *testing.B) {
		h := http.Header{}
		b.ReportAllocs()
		for b.Loop() {
			setRunHeaders(h, "thread_1", "openai:gpt-4o-mini")
		}
	})
	b.Run("in room", func(b *testing.B) {
		var room [2]string
		h := http.Header{}
		b.ReportAllocs()
		for b.Loop() {
			setRunHeadersIn(h, "", "openai:gpt-4o-mini", &room)
			setThreadHeaderIn(h, "thread_1", &room)
			setModelHeaderIn(h, "openai:gpt-4o", &room)
		}
	})
}
