package server

import (
	"bufio"
	"bytes"
	"net/http"
	"net/url"
	"reflect"
	"testing"
	"time"

	"golang.org/x/net/http/httpguts"
)

// FuzzLeanRequest sends raw request bytes to net/http alone and to the
// lean path in front of it: the answers must be byte for byte the same
// (Date values aside), whatever the lean path serves or hands over.
func FuzzLeanRequest(f *testing.F) {
	for _, tc := range leanDiffCases {
		if len(tc.raw) < 8<<10 {
			f.Add([]byte(tc.raw))
		}
	}
	p := startLeanPair(f, handlerFunc(leanDiffHandler), LeanConfig{ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second})
	f.Fuzz(func(t *testing.T, raw []byte) {
		want := normalize(exchange(t, p.plain, string(raw)), p.plain)
		got := normalize(exchange(t, p.lean, string(raw)), p.lean)
		if got != want {
			t.Fatalf("request %q:\nlean answered\n%q\nnet/http answered\n%q", raw, got, want)
		}
	})
}

// FuzzLeanParse holds parseSimple to net/http's request reader in
// process (far more inputs a second than FuzzLeanRequest): every head it
// takes, http.ReadRequest and the server's own checks take too, with
// the same method, target, URL, header, host, length and close flag.
func FuzzLeanParse(f *testing.F) {
	for _, tc := range leanDiffCases {
		if len(tc.raw) < 8<<10 {
			f.Add([]byte(tc.raw))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		end := leanHeadEnd(raw)
		if end < 0 {
			return
		}
		var req http.Request
		var u url.URL
		if !parseSimple(&req, &u, raw[:end]) {
			return
		}
		want, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw[:end])))
		if err != nil {
			t.Fatalf("lean took %q, net/http refused it: %v", raw[:end], err)
		}
		// The server's checks after reading (net/http's conn.readRequest;
		// http.ReadRequest has moved the one Host line to Host).
		if !httpguts.ValidHostHeader(want.Host) {
			t.Fatalf("lean took %q, the server refuses its Host %q", raw[:end], want.Host)
		}
		for k, vv := range want.Header {
			for _, v := range vv {
				if !httpguts.ValidHeaderFieldName(k) || !httpguts.ValidHeaderFieldValue(v) {
					t.Fatalf("lean took %q, the server refuses header %q: %q", raw[:end], k, v)
				}
			}
		}
		if req.Method != want.Method || req.RequestURI != want.RequestURI || *req.URL != *want.URL ||
			req.Proto != want.Proto || req.Host != want.Host || req.ContentLength != want.ContentLength ||
			req.Close != want.Close || !reflect.DeepEqual(req.Header, want.Header) || len(want.TransferEncoding) > 0 {
			t.Fatalf("%q read as\n%+v %+v\nnet/http\n%+v %+v", raw[:end], req, *req.URL, *want, *want.URL)
		}
	})
}
