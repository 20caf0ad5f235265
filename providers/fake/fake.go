// Package fake provides in-process upstream servers that speak the real
// wire formats of OpenAI (and the OpenAI-compatible hosts), Anthropic,
// Gemini and Cohere, for tests and benchmarks of everything above the
// provider adapters; and of the image hosts (OpenAI Images, Together,
// Gemini/Imagen, OpenRouter), Exa search, and the Spider and Firecrawl
// crawl APIs. Each server is scriptable (reply text, tool calls,
// JSON, usage, errors with Retry-After, slow, truncated or hanging
// streams), records the requests it got, and answers instantly by default.
package fake

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ToolCall is a tool call a fake reply makes.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON text
}

// Usage is the token usage a fake reply reports. The cache counts are
// sent by the Anthropic fake only (cache_read_input_tokens,
// cache_creation_input_tokens and its cache_creation split by lifetime,
// besides input_tokens); CacheCreation1hTokens is the part of
// CacheCreationTokens written for one hour.
type Usage struct {
	PromptTokens, CompletionTokens       int
	CacheReadTokens, CacheCreationTokens int
	CacheCreation1hTokens                int
}

// Reply scripts one answer. The zero value answers DefaultText with
// DefaultUsage.
type Reply struct {
	// Text is the assistant text; "" means DefaultText (unless ToolCalls is set).
	Text string
	// ToolCalls makes the reply call tools (finish reason tool_calls).
	ToolCalls []ToolCall
	// JSON is the answer when the request asks for JSON output
	// (response_format, responseMimeType, or a forced Anthropic tool);
	// "" means {"ok":true}.
	JSON string
	// Usage overrides DefaultUsage when non-zero.
	Usage Usage
	// Status, when >= 400, answers with the provider's error body.
	Status int
	// Message is the error message for Status.
	Message string
	// ErrorCode is the provider's machine-readable code of the error
	// (for OpenAI "insufficient_quota", sent as error.type and error.code).
	ErrorCode string
	// Citations are source URLs a perplexity-mode fake answers with, as
	// Perplexity's top-level "citations" and "search_results" (titled
	// "Source 1", ...).
	Citations []string
	// RetryAfter is sent as the Retry-After header of an error.
	RetryAfter string
	// FirstByteDelay waits before answering; ChunkDelay between stream events.
	FirstByteDelay, ChunkDelay time.Duration
	// Truncate ends a stream before its terminal event.
	Truncate bool
	// Hang waits until the client cancels the request, then reports it on Cancelled.
	Hang bool
	// EmbedDims is the size of fake embeddings (default 8).
	EmbedDims int
	// Flagged makes a moderation answer flag every input.
	Flagged bool
	// Finish overrides the provider's finish/stop reason.
	Finish string
	// RetryDelay, on a Gemini error, is sent in the body as RetryInfo
	// ("30s"), the way Gemini tells how long to wait.
	RetryDelay string
	// QuotaID, on a Gemini error, is sent as a QuotaFailure violation
	// (e.g. "GenerateRequestsPerDayPerProjectPerModel-FreeTier").
	QuotaID string
	// Reasoning is the reasoning text of a thinking model's answer
	// (DeepSeek reasoning_content; Anthropic thinking blocks).
	Reasoning string
	// ServerTool adds an Anthropic server tool use and its result (whose
	// content is an array of blocks) before the answer, as web search does.
	ServerTool bool
	// Interleaved makes a thinking Anthropic answer think again before
	// each tool call after the first (interleaved thinking).
	Interleaved bool
}

// Defaults of a zero Reply.
const DefaultText = "Hello from the fake upstream."

var DefaultUsage = Usage{PromptTokens: 12, CompletionTokens: 5}

// Request is one recorded upstream request.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
}

// JSON decodes the recorded body as a generic JSON object.
func (r Request) JSON() map[string]any {
	var m map[string]any
	json.Unmarshal(r.Body, &m)
	return m
}

