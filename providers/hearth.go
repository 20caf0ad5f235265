package providers

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hearth-dev/hearth/engine"
)

// The "hearth" provider holds TEST DOUBLES: deterministic, offline stand-ins
// for a chat model and an embedder, so demos and users' own test suites can
// run apps against Hearth without keys or network. They are not language
// models and produce no useful text.
const (
	// EchoModel ("hearth:echo") answers with the last user message.
	EchoModel = "echo"
	// HashEmbedModel ("hearth:hash-embed") embeds by feature hashing.
	HashEmbedModel = "hash-embed"
	// HashEmbedDims is the size of hash-embed vectors.
	HashEmbedDims = 256
	// echoDirective makes hearth:echo call a tool: "call_tool:<name> {json args}".
	echoDirective = "call_tool:"
	// moderationFlag makes the hearth moderator flag an input.
	moderationFlag = "[flag]"
)

// Echo is the hearth:echo test double. Its behaviour, all deterministic:
//   - With response_format json_object or json_schema it answers the JSON
//     object {"echo": "<last user message>"}.
//   - When tools are offered and the last user message contains
//     "call_tool:<name> {json args}", it calls that tool with those arguments.
//     A forced tool_choice calls the named function (arguments from the
//     directive when it names the same tool, else {}); tool_choice
//     "required" without a directive calls the first tool with {}.
//   - Otherwise it answers with the text of the last user message
//     ("(no user message)" when there is none); after a tool result it
//     answers "tool result: <content>".
//   - max_tokens cuts the answer to that many words, finish_reason "length".
//   - Usage counts whitespace-separated words. Streams send one word per chunk.
type Echo struct{}

var (
	_ engine.ChatModel = Echo{}
	_ engine.Embedder  = HashEmbed{}
	_ engine.Moderator = HashModerator{}
)

type echoAnswer struct {
	text   string
	calls  []engine.ToolCall
	finish string
	usage  engine.Usage
}

func echoRespond(req *engine.ChatRequest) echoAnswer {
	var last, prompt string
	var words int
	for _, m := range req.Messages {
		words += len(strings.Fields(m.Content.String()))
	}
	lastRole := ""
	if n := len(req.Messages); n > 0 {
		lastRole = req.Messages[n-1].Role
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			last = req.Messages[i].Content.String()
			break
		}
	}
	a := echoAnswer{finish: "stop"}
	name, args := parseDirective(last)
	if len(req.Tools) > 0 && lastRole != "tool" && (req.ToolChoice == nil || req.ToolChoice.Mode != "none") {
		tc := req.ToolChoice
		switch {
		case tc != nil && tc.Function != "":
			if name != tc.Function {
				args = "{}"
			}
			name = tc.Function
		case name != "" && hasTool(req.Tools, name):
		case tc != nil && tc.Mode == "required":
			name, args = req.Tools[0].Function.Name, "{}"
		default:
			name = ""
		}
		if name != "" {
			a.calls = []engine.ToolCall{{ID: "call_echo_0", Type: "function", Function: engine.FunctionCall{Name: name, Arguments: args}}}
			a.finish = "tool_calls"
		}
	}
	if a.calls == nil {
		switch {
		case lastRole == "tool":
			prompt = "tool result: " + req.Messages[len(req.Messages)-1].Content.String()
		case last == "":
			prompt = "(no user message)"
		default:
			prompt = last
		}
		if req.MaxTokens != nil && *req.MaxTokens >= 0 {
			if f := strings.Fields(prompt); len(f) > *req.MaxTokens {
				prompt = strings.Join(f[:*req.MaxTokens], " ")
				a.finish = "length"
			}
		}
		if rf := req.ResponseFormat; rf != nil && (rf.Type == "json_object" || rf.Type == "json_schema") {
			b, _ := json.Marshal(map[string]string{"echo": prompt})
			prompt = string(b)
		}
		a.text = prompt
	}
	out := len(strings.Fields(a.text))
	for _, c := range a.calls {
		out += 1 + len(strings.Fields(c.Function.Arguments))
	}
	a.usage = engine.Usage{PromptTokens: words, CompletionTokens: out, TotalTokens: words + out}
	return a
}

