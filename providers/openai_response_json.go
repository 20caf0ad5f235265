package providers

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/jsonfast"
)

// decodeChatResponse decodes a non-stream chat completion
// (https://platform.openai.com/docs/api-reference/chat/object), giving
// the same value and error as json.Unmarshal into a new
// engine.ChatResponse. The hand-written path reads id, object, created,
// model, system_fingerprint, choices (index, message with role, content,
// refusal, tool calls and empty annotations, null logprobs,
// finish_reason) and usage with its details, and skips keys no field
// matches; anything else (annotations, logprobs, escaped or case-folded
// keys, numbers that are not plain integers, invalid UTF-8, invalid JSON)
// goes through encoding/json (see package jsonfast, which checks the
// syntax as it reads), so the value cannot differ.
// TestDecodeChatResponseMatchesEncodingJSON and FuzzDecodeChatResponse
// compare both.
func decodeChatResponse(raw []byte) (*engine.ChatResponse, error) {
	resp, _, err := decodeChatResponseSources(raw)
	return resp, err
}

// decodeChatResponseSources is decodeChatResponse that also reports
// whether the answer may name web sources (decodeWebSources), as
// mayNameSources does, without its two searches of the whole answer when
// the hand-written path read it: a top-level key spelt exactly
// "citations" or "search_results" was met. Only such a key can give
// decodeWebSources a value, and on the hand-written path a key that
// differs from them in case only sends the answer to encoding/json, where
// mayNameSources decides. TestChatResponseSourcesAsSearch and
// FuzzChatResponseSources compare both.
func decodeChatResponseSources(raw []byte) (*engine.ChatResponse, bool, error) {
	room := new(chatResponseRoom)
	resp := &room.resp
	var sources bool
	if r := jsonfast.NewReader(raw); readChatResponse(&r, room, &sources) && r.End() {
		return resp, sources, nil
	}
	*resp = engine.ChatResponse{}
	if err := json.Unmarshal(raw, resp); err != nil {
		return nil, false, err
	}
	return resp, mayNameSources(raw), nil
}

// mayNameSources reports whether raw holds "citations" or
// "search_results" anywhere.
func mayNameSources(raw []byte) bool {
	return bytes.Contains(raw, []byte(`"citations"`)) || bytes.Contains(raw, []byte(`"search_results"`))
}

var (
	responseNames         = []string{"id", "object", "created", "model", "choices", "usage", "system_fingerprint", "citations", "search_results"}
	choiceNames           = []string{"index", "message", "logprobs", "finish_reason"}
	responseMessageNames  = []string{"role", "content", "refusal", "tool_calls", "annotations"}
	usageNames            = []string{"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details", "completion_tokens_details"}
	promptDetailNames     = []string{"cached_tokens", "audio_tokens"}
	completionDetailNames = []string{"reasoning_tokens", "audio_tokens", "accepted_prediction_tokens", "rejected_prediction_tokens"}

	// The strings every answer repeats are constants: no allocation each.
	responseObjects = []string{"chat.completion"}
	responseRoles   = []string{"assistant"}
	finishReasons   = []string{"stop", "length", "tool_calls", "content_filter", "function_call"}
)

// chatResponseRoom is the memory of an answer the hand-written path
// reads, in one allocation: the response, its first choice, its usage
// details and the strings its first choice's content and its
// system_fingerprint point to. A second choice, or a second string, is
// allocated as before.
type chatResponseRoom struct {
	resp       engine.ChatResponse
	choice     [1]engine.Choice
	prompt     engine.PromptTokensDetails
	completion engine.CompletionTokensDetails
	strs       [2]string
	nstr       int
	details    uint8 // 1: prompt handed out, 2: completion handed out
}

// stringPtr returns a pointer to s, kept in the room while it has space.
func (m *chatResponseRoom) stringPtr(s string) *string {
	if m == nil || m.nstr == len(m.strs) {
		p := new(string)
		*p = s
		return p
	}
	p := &m.strs[m.nstr]
	m.nstr++
	*p = s
	return p
}

// promptDetails and completionDetails return the room's usage details the
// first time (nil room: a new one).
func (m *chatResponseRoom) promptDetails() *engine.PromptTokensDetails {
	if m == nil || m.details&1 != 0 {
		return new(engine.PromptTokensDetails)
	}
	m.details |= 1
	return &m.prompt
}

func (m *chatResponseRoom) completionDetails() *engine.CompletionTokensDetails {
	if m == nil || m.details&2 != 0 {
		return new(engine.CompletionTokensDetails)
	}
	m.details |= 2
	return &m.completion
}

// models are the model names of recent answers: an answer naming one of
// them (most answers of a host name the same model) reuses its string
// instead of allocating its own. Only names without a backslash are kept,
// so that an answer whose raw text equals one has no escape and decodes
// to that very text. They live in this process's memory, immutable once
// stored; with several Hearth nodes each keeps its own, and nothing needs
// to agree.
var (
	models    [4]atomic.Pointer[string]
	modelNext atomic.Uint32
)

