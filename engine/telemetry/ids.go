package telemetry

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// TraceID is a W3C trace id (16 bytes).
type TraceID [16]byte

// SpanID is a W3C span id (8 bytes).
type SpanID [8]byte

// String is the id in lowercase hex, as traceparent and OTLP/JSON write it.
func (t TraceID) String() string { return hex.EncodeToString(t[:]) }

// IsZero reports whether t is the invalid all-zero id.
func (t TraceID) IsZero() bool { return t == TraceID{} }

// String is the id in lowercase hex.
func (s SpanID) String() string { return hex.EncodeToString(s[:]) }

// IsZero reports whether s is the invalid all-zero id.
func (s SpanID) IsZero() bool { return s == SpanID{} }

// Remote is the caller's span from an incoming traceparent header.
type Remote struct {
	TraceID TraceID
	SpanID  SpanID
}

// ParseTraceparent reads a W3C traceparent header
// (https://www.w3.org/TR/trace-context/#traceparent-header):
// "00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>". Versions above
// 00 are read by their first four fields, as the spec asks; anything
// malformed, or an all-zero id, is ignored (ok false) and the request
// starts a new trace.
func ParseTraceparent(h string) (Remote, bool) {
	var r Remote
	h = strings.TrimSpace(h)
	if len(h) < 55 || h[2] != '-' || h[35] != '-' || h[52] != '-' {
		return r, false
	}
	ver := h[:2]
	if ver == "ff" || !isLowerHex(ver) || (ver == "00" && len(h) != 55) || (len(h) > 55 && h[55] != '-') {
		return r, false
	}
	if !isLowerHex(h[3:35]) || !isLowerHex(h[36:52]) || !isLowerHex(h[53:55]) {
		return r, false
	}
	hex.Decode(r.TraceID[:], []byte(h[3:35]))
	hex.Decode(r.SpanID[:], []byte(h[36:52]))
	if r.TraceID.IsZero() || r.SpanID.IsZero() {
		return Remote{}, false
	}
	return r, true
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Traceparent is the W3C header naming s as the parent (sampled), for a
// call that propagates the trace; "" for a nil span.
func (s *Span) Traceparent() string {
	if s == nil {
		return ""
	}
	return "00-" + s.data.TraceID.String() + "-" + s.data.SpanID.String() + "-01"
}

func newIDs(trace *TraceID, span *SpanID) {
	if trace != nil {
		for trace.IsZero() {
			rand.Read(trace[:])
		}
	}
	for span.IsZero() {
		rand.Read(span[:])
	}
}
