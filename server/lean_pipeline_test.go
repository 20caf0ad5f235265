package server

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A pipelined exchange sends raw requests on one connection in the
// pieces a plan says, waiting between them for handlers to start, so that
// bytes arrive while a handler runs: what the hang-up watch (leanReader)
// reads ahead. Both servers of a leanPair get the same bytes in the same
// pieces and the same handler delays; their answers must be equal
// whatever the timing, so a wait that times out only lowers what the
// exchange exercises, never what it checks.

// holdToken stands for an exchange's own token in raw requests; each
// exchange puts a fresh one of the same length in its place, and back in
// the answers.
const holdToken = "TTTTTTTT"

var holdSeq atomic.Int64

// holds are the /hold handlers that started, by token and number.
var holds = struct {
	sync.Mutex
	started map[string]chan struct{}
	ahead   map[string]bool
}{started: map[string]chan struct{}{}, ahead: map[string]bool{}}

// holdChan returns the channel closed when the /hold handler key starts.
func holdChan(key string) chan struct{} {
	holds.Lock()
	defer holds.Unlock()
	ch, ok := holds.started[key]
	if !ok {
		ch = make(chan struct{})
		holds.started[key] = ch
	}
	return ch
}

// signalHold closes key's channel, once: a raw request whose token was
// changed may start a handler of the same key again.
func signalHold(key string) {
	ch := holdChan(key)
	holds.Lock()
	defer holds.Unlock()
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// forgetHolds drops an exchange's entries once its connection is closed
// (no handler of it runs any more) and reports which holds saw a byte
// read ahead.
func forgetHolds(tok string) (ahead []string) {
	holds.Lock()
	defer holds.Unlock()
	for k := range holds.started {
		if strings.HasPrefix(k, tok+"/") {
			delete(holds.started, k)
		}
	}
	for k := range holds.ahead {
		if strings.HasPrefix(k, tok+"/") {
			ahead = append(ahead, strings.TrimPrefix(k, tok+"/"))
			delete(holds.ahead, k)
		}
	}
	return ahead
}

// pipelineHandler is leanDiffHandler with /hold?t=TOKEN&n=N&ms=M[&ahead]:
// it reads its body, tells the client it started, then runs M ms (at
// most 20); with ahead, on the lean path it first waits (at most 5 s)
// for the hang-up watch to read a byte of what follows, so that the next
// request's first byte is deterministically held by the lean reader
// (net/http's own read-ahead needs no help: it only sleeps M).
func pipelineHandler(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/hold" {
		leanDiffHandler(w, r)
		return
	}
	q := r.URL.Query()
	body, _ := io.ReadAll(r.Body)
	key := q.Get("t") + "/" + q.Get("n")
	signalHold(key)
	if q.Has("ahead") && waitReadAhead(w, r, 5*time.Second) {
		holds.Lock()
		holds.ahead[key] = true
		holds.Unlock()
	}
	ms, _ := strconv.Atoi(q.Get("ms"))
	time.Sleep(time.Duration(min(max(ms, 0), 20)) * time.Millisecond)
	fmt.Fprintf(w, "held n=%s body=%d\n", q.Get("n"), len(body))
}

// waitReadAhead waits until the lean reader under w holds a byte read
// ahead, the request ends or max passes; it reports whether it held one
// (false at once off the lean path).
func waitReadAhead(w http.ResponseWriter, r *http.Request, max time.Duration) bool {
	lw, ok := w.(*leanResponse)
	if !ok {
		return false
	}
	rd := lw.c.rd
	for end := time.Now().Add(max); time.Now().Before(end) && r.Context().Err() == nil; {
		rd.mu.Lock()
		has := rd.hasByte
		rd.mu.Unlock()
		if has {
			return true
		}
		time.Sleep(200 * time.Microsecond)
	}
	return false
}

// Plan steps: each byte of a plan is one step, by its low two bits.
const (
	planBytes = iota // write the next (b>>2)+1 bytes
	planLine         // write through the next CRLF (b&4: through the next CRLF CRLF)
	planPause        // wait (b>>2)%5 ms
	planHold         // wait for the /hold handler whose request line was written last
)

// pipelineResult is what one exchange got back.
type pipelineResult struct {
	out   string
	ahead []string // the holds whose lean reader held a byte read ahead
}

