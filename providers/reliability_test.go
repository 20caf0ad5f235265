package providers_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/fake"
)

func chatReq(model string) *engine.ChatRequest {
	return &engine.ChatRequest{Model: model, APIKey: "k", Messages: []engine.Message{userMsg("hi")}}
}

func TestRetryBackoff(t *testing.T) {
	f := fake.NewOpenAI()
	defer f.Close()
	sl := &sleeps{}
	reg := newRegistry(t, "openai", f, sl)
	m, _ := reg.ChatModel(engine.ModelRef{Provider: "openai", Model: "gpt-4o"})
	f.Enqueue(fake.Reply{Status: 500}, fake.Reply{Status: 502})
	if _, err := m.Chat(context.Background(), chatReq("gpt-4o")); err != nil {
		t.Fatal(err)
	}
	if f.Count() != 3 {
		t.Fatalf("%d requests, want 3", f.Count())
	}
	d := sl.list()
	if len(d) != 2 {
		t.Fatalf("sleeps %v", d)
	}
	// Equal jitter: attempt n waits in [base*2^n/2, base*2^n].
	for i, got := range d {
		hi := testRetry.BaseDelay << i
		if got < hi/2 || got > hi {
			t.Errorf("backoff %d = %v, want in [%v, %v]", i, got, hi/2, hi)
		}
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	f := fake.NewAnthropic()
	defer f.Close()
	sl := &sleeps{}
	reg := newRegistry(t, "anthropic", f, sl)
	m, _ := reg.ChatModel(engine.ModelRef{Provider: "anthropic", Model: "claude-haiku-4-5"})
	f.Enqueue(fake.Reply{Status: 429, RetryAfter: "2"})
	if _, err := m.Chat(context.Background(), chatReq("claude-haiku-4-5")); err != nil {
		t.Fatal(err)
	}
	if d := sl.list(); len(d) != 1 || d[0] != 2*time.Second {
		t.Errorf("sleeps %v, want [2s]", d)
	}

	// A Retry-After beyond MaxRetryAfter is not waited for: the 429 goes back at once.
	f.Reset()
	f.SetDefault(fake.Reply{Status: 429, RetryAfter: "60"})
	_, err := m.Chat(context.Background(), chatReq("claude-haiku-4-5"))
	if e := asEngine(t, err); e.Code != engine.CodeRateLimited || e.RetryAfter != 60 || f.Count() != 1 {
		t.Errorf("long Retry-After: %v retryAfter=%d after %d requests", err, e.RetryAfter, f.Count())
	}
}

func TestNoRetryAfterFirstStreamedByte(t *testing.T) {
	f := fake.NewOpenAI()
	defer f.Close()
	reg := newRegistry(t, "openai", f, &sleeps{})
	m, _ := reg.ChatModel(engine.ModelRef{Provider: "openai", Model: "gpt-4o"})
	f.SetDefault(fake.Reply{Text: "partial answer", Truncate: true})
	s, err := m.ChatStream(context.Background(), chatReq("gpt-4o"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Recv()
	if err != nil || c.Choices[0].Delta.Role != "assistant" {
		t.Fatalf("first chunk %+v %v", c, err)
	}
	if _, err := collect(t, s); err == nil {
		t.Fatal("truncated stream ended without error")
	}
	if f.Count() != 1 {
		t.Errorf("%d requests: a started stream must not be retried", f.Count())
	}
}

func TestConnectErrorRetried(t *testing.T) {
	dead := httptest.NewServer(nil)
	url := dead.URL
	dead.Close()
	sl := &sleeps{}
	reg, err := providers.New(providers.Config{Providers: map[string]providers.ProviderConfig{"ollama": {BaseURL: url + "/v1"}},
		Retry: testRetry, Sleep: sl.sleep})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := reg.ChatModel(engine.ModelRef{Provider: "ollama", Model: "llama3.2"})
	_, err = m.Chat(context.Background(), chatReq("llama3.2"))
	if e := asEngine(t, err); e.Code != engine.CodeUpstream || len(sl.list()) != testRetry.MaxAttempts-1 {
		t.Errorf("connect error: %v after %d sleeps", err, len(sl.list()))
	}
}

func TestCancellationReachesUpstream(t *testing.T) {
	for _, stream := range []bool{false, true} {
		f := fake.NewOpenAI()
		reg := newRegistry(t, "openai", f, &sleeps{})
		m, _ := reg.ChatModel(engine.ModelRef{Provider: "openai", Model: "gpt-4o"})
		f.SetDefault(fake.Reply{Hang: true})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			var err error
			if stream {
				_, err = m.ChatStream(ctx, chatReq("gpt-4o"))
			} else {
				_, err = m.Chat(ctx, chatReq("gpt-4o"))
			}
			done <- err
		}()
		for f.Count() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
		select {
		case <-f.Cancelled():
		case <-time.After(10 * time.Second):
			t.Fatalf("stream=%v: upstream never saw the cancellation", stream)
		}
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("stream=%v: error %v does not wrap context.Canceled", stream, err)
		}
		if f.Count() != 1 {
			t.Errorf("stream=%v: cancelled call was retried", stream)
		}
		f.Close()
	}
}

func TestStreamCloseMidway(t *testing.T) {
	f := fake.NewCohere()
	defer f.Close()
	reg := newRegistry(t, "cohere", f, &sleeps{})
	m, _ := reg.ChatModel(engine.ModelRef{Provider: "cohere", Model: "command-a-03-2025"})
	f.SetDefault(fake.Reply{Text: "one two three four five six", ChunkDelay: 20 * time.Millisecond})
	s, err := m.ChatStream(context.Background(), chatReq("command-a-03-2025"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recv(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s.Close()
	if _, err := s.Recv(); err == nil {
		t.Error("Recv after Close succeeded")
	}
}

func TestTimeout(t *testing.T) {
	f := fake.NewGemini()
	defer f.Close()
	reg, _ := providers.New(providers.Config{Providers: map[string]providers.ProviderConfig{"google": {BaseURL: f.BaseURL(), APIKey: "k"}},
		Retry: testRetry, Timeout: 20 * time.Millisecond})
	m, _ := reg.ChatModel(engine.ModelRef{Provider: "google", Model: "gemini-2.5-flash-lite"})
	f.SetDefault(fake.Reply{FirstByteDelay: 5 * time.Second})
	_, err := m.Chat(context.Background(), chatReq("gemini-2.5-flash-lite"))
	if code(err) != engine.CodeUpstreamTimeout || f.Count() != 1 {
		t.Errorf("slow upstream: %v after %d requests", err, f.Count())
	}
	// A stream whose events stop coming times out too.
	f.Reset()
	f.SetDefault(fake.Reply{Text: "a b c", ChunkDelay: 5 * time.Second})
	s, err := m.ChatStream(context.Background(), chatReq("gemini-2.5-flash-lite"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, s); code(err) != engine.CodeUpstreamTimeout {
		t.Errorf("stalled stream: %v", err)
	}
}
