package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/servertest"
)

// fakeReply scripts one answer of the fake model.
type fakeReply struct {
	Text      string
	ToolCalls []engine.ToolCall
	// Err fails the call before any output.
	Err error
	// FailAfter > 0 fails the stream after that many content chunks.
	FailAfter int
	// Hang, after the first content chunk, waits for the context to end.
	Hang bool
	// Sloppy streams like a careless upstream: no role, a new id per
	// chunk, no finish_reason, no usage.
	Sloppy bool
	Usage  engine.Usage
}

// fakeLLM is an engine.ChatModel that records requests and streams
// realistic OpenAI-shaped chunks, tool-call deltas included.
type fakeLLM struct {
	mu        sync.Mutex
	reqs      []*engine.ChatRequest
	queue     []fakeReply
	def       fakeReply
	cancelled chan struct{}
}

func newFakeLLM() *fakeLLM {
	return &fakeLLM{def: fakeReply{Text: "Hello from the fake model."}, cancelled: make(chan struct{}, 8)}
}

func (f *fakeLLM) enqueue(r ...fakeReply) {
	f.mu.Lock()
	f.queue = append(f.queue, r...)
	f.mu.Unlock()
}

func (f *fakeLLM) next(req *engine.ChatRequest) fakeReply {
	f.mu.Lock()
	defer f.mu.Unlock()
	cp := *req
	cp.Messages = append([]engine.Message(nil), req.Messages...)
	f.reqs = append(f.reqs, &cp)
	if len(f.queue) > 0 {
		r := f.queue[0]
		f.queue = f.queue[1:]
		return r
	}
	return f.def
}

// last returns the last request the model received.
func (f *fakeLLM) last(t *testing.T) *engine.ChatRequest {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.reqs) == 0 {
		t.Fatal("the model received no request")
	}
	return f.reqs[len(f.reqs)-1]
}

func (f *fakeLLM) count() int { f.mu.Lock(); defer f.mu.Unlock(); return len(f.reqs) }

func usageOf(r fakeReply) engine.Usage {
	if r.Usage.TotalTokens > 0 {
		return r.Usage
	}
	return engine.Usage{PromptTokens: 12, CompletionTokens: 5, TotalTokens: 17}
}

func (f *fakeLLM) Chat(ctx context.Context, req *engine.ChatRequest) (*engine.ChatResponse, error) {
	r := f.next(req)
	if r.Err != nil {
		return nil, r.Err
	}
	msg := engine.ResponseMessage{Role: "assistant", ToolCalls: r.ToolCalls}
	finish := "stop"
	if len(r.ToolCalls) > 0 {
		finish = "tool_calls"
	} else {
		text := r.Text
		msg.Content = &text
	}
	fp := "fp_fake"
	return &engine.ChatResponse{ID: "chatcmpl-fake", Object: "chat.completion", Created: 1720131129, Model: req.Model,
		Choices: []engine.Choice{{Index: 0, Message: msg, FinishReason: finish}}, Usage: usageOf(r), SystemFingerprint: &fp}, nil
}

func (f *fakeLLM) ChatStream(ctx context.Context, req *engine.ChatRequest) (engine.ChatStream, error) {
	r := f.next(req)
	if r.Err != nil {
		return nil, r.Err
	}
	return &fakeStream{ctx: ctx, f: f, r: r, chunks: buildChunks(req.Model, r)}, nil
}

func sp(s string) *string { return &s }
func ip(i int) *int       { return &i }

