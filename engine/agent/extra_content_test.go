package agent

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestExtraContentCrossesAgentSteps checks that a tool call's provider data
// (a Gemini thought signature here) is echoed on the next agent step and
// reaches the client with a caller-defined tool call, whose deltas go out
// as they come.
func TestExtraContentCrossesAgentSteps(t *testing.T) {
	zero := 0
	sig := json.RawMessage(`{"google":{"thought_signature":"c2ln"}}`)
	sig2 := json.RawMessage(`{"google":{"thought_signature":"c2lnMg=="}}`)
	m := &scriptModel{steps: [][]*engine.ChatChunk{
		{
			chunk("u", engine.Delta{Role: "assistant", ToolCalls: []engine.ToolCall{{Index: &zero, ID: "c1", Type: "function",
				Function: engine.FunctionCall{Name: "calc__add", Arguments: `{}`}, ExtraContent: sig}}}, "tool_calls", nil),
		},
		{
			chunk("u", engine.Delta{Role: "assistant", ToolCalls: []engine.ToolCall{{Index: &zero, ID: "c2", Type: "function",
				Function: engine.FunctionCall{Name: "mine"}}}}, "", nil),
			chunk("u", engine.Delta{ToolCalls: []engine.ToolCall{{Index: &zero, Function: engine.FunctionCall{Arguments: `{}`}, ExtraContent: sig2}}}, "tool_calls", nil),
		},
	}}
	tb := &toolbox{byName: map[string]mcpTool{"calc__add": {server: "calc", name: "add", session: stubSession{}}}}
	run := &agentRun{ref: engine.ModelRef{Provider: "p", Model: "m"}, chat: &engine.ChatRequest{Messages: []engine.Message{{Role: "user", Content: engine.TextContent("go")}}}}
	first, _ := m.ChatStream(context.Background(), run.chat)
	s := newAgentStream(context.Background(), 10, m, run, tb, first)
	s.StreamDeltas()
	defer s.Close(nil)
	var got []engine.ToolCall
	deltas := 0
	for {
		c, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range c.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				deltas++
				if *tc.Index == len(got) {
					got = append(got, engine.ToolCall{})
				}
				got[*tc.Index].Merge(tc)
			}
		}
	}
	step2 := m.reqs[1].Messages
	if len(step2) < 2 || len(step2[1].ToolCalls) != 1 || string(step2[1].ToolCalls[0].ExtraContent) != string(sig) {
		t.Fatalf("step 2 did not echo the provider data: %+v", step2)
	}
	if len(got) != 1 || deltas != 2 || got[0].ID != "c2" || got[0].Function.Arguments != `{}` || string(got[0].ExtraContent) != string(sig2) {
		t.Fatalf("caller tool call sent to the client: %+v", got)
	}
}

func TestExtraContentMustBeAnObject(t *testing.T) {
	_, err := inputToolCalls("input[1].tool_calls", json.RawMessage(`[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":"x"}]`))
	if err == nil || err.(*engine.Error).Field != "input[1].tool_calls[0].extra_content" {
		t.Fatalf("string extra_content: %v", err)
	}
	calls, err := inputToolCalls("input[1].tool_calls", json.RawMessage(`[{"id":"a","function":{"name":"f","arguments":"{}"},"extra_content":{"google":{"thought_signature":"s"}}}]`))
	if err != nil || string(calls[0].ExtraContent) != `{"google":{"thought_signature":"s"}}` {
		t.Fatalf("object extra_content: %v %+v", err, calls)
	}
}
