package agent

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

func TestOfferedName(t *testing.T) {
	taken := map[string]bool{"calc__add": true}
	cases := []struct {
		server, tool string
		want         string
	}{
		{"calc", "echo", "calc__echo"},
		{"calc", "get.weather", "calc__get_weather"},
		{"my-srv", "ünïcode tool", "my-srv___n_code_tool"},
	}
	for _, tc := range cases {
		if got := offeredName(tc.server, tc.tool, taken); got != tc.want {
			t.Errorf("offeredName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	// Taken (by a caller tool): a hash suffix keeps it unique and valid.
	got := offeredName("calc", "add", taken)
	if got == "calc__add" || !strings.HasPrefix(got, "calc__add_") || !engine.ValidToolName(got) {
		t.Fatalf("collision name %q", got)
	}
	// Two tools that sanitise alike both get valid, distinct names.
	seen := map[string]bool{}
	a := offeredName("s", "a.b", seen)
	seen[a] = true
	b := offeredName("s", "a/b", seen)
	if a == b || !engine.ValidToolName(b) {
		t.Fatalf("%q and %q", a, b)
	}
	// Long names are cut to 64 characters.
	long := offeredName(strings.Repeat("s", 60), strings.Repeat("t", 60), map[string]bool{})
	if len(long) != 64 || !engine.ValidToolName(long) {
		t.Fatalf("long name %q (%d)", long, len(long))
	}
	seen = map[string]bool{long: true}
	long2 := offeredName(strings.Repeat("s", 60), strings.Repeat("t", 61), seen)
	if len(long2) != 64 || long2 == long || !engine.ValidToolName(long2) {
		t.Fatalf("long collision %q", long2)
	}
}

// scriptModel streams prepared steps, one per call, and records requests.
type scriptModel struct {
	mu    sync.Mutex
	steps [][]*engine.ChatChunk
	reqs  []*engine.ChatRequest
}

func (m *scriptModel) Chat(context.Context, *engine.ChatRequest) (*engine.ChatResponse, error) {
	return nil, errors.New("not used")
}

func (m *scriptModel) ChatStream(_ context.Context, req *engine.ChatRequest) (engine.ChatStream, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req)
	s := m.steps[0]
	m.steps = m.steps[1:]
	return &chunks{list: s}, nil
}

type chunks struct{ list []*engine.ChatChunk }

func (c *chunks) Recv() (*engine.ChatChunk, error) {
	if len(c.list) == 0 {
		return nil, io.EOF
	}
	x := c.list[0]
	c.list = c.list[1:]
	return x, nil
}
func (c *chunks) Close() error { return nil }

type stubSession struct{}

func (stubSession) Tools(context.Context) ([]engine.RemoteTool, error) {
	return []engine.RemoteTool{{Name: "add", InputSchema: json.RawMessage(`{"type":"object"}`)}}, nil
}
func (stubSession) Call(_ context.Context, name string, args json.RawMessage) (*engine.RemoteToolResult, error) {
	return &engine.RemoteToolResult{Text: "3"}, nil
}
func (stubSession) Close() error { return nil }

func chunk(id string, d engine.Delta, finish string, usage *engine.Usage) *engine.ChatChunk {
	c := &engine.ChatChunk{ID: id, Model: "m", Choices: []engine.ChunkChoice{{Delta: d}}, Usage: usage}
	if finish != "" {
		c.Choices[0].FinishReason = &finish
	}
	return c
}

func TestAgentStreamAcrossSteps(t *testing.T) {
	zero := 0
	pre, ans1, ans2 := "Let me add. ", "It is ", "3."
	m := &scriptModel{steps: [][]*engine.ChatChunk{
		{
			chunk("up-1", engine.Delta{Role: "assistant", Content: &pre}, "", nil),
			chunk("up-1", engine.Delta{ToolCalls: []engine.ToolCall{{Index: &zero, ID: "c1", Type: "function", Function: engine.FunctionCall{Name: "calc__add"}}}}, "", nil),
			chunk("up-1", engine.Delta{ToolCalls: []engine.ToolCall{{Index: &zero, Function: engine.FunctionCall{Arguments: `{"a":1,"b":2}`}}}}, "tool_calls", nil),
			{ID: "up-1", Choices: []engine.ChunkChoice{}, Usage: &engine.Usage{PromptTokens: 5, CompletionTokens: 2, TotalTokens: 7}},
		},
		{
			chunk("up-2", engine.Delta{Role: "assistant", Content: &ans1}, "", nil),
			chunk("up-2", engine.Delta{Content: &ans2}, "stop", &engine.Usage{PromptTokens: 9, CompletionTokens: 3, TotalTokens: 12}),
		},
	}}
	tb := &toolbox{byName: map[string]mcpTool{"calc__add": {server: "calc", name: "add", session: stubSession{}}}}
	run := &agentRun{ref: engine.ModelRef{Provider: "p", Model: "m"}, chat: &engine.ChatRequest{Messages: []engine.Message{{Role: "user", Content: engine.TextContent("1+2?")}}}}
	first, _ := m.ChatStream(context.Background(), run.chat)
	s := newAgentStream(context.Background(), 10, m, run, tb, first)
	defer s.Close(nil)
	var text strings.Builder
	var finishes []string
	var usage *engine.Usage
	for i := 0; ; i++ {
		c, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if c.ID != "up-1" {
			t.Fatalf("chunk %d id %q", i, c.ID)
		}
		if c.Usage != nil {
			usage = c.Usage
		}
		for _, ch := range c.Choices {
			if (i == 0) != (ch.Delta.Role == "assistant") {
				t.Fatalf("role in chunk %d: %+v", i, ch.Delta)
			}
			if len(ch.Delta.ToolCalls) > 0 {
				t.Fatalf("MCP tool calls reached the client: %+v", ch.Delta)
			}
			if ch.Delta.Content != nil {
				text.WriteString(*ch.Delta.Content)
			}
			if ch.FinishReason != nil {
				finishes = append(finishes, *ch.FinishReason)
			}
		}
	}
	if text.String() != "Let me add. It is 3." || len(finishes) != 1 || finishes[0] != "stop" {
		t.Fatalf("text %q finishes %v", text.String(), finishes)
	}
	if usage == nil || usage.TotalTokens != 19 {
		t.Fatalf("usage %+v", usage)
	}
	step2 := m.reqs[1].Messages
	if len(step2) != 3 || step2[1].Content.String() != pre || step2[1].ToolCalls[0].Function.Arguments != `{"a":1,"b":2}` ||
		step2[2].Role != "tool" || step2[2].ToolCallID != "c1" || step2[2].Content.String() != "3" {
		t.Fatalf("step 2 messages %+v", step2)
	}
}

func TestRunToolsRendersFailures(t *testing.T) {
	tb := &toolbox{byName: map[string]mcpTool{"s__t": {server: "s", name: "t", session: failSession{}}}}
	msgs, err := tb.runTools(context.Background(), []engine.ToolCall{
		{ID: "1", Function: engine.FunctionCall{Name: "s__t", Arguments: `not json`}},
		{ID: "2", Function: engine.FunctionCall{Name: "s__t", Arguments: `{"x":1}`}},
		{ID: "3", Function: engine.FunctionCall{Name: "s__t", Arguments: ``}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msgs[0].Content.String(), "not a JSON object") {
		t.Fatalf("bad arguments: %q", msgs[0].Content.String())
	}
	if !strings.Contains(msgs[1].Content.String(), "failed: connection reset") || msgs[1].ToolCallID != "2" {
		t.Fatalf("call failure: %+v", msgs[1])
	}
	if msgs[2].Content.String() != "Error: the tool reported an error without a message" {
		t.Fatalf("empty args and empty error: %q", msgs[2].Content.String())
	}
}

type failSession struct{}

func (failSession) Tools(context.Context) ([]engine.RemoteTool, error) { return nil, nil }
func (failSession) Call(_ context.Context, _ string, args json.RawMessage) (*engine.RemoteToolResult, error) {
	if string(args) == "{}" {
		return &engine.RemoteToolResult{IsError: true}, nil
	}
	return nil, errors.New("connection reset")
}
func (failSession) Close() error { return nil }

func TestAgentStreamEmptyUpstream(t *testing.T) {
	m := &scriptModel{steps: [][]*engine.ChatChunk{{}}}
	run := &agentRun{ref: engine.ModelRef{Provider: "p", Model: "m"}, chat: &engine.ChatRequest{}}
	first, _ := m.ChatStream(context.Background(), run.chat)
	s := newAgentStream(context.Background(), 10, m, run, &toolbox{}, first)
	defer s.Close(nil)
	var got []*engine.ChatChunk
	for {
		c, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	if len(got) != 2 || got[0].Choices[0].Delta.Role != "assistant" || got[0].ID == "" || got[1].ID != got[0].ID ||
		got[1].Choices[0].FinishReason == nil || *got[1].Choices[0].FinishReason != "stop" || got[0].Model != "m" {
		t.Fatalf("chunks %+v", got)
	}
}
