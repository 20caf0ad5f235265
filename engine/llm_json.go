package engine

import "github.com/hearth-dev/hearth/engine/jsonfast"

var (
	toolCallNames     = []string{"index", "id", "type", "function", "extra_content"}
	functionCallNames = []string{"name", "arguments"}
	// toolCallTypes holds the one type OpenAI defines, so it costs no
	// allocation.
	toolCallTypes = []string{"function"}
)

// ReadToolCall decodes a tool call (or null) into a zero value as
// encoding/json does, or reports false (see package jsonfast).
func ReadToolCall(r *jsonfast.Reader, tc *ToolCall) bool {
	return r.Null() || r.Object(toolCallNames, func(k int) bool {
		switch k {
		case 0:
			if r.Null() {
				return true
			}
			n, ok := r.Int()
			i := int(n)
			tc.Index = &i
			return ok
		case 1:
			return jsonfast.ReadString(r, &tc.ID)
		case 2:
			return jsonfast.ReadIntern(r, &tc.Type, toolCallTypes)
		case 3:
			return r.Null() || r.Object(functionCallNames, func(k int) bool {
				if k == 0 {
					return jsonfast.ReadString(r, &tc.Function.Name)
				}
				return jsonfast.ReadString(r, &tc.Function.Arguments)
			})
		default:
			return jsonfast.ReadRaw(r, &tc.ExtraContent)
		}
	})
}