// pipelineExchange sends raw to addr on one connection as plan says
// (what is left after it goes at once), half-closes and returns the
// answers, normalised. waitMax bounds each wait for a handler.
func pipelineExchange(t testing.TB, addr, raw string, plan []byte, waitMax time.Duration) pipelineResult {
	t.Helper()
	tok := fmt.Sprintf("%08d", holdSeq.Add(1)%1e8)
	raw = strings.ReplaceAll(raw, holdToken, tok)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	read := make(chan string, 1)
	go func() {
		b, err := io.ReadAll(c)
		s := string(b)
		if err != nil && !isReset(err) {
			s += "\n[read error: " + err.Error() + "]"
		}
		read <- s
	}()
	sent, waited := 0, 0
	send := func(n int) bool {
		n = min(n, len(raw)-sent)
		if n <= 0 {
			return false
		}
		_, err := io.WriteString(c, raw[sent:sent+n])
		sent += n
		// A write the server refused (it closed) ends the sending; what
		// it answered is still read.
		return err == nil
	}
	ok := true
	for _, b := range plan {
		if !ok || sent == len(raw) {
			break
		}
		switch b & 3 {
		case planBytes:
			ok = send(int(b>>2) + 1)
		case planLine:
			sep := "\r\n"
			if b&4 != 0 {
				sep = "\r\n\r\n"
			}
			i := strings.Index(raw[sent:], sep)
			if i < 0 {
				i = len(raw) - sent
			}
			ok = send(i + len(sep))
		case planPause:
			time.Sleep(time.Duration(b>>2%5) * time.Millisecond)
		case planHold:
			written := raw[:sent]
			i := strings.LastIndex(written, "/hold?t="+tok+"&n=")
			if i < 0 || i < waited || !strings.Contains(written[i:], "\r\n") {
				continue
			}
			waited = i + 1
			n := written[i+len("/hold?t="+tok+"&n="):]
			n = n[:strings.IndexAny(n, "& \r\n")]
			select {
			case <-holdChan(tok + "/" + n):
			case <-time.After(waitMax):
			}
		}
	}
	if ok {
		send(len(raw))
	}
	_ = c.(*net.TCPConn).CloseWrite()
	out := <-read
	ahead := forgetHolds(tok)
	return pipelineResult{out: strings.ReplaceAll(out, tok, holdToken), ahead: ahead}
}

// hold is a /hold request of the given number and delay.
func hold(n, ms int, ahead bool) string {
	q := fmt.Sprintf("/hold?t=%s&n=%d&ms=%d", holdToken, n, ms)
	if ahead {
		q += "&ahead"
	}
	return leanReq("GET " + q + " HTTP/1.1")
}

// smuggled is 256 bytes holding a request of their own: a chunk's data
// that a lost chunk-size digit turns into a request.
var smuggled = func() string {
	s := "GET /smuggled HTTP/1.1\r\nHost: x\r\nX-Pad: "
	return s + strings.Repeat("p", 256-len(s)-4) + "\r\n\r\n"
}()

// pipelineCases are exchanges whose next request's first bytes arrive
// while a slow handler runs (the lean reader holds one of them) and whose
// head the lean path hands to net/http: each byte read ahead must reach
// net/http in order.
var pipelineCases = []struct {
	name, raw string
	plan      []byte
}{
	// The next request's head, not simple, is in the buffer; its chunked
	// body and one more request arrive during the hold.
	{"chunk size", hold(1, 200, true) + leanReq("POST /health HTTP/1.1", "Transfer-Encoding: chunked") +
		"100\r\n" + smuggled + "\r\n0\r\n\r\n" + leanReq("GET /echo?after HTTP/1.1"),
		[]byte{planLine | 4, planLine | 4, planHold}},
	// A JSON body by Content-Length after a head handed over for Pragma.
	{"json body", hold(1, 5, true) + leanReq("POST /echo HTTP/1.1", "Pragma: no-cache", "Content-Type: application/json", "Content-Length: 7") +
		`{"a":1}` + leanReq("GET /echo?after HTTP/1.1"),
		[]byte{planLine | 4, planLine | 4, planHold}},
	// A head cut after a line that is not simple: the next line arrives
	// during the hold.
	{"header line", hold(1, 5, true) + "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n" +
		"X-After: v\r\n\r\n3\r\nabc\r\n0\r\n\r\n" + leanReq("GET /echo?after HTTP/1.1"),
		[]byte{planLine | 4, planLine, planLine, planLine, planHold}},
	// An HTTP/1.0 request line, then its headers during the hold.
	{"HTTP/1.0 head", hold(1, 5, true) + "GET /echo HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n" + leanReq("GET /echo?after HTTP/1.1"),
		[]byte{planLine | 4, planLine, planHold}},
	// The whole next request arrives during the hold: the lean path reads
	// it (byte ahead included) and serves it.
	{"simple after hold", hold(1, 5, true) + post("/echo", `{"a":1}`) + leanReq("GET /echo?after HTTP/1.1"),
		[]byte{planLine | 4, planHold}},
	// Two holds in a row, each followed by a head handed over.
	{"two holds", hold(1, 5, true) + hold(2, 5, true) + leanReq("GET /echo HTTP/1.1", "Pragma: no-cache") + leanReq("GET /echo?after HTTP/1.1"),
		[]byte{planLine | 4, planHold, planLine | 4, planLine, planHold}},
}

