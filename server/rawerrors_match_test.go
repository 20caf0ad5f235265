package server

import (
	"bytes"
	"strings"
	"testing"
)

// cannedSplitBefore is how rewriteCannedError found the canned headers
// before it looked only after the status line: the first occurrence
// anywhere, with no line break before it.
func cannedSplitBefore(p []byte) (line, body []byte, ok bool) {
	rest, ok := bytes.CutPrefix(p, []byte("HTTP/1.1 "))
	if !ok || len(rest) < 4 || rest[3] != ' ' {
		return nil, nil, false
	}
	line, body, ok = bytes.Cut(rest, []byte(cannedHeaders))
	if !ok || bytes.ContainsAny(line, "\r\n") || bytes.Contains(body, []byte("\r\n")) {
		return nil, nil, false
	}
	return line, body, true
}

// checkCannedSplit: cannedSplit splits p as the search did.
func checkCannedSplit(t testing.TB, p []byte) {
	t.Helper()
	line, body, ok := cannedSplit(p)
	wantLine, wantBody, wantOK := cannedSplitBefore(p)
	if ok != wantOK || !bytes.Equal(line, wantLine) || !bytes.Equal(body, wantBody) {
		t.Fatalf("%q: split %v %q %q, the search %v %q %q", p, ok, line, body, wantOK, wantLine, wantBody)
	}
}

// TestCannedErrorMatchUnchanged: net/http's canned answers are still
// found, and answers with the canned headers anywhere but right after the
// status line still are not.
func TestCannedErrorMatchUnchanged(t *testing.T) {
	canned := "HTTP/1.1 431 Request Header Fields Too Large" + cannedHeaders + "431 Request Header Fields Too Large"
	for _, p := range []string{
		canned,
		"HTTP/1.1 400 Bad Request" + cannedHeaders + "400 Bad Request: invalid header value",
		"HTTP/1.1 400 Bad Request" + cannedHeaders,
		"HTTP/1.1 200 OK\r\nContent-Length: 90\r\n\r\n" + canned,
		"HTTP/1.1 400 Bad\rRequest" + cannedHeaders + "x",
		"HTTP/1.1 400 Bad Request" + cannedHeaders + "a\r\nb",
		"HTTP/1.1 400 Bad Request\n" + cannedHeaders[1:] + "x",
		"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n\r\n" + strings.Repeat(cannedHeaders, 3),
		"HTTP/1.1 400",
		"",
	} {
		checkCannedSplit(t, []byte(p))
	}
	if _, _, ok := cannedSplit([]byte(canned)); !ok {
		t.Fatal("the canned answer is not found")
	}
}

// FuzzCannedErrorMatch compares the split with the search it replaced.
func FuzzCannedErrorMatch(f *testing.F) {
	f.Add([]byte("HTTP/1.1 400 Bad Request" + cannedHeaders + "400 Bad Request"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nDate: x\r\n\r\n" + cannedHeaders))
	f.Fuzz(func(t *testing.T, p []byte) { checkCannedSplit(t, p) })
}
