package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

const (
	replayServerKey  = "sk-server-openai-recorded-0001"
	replayRequestKey = "sk-request-key-recorded-0002"
)

// session is an SDK-like session: a pipe run whole and streamed, with
// the server's key and with the request's own, and an embedding through
// the OpenAI-compatible surface. It returns what a snapshot test would
// compare: the answers with their generated ids left out.
func session(t *testing.T, ts *servertest.Server) []string {
	t.Helper()
	var out []string
	mustStatus(t, ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "rec", "model": "openai:gpt-4o-mini"}), 200)
	for _, extra := range [][]string{nil, {"LB-LLM-Key", replayRequestKey}} {
		r := ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "rec", "messages": userMsg("tell me about owls")}, extra...)
		mustStatus(t, r, 200)
		var got struct {
			Completion string `json:"completion"`
		}
		r.JSON(t, &got)
		out = append(out, got.Completion)
	}
	r := ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "rec", "stream": true, "messages": userMsg("stream about owls")})
	mustStatus(t, r, 200)
	events, err := parseSSE(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		json.Unmarshal([]byte(e.Data), &chunk)
		if len(chunk.Choices) == 1 {
			out = append(out, "chunk:"+chunk.Choices[0].Delta.Content)
		} else {
			// The usage chunk's id and created time are Hearth's own
			// (they differ between two runs), the rest must match.
			var ev map[string]any
			if json.Unmarshal([]byte(e.Data), &ev) == nil {
				delete(ev, "id")
				delete(ev, "created")
				b, _ := json.Marshal(ev)
				out = append(out, "event:"+string(b))
			} else {
				out = append(out, "event:"+e.Data)
			}
		}
	}
	r = ts.Do("POST", "/openai/v1/embeddings", admin, map[string]any{"model": "openai:text-embedding-3-small", "input": []string{"owls", "bees"}})
	mustStatus(t, r, 200)
	var emb struct {
		Data []struct {
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	r.JSON(t, &emb)
	b, _ := json.Marshal(emb)
	return append(out, string(b))
}

// TestRecordReplay records a session against the fake upstream, then
// replays it with the upstream stopped and gets the same answers, chunk
// for chunk; a request that was not recorded is a 400 naming the missing
// key and how to record it. No key appears in the recordings.
func TestRecordReplay(t *testing.T) {
	dir := t.TempDir()
	up := fake.NewOpenAI()
	up.SetDefault(fake.Reply{Text: "Owls hunt at night and fly without a sound."})
	rec := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), replayServerKey), servertest.WithRecord(dir))
	want := session(t, rec)
	calls := up.Count()
	rec.Stop()
	baseURL := up.BaseURL()
	up.Close()
	if calls != 4 {
		t.Fatalf("recording made %d upstream calls, want 4", calls)
	}

	files := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, _ := os.ReadFile(p)
		for _, secret := range []string{replayServerKey, replayRequestKey} {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s contains the key %s", p, secret)
			}
		}
		return nil
	})
	if files != 4 {
		t.Fatalf("%d recordings, want 4 (the two runs with different keys share a key, filed -0 and -1)", files)
	}

	play := servertest.Start(t, servertest.WithProvider("openai", baseURL, replayServerKey), servertest.WithReplay(dir, ""))
	got := session(t, play)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("replay differs:\n got %q\nwant %q", got, want)
	}
	if len(want) < 6 || !strings.Contains(strings.Join(want, ""), "Owls hunt") {
		t.Fatalf("session too short to prove anything: %q", want)
	}

	r := play.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "rec", "messages": userMsg("something new")})
	if r.Status != 400 || !strings.Contains(string(r.Body), "no recording") || !strings.Contains(string(r.Body), "HEARTH_RECORD=") ||
		!strings.Contains(string(r.Body), filepath.Join(dir, "openai")) {
		t.Fatalf("replay miss: %d %s", r.Status, r.Body)
	}
}

// TestReplayPassthrough: with HEARTH_REPLAY_MISS=passthrough a call that
// was not recorded goes to the upstream.
func TestReplayPassthrough(t *testing.T) {
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), replayServerKey), servertest.WithReplay(t.TempDir(), "passthrough"))
	mustStatus(t, ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "p", "model": "openai:gpt-4o-mini"}), 200)
	r := ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "messages": userMsg("hi")})
	if r.Status != 200 || !strings.Contains(string(r.Body), fake.DefaultText) || up.Count() != 1 {
		t.Fatalf("%d %s (upstream calls %d)", r.Status, r.Body, up.Count())
	}
}
