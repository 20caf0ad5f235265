package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// recMetrics records engine.Metrics calls as strings.
type recMetrics struct {
	mu    sync.Mutex
	calls []string
}

func (r *recMetrics) add(s string) { r.mu.Lock(); r.calls = append(r.calls, s); r.mu.Unlock() }
func (r *recMetrics) UpstreamCall(p, kind string, _ time.Duration, err error) {
	code := "ok"
	if err != nil {
		code = engine.ErrorCode(err)
		if errors.Is(err, context.Canceled) {
			code = "canceled"
		}
	}
	r.add(fmt.Sprintf("upstream %s %s %s", p, kind, code))
}
func (r *recMetrics) ModelUsage(p, m string, pt, ct int, cost float64) {
	r.add(fmt.Sprintf("usage %s %s %d %d %.3f", p, m, pt, ct, cost))
}
func (r *recMetrics) IngestionJob(o string, _ time.Duration) { r.add("job " + o) }

// chatProviders serves one scripted chat model and prices 1 cent per token.
type chatProviders struct {
	stubProviders
	model *scriptedChat
}

func (c chatProviders) ChatModel(engine.ModelRef) (engine.ChatModel, error) { return c.model, nil }
func (c chatProviders) Cost(_ engine.ModelRef, p, cpl int) (float64, bool) {
	return float64(p+cpl) / 100, true
}

type scriptedChat struct {
	err    error
	chunks []*engine.ChatChunk
}

func (s *scriptedChat) Chat(context.Context, *engine.ChatRequest) (*engine.ChatResponse, error) {
	if s.err != nil {
		return nil, s.err
	}
	return &engine.ChatResponse{Usage: engine.Usage{PromptTokens: 10, CompletionTokens: 5}}, nil
}

func (s *scriptedChat) ChatStream(context.Context, *engine.ChatRequest) (engine.ChatStream, error) {
	if s.err != nil {
		return nil, s.err
	}
	return &sliceStream{chunks: s.chunks}, nil
}

type sliceStream struct{ chunks []*engine.ChatChunk }

func (s *sliceStream) Recv() (*engine.ChatChunk, error) {
	if len(s.chunks) == 0 {
		return nil, io.EOF
	}
	c := s.chunks[0]
	s.chunks = s.chunks[1:]
	return c, nil
}
func (s *sliceStream) Close() error { return nil }

func TestInstrumentProviders(t *testing.T) {
	ctx := context.Background()
	ref := engine.ModelRef{Provider: "openai", Model: "gpt-x"}
	chunks := func() []*engine.ChatChunk {
		return []*engine.ChatChunk{{}, {Usage: &engine.Usage{PromptTokens: 3, CompletionTokens: 4}}}
	}
	cases := []struct {
		name string
		run  func(cm engine.ChatModel)
		want []string
	}{
		{"chat ok", func(cm engine.ChatModel) { cm.Chat(ctx, &engine.ChatRequest{}) },
			[]string{"upstream openai chat ok", "usage openai gpt-x 10 5 0.150"}},
		{"stream to the end, reported once", func(cm engine.ChatModel) {
			st, _ := cm.ChatStream(ctx, &engine.ChatRequest{})
			for {
				if _, err := st.Recv(); err != nil {
					break
				}
			}
			st.Close()
		}, []string{"upstream openai chat_stream ok", "usage openai gpt-x 3 4 0.070"}},
		{"stream closed early", func(cm engine.ChatModel) {
			st, _ := cm.ChatStream(ctx, &engine.ChatRequest{})
			st.Recv()
			st.Close()
		}, []string{"upstream openai chat_stream canceled"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recMetrics{}
			p := engine.InstrumentProviders(chatProviders{model: &scriptedChat{chunks: chunks()}}, rec)
			cm, err := p.ChatModel(ref)
			if err != nil {
				t.Fatal(err)
			}
			tc.run(cm)
			if fmt.Sprint(rec.calls) != fmt.Sprint(tc.want) {
				t.Fatalf("calls %q, want %q", rec.calls, tc.want)
			}
		})
	}
	t.Run("errors carry their code", func(t *testing.T) {
		rec := &recMetrics{}
		p := engine.InstrumentProviders(chatProviders{model: &scriptedChat{err: engine.Errorf(engine.CodeUpstreamTimeout, "slow")}}, rec)
		cm, _ := p.ChatModel(ref)
		cm.Chat(ctx, &engine.ChatRequest{})
		cm.ChatStream(ctx, &engine.ChatRequest{})
		want := []string{"upstream openai chat UPSTREAM_TIMEOUT", "upstream openai chat_stream UPSTREAM_TIMEOUT"}
		if fmt.Sprint(rec.calls) != fmt.Sprint(want) {
			t.Fatalf("calls %q", rec.calls)
		}
	})
	if engine.InstrumentProviders(nil, &recMetrics{}) != nil {
		t.Fatal("nil providers must stay nil")
	}
}

