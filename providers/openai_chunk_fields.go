package providers

import (
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/jsonfast"
)

// The keys of each object of a chunk that a struct field matches, in the
// order the parsers below number them (tool calls and usage are read as
// by engine.ReadToolCall and readChunkUsage). Keys the
// parsers do not decode (error, web sources, logprobs, annotations) are
// listed so that they are never skipped: a non-null value sends the
// event to encoding/json.
var (
	chunkKeys  = []string{"id", "object", "created", "model", "system_fingerprint", "choices", "usage", "citations", "search_results", "error"}
	choiceKeys = []string{"index", "delta", "logprobs", "finish_reason"}
	deltaKeys  = []string{"role", "content", "refusal", "tool_calls", "annotations"}

	usageKeys            = []string{"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details", "completion_tokens_details"}
	promptDetailKeys     = []string{"cached_tokens", "audio_tokens"}
	completionDetailKeys = []string{"reasoning_tokens", "audio_tokens", "accepted_prediction_tokens", "rejected_prediction_tokens"}

	// The strings every stream repeats are constants: no allocation each.
	deltaRoles    = []string{"assistant"}
	finishReasons = []string{"stop", "length", "tool_calls", "content_filter", "function_call"}
)

func (p *chunkParser) chunk() bool {
	c := &p.ev.ChatChunk
	return p.Object(chunkKeys, func(k int) bool {
		switch k {
		case 0, 1, 3:
			if p.Null() {
				return true
			}
			b, ok := p.text()
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
			return jsonfast.ReadInt64(&p.Reader, &c.Created)
		case 4:
			c.SystemFingerprint = nil
			if p.Null() {
				return true
			}
			b, ok := p.text()
			p.ev.fprint = p.cs.intern(&p.cs.fprint, b)
			c.SystemFingerprint = &p.ev.fprint
			return ok
		case 5:
			c.Choices = nil
			if p.Null() {
				return true
			}
			c.Choices = p.ev.choice[:0]
			return p.Array(func() bool {
				c.Choices = append(c.Choices, engine.ChunkChoice{})
				return p.choice(&c.Choices[len(c.Choices)-1], len(c.Choices) == 1)
			})
		case 6:
			c.Usage = nil
			if p.Null() {
				return true
			}
			c.Usage = new(engine.Usage)
			return readChunkUsage(&p.Reader, c.Usage)
		case 7, 8:
			return p.Null()
		default:
			// error: encoding/json gives even a null to json.RawMessage.
			return false
		}
	})
}

// choice decodes one element of choices; first says it may use the
// event's own storage for its strings.
func (p *chunkParser) choice(ch *engine.ChunkChoice, first bool) bool {
	return p.Object(choiceKeys, func(k int) bool {
		switch k {
		case 0:
			return jsonfast.ReadInt(&p.Reader, &ch.Index)
		case 1:
			return p.Null() || p.delta(&ch.Delta, first)
		case 2:
			ch.Logprobs = nil
			return p.Null()
		default:
			ch.FinishReason = nil
			if p.Null() {
				return true
			}
			s, ok := p.Intern(finishReasons)
			ch.FinishReason = p.slot(&p.ev.finish, first, s)
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
	return p.Object(deltaKeys, func(k int) bool {
		switch k {
		case 0:
			return jsonfast.ReadIntern(&p.Reader, &d.Role, deltaRoles)
		case 1, 2:
			if p.Null() {
				if k == 1 {
					d.Content = nil
				} else {
					d.Refusal = nil
				}
				return true
			}
			b, ok := p.text()
			if k == 1 {
				d.Content = p.slot(&p.ev.content, first, p.cs.str(b))
			} else {
				d.Refusal = p.slot(nil, false, string(b))
			}
			return ok
		case 3:
			d.ToolCalls = nil
			if p.Null() {
				return true
			}
			d.ToolCalls = []engine.ToolCall{}
			return p.Array(func() bool {
				d.ToolCalls = append(d.ToolCalls, engine.ToolCall{})
				return engine.ReadToolCall(&p.Reader, &d.ToolCalls[len(d.ToolCalls)-1])
			})
		default:
			d.Annotations = nil
			return p.Null()
		}
	})
}

// readChunkUsage reads a chunk's usage object (or null) into u.
func readChunkUsage(r *jsonfast.Reader, u *engine.Usage) bool {
	return r.Null() || r.Object(usageKeys, func(k int) bool {
		switch k {
		case 0, 1, 2:
			return jsonfast.ReadInt(r, []*int{&u.PromptTokens, &u.CompletionTokens, &u.TotalTokens}[k])
		case 3:
			if r.Null() {
				return true
			}
			d := new(engine.PromptTokensDetails)
			u.PromptTokensDetails = d
			return readIntFields(r, promptDetailKeys, &d.CachedTokens, &d.AudioTokens)
		default:
			if r.Null() {
				return true
			}
			d := new(engine.CompletionTokensDetails)
			u.CompletionTokensDetails = d
			return readIntFields(r, completionDetailKeys, &d.ReasoningTokens, &d.AudioTokens, &d.AcceptedPredictionTokens, &d.RejectedPredictionTokens)
		}
	})
}

// readIntFields reads an object whose keys are keys into the ints that
// fields point to, in the same order.
func readIntFields(r *jsonfast.Reader, keys []string, fields ...*int) bool {
	return r.Object(keys, func(k int) bool { return jsonfast.ReadInt(r, fields[k]) })
}
