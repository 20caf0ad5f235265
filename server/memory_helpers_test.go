package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/server/servertest"
)

// The offline embedder of the test servers (providers' hash-embed double).
const hashModel = "hearth:hash-embed"

type docItem struct {
	Name          string  `json:"name"`
	Status        string  `json:"status"`
	StatusMessage *string `json:"status_message"`
	Metadata      struct {
		Size int64
		Type string
	} `json:"metadata"`
	Meta         map[string]string `json:"meta"`
	Enabled      bool              `json:"enabled"`
	ChunkSize    int               `json:"chunk_size"`
	ChunkOverlap int               `json:"chunk_overlap"`
	OwnerLogin   string            `json:"owner_login"`
	Chunks       int               `json:"chunks"`
}

type chunkOut struct {
	Text         string            `json:"text"`
	Similarity   float64           `json:"similarity"`
	Meta         map[string]string `json:"meta"`
	DocumentName string            `json:"documentName"`
	MemoryName   string            `json:"memoryName"`
}

// mustStatus fails the test unless r has the wanted status.
func mustStatus(t *testing.T, r *servertest.Response, want int) {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status %d, want %d: %s", r.Status, want, r.Body)
	}
}

func createMemory(t *testing.T, ts *servertest.Server, key string, body map[string]any) {
	t.Helper()
	mustStatus(t, ts.Do("POST", "/v1/memory", key, body), 200)
}

// signedURL runs step 1 of an upload and returns the signed URL.
func signedURL(t *testing.T, ts *servertest.Server, key, mem, doc string, meta map[string]string) string {
	t.Helper()
	body := map[string]any{"memoryName": mem, "fileName": doc}
	if meta != nil {
		body["meta"] = meta
	}
	r := ts.Do("POST", "/v1/memory/documents", key, body)
	mustStatus(t, r, 200)
	var out struct {
		SignedURL string `json:"signedUrl"`
	}
	r.JSON(t, &out)
	if !strings.HasPrefix(out.SignedURL, ts.URL+"/v1/uploads/") {
		t.Fatalf("signedUrl %q is not an absolute upload URL on %s", out.SignedURL, ts.URL)
	}
	return out.SignedURL
}

// put sends step 2 of an upload like the SDK does (bearer key optional).
func put(t *testing.T, url, key, contentType string, data []byte) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest("PUT", url, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("upload answer is not JSON (%d): %s", resp.StatusCode, b)
	}
	return resp.StatusCode, out
}

// upload runs both steps and expects success.
func upload(t *testing.T, ts *servertest.Server, key, mem, doc, contentType string, data []byte, meta map[string]string) {
	t.Helper()
	status, out := put(t, signedURL(t, ts, key, mem, doc, meta), key, contentType, data)
	if status != 200 || out["ok"] != true {
		t.Fatalf("upload %s: %d %v", doc, status, out)
	}
}

func listDocs(t *testing.T, ts *servertest.Server, key, mem string) []docItem {
	t.Helper()
	r := ts.Do("GET", "/v1/memory/"+mem+"/documents", key, nil)
	mustStatus(t, r, 200)
	var docs []docItem
	r.JSON(t, &docs)
	return docs
}

func findDoc(docs []docItem, name string) *docItem {
	for i := range docs {
		if docs[i].Name == name {
			return &docs[i]
		}
	}
	return nil
}

// waitDoc polls the documents list until the document is completed or
// failed, and returns it.
func waitDoc(t *testing.T, ts *servertest.Server, key, mem, doc string) docItem {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		d := findDoc(listDocs(t, ts, key, mem), doc)
		if d != nil && (d.Status == "completed" || d.Status == "failed") {
			return *d
		}
		if time.Now().After(deadline) {
			t.Fatalf("document %s not done in time: %+v", doc, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitCompleted(t *testing.T, ts *servertest.Server, key, mem, doc string) docItem {
	t.Helper()
	d := waitDoc(t, ts, key, mem, doc)
	if d.Status != "completed" {
		msg := ""
		if d.StatusMessage != nil {
			msg = *d.StatusMessage
		}
		t.Fatalf("document %s: status %s (%s), want completed", doc, d.Status, msg)
	}
	return d
}

func retrieve(t *testing.T, ts *servertest.Server, key string, body any) []chunkOut {
	t.Helper()
	r := ts.Do("POST", "/v1/memory/retrieve", key, body)
	mustStatus(t, r, 200)
	var out []chunkOut
	r.JSON(t, &out)
	return out
}

// errorOf decodes a 4xx error body.
func errorOf(t *testing.T, r *servertest.Response) (code, message string) {
	t.Helper()
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	r.JSON(t, &e)
	return e.Error.Code, e.Error.Message
}

// gateEmbedder is the embedder of the "gate" test provider: hash vectors,
// but a batch with an input containing block waits until release is
// closed (or its context ends), reporting on entered first. fail, when
// set, fails every call with that error.
type gateEmbedder struct {
	block   string
	release chan struct{}
	entered chan struct{}
	calls   atomic.Int64
	inputs  atomic.Int64
	mu      sync.Mutex
	fail    error
}

func newGate(block string) *gateEmbedder {
	return &gateEmbedder{block: block, release: make(chan struct{}), entered: make(chan struct{}, 16)}
}

func (g *gateEmbedder) setFail(err error) { g.mu.Lock(); g.fail = err; g.mu.Unlock() }

func (g *gateEmbedder) Embed(ctx context.Context, req *engine.EmbedRequest) ([][]float32, error) {
	g.calls.Add(1)
	g.inputs.Add(int64(len(req.Inputs)))
	g.mu.Lock()
	fail := g.fail
	g.mu.Unlock()
	if fail != nil {
		return nil, fail
	}
	out := make([][]float32, len(req.Inputs))
	for i, in := range req.Inputs {
		if g.block != "" && strings.Contains(in, g.block) {
			select {
			case g.entered <- struct{}{}:
			default:
			}
			select {
			case <-g.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		out[i] = providers.HashVector(in)
	}
	return out, nil
}

func (g *gateEmbedder) MaxBatch() int { return 4 }

// gateProviders is the test registry plus the keyless "gate" provider.
type gateProviders struct {
	engine.Providers
	emb engine.Embedder
}

func (p gateProviders) Embedder(ref engine.ModelRef) (engine.Embedder, error) {
	if ref.Provider == "gate" {
		return p.emb, nil
	}
	return p.Providers.Embedder(ref)
}

func (p gateProviders) NeedsKey(provider string) bool {
	return provider != "gate" && p.Providers.NeedsKey(provider)
}

// withEmbedder adds the "gate" provider served by emb; put it after the
// options that configure providers.
func withEmbedder(emb engine.Embedder) servertest.Option {
	return servertest.WithProviderOverride(func(reg engine.Providers) engine.Providers { return gateProviders{reg, emb} })
}

// waitIdle waits until the job queue is empty (purges run after a document
// is completed).
func waitIdle(t *testing.T, ts *servertest.Server) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		counts, err := ts.Memory.JobCounts(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(counts) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs left: %v", counts)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitEntered waits until a batch blocks in the gate.
func waitEntered(t *testing.T, g *gateEmbedder) {
	t.Helper()
	select {
	case <-g.entered:
	case <-time.After(20 * time.Second):
		t.Fatal("no embedding batch reached the gate")
	}
}
