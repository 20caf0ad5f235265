package server

import (
	"slices"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/jsonread"
)

var (
	messageNames      = []string{"role", "content", "name", "tool_call_id", "tool_calls"}
	contentPartNames  = []string{"type", "text", "image_url"}
	imageURLNames     = []string{"url", "detail"}
	toolNames         = []string{"type", "function"}
	toolFunctionNames = []string{"name", "description", "parameters", "strict"}
	memoryRefNames    = []string{"name", "min_score", "rerank"}
	rerankNames       = []string{"model", "top_n"}
	variableNames     = []string{"name", "value"}
)

func readMessages(r *jsonread.Reader, out *[]engine.Message, room []engine.Message) bool {
	return jsonread.ReadSliceIn(r, out, room, func(m *engine.Message) bool {
		return r.Null() || r.Object(messageNames, func(k int) bool {
			switch k {
			case 0:
				return readRole(r, &m.Role)
			case 1:
				return readContent(r, &m.Content)
			case 2:
				return jsonread.ReadString(r, &m.Name)
			case 3:
				return jsonread.ReadString(r, &m.ToolCallID)
			default:
				return jsonread.ReadSlice(r, &m.ToolCalls, func(tc *engine.ToolCall) bool { return engine.ReadToolCall(r, tc) })
			}
		})
	})
}

// roles are the message roles a request names, kept as constants so a
// role costs no allocation.
var roles = []string{"user", "system", "assistant", "tool", "developer"}

func readRole(r *jsonread.Reader, out *string) bool {
	return jsonread.ReadIntern(r, out, roles)
}

// readContent follows engine.Content.UnmarshalJSON: a string, an array of
// parts (never nil), or null.
func readContent(r *jsonread.Reader, c *engine.Content) bool {
	switch r.Peek() {
	case 'n':
		return r.Null()
	case '"':
		s, ok := r.String()
		*c = engine.Content{Text: s, Set: true}
		return ok
	case '[':
		var parts []engine.ContentPart
		ok := jsonread.ReadSlice(r, &parts, func(p *engine.ContentPart) bool {
			return r.Null() || r.Object(contentPartNames, func(k int) bool {
				switch k {
				case 0:
					return jsonread.ReadString(r, &p.Type)
				case 1:
					return jsonread.ReadString(r, &p.Text)
				default:
					if r.Null() {
						return true
					}
					p.ImageURL = new(engine.ImageURL)
					return r.Object(imageURLNames, func(k int) bool {
						if k == 0 {
							return jsonread.ReadString(r, &p.ImageURL.URL)
						}
						return jsonread.ReadString(r, &p.ImageURL.Detail)
					})
				}
			})
		})
		*c = engine.Content{Parts: parts, Set: true}
		return ok
	}
	return false
}

func readTools(r *jsonread.Reader, out *[]engine.Tool) bool {
	return jsonread.ReadSlice(r, out, func(t *engine.Tool) bool {
		return r.Null() || r.Object(toolNames, func(k int) bool {
			if k == 0 {
				return jsonread.ReadString(r, &t.Type)
			}
			f := &t.Function
			return r.Null() || r.Object(toolFunctionNames, func(k int) bool {
				switch k {
				case 0:
					return jsonread.ReadString(r, &f.Name)
				case 1:
					return jsonread.ReadString(r, &f.Description)
				case 2:
					return jsonread.ReadRaw(r, &f.Parameters)
				default:
					return jsonread.ReadBoolPtr(r, &f.Strict)
				}
			})
		})
	})
}

func readMemoryRefs(r *jsonread.Reader, out *[]engine.MemoryRef) bool {
	return jsonread.ReadSlice(r, out, func(m *engine.MemoryRef) bool {
		return r.Null() || r.Object(memoryRefNames, func(k int) bool {
			switch k {
			case 0:
				return jsonread.ReadString(r, &m.Name)
			case 1:
				return jsonread.ReadFloatPtr(r, &m.MinScore)
			default:
				if r.Null() {
					return true
				}
				m.Rerank = new(engine.RerankSpec)
				return r.Object(rerankNames, func(k int) bool {
					if k == 0 {
						return jsonread.ReadString(r, &m.Rerank.Model)
					}
					return jsonread.ReadInt(r, &m.Rerank.TopN)
				})
			}
		})
	})
}

// readVariables follows engine.Variables.UnmarshalJSON: null is an empty
// list, an object of strings is sorted by name, an array holds
// {name, value} with a string name and a string or null value. Anything
// that method refuses, and an object with a repeated name, reports false.
func readVariables(r *jsonread.Reader, out *engine.Variables) bool {
	v := engine.Variables{}
	*out = v
	switch r.Peek() {
	case 'n':
		return r.Null()
	case '{':
		ok := r.Members(func(key []byte) bool {
			if r.Peek() != '"' {
				return false
			}
			s, ok := r.String()
			v = append(v, engine.Variable{Name: string(key), Value: s})
			return ok
		})
		slices.SortFunc(v, func(a, b engine.Variable) int { return strings.Compare(a.Name, b.Name) })
		for i := 1; i < len(v); i++ {
			if v[i].Name == v[i-1].Name {
				return false
			}
		}
		*out = v
		return ok
	case '[':
		ok := r.Array(func() bool {
			var name *string
			var value string
			ok := r.Object(variableNames, func(k int) bool {
				if k == 0 {
					return r.Peek() == '"' && jsonread.ReadStringPtr(r, &name)
				}
				return r.Null() || (r.Peek() == '"' && jsonread.ReadString(r, &value))
			})
			if !ok || name == nil {
				return false
			}
			v = append(v, engine.Variable{Name: *name, Value: value})
			return true
		})
		*out = v
		return ok
	}
	return false
}
