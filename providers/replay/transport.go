package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/netguard"
)

// Miss policies of a Replayer (HEARTH_REPLAY_MISS).
const (
	MissError       = "error"
	MissPassthrough = "passthrough"
)

// sequence counts the exchanges seen per key, so the n-th identical
// request gets the n-th recorded answer. It lives in this process's
// memory: in cluster mode each node counts its own calls, so record and
// replay a test with one node (or with requests that differ).
type sequence struct {
	mu sync.Mutex
	n  map[string]int
}

func (s *sequence) next(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == nil {
		s.n = map[string]int{}
	}
	n := s.n[key]
	s.n[key] = n + 1
	return n
}

// readBody returns the request's body and a clone of the request that
// still carries it (a RoundTripper must not consume the caller's).
func readBody(req *http.Request) (*http.Request, []byte, error) {
	if req.Body == nil {
		return req, nil, nil
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, nil, err
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(b))
	out.ContentLength = int64(len(b))
	return out, b, nil
}

// Recorder passes every call on to Base and writes each exchange that
// completes to Dir (HEARTH_RECORD), credentials scrubbed.
type Recorder struct {
	Base http.RoundTripper
	Dir  string
	seq  sequence
}

// RoundTrip sends req and tees the answer into a recording, written once
// the caller has read the body to its end or closed it.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	req, body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	provider := netguard.Feature(req.Context())
	norm := normalise(provider, req, body)
	key := norm.Key()
	resp, err := r.Base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	secrets := providers.RequestSecrets(req.Header, req.URL)
	norm.Body = redactJSON(secrets, norm.Body)
	norm.Text = secrets.Redact(norm.Text)
	rec := &Recording{Key: key, Request: norm, Response: Response{Status: resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"), RetryAfter: resp.Header.Get("Retry-After"), Chunks: []string{}}}
	resp.Body = &teeBody{rc: resp.Body, rec: rec, secrets: secrets,
		path: fileName(r.Dir, provider, key, r.seq.next(key))}
	return resp, nil
}

// redactJSON scrubs secrets from a JSON text, keeping it valid JSON.
func redactJSON(s providers.Secrets, b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return b
	}
	out := s.Redact(string(b))
	if !json.Valid([]byte(out)) {
		q, _ := json.Marshal(out)
		return q
	}
	return json.RawMessage(out)
}

// teeBody collects the chunks of an answer as the caller reads them.
type teeBody struct {
	rc      io.ReadCloser
	rec     *Recording
	secrets providers.Secrets
	path    string
	failed  bool
	once    sync.Once
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	if n > 0 {
		t.rec.Response.Chunks = append(t.rec.Response.Chunks, t.secrets.Redact(string(p[:n])))
	}
	switch {
	case errors.Is(err, io.EOF):
		t.write()
	case err != nil:
		t.failed = true
	}
	return n, err
}

// Close writes the recording (an SSE reader stops at [DONE] without
// reading to EOF) unless reading failed midway.
func (t *teeBody) Close() error {
	if !t.failed {
		t.write()
	}
	return t.rc.Close()
}

func (t *teeBody) write() {
	t.once.Do(func() {
		b, err := json.MarshalIndent(t.rec, "", "  ")
		if err == nil {
			if err = os.MkdirAll(filepath.Dir(t.path), 0o755); err == nil {
				err = os.WriteFile(t.path, append(b, '\n'), 0o644)
			}
		}
		if err != nil {
			t.failed = true
		}
	})
}

// Replayer answers every call from the recordings in Dir (HEARTH_REPLAY)
// without any network. A call with no recording gets an upstream 404
// naming the missing key and how to record it, or with Miss set to
// MissPassthrough goes on to Base.
type Replayer struct {
	Base http.RoundTripper
	Dir  string
	Miss string
	seq  sequence
}

// RoundTrip serves the recording of req.
func (r *Replayer) RoundTrip(req *http.Request) (*http.Response, error) {
	req, body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	provider := netguard.Feature(req.Context())
	key := normalise(provider, req, body).Key()
	n := r.seq.next(key)
	rec, err := load(r.Dir, provider, key, n)
	if err != nil {
		if r.Miss == MissPassthrough {
			return r.Base.RoundTrip(req)
		}
		msg := fmt.Sprintf("replay: no recording of this %s request (key %s, looked for %s); record it by running once with HEARTH_RECORD=%s, or set HEARTH_REPLAY_MISS=passthrough",
			provider, key[:32], fileName(r.Dir, provider, key, n), r.Dir)
		return answer(req, Response{Status: http.StatusNotFound, ContentType: "application/json",
			Chunks: []string{`{"error":{"message":` + strconv.Quote(msg) + `,"type":"hearth_replay_miss","code":"replay_miss"}}`}}), nil
	}
	return answer(req, rec.Response), nil
}

// load reads the n-th recording of key, or the last one when fewer were
// recorded (a request repeated more often than while recording).
func load(dir, provider, key string, n int) (*Recording, error) {
	var err error
	for i := n; i >= 0; i-- {
		var b []byte
		if b, err = os.ReadFile(fileName(dir, provider, key, i)); err != nil {
			continue
		}
		var rec Recording
		if err = json.Unmarshal(b, &rec); err != nil {
			return nil, err
		}
		return &rec, nil
	}
	return nil, err
}

// answer builds the HTTP response of a recording; its body returns the
// recorded chunks one Read at a time.
func answer(req *http.Request, r Response) *http.Response {
	h := http.Header{}
	if r.ContentType != "" {
		h.Set("Content-Type", r.ContentType)
	}
	if r.RetryAfter != "" {
		h.Set("Retry-After", r.RetryAfter)
	}
	return &http.Response{Status: fmt.Sprintf("%d %s", r.Status, http.StatusText(r.Status)), StatusCode: r.Status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, Request: req, ContentLength: -1,
		Body: &chunkBody{chunks: r.Chunks}}
}

type chunkBody struct {
	chunks []string
	cur    string
}

func (c *chunkBody) Read(p []byte) (int, error) {
	for c.cur == "" {
		if len(c.chunks) == 0 {
			return 0, io.EOF
		}
		c.cur, c.chunks = c.chunks[0], c.chunks[1:]
	}
	n := copy(p, c.cur)
	c.cur = c.cur[n:]
	return n, nil
}

func (c *chunkBody) Close() error { return nil }
