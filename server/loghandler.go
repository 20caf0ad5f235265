package server

import (
	"io"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"
)

// LogHandler is the handler of Hearth's own log: slog's text handler (or
// JSON handler) writing to one writer, with a direct path for the access
// log's line. The access log writes that line itself, byte for byte as
// slog's handler would, when every value is one the handler writes
// unquoted and unescaped; any other line goes through slog. Handlers
// derived with WithAttrs or WithGroup are slog's own (the embedded
// handler's), so they never take the direct path. It holds no request
// state: nothing changes with several Hearth nodes.
type LogHandler struct {
	slog.Handler
	w     *lockedWriter
	json  bool
	level slog.Leveler
	// stamps formats the lines' times (logstamp.go).
	stamps logStamps
}

// NewLogHandler returns a handler writing slog's text lines to w, or its
// JSON lines when json is set, at level and above (Info when level is
// nil), with no source and no attribute rewriting.
func NewLogHandler(w io.Writer, json bool, level slog.Leveler) *LogHandler {
	if level == nil {
		level = slog.LevelInfo
	}
	lw := &lockedWriter{w: w}
	opts := &slog.HandlerOptions{Level: level}
	h := &LogHandler{w: lw, json: json, level: level}
	if json {
		h.Handler = slog.NewJSONHandler(lw, opts)
	} else {
		h.Handler = slog.NewTextHandler(lw, opts)
	}
	return h
}

// lockedWriter serialises the lines of slog's handler and of the direct
// path, so that they never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// accessLine is one access log line's values.
type accessLine struct {
	time                              time.Time
	requestID, traceID, method, route string
	status                            int
	bytes                             int64
	durationMS                        float64
}

// logBufs holds the direct path's line buffers.
var logBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// writeAccess writes l as the line slog's handler writes for the message
// "request" at level Info with l's attributes in order, and reports
// whether it did; when it did not (a value slog would quote, escape or
// format otherwise), nothing was written and the caller logs through slog.
func (h *LogHandler) writeAccess(l *accessLine) (bool, error) {
	st := h.stamps.of(l.time)
	if !st.plain || !plainLogValue(l.requestID) || !plainLogValue(l.traceID) ||
		!plainLogValue(l.method) || !plainLogValue(l.route) || math.IsNaN(l.durationMS) || math.IsInf(l.durationMS, 0) ||
		(h.json && l.durationMS != 0 && (math.Abs(l.durationMS) < 1e-6 || math.Abs(l.durationMS) >= 1e21)) {
		return false, nil
	}
	bp := logBufs.Get().(*[]byte)
	b := h.appendAccess((*bp)[:0], l, st)
	_, err := h.w.Write(b)
	*bp = b
	logBufs.Put(bp)
	return true, err
}

// appendAccess appends l's line; writeAccess has checked its values and
// found st, the stamp of its time.
func (h *LogHandler) appendAccess(b []byte, l *accessLine, st *logStamp) []byte {
	if h.json {
		b = append(b, `{"time":"`...)
		b = st.appendNano(b, l.time)
		b = append(b, `","level":"INFO","msg":"request","request_id":"`...)
		b = append(b, l.requestID...)
		b = append(b, `","trace_id":"`...)
		b = append(b, l.traceID...)
		b = append(b, `","method":"`...)
		b = append(b, l.method...)
		b = append(b, `","route":"`...)
		b = append(b, l.route...)
		b = append(b, `","status":`...)
		b = strconv.AppendInt(b, int64(l.status), 10)
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, l.bytes, 10)
		b = append(b, `,"duration_ms":`...)
		b = strconv.AppendFloat(b, l.durationMS, 'f', -1, 64)
		return append(b, "}\n"...)
	}
	b = append(b, "time="...)
	b = st.appendMillis(b, l.time)
	b = append(b, " level=INFO msg=request request_id="...)
	b = append(b, l.requestID...)
	b = append(b, " trace_id="...)
	b = append(b, l.traceID...)
	b = append(b, " method="...)
	b = append(b, l.method...)
	b = append(b, " route="...)
	b = append(b, l.route...)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(l.status), 10)
	b = append(b, " bytes="...)
	b = strconv.AppendInt(b, l.bytes, 10)
	b = append(b, " duration_ms="...)
	b = strconv.AppendFloat(b, l.durationMS, 'g', -1, 64)
	return append(b, '\n')
}

// plainLogValue reports whether s is written as it is, without quotes or
// escapes, by slog's text and JSON handlers: not empty, and only ASCII
// letters, digits and "-_./:*".
func plainLogValue(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !plainLogBytes[s[i]] {
			return false
		}
	}
	return true
}

// plainLogBytes marks the bytes plainLogValue accepts. It is read-only
// after start.
var plainLogBytes = func() (t [256]bool) {
	for _, r := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:*" {
		t[r] = true
	}
	return t
}()
