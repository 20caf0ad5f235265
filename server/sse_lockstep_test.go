package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// lockstepUpstream is an OpenAI stream that sends its next token only
// once the client has read the previous one through Hearth: a gateway
// that held an event back until more bytes came would stall it (see
// stallLog).
type lockstepUpstream struct {
	tokens int
	*stallLog
}

func (u *lockstepUpstream) handle(w http.ResponseWriter, r *http.Request) {
	send := openStream(w, r)
	send(streamEvent(`{"role":"assistant","content":""}`, ""))
	for i := range u.tokens {
		send(streamEvent(fmt.Sprintf(`{"content":"tok%d "}`, i), ""))
		u.wait(i)
	}
	send(streamEnd)
}

// TestStreamsFlushEveryEvent: pipe runs, agent runs and the
// OpenAI-compatible endpoint pass each upstream event on before the next
// one exists.
func TestStreamsFlushEveryEvent(t *testing.T) {
	up := &lockstepUpstream{tokens: 6, stallLog: newStallLog()}
	ts, cases := startStreamRoutes(t, up.handle)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			up.reset()
			b, _ := json.Marshal(tc.body)
			req, _ := http.NewRequest("POST", ts.URL+tc.path, bytes.NewReader(b))
			req.Header.Set("Authorization", "Bearer "+tc.key)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
			next, done := 0, false
			rd := bufio.NewReader(resp.Body)
			for {
				line, err := rd.ReadString('\n')
				if next < up.tokens && strings.Contains(line, fmt.Sprintf("tok%d ", next)) {
					select { // never blocks: a stalled upstream has moved on
					case up.seen <- next:
					default:
					}
					next++
				}
				done = done || strings.Contains(line, "[DONE]")
				if err != nil {
					break
				}
			}
			if next != up.tokens || !done {
				t.Fatalf("read %d of %d tokens, [DONE] %v", next, up.tokens, done)
			}
			up.check(t)
		})
	}
}
