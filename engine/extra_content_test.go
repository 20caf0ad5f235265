package engine

import (
	"encoding/json"
	"testing"
)

func TestAccumulatorKeepsExtraContent(t *testing.T) {
	zero := 0
	var a accumulator
	a.add(&ChunkChoice{Delta: Delta{ToolCalls: []ToolCall{{Index: &zero, ID: "x", Function: FunctionCall{Name: "f"}}}}})
	a.add(&ChunkChoice{Delta: Delta{ToolCalls: []ToolCall{{Index: &zero, Function: FunctionCall{Arguments: "{}"},
		ExtraContent: json.RawMessage(`{"deepseek":{"reasoning_content":"r"}}`)}}}})
	calls := a.calls()
	if len(calls) != 1 || string(calls[0].ExtraContent) != `{"deepseek":{"reasoning_content":"r"}}` {
		t.Fatalf("calls %+v", calls)
	}
}

func TestValidateToolCallsExtraContent(t *testing.T) {
	bad := []ToolCall{{ID: "a", Type: "function", Function: FunctionCall{Name: "f"}, ExtraContent: json.RawMessage(`[1]`)}}
	if err := ValidateToolCalls("messages[0].tool_calls", bad); err == nil {
		t.Fatal("ValidateToolCalls accepted an array extra_content")
	}
}