// readModel is jsonfast.ReadString for an answer's model, reusing models.
func readModel(r *jsonfast.Reader, out *string) bool {
	if r.Null() {
		return true
	}
	var known [len(models)]string
	for i := range models {
		if p := models[i].Load(); p != nil {
			known[i] = *p
		}
	}
	s, ok := r.Intern(known[:])
	*out = s
	if ok && s != "" && !slices.Contains(known[:], s) && !strings.Contains(s, `\`) {
		p := new(string)
		*p = s
		models[modelNext.Add(1)%uint32(len(models))].Store(p)
	}
	return ok
}

// readStringPtr is jsonfast.ReadStringPtr with the string kept in m.
func readStringPtr(r *jsonfast.Reader, m *chatResponseRoom, out **string) bool {
	if r.Null() {
		return true
	}
	s, ok := r.String()
	*out = m.stringPtr(s)
	return ok
}

// readChatResponse reads an answer into m.resp; *sources is set when it
// has a citations or search_results key (skipped here).
func readChatResponse(r *jsonfast.Reader, m *chatResponseRoom, sources *bool) bool {
	resp := &m.resp
	return r.Object(responseNames, func(k int) bool {
		switch k {
		case 0:
			return jsonfast.ReadString(r, &resp.ID)
		case 1:
			return jsonfast.ReadIntern(r, &resp.Object, responseObjects)
		case 2:
			return jsonfast.ReadInt64(r, &resp.Created)
		case 3:
			return readModel(r, &resp.Model)
		case 4:
			return readChoices(r, m)
		case 5:
			return readUsage(r, &resp.Usage, m)
		case 6:
			return readStringPtr(r, m, &resp.SystemFingerprint)
		default:
			*sources = true
			return r.Skip()
		}
	})
}

// readChoices is jsonfast.ReadSlice of the choices, the first one in m.
func readChoices(r *jsonfast.Reader, m *chatResponseRoom) bool {
	if r.Null() {
		return true
	}
	s := m.choice[:0]
	ok := r.Array(func() bool {
		s = append(s, engine.Choice{})
		return readChoice(r, &s[len(s)-1], m)
	})
	m.resp.Choices = s
	return ok
}

func readChoice(r *jsonfast.Reader, c *engine.Choice, m *chatResponseRoom) bool {
	return r.Null() || r.Object(choiceNames, func(k int) bool {
		switch k {
		case 0:
			return jsonfast.ReadInt(r, &c.Index)
		case 1:
			return r.Null() || r.Object(responseMessageNames, func(k int) bool { return readResponseMessage(r, &c.Message, k, m) })
		case 2:
			return r.Null()
		default:
			return jsonfast.ReadIntern(r, &c.FinishReason, finishReasons)
		}
	})
}

func readResponseMessage(r *jsonfast.Reader, m *engine.ResponseMessage, k int, room *chatResponseRoom) bool {
	switch k {
	case 0:
		return jsonfast.ReadIntern(r, &m.Role, responseRoles)
	case 1:
		return readStringPtr(r, room, &m.Content)
	case 2:
		return readStringPtr(r, room, &m.Refusal)
	case 3:
		return jsonfast.ReadSlice(r, &m.ToolCalls, func(tc *engine.ToolCall) bool { return engine.ReadToolCall(r, tc) })
	default:
		// Only null and [] are read here: an annotation is a map to
		// encoding/json.
		if r.Null() {
			return true
		}
		m.Annotations = []any{}
		return r.Array(func() bool { return false })
	}
}

// readUsage reads a usage object into u, its details in m (nil: new ones).
func readUsage(r *jsonfast.Reader, u *engine.Usage, m *chatResponseRoom) bool {
	return r.Null() || r.Object(usageNames, func(k int) bool {
		switch k {
		case 0:
			return jsonfast.ReadInt(r, &u.PromptTokens)
		case 1:
			return jsonfast.ReadInt(r, &u.CompletionTokens)
		case 2:
			return jsonfast.ReadInt(r, &u.TotalTokens)
		case 3:
			if r.Null() {
				return true
			}
			d := m.promptDetails()
			u.PromptTokensDetails = d
			return r.Object(promptDetailNames, func(k int) bool {
				if k == 0 {
					return jsonfast.ReadInt(r, &d.CachedTokens)
				}
				return jsonfast.ReadInt(r, &d.AudioTokens)
			})
		default:
			if r.Null() {
				return true
			}
			d := m.completionDetails()
			u.CompletionTokensDetails = d
			return r.Object(completionDetailNames, func(k int) bool {
				switch k {
				case 0:
					return jsonfast.ReadInt(r, &d.ReasoningTokens)
				case 1:
					return jsonfast.ReadInt(r, &d.AudioTokens)
				case 2:
					return jsonfast.ReadInt(r, &d.AcceptedPredictionTokens)
				default:
					return jsonfast.ReadInt(r, &d.RejectedPredictionTokens)
				}
			})
		}
	})
}