type stubSearcher struct{ err error }

func (s stubSearcher) Search(context.Context, *engine.SearchQuery) ([]engine.ToolResult, error) {
	return nil, s.err
}

type stubCrawler struct{}

func (stubCrawler) Crawl(context.Context, *engine.CrawlJob) ([]engine.ToolResult, error) {
	return nil, nil
}
func (stubCrawler) NeedsKey() bool { return true }

func TestInstrumentTools(t *testing.T) {
	rec := &recMetrics{}
	ctx := context.Background()
	s := engine.InstrumentSearchers(map[string]engine.WebSearcher{"exa": stubSearcher{err: engine.Errorf(engine.CodeUpstream, "x")}}, rec)
	c := engine.InstrumentCrawlers(map[string]engine.Crawler{"spider": stubCrawler{}}, rec)
	s["exa"].Search(ctx, &engine.SearchQuery{})
	c["spider"].Crawl(ctx, &engine.CrawlJob{})
	if !c["spider"].NeedsKey() {
		t.Fatal("NeedsKey not forwarded")
	}
	want := []string{"upstream exa search UPSTREAM_ERROR", "upstream spider crawl ok"}
	if fmt.Sprint(rec.calls) != fmt.Sprint(want) {
		t.Fatalf("calls %q", rec.calls)
	}
}

type stubImages struct{}

func (stubImages) ImageModel(engine.ModelRef) (engine.ImageGenerator, error) { return stubImage{}, nil }

type stubImage struct{}

func (stubImage) GenerateImage(context.Context, *engine.ImageRequest) (*engine.ImageResult, error) {
	return &engine.ImageResult{}, nil
}

type stubToolServers struct{}

func (stubToolServers) Connect(context.Context, engine.MCPServer) (engine.ToolSession, error) {
	return stubSession{}, nil
}

type stubSession struct{}

func (stubSession) Tools(context.Context) ([]engine.RemoteTool, error) { return nil, nil }
func (stubSession) Call(context.Context, string, json.RawMessage) (*engine.RemoteToolResult, error) {
	return nil, engine.Errorf(engine.CodeUpstreamTimeout, "slow")
}
func (stubSession) Close() error { return nil }

func TestInstrumentImagesAndToolServers(t *testing.T) {
	rec := &recMetrics{}
	ctx := context.Background()
	g, err := engine.InstrumentImages(stubImages{}, rec).ImageModel(engine.ModelRef{Provider: "openai", Model: "gpt-image-1"})
	if err != nil {
		t.Fatal(err)
	}
	g.GenerateImage(ctx, &engine.ImageRequest{})
	sess, err := engine.InstrumentToolServers(stubToolServers{}, rec).Connect(ctx, engine.MCPServer{})
	if err != nil {
		t.Fatal(err)
	}
	sess.Call(ctx, "t", nil)
	want := []string{"upstream openai image ok", "upstream mcp mcp_connect ok", "upstream mcp mcp_call UPSTREAM_TIMEOUT"}
	if fmt.Sprint(rec.calls) != fmt.Sprint(want) {
		t.Fatalf("calls %q", rec.calls)
	}
}
