package server

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/jsonread"
)

// The readers below decode one field each into a zero value, as
// encoding/json does: null leaves a string, number, bool or struct as it
// is and a pointer, slice or map nil; the types with an UnmarshalJSON
// method (engine.Content, engine.Variables, json.RawMessage) get what that
// method makes of null. Each reports false on what it does not handle.

func readString(r *jsonread.Reader, out *string) bool {
	if r.Null() {
		return true
	}
	s, ok := r.String()
	*out = s
	return ok
}

func readStringPtr(r *jsonread.Reader, out **string) bool {
	if r.Null() {
		return true
	}
	s, ok := r.String()
	*out = &s
	return ok
}

func readBool(r *jsonread.Reader, out *bool) bool {
	if r.Null() {
		return true
	}
	v, ok := r.Bool()
	*out = v
	return ok
}

func readBoolPtr(r *jsonread.Reader, out **bool) bool {
	if r.Null() {
		return true
	}
	v, ok := r.Bool()
	*out = &v
	return ok
}

func readInt(r *jsonread.Reader, out *int) bool {
	if r.Null() {
		return true
	}
	n, ok := r.Int()
	*out = int(n)
	return ok
}

func readFloatPtr(r *jsonread.Reader, out **float64) bool {
	if r.Null() {
		return true
	}
	f, ok := r.Float()
	*out = &f
	return ok
}

// readRaw copies the value, as json.RawMessage.UnmarshalJSON does (null
// included).
func readRaw(r *jsonread.Reader, out *json.RawMessage) bool {
	*out = append(json.RawMessage(nil), r.Raw()...)
	return true
}

func readRaws(r *jsonread.Reader, out *[]json.RawMessage) bool {
	return readSlice(r, out, func(m *json.RawMessage) bool { return readRaw(r, m) })
}

func readStrings(r *jsonread.Reader, out *[]string) bool {
	return readSlice(r, out, func(s *string) bool { return readString(r, s) })
}

// readSlice decodes an array (an empty one is a non-nil empty slice) or
// null; elem decodes into a zero element.
func readSlice[T any](r *jsonread.Reader, out *[]T, elem func(*T) bool) bool {
	if r.Null() {
		return true
	}
	s := make([]T, 0, 2)
	ok := r.Array(func() bool {
		var zero T
		s = append(s, zero)
		return elem(&s[len(s)-1])
	})
	*out = s
	return ok
}

// readRawMap decodes an object of raw values; a repeated key keeps its
// last value, as in encoding/json.
func readRawMap(r *jsonread.Reader, out *map[string]json.RawMessage) bool {
	if r.Null() {
		return true
	}
	m := map[string]json.RawMessage{}
	*out = m
	return r.Members(func(key []byte) bool {
		m[string(key)] = append(json.RawMessage(nil), r.Raw()...)
		return true
	})
}

func readStringMap(r *jsonread.Reader, out *map[string]string) bool {
	if r.Null() {
		return true
	}
	m := map[string]string{}
	*out = m
	return r.Members(func(key []byte) bool {
		var s string
		ok := readString(r, &s)
		m[string(key)] = s
		return ok
	})
}

var (
	messageNames      = []string{"role", "content", "name", "tool_call_id", "tool_calls"}
	contentPartNames  = []string{"type", "text", "image_url"}
	imageURLNames     = []string{"url", "detail"}
	toolCallNames     = []string{"index", "id", "type", "function", "extra_content"}
	functionCallNames = []string{"name", "arguments"}
	toolNames         = []string{"type", "function"}
	toolFunctionNames = []string{"name", "description", "parameters", "strict"}
	memoryRefNames    = []string{"name", "min_score", "rerank"}
	rerankNames       = []string{"model", "top_n"}
	variableNames     = []string{"name", "value"}
)

func readMessages(r *jsonread.Reader, out *[]engine.Message) bool {
	return readSlice(r, out, func(m *engine.Message) bool {
		return r.Null() || r.Object(messageNames, func(k int) bool {
			switch k {
			case 0:
				return readRole(r, &m.Role)
			case 1:
				return readContent(r, &m.Content)
			case 2:
				return readString(r, &m.Name)
			case 3:
				return readString(r, &m.ToolCallID)
			default:
				return readSlice(r, &m.ToolCalls, func(tc *engine.ToolCall) bool { return readToolCall(r, tc) })
			}
		})
	})
}

// roles are the message roles a request names, kept as constants so a
// role costs no allocation.
var roles = []string{"user", "system", "assistant", "tool", "developer"}

func readRole(r *jsonread.Reader, out *string) bool {
	if r.Null() {
		return true
	}
	s, ok := r.Intern(roles)
	*out = s
	return ok
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
		ok := readSlice(r, &parts, func(p *engine.ContentPart) bool {
			return r.Null() || r.Object(contentPartNames, func(k int) bool {
				switch k {
				case 0:
					return readString(r, &p.Type)
				case 1:
					return readString(r, &p.Text)
				default:
					if r.Null() {
						return true
					}
					p.ImageURL = new(engine.ImageURL)
					return r.Object(imageURLNames, func(k int) bool {
						if k == 0 {
							return readString(r, &p.ImageURL.URL)
						}
						return readString(r, &p.ImageURL.Detail)
					})
				}
			})
		})
		*c = engine.Content{Parts: parts, Set: true}
		return ok
	}
	return false
}

func readToolCall(r *jsonread.Reader, tc *engine.ToolCall) bool {
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
			return readString(r, &tc.ID)
		case 2:
			return readString(r, &tc.Type)
		case 3:
			return r.Null() || r.Object(functionCallNames, func(k int) bool {
				if k == 0 {
					return readString(r, &tc.Function.Name)
				}
				return readString(r, &tc.Function.Arguments)
			})
		default:
			return readRaw(r, &tc.ExtraContent)
		}
	})
}

func readTools(r *jsonread.Reader, out *[]engine.Tool) bool {
	return readSlice(r, out, func(t *engine.Tool) bool {
		return r.Null() || r.Object(toolNames, func(k int) bool {
			if k == 0 {
				return readString(r, &t.Type)
			}
			f := &t.Function
			return r.Null() || r.Object(toolFunctionNames, func(k int) bool {
				switch k {
				case 0:
					return readString(r, &f.Name)
				case 1:
					return readString(r, &f.Description)
				case 2:
					return readRaw(r, &f.Parameters)
				default:
					return readBoolPtr(r, &f.Strict)
				}
			})
		})
	})
}

func readMemoryRefs(r *jsonread.Reader, out *[]engine.MemoryRef) bool {
	return readSlice(r, out, func(m *engine.MemoryRef) bool {
		return r.Null() || r.Object(memoryRefNames, func(k int) bool {
			switch k {
			case 0:
				return readString(r, &m.Name)
			case 1:
				return readFloatPtr(r, &m.MinScore)
			default:
				if r.Null() {
					return true
				}
				m.Rerank = new(engine.RerankSpec)
				return r.Object(rerankNames, func(k int) bool {
					if k == 0 {
						return readString(r, &m.Rerank.Model)
					}
					return readInt(r, &m.Rerank.TopN)
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
					return r.Peek() == '"' && readStringPtr(r, &name)
				}
				return r.Null() || (r.Peek() == '"' && readString(r, &value))
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
