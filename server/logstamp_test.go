package server

import (
	"bytes"
	"testing"
	"time"
)

// TestAccessLineStampsFollowTheClock: one handler writing line after line
// formats a second's date and zone once and reuses them only within that
// second and location;
// every line is still slog's, byte for byte, and a year slog writes
// otherwise is declined even right after a plain line of the same handler.
func TestAccessLineStampsFollowTheClock(t *testing.T) {
	at := time.Date(2026, 11, 24, 23, 59, 59, 0, time.UTC)
	paris := time.FixedZone("CET", 3600)
	times := []time.Time{
		at, at.Add(1), at.Add(999_999_999), // one second: hits
		at.Add(time.Second),           // the next second, the next day
		at.Add(time.Second).In(paris), // same instant, another zone
		at.Add(time.Second + 120*time.Millisecond).In(paris),
		at.Add(time.Second + 120*time.Millisecond), // back to UTC in that second
		time.Date(10000, 1, 1, 0, 0, 0, 5, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 7, time.UTC), // declined twice
		time.Date(1969, 12, 31, 23, 59, 59, 900_000_000, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 1, time.UTC),
		time.Now(), time.Now().Add(time.Millisecond),
	}
	for _, json := range []bool{false, true} {
		var out bytes.Buffer
		h := NewLogHandler(&out, json, nil)
		var first *logStamp
		for i, tm := range times {
			l := accessLine{time: tm, requestID: "req_1", traceID: "trace_1", method: "POST", route: "/v1/pipes/run",
				status: 200, bytes: 10, durationMS: 0.5}
			out.Reset()
			ok, err := h.writeAccess(&l)
			if err != nil {
				t.Fatal(err)
			}
			if y := tm.Year(); ok != (y >= 0 && y < 10000) {
				t.Fatalf("json=%v line %d (%v): written %v", json, i, tm, ok)
			}
			if !ok {
				continue
			}
			if i == 0 {
				first = h.stamps.last.Load()
			}
			if i < 3 && h.stamps.last.Load() != first {
				t.Fatalf("json=%v line %d: the second's date was formatted again", json, i)
			}
			if want := slogAccessLine(t, json, &l); out.String() != want {
				t.Fatalf("json=%v line %d (%v): direct line\n%q\nslog's line\n%q", json, i, tm, out.String(), want)
			}
		}
	}
}
