package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// burstUpstream is an OpenAI stream that sends its role chunk and the
// first burst tokens in one write, then one lone token once the client
// has read the burst, then the end once the client has read the lone
// token (see stallLog).
type burstUpstream struct {
	burst int
	*stallLog
}

func (u *burstUpstream) handle(w http.ResponseWriter, r *http.Request) {
	send := openStream(w, r)
	burst := streamEvent(`{"role":"assistant","content":""}`, "")
	for i := range u.burst {
		burst += streamEvent(fmt.Sprintf(`{"content":"tok%d "}`, i), "")
	}
	send(burst)
	u.wait(u.burst - 1)
	send(streamEvent(fmt.Sprintf(`{"content":"tok%d "}`, u.burst), ""))
	u.wait(u.burst)
	send(streamEnd)
}

// chunkedPost sends a POST over a fresh connection and returns the body's
// HTTP/1.1 chunks as they were framed, calling onChunk with each as it
// arrives.
func chunkedPost(t *testing.T, base, path, key string, body any, onChunk func(string)) []string {
	t.Helper()
	b, _ := json.Marshal(body)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: hearth\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", path, key, len(b), b)
	rd := bufio.NewReader(conn)
	status, _ := rd.ReadString('\n')
	chunked := false
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("headers: %v", err)
		}
		if line == "\r\n" {
			break
		}
		chunked = chunked || strings.EqualFold(strings.TrimSpace(line), "Transfer-Encoding: chunked")
	}
	if !strings.Contains(status, " 200 ") || !chunked {
		rest, _ := io.ReadAll(rd)
		t.Fatalf("%s (chunked %v): %s", strings.TrimSpace(status), chunked, rest)
	}
	var chunks []string
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("chunk size: %v", err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(line), 16, 32)
		if err != nil {
			t.Fatalf("chunk size %q: %v", line, err)
		}
		if n == 0 {
			return chunks
		}
		buf := make([]byte, n+2) // the chunk and its CRLF
		if _, err := io.ReadFull(rd, buf); err != nil {
			t.Fatalf("chunk: %v", err)
		}
		chunks = append(chunks, string(buf[:n]))
		onChunk(string(buf[:n]))
	}
}

// TestStreamsCoalesceEventsThatArriveTogether: the events the upstream
// sent in one write leave Hearth in one write (one HTTP chunk), and an
// event that arrives alone is sent at once, before the upstream sends
// more (pipe runs, agent runs and the OpenAI-compatible endpoint).
func TestStreamsCoalesceEventsThatArriveTogether(t *testing.T) {
	up := &burstUpstream{burst: 4, stallLog: newStallLog()}
	ts, cases := startStreamRoutes(t, up.handle)
	tok := func(i int) string { return fmt.Sprintf("tok%d ", i) }
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			up.reset()
			next := 0
			chunks := chunkedPost(t, ts.URL, tc.path, tc.key, tc.body, func(c string) {
				for next <= up.burst && strings.Contains(c, tok(next)) {
					if next >= up.burst-1 {
						up.seen <- next
					}
					next++
				}
			})
			all := strings.Join(chunks, "")
			if next != up.burst+1 || !strings.Contains(all, "[DONE]") {
				t.Fatalf("read %d of %d tokens: %q", next, up.burst+1, all)
			}
			up.check(t)
			var first string
			for _, c := range chunks {
				if strings.Contains(c, tok(0)) {
					first = c
				}
			}
			if !strings.Contains(first, `"role":"assistant"`) || !strings.Contains(first, tok(up.burst-1)) {
				t.Fatalf("the burst's events left in several writes: chunks %q", chunks)
			}
			if strings.Count(first, "data: ") != up.burst+1 {
				t.Fatalf("the burst's write has %d events, want %d: %q", strings.Count(first, "data: "), up.burst+1, first)
			}
		})
	}
}