// TestLeanPipelinedHandoff: a byte the lean reader read ahead while a
// handler ran reaches net/http with the head handed over, so the lean
// path answers exactly as net/http alone (a lost byte made a chunk size
// of 0x100 read as 0x00 and served the chunk's data as a request).
func TestLeanPipelinedHandoff(t *testing.T) {
	p := startLeanPair(t, handlerFunc(pipelineHandler), LeanConfig{ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second})
	for _, tc := range pipelineCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := pipelineExchange(t, p.plain, tc.raw, tc.plan, 5*time.Second)
			got := pipelineExchange(t, p.lean, tc.raw, tc.plan, 5*time.Second)
			if len(got.ahead) == 0 {
				t.Fatalf("the lean reader held no byte read ahead: the case tests nothing")
			}
			w, g := normalize(want.out, p.plain), normalize(got.out, p.lean)
			if g != w {
				t.Errorf("lean answered\n%q\nnet/http answered\n%q", g, w)
			}
			if strings.Contains(g, `GET "/smuggled"`) || !strings.Contains(g, `"/echo?after"`) {
				t.Errorf("lean answered\n%q", g)
			}
		})
	}
}

// FuzzLeanPipeline sends the same raw requests, cut and paced by the
// same plan, to net/http alone and to the lean path in front of it:
// random pipelining, writes down to single bytes, handler delays around
// leanWatchDelay (/hold's ms) and waits for handlers to start, with
// simple and handed-over heads mixed. The answers must be equal.
func FuzzLeanPipeline(f *testing.F) {
	for _, tc := range pipelineCases {
		f.Add([]byte(tc.raw), tc.plan)
	}
	mixed := leanReq("GET /echo HTTP/1.1") + hold(1, 3, false) + post("/echo", `{"b":2}`) +
		leanReq("POST /echo HTTP/1.1", "Transfer-Encoding: chunked") + "2\r\nab\r\n0\r\n\r\n" +
		hold(2, 1, true) + "GET /echo HTTP/1.0\r\n\r\n"
	f.Add([]byte(mixed), []byte{planLine | 4, planLine | 4, planHold, 4 << 2, planBytes, planBytes, planPause | 3<<2, planLine | 4, planHold})
	f.Add([]byte(mixed), []byte{planBytes, planBytes, planBytes, planBytes, planBytes, planBytes, planBytes, planBytes, planBytes, planBytes})
	f.Add([]byte(hold(1, 2, false)+post("/unread", "xyz")+leanReq("GET /echo HTTP/1.1", "Pragma: x")), []byte{planLine | 4, planPause | 2<<2, planHold, planBytes | 10<<2})
	p := startLeanPair(f, handlerFunc(pipelineHandler), LeanConfig{ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second})
	f.Fuzz(func(t *testing.T, raw, plan []byte) {
		if len(raw) > 8<<10 || len(plan) > 64 {
			return
		}
		want := pipelineExchange(t, p.plain, string(raw), plan, 200*time.Millisecond)
		got := pipelineExchange(t, p.lean, string(raw), plan, 200*time.Millisecond)
		if w, g := normalize(want.out, p.plain), normalize(got.out, p.lean); g != w {
			t.Fatalf("requests %q plan %v:\nlean answered\n%q\nnet/http answered\n%q", raw, plan, g, w)
		}
	})
}