// buildChunks splits a reply into OpenAI stream chunks: role first, one
// chunk per word, tool calls as id/name then argument fragments, a
// finish chunk, then a usage chunk with no choices.
func buildChunks(model string, r fakeReply) []*engine.ChatChunk {
	var out []*engine.ChatChunk
	id := "chatcmpl-fake"
	mk := func(d engine.Delta, finish *string) *engine.ChatChunk {
		if r.Sloppy {
			id = "chatcmpl-" + engine.RandomString(6)
		}
		return &engine.ChatChunk{ID: id, Object: "chat.completion.chunk", Created: 1720131129, Model: model,
			Choices: []engine.ChunkChoice{{Index: 0, Delta: d, FinishReason: finish}}}
	}
	if !r.Sloppy {
		out = append(out, mk(engine.Delta{Role: "assistant", Content: sp("")}, nil))
	}
	words := strings.SplitAfter(r.Text, " ")
	if r.Text == "" {
		words = nil
	}
	for _, w := range words {
		out = append(out, mk(engine.Delta{Content: sp(w)}, nil))
	}
	for i, tc := range r.ToolCalls {
		args := tc.Function.Arguments
		half := len(args) / 2
		first := engine.ToolCall{Index: ip(i), ID: tc.ID, Type: "function", Function: engine.FunctionCall{Name: tc.Function.Name, Arguments: ""}}
		if r.Sloppy {
			first.Type = ""
		}
		out = append(out, mk(engine.Delta{ToolCalls: []engine.ToolCall{first}}, nil))
		out = append(out, mk(engine.Delta{ToolCalls: []engine.ToolCall{{Index: ip(i), Function: engine.FunctionCall{Arguments: args[:half]}}}}, nil))
		out = append(out, mk(engine.Delta{ToolCalls: []engine.ToolCall{{Index: ip(i), Function: engine.FunctionCall{Arguments: args[half:]}}}}, nil))
	}
	if !r.Sloppy {
		finish := "stop"
		if len(r.ToolCalls) > 0 {
			finish = "tool_calls"
		}
		out = append(out, mk(engine.Delta{}, &finish))
		u := usageOf(r)
		out = append(out, &engine.ChatChunk{ID: id, Object: "chat.completion.chunk", Created: 1720131129, Model: model, Usage: &u})
	}
	return out
}

type fakeStream struct {
	ctx    context.Context
	f      *fakeLLM
	r      fakeReply
	chunks []*engine.ChatChunk
	sent   int
	closed bool
}

func (s *fakeStream) Recv() (*engine.ChatChunk, error) {
	if err := s.ctx.Err(); err != nil {
		if s.r.Hang {
			// The client left before this call: the upstream sees the
			// cancellation all the same.
			s.f.cancelled <- struct{}{}
		}
		return nil, err
	}
	content := 0
	for _, c := range s.chunks[:s.sent] {
		if len(c.Choices) > 0 && c.Choices[0].Delta.Content != nil && *c.Choices[0].Delta.Content != "" {
			content++
		}
	}
	if s.r.FailAfter > 0 && content >= s.r.FailAfter {
		return nil, engine.Errorf(engine.CodeUpstream, "openai: upstream connection reset")
	}
	if s.r.Hang && content >= 1 {
		<-s.ctx.Done()
		s.f.cancelled <- struct{}{}
		return nil, s.ctx.Err()
	}
	if s.sent >= len(s.chunks) {
		return nil, io.EOF
	}
	c := s.chunks[s.sent]
	s.sent++
	return c, nil
}

func (s *fakeStream) Close() error { s.closed = true; return nil }

// fakeModerator flags inputs containing "[flag]".
type fakeModerator struct {
	mu     sync.Mutex
	inputs [][]string
	keys   []string
}

func (m *fakeModerator) Moderate(_ context.Context, key string, input []string) (*engine.ModerationResult, error) {
	m.mu.Lock()
	m.inputs = append(m.inputs, input)
	m.keys = append(m.keys, key)
	m.mu.Unlock()
	for _, in := range input {
		if strings.Contains(in, "[flag]") {
			return &engine.ModerationResult{Flagged: true, Categories: []string{"violence", "harassment"}}, nil
		}
	}
	return &engine.ModerationResult{}, nil
}

// fakeProviders is an engine.Providers with one fake model behind the
// providers "openai" (needs a key; server key configurable), "anthropic"
// (needs a key, no moderation) and "local" (no key).
type fakeProviders struct {
	llm        *fakeLLM
	mod        *fakeModerator
	serverKeys map[string]string
}

func (p *fakeProviders) ChatModel(ref engine.ModelRef) (engine.ChatModel, error) {
	switch ref.Provider {
	case "openai", "anthropic", "local":
		return p.llm, nil
	}
	return nil, engine.FieldError("model", "unknown provider %q in model %q", ref.Provider, ref.String())
}

func (p *fakeProviders) Embedder(ref engine.ModelRef) (engine.Embedder, error) {
	return nil, engine.FieldError("embedding_model", "no embedders in the fake")
}

func (p *fakeProviders) Moderator(provider string) (engine.Moderator, error) {
	if provider == "openai" {
		return p.mod, nil
	}
	return nil, engine.Errorf(engine.CodeBadRequest, "provider %q offers no moderation", provider)
}

func (p *fakeProviders) ServerKey(provider string) string { return p.serverKeys[provider] }
func (p *fakeProviders) NeedsKey(provider string) bool    { return provider != "local" }

func (p *fakeProviders) Known(provider string) bool {
	_, err := p.ChatModel(engine.ModelRef{Provider: provider, Model: "x"})
	return err == nil
}