// Server is one fake upstream.
type Server struct {
	*httptest.Server
	kind    string
	version string
	// host is the OpenAI-compatible host a fake of kind "openai" acts as
	// ("openai", "xai", "groq", "mistral", "perplexity"): it picks the
	// request checks of openai_rules.go and the error shape.
	host      string
	handle    func(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply)
	mu        sync.Mutex
	queue     []Reply
	def       Reply
	reqs      []Request
	record    bool
	n         atomic.Int64
	cancelled chan struct{}
	// issued holds the opaque tokens (thought signatures, thinking
	// signatures, reasoning texts) this server handed out, each with the
	// model that produced it, so a request echoing one back can be checked.
	issued map[string]string
	// turns holds each answer that called tools, by the id of its first
	// tool call.
	turns map[string]toolTurn
	// strict remembers the unknown-field check of bodies seen (see
	// unknownFieldOf).
	strict map[string]string
	// modelChecks are a test's checks for models the built-in checks do
	// not know (AddModelCheck), consulted first.
	modelChecks []oaiCheck
}

// toolTurn is what a server remembers of an answer that called tools.
type toolTurn struct {
	model string
	// layout is an Anthropic answer's blocks in order:
	// "thinking:<signature>", "text" and "tool_use:<id>".
	layout []string
	// reasoning is the reasoning text a DeepSeek-mode answer carried.
	reasoning string
}

// recordTurn keeps an answer whose first tool call is id.
func (s *Server) recordTurn(id string, t toolTurn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turns == nil {
		s.turns = map[string]toolTurn{}
	}
	s.turns[id] = t
}

// turnOf returns the answer whose first tool call is id.
func (s *Server) turnOf(id string) (toolTurn, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.turns[id]
	return t, ok
}

// issue records and returns a token the client must echo later.
func (s *Server) issue(token string) string { return s.issueFor(token, "") }

// issueFor records and returns a token model produced.
func (s *Server) issueFor(token, model string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.issued == nil {
		s.issued = map[string]string{}
	}
	s.issued[token] = model
	return token
}

// wasIssued reports whether token came from this server.
func (s *Server) wasIssued(token string) bool {
	_, ok := s.issuer(token)
	return ok
}

// issuer returns the model that produced token; ok is false when this
// server never issued it.
func (s *Server) issuer(token string) (model string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	model, ok = s.issued[token]
	return model, ok
}

func newServer(kind, version string, handle func(*Server, http.ResponseWriter, *http.Request, []byte, Reply)) *Server {
	s := &Server{kind: kind, version: version, handle: handle, record: true, cancelled: make(chan struct{}, 64)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the URL to configure the provider with, version segment included.
func (s *Server) BaseURL() string { return s.URL + s.version }

// Kind names the wire format ("openai", "anthropic", "gemini", "cohere").
func (s *Server) Kind() string { return s.kind }

// SetDefault sets the reply used when the queue is empty.
func (s *Server) SetDefault(r Reply) { s.mu.Lock(); s.def = r; s.mu.Unlock() }

// Enqueue adds one-shot replies, used in order before the default.
func (s *Server) Enqueue(r ...Reply) { s.mu.Lock(); s.queue = append(s.queue, r...); s.mu.Unlock() }

// SetRecording turns request recording on (the default) or off, e.g. for benchmarks.
func (s *Server) SetRecording(on bool) { s.mu.Lock(); s.record = on; s.mu.Unlock() }

// Requests returns the recorded requests.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// LastRequest returns the most recent recorded request (zero when none).
func (s *Server) LastRequest() Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		return Request{}
	}
	return s.reqs[len(s.reqs)-1]
}

// Count is the number of requests received.
func (s *Server) Count() int { return int(s.n.Load()) }

// Reset clears the queue, the default, the recordings, the counter and
// the answers remembered by tool call id (scripted replies reuse call ids).
func (s *Server) Reset() {
	s.mu.Lock()
	s.queue, s.def, s.reqs, s.turns = nil, Reply{}, nil, nil
	s.mu.Unlock()
	s.n.Store(0)
}

