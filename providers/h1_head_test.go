package providers

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// openAIHead is the head of an OpenAI answer as api.openai.com sends it
// (the ordinary keys; the values shortened).
const openAIHead = "HTTP/1.1 200 OK\r\nDate: Tue, 24 Nov 2026 20:00:00 GMT\r\nContent-Type: application/json\r\n" +
	"Content-Length: 11\r\naccess-control-expose-headers: X-Request-ID\r\n" +
	"openai-organization: org\r\nopenai-processing-ms: 200\r\nopenai-version: 2020-10-01\r\n" +
	"x-ratelimit-limit-requests: 10000\r\nx-ratelimit-remaining-requests: 9999\r\nx-request-id: req_1\r\n" +
	"strict-transport-security: max-age=31536000\r\nServer: cloudflare\r\ncf-ray: 1-LHR\r\nalt-svc: h3=\":443\"\r\n\r\n"

// h1Answered is a connection of h whose buffer holds answer, as after the
// read that brought it.
func h1Answered(h *h1Client, answer string) *h1Conn {
	pc := &h1Conn{h: h, limit: 1 << 20}
	pc.br = bufio.NewReaderSize(strings.NewReader(answer), 4096)
	pc.br.Peek(1)
	return pc
}

// BenchmarkH1AnswerAllocs: an answer whose head readHead reads costs four
// allocations up to its body on Go 1.26: the head's text, the header map
// (two), and the h1Answer holding the Response, the body and the header
// values. The figure includes h1Answered's own four (the connection, its
// reader, the reader's buffer and the strings.Reader).
func BenchmarkH1AnswerAllocs(b *testing.B) {
	req, _ := http.NewRequest("POST", "http://upstream.test/v1/chat/completions", nil)
	h := &h1Client{maxHeader: 1 << 20}
	b.ReportAllocs()
	for b.Loop() {
		pc := h1Answered(h, okAnswer)
		a, length, ok := pc.readHead(req)
		if !ok {
			b.Fatal("readHead did not read the head")
		}
		pc.answer(context.Background(), alreadyStopped, a, length)
	}
}

// TestH1AnswerHead: the Response readHead makes of a head, short or with
// more lines than an h1Answer holds values of, is http.ReadResponse's:
// keys, values and body.
func TestH1AnswerHead(t *testing.T) {
	for _, answer := range []string{okAnswer, openAIHead + `{"ok":true}`} {
		req, _ := http.NewRequest("POST", "http://upstream.test/v1/chat/completions", nil)
		pc := h1Answered(&h1Client{maxHeader: 1 << 20, maxIdlePerHost: 1, idle: map[string][]*h1Conn{}}, answer)
		a, length, ok := pc.readHead(req)
		if !ok || length != 11 {
			t.Fatalf("readHead: %v %d", ok, length)
		}
		got, _, err := pc.answer(context.Background(), alreadyStopped, a, length)
		if err != nil {
			t.Fatal(err)
		}
		want, err := http.ReadResponse(bufio.NewReader(strings.NewReader(answer)), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Header) != len(want.Header) || got.Status != want.Status || got.ContentLength != want.ContentLength {
			t.Fatalf("%+v\nwant %+v", got, want)
		}
		for k, v := range want.Header {
			if strings.Join(got.Header[k], "|") != strings.Join(v, "|") {
				t.Fatalf("%s: %q, want %q", k, got.Header[k], v)
			}
		}
		b, _ := io.ReadAll(got.Body)
		if string(b) != `{"ok":true}` {
			t.Fatalf("body %q", b)
		}
	}
}
