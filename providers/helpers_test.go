package providers_test

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/fake"
)

// sleeps records retry waits without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) list() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// testRetry is a fast policy for tests: 3 attempts, millisecond backoff.
var testRetry = providers.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond, MaxRetryAfter: 5 * time.Second}

func newRegistry(t testing.TB, provider string, f *fake.Server, sl *sleeps) *providers.Registry {
	t.Helper()
	cfg := providers.Config{
		Providers: map[string]providers.ProviderConfig{provider: {BaseURL: f.BaseURL(), APIKey: "test-key"}},
		Retry:     testRetry,
		Timeout:   5 * time.Second,
	}
	if sl != nil {
		cfg.Sleep = sl.sleep
	}
	r, err := providers.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func userMsg(s string) engine.Message {
	return engine.Message{Role: "user", Content: engine.TextContent(s)}
}

// assembled is a stream folded back into one answer, as OpenAI clients do.
type assembled struct {
	text   string
	calls  []engine.ToolCall
	finish string
	usage  *engine.Usage
	chunks int
}

// collect reads a stream to its end and checks the chunk contract the
// langbase SDK imposes (docs/pipes-and-threads.md#runs): one id, a role on the first
// delta, tool calls keyed by index with id/type/name on their first delta,
// and a final finish_reason.
func collect(t *testing.T, s engine.ChatStream) (assembled, error) {
	t.Helper()
	defer s.Close()
	var a assembled
	id, sawRole := "", false
	byIndex := map[int]*engine.ToolCall{}
	var order []int
	for {
		c, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return a, err
		}
		a.chunks++
		if a.chunks == 1 {
			id = c.ID
		} else if c.ID != id {
			t.Errorf("chunk id changed from %q to %q", id, c.ID)
		}
		if c.Choices == nil {
			t.Errorf("chunk without choices: %+v", c)
		}
		if c.Usage != nil {
			a.usage = c.Usage
		}
		for _, ch := range c.Choices {
			if ch.Delta.Role == "assistant" {
				sawRole = true
			}
			if ch.Delta.Content != nil {
				a.text += *ch.Delta.Content
			}
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index == nil {
					t.Fatalf("tool call delta without index")
				}
				cur, ok := byIndex[*tc.Index]
				if !ok {
					if tc.ID == "" || tc.Type != "function" || tc.Function.Name == "" {
						t.Errorf("first delta of tool call %d lacks id/type/name: %+v", *tc.Index, tc)
					}
					cur = &engine.ToolCall{ID: tc.ID, Type: tc.Type, Function: engine.FunctionCall{Name: tc.Function.Name}}
					byIndex[*tc.Index] = cur
					order = append(order, *tc.Index)
				}
				cur.Function.Arguments += tc.Function.Arguments
				if len(tc.ExtraContent) > 0 {
					cur.ExtraContent = tc.ExtraContent
				}
			}
			if ch.FinishReason != nil {
				a.finish = *ch.FinishReason
			}
		}
	}
	if !sawRole {
		t.Errorf("no delta carried role assistant")
	}
	for _, i := range order {
		a.calls = append(a.calls, *byIndex[i])
	}
	return a, nil
}

func code(err error) string { return engine.ErrorCode(err) }

func asEngine(t *testing.T, err error) *engine.Error {
	t.Helper()
	var e *engine.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *engine.Error", err, err)
	}
	return e
}

// callOnce makes one call to m, streamed or whole, and returns the
// answer's tool calls and usage as either way reports them.
func callOnce(t *testing.T, m engine.ChatModel, req *engine.ChatRequest, stream bool) ([]engine.ToolCall, *engine.Usage) {
	t.Helper()
	if stream {
		s, err := m.ChatStream(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		a, err := collect(t, s)
		if err != nil {
			t.Fatal(err)
		}
		return a.calls, a.usage
	}
	resp, err := m.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Choices[0].Message.ToolCalls, &resp.Usage
}