// Cancelled receives once for every Hang request whose context the client cancelled.
func (s *Server) Cancelled() <-chan struct{} { return s.cancelled }

func (s *Server) next() Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		return r
	}
	return s.def
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.n.Add(1)
	s.mu.Lock()
	if s.record {
		s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
	}
	s.mu.Unlock()
	rep := s.next()
	if rep.FirstByteDelay > 0 && !sleep(r, rep.FirstByteDelay) {
		return
	}
	if rep.Hang {
		<-r.Context().Done()
		select {
		case s.cancelled <- struct{}{}:
		default:
		}
		return
	}
	s.handle(s, w, r, body, rep)
}

func sleep(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, rep Reply, body any) {
	if rep.RetryAfter != "" {
		w.Header().Set("Retry-After", rep.RetryAfter)
	}
	writeJSON(w, rep.Status, body)
}

func errorMessage(rep Reply) string {
	if rep.Message != "" {
		return rep.Message
	}
	switch rep.Status {
	case 401:
		return "Incorrect API key provided"
	case 429:
		return "Rate limit reached"
	}
	return http.StatusText(rep.Status)
}

// text returns the reply text, or its JSON when asked for JSON.
func (rep Reply) text(wantJSON bool) string {
	if wantJSON {
		if rep.JSON != "" {
			return rep.JSON
		}
		return `{"ok":true}`
	}
	if rep.Text == "" && len(rep.ToolCalls) == 0 {
		return DefaultText
	}
	return rep.Text
}

func (rep Reply) usage() Usage {
	if rep.Usage != (Usage{}) {
		return rep.Usage
	}
	return DefaultUsage
}

func (tc ToolCall) id(i int) string {
	if tc.ID != "" {
		return tc.ID
	}
	return "call_" + string(rune('a'+i))
}

func (tc ToolCall) args() string {
	if tc.Arguments == "" {
		return "{}"
	}
	return tc.Arguments
}

// words splits text into stream pieces that concatenate back to it.
func words(text string) []string {
	if text == "" {
		return nil
	}
	return strings.SplitAfter(text, " ")
}

// halves splits s in two at a byte boundary (tool arguments are ASCII JSON).
func halves(s string) [2]string {
	h := len(s) / 2
	for h > 0 && h < len(s) && s[h]&0xC0 == 0x80 {
		h--
	}
	return [2]string{s[:h], s[h:]}
}

// vector is a deterministic fake embedding of text.
func vector(text string, dims int) []float32 {
	if dims <= 0 {
		dims = 8
	}
	h := fnv.New32a()
	h.Write([]byte(text))
	x := h.Sum32()
	v := make([]float32, dims)
	for i := range v {
		x = x*1664525 + 1013904223
		v[i] = float32(x%1000)/1000 - 0.5
	}
	return v
}

// sse writes Server-Sent Events, flushing each and waiting ChunkDelay.
type sse struct {
	w     http.ResponseWriter
	r     *http.Request
	delay time.Duration
	sep   string
}

func newSSE(w http.ResponseWriter, r *http.Request, rep Reply, sep string) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sse{w: w, r: r, delay: rep.ChunkDelay, sep: sep}
}

// send writes one event; it returns false once the client went away.
func (s *sse) send(event string, v any) bool {
	var b []byte
	switch t := v.(type) {
	case string:
		b = []byte(t)
	default:
		b, _ = json.Marshal(v)
	}
	var sb strings.Builder
	if event != "" {
		sb.WriteString("event: " + event + s.sep[:len(s.sep)/2])
	}
	sb.WriteString("data: ")
	sb.Write(b)
	sb.WriteString(s.sep)
	if _, err := io.WriteString(s.w, sb.String()); err != nil {
		return false
	}
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
	if s.delay > 0 {
		return sleep(s.r, s.delay)
	}
	return s.r.Context().Err() == nil
}
