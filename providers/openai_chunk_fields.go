package providers

import "github.com/hearth-dev/hearth/engine"

// The keys of each object of a chunk that a struct field matches, in the
// order the parsers below number them. Keys the parsers do not decode
// (error, web sources, logprobs, annotations, extra_content) are listed
// so that they are never skipped: a non-null value sends the event to
// encoding/json.
var (
	chunkKeys    = []string{"id", "object", "created", "model", "system_fingerprint", "choices", "usage", "citations", "search_results", "error"}
	choiceKeys   = []string{"index", "delta", "logprobs", "finish_reason"}
	deltaKeys    = []string{"role", "content", "refusal", "tool_calls", "annotations"}
	toolKeys     = []string{"index", "id", "type", "function", "extra_content"}
	functionKeys = []string{"name", "arguments"}
	usageKeys    = []string{"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details", "completion_tokens_details"}
	promptKeys   = []string{"cached_tokens", "audio_tokens"}
	complKeys    = []string{"reasoning_tokens", "audio_tokens", "accepted_prediction_tokens", "rejected_prediction_tokens"}
)

// known returns the constant for values every stream repeats, so they
// cost no allocation; other values are copied.
func known(b []byte) string {
	switch string(b) {
	case "assistant":
		return "assistant"
	case "function":
		return "function"
	case "stop":
		return "stop"
	case "length":
		return "length"
	case "tool_calls":
		return "tool_calls"
	case "content_filter":
		return "content_filter"
	case "":
		return ""
	}
	return string(b)
}

func (p *chunkParser) chunk() bool {
	c := &p.ev.ChatChunk
	ok := p.object(chunkKeys, func(k int) bool {
		switch k {
		case 0, 1, 3:
			if p.null() {
				return true
			}
			b, ok := p.str()
			if !ok {
				return false
			}
			switch k {
			case 0:
				c.ID = p.cs.intern(&p.cs.id, b)
			case 1:
				c.Object = p.cs.intern(&p.cs.object, b)
			default:
				c.Model = p.cs.intern(&p.cs.model, b)
			}
			return true
		case 2:
			if p.null() {
				return true
			}
			n, ok := p.integer()
			c.Created = n
			return ok
		case 4:
			c.SystemFingerprint = nil
			if p.null() {
				return true
			}
			b, ok := p.str()
			p.ev.fprint = p.cs.intern(&p.cs.fprint, b)
			c.SystemFingerprint = &p.ev.fprint
			return ok
		case 5:
			c.Choices = nil
			if p.null() {
				return true
			}
			c.Choices = p.ev.choice[:0]
			return p.array(func() bool {
				c.Choices = append(c.Choices, engine.ChunkChoice{})
				return p.choice(&c.Choices[len(c.Choices)-1], len(c.Choices) == 1)
			})
		case 6:
			c.Usage = nil
			if p.null() {
				return true
			}
			c.Usage = new(engine.Usage)
			return p.usage(c.Usage)
		case 7, 8:
			return p.null()
		default:
			// error: encoding/json gives even a null to json.RawMessage.
			return false
		}
	})
	p.ws()
	return ok && p.i == len(p.b)
}

// choice decodes one element of choices; first says it may use the
// event's own storage for its strings.
func (p *chunkParser) choice(ch *engine.ChunkChoice, first bool) bool {
	return p.object(choiceKeys, func(k int) bool {
		switch k {
		case 0:
			if p.null() {
				return true
			}
			n, ok := p.integer()
			ch.Index = int(n)
			return ok
		case 1:
			return p.null() || p.delta(&ch.Delta, first)
		case 2:
			ch.Logprobs = nil
			return p.null()
		default:
			ch.FinishReason = nil
			if p.null() {
				return true
			}
			b, ok := p.str()
			ch.FinishReason = p.slot(&p.ev.finish, first, known(b))
			return ok
		}
	})
}

// slot stores v in *own when first, else in a new string, and returns
// the pointer.
func (p *chunkParser) slot(own *string, first bool, v string) *string {
	if !first {
		own = new(string)
	}
	*own = v
	return own
}

func (p *chunkParser) delta(d *engine.Delta, first bool) bool {
	return p.object(deltaKeys, func(k int) bool {
		switch k {
		case 0:
			if p.null() {
				return true
			}
			b, ok := p.str()
			d.Role = known(b)
			return ok
		case 1, 2:
			if p.null() {
				if k == 1 {
					d.Content = nil
				} else {
					d.Refusal = nil
				}
				return true
			}
			b, ok := p.str()
			if k == 1 {
				d.Content = p.slot(&p.ev.content, first, string(b))
			} else {
				d.Refusal = p.slot(nil, false, string(b))
			}
			return ok
		case 3:
			d.ToolCalls = nil
			if p.null() {
				return true
			}
			d.ToolCalls = []engine.ToolCall{}
			return p.array(func() bool {
				d.ToolCalls = append(d.ToolCalls, engine.ToolCall{})
				return p.toolCall(&d.ToolCalls[len(d.ToolCalls)-1])
			})
		default:
			d.Annotations = nil
			return p.null()
		}
	})
}

func (p *chunkParser) toolCall(tc *engine.ToolCall) bool {
	return p.object(toolKeys, func(k int) bool {
		switch k {
		case 0:
			tc.Index = nil
			if p.null() {
				return true
			}
			n, ok := p.integer()
			i := int(n)
			tc.Index = &i
			return ok
		case 1, 2:
			if p.null() {
				return true
			}
			b, ok := p.str()
			if k == 1 {
				tc.ID = string(b)
			} else {
				tc.Type = known(b)
			}
			return ok
		case 3:
			return p.null() || p.object(functionKeys, func(k int) bool {
				if p.null() {
					return true
				}
				b, ok := p.str()
				if k == 0 {
					tc.Function.Name = string(b)
				} else {
					tc.Function.Arguments = string(b)
				}
				return ok
			})
		default:
			return false
		}
	})
}

func (p *chunkParser) usage(u *engine.Usage) bool {
	return p.object(usageKeys, func(k int) bool {
		switch k {
		case 0, 1, 2:
			return p.intInto([]*int{&u.PromptTokens, &u.CompletionTokens, &u.TotalTokens}[k])
		case 3:
			u.PromptTokensDetails = nil
			if p.null() {
				return true
			}
			d := new(engine.PromptTokensDetails)
			u.PromptTokensDetails = d
			return p.object(promptKeys, func(k int) bool {
				return p.intInto([]*int{&d.CachedTokens, &d.AudioTokens}[k])
			})
		default:
			u.CompletionTokensDetails = nil
			if p.null() {
				return true
			}
			d := new(engine.CompletionTokensDetails)
			u.CompletionTokensDetails = d
			return p.object(complKeys, func(k int) bool {
				return p.intInto([]*int{&d.ReasoningTokens, &d.AudioTokens, &d.AcceptedPredictionTokens, &d.RejectedPredictionTokens}[k])
			})
		}
	})
}

// intInto decodes an integer or null (which leaves *dst as it is, as
// encoding/json does).
func (p *chunkParser) intInto(dst *int) bool {
	if p.null() {
		return true
	}
	n, ok := p.integer()
	*dst = int(n)
	return ok
}