func (p *fakeProviders) Cost(ref engine.ModelRef, prompt, completion int) (float64, bool) {
	if ref.String() != "openai:gpt-4o-mini" {
		return 0, false
	}
	return (float64(prompt)*0.15 + float64(completion)*0.6) / 1e6, true
}

func (p *fakeProviders) Catalogue() map[string][]engine.ModelInfo {
	pc, cc := 0.15, 0.6
	return map[string][]engine.ModelInfo{
		"openai":    {{ID: "openai:gpt-4o-mini", Provider: "openai", Type: "text", PromptCost: &pc, CompletionCost: &cc}},
		"anthropic": {},
		"local":     {},
	}
}

// fakeMemories is a MemoryLookup and Retriever over a fixed set of memories.
type fakeMemories struct {
	mu      sync.Mutex
	owners  map[string][]string // owner -> memory names
	chunks  []engine.RAGChunk
	queries []string
	names   [][]string
}

func (m *fakeMemories) MemoryExists(_ context.Context, owner, name string) (bool, error) {
	for _, n := range m.owners[owner] {
		if n == name {
			return true, nil
		}
	}
	return false, nil
}

func (m *fakeMemories) RetrieveForRun(_ context.Context, owner string, memories []engine.MemoryRef, query string) ([]engine.RAGChunk, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queries = append(m.queries, query)
	names := make([]string, len(memories))
	for i, r := range memories {
		names[i] = r.Name
	}
	m.names = append(m.names, names)
	return m.chunks, nil
}

// env is a test server with the fakes wired in.
type env struct {
	*servertest.Server
	llm  *fakeLLM
	prov *fakeProviders
	mem  *fakeMemories
	// threads is the thread service the runner uses (tests may SetLimits
	// before their first request).
	threads *engine.Threads
}

func startEnv(t *testing.T) *env {
	t.Helper()
	e := &env{llm: newFakeLLM(), mem: &fakeMemories{owners: map[string][]string{"admin": {"docs", "faq"}}}}
	e.prov = &fakeProviders{llm: e.llm, mod: &fakeModerator{}, serverKeys: map[string]string{"openai": "sk-server-openai"}}
	e.Server = servertest.Start(t,
		servertest.WithProviderOverride(func(engine.Providers) engine.Providers { return e.prov }),
		servertest.WithServices(func(a *app.App) {
			d := &a.Deps
			e.threads = d.Threads
			d.Pipes = engine.NewPipes(engine.PipesConfig{Store: d.Store, Accounts: d.Accounts, Keysets: d.Keysets, Providers: d.Providers, Memories: e.mem})
			d.Runner = engine.NewRunner(engine.RunnerConfig{Pipes: d.Pipes, Threads: d.Threads, Keysets: d.Keysets, Providers: d.Providers,
				Memories: e.mem, Retriever: e.mem, RunLog: a.RunLog})
		}))
	return e
}

// createPipe creates a pipe as key and returns its pipe key.
func (e *env) createPipe(t *testing.T, key string, body map[string]any) string {
	t.Helper()
	r := e.Do("POST", "/v1/pipes", key, body)
	if r.Status != 200 {
		t.Fatalf("create pipe: %d %s", r.Status, r.Body)
	}
	var v struct {
		APIKey string `json:"api_key"`
	}
	r.JSON(t, &v)
	return v.APIKey
}

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	Event string
	Data  string
}

// parseSSE is a spec-conforming SSE parser (lines end in CRLF, LF or CR;
// a blank line dispatches; comments and unknown fields are ignored). It
// also returns each event's raw terminator check: every event block must
// end with a blank line.
func parseSSE(body []byte) ([]sseEvent, error) {
	var events []sseEvent
	var data []string
	event := ""
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Split(scanSSELines)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if len(data) > 0 {
				events = append(events, sseEvent{Event: event, Data: strings.Join(data, "\n")})
			}
			data, event = nil, ""
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "data":
			data = append(data, value)
		case "event":
			event = value
		}
	}
	if len(data) > 0 {
		return events, errors.New("stream ended inside an event (no blank line after it)")
	}
	return events, sc.Err()
}

// scanSSELines splits on CRLF, LF or CR.
func scanSSELines(data []byte, atEOF bool) (int, []byte, error) {
	for i, b := range data {
		switch b {
		case '\n':
			return i + 1, data[:i], nil
		case '\r':
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
				return i + 1, data[:i], nil
			}
			if atEOF {
				return i + 1, data[:i], nil
			}
			return 0, nil, nil
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// postStream sends a request and returns the open response (for streams).
func postStream(t *testing.T, ctx context.Context, url, key string, body any, headers ...string) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// waitFor polls cond for up to two seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}