// parseDirective finds "call_tool:<name> {json}" in s; args default to {}.
func parseDirective(s string) (name, args string) {
	i := strings.Index(s, echoDirective)
	if i < 0 {
		return "", ""
	}
	rest := s[i+len(echoDirective):]
	end := strings.IndexFunc(rest, unicode.IsSpace)
	if end < 0 {
		end = len(rest)
	}
	name, rest = rest[:end], strings.TrimSpace(rest[end:])
	args = "{}"
	if strings.HasPrefix(rest, "{") {
		dec := json.NewDecoder(strings.NewReader(rest))
		var raw json.RawMessage
		if dec.Decode(&raw) == nil {
			args = string(raw)
		}
	}
	return name, args
}

func hasTool(tools []engine.Tool, name string) bool {
	for _, t := range tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}

func checkEchoModel(model string) error {
	if model != EchoModel {
		return engine.FieldError("model", "hearth has no chat model %q (the offline test double is hearth:%s)", model, EchoModel)
	}
	return nil
}

// Chat answers deterministically, without network.
func (Echo) Chat(ctx context.Context, req *engine.ChatRequest) (*engine.ChatResponse, error) {
	if err := checkEchoModel(req.Model); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, transportError("hearth", ctx, err)
	}
	a := echoRespond(req)
	msg := engine.ResponseMessage{Role: "assistant", ToolCalls: a.calls, Annotations: []any{}}
	if a.calls == nil {
		msg.Content = &a.text
	}
	return &engine.ChatResponse{ID: "chatcmpl-hearth-echo", Object: "chat.completion", Created: time.Now().Unix(),
		Model: "hearth:" + EchoModel, Choices: []engine.Choice{{Message: msg, FinishReason: a.finish}}, Usage: a.usage}, nil
}

// ChatStream streams the same answer as Chat, one word per chunk, a tool
// call split into name and argument chunks, then a finish and a usage chunk.
func (Echo) ChatStream(ctx context.Context, req *engine.ChatRequest) (engine.ChatStream, error) {
	if err := checkEchoModel(req.Model); err != nil {
		return nil, err
	}
	a := echoRespond(req)
	b := newChunkBuilder("chatcmpl-hearth-echo", "hearth:"+EchoModel)
	chunks := []*engine.ChatChunk{b.role()}
	for _, w := range splitWords(a.text) {
		chunks = append(chunks, b.text(w))
	}
	for i, c := range a.calls {
		chunks = append(chunks, b.toolStart(i, c.ID, c.Function.Name, ""))
		args := c.Function.Arguments
		half := len(args) / 2
		chunks = append(chunks, b.toolArgs(i, args[:half]), b.toolArgs(i, args[half:]))
	}
	chunks = append(chunks, b.chunk(engine.Delta{}, a.finish), b.usage(a.usage))
	return &sliceStream{ctx: ctx, chunks: chunks}, nil
}

// splitWords splits s into pieces that concatenate back to s, each
// ending after a run of spaces.
func splitWords(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			out = append(out, s)
			break
		}
		j := i
		for j < len(s) && s[j] == ' ' {
			j++
		}
		out = append(out, s[:j])
		s = s[j:]
	}
	return out
}

// sliceStream replays prepared chunks; it honours ctx cancellation.
type sliceStream struct {
	ctx    context.Context
	chunks []*engine.ChatChunk
}

func (s *sliceStream) Recv() (*engine.ChatChunk, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, transportError("hearth", s.ctx, err)
	}
	if len(s.chunks) == 0 {
		return nil, io.EOF
	}
	c := s.chunks[0]
	s.chunks = s.chunks[1:]
	return c, nil
}

func (s *sliceStream) Close() error { s.chunks = nil; return nil }

// HashEmbed is the hearth:hash-embed test double: a deterministic feature
// hashing of lower-cased words and word bigrams into HashEmbedDims
// dimensions, L2-normalised. Texts sharing words get similar vectors, which
// is enough for retrieval tests; it carries no meaning beyond that.
type HashEmbed struct{}

// Embed embeds offline.
func (HashEmbed) Embed(ctx context.Context, req *engine.EmbedRequest) ([][]float32, error) {
	if req.Model != HashEmbedModel {
		return nil, engine.FieldError("embedding_model", "hearth has no embedding model %q (the offline test double is hearth:%s)", req.Model, HashEmbedModel)
	}
	if req.Dimensions > 0 && req.Dimensions != HashEmbedDims {
		return nil, refuseDimensions(HearthProvider, req.Model)
	}
	out := make([][]float32, len(req.Inputs))
	for i, s := range req.Inputs {
		out[i] = HashVector(s)
	}
	return out, ctx.Err()
}

// MaxBatch has no real limit; 1024 keeps batches bounded.
func (HashEmbed) MaxBatch() int { return 1024 }

// HashVector returns the hash-embed vector of s.
func HashVector(s string) []float32 {
	v := make([]float32, HashEmbedDims)
	add := func(x uint64, weight float32) {
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		v[x%HashEmbedDims] += sign * weight
	}
	// Features are the FNV-1a hashes of each word (a run of letters and
	// digits of the lower-cased text) and of each pair of words joined by
	// a space; the pair's hash continues the first word's. Both hashes of
	// a word are computed in one pass over its bytes, with no word list.
	// All-ASCII text (most) is lowered byte by byte as it is read, so
	// without a lower-cased copy; other text is lowered first.
	lower, ascii := s, isASCIIText(s)
	if !ascii {
		lower = strings.ToLower(s)
	}
	var prev, h, hp uint64
	inWord, words := false, 0
	endWord := func() {
		add(h, 1)
		if words > 0 {
			add(hp, 0.5)
		}
		prev, inWord, words = h, false, words+1
	}
	for i := 0; i < len(lower); {
		c, size := rune(lower[i]), 1
		var word bool
		if c < utf8.RuneSelf {
			if ascii && 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			word = hashWordByte[c]
		} else {
			c, size = utf8.DecodeRuneInString(lower[i:])
			word = unicode.IsLetter(c) || unicode.IsNumber(c)
		}
		switch {
		case word && !inWord:
			h, hp, inWord = fnvOffset64, (prev^' ')*fnvPrime64, true
			fallthrough
		case word:
			if c < utf8.RuneSelf {
				h, hp = (h^uint64(c))*fnvPrime64, (hp^uint64(c))*fnvPrime64
				break
			}
			for _, b := range []byte(lower[i : i+size]) {
				h, hp = (h^uint64(b))*fnvPrime64, (hp^uint64(b))*fnvPrime64
			}
		case inWord:
			endWord()
		}
		i += size
	}
	if inWord {
		endWord()
	}
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		v[0] = 1
		return v
	}
	inv := float32(1 / math.Sqrt(norm))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// isASCIIText reports whether s is all ASCII.
func isASCIIText(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if (s[i]|s[i+1]|s[i+2]|s[i+3]|s[i+4]|s[i+5]|s[i+6]|s[i+7])&0x80 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hashWordByte marks the ASCII letters and digits (unicode.IsLetter or
// unicode.IsNumber of an ASCII byte).
var hashWordByte = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = unicode.IsLetter(rune(c)) || unicode.IsNumber(rune(c))
	}
	return t
}()

// FNV-1a, 64 bits (hash/fnv, without its allocations).
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// HashModerator is the hearth moderation test double: it flags an input
// containing "[flag]" under the category "test".
type HashModerator struct{}

// Moderate flags inputs containing "[flag]".
func (HashModerator) Moderate(_ context.Context, _ string, input []string) (*engine.ModerationResult, error) {
	for _, s := range input {
		if strings.Contains(s, moderationFlag) {
			return &engine.ModerationResult{Flagged: true, Categories: []string{"test"}}, nil
		}
	}
	return &engine.ModerationResult{}, nil
}
