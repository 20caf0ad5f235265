package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
)

// MaxFallbackModels bounds the fallback list of a pipe, an agent run or an
// OpenAI-compatible request.
const MaxFallbackModels = 5

// ParseFallbackModels checks an ordered list of fallback model ids
// ("provider:model"); field names the request field for errors. Each
// provider must be configured for chat; duplicates are refused.
func ParseFallbackModels(field string, ids []string, providers Providers) ([]ModelRef, error) {
	if len(ids) > MaxFallbackModels {
		return nil, FieldError(field, "at most %d fallback models, got %d", MaxFallbackModels, len(ids))
	}
	seen := map[string]bool{}
	refs := make([]ModelRef, 0, len(ids))
	for i, id := range ids {
		f := fmt.Sprintf("%s[%d]", field, i)
		ref, err := ParseModelID(f, strings.TrimSpace(id))
		if err != nil {
			return nil, err
		}
		if seen[ref.String()] {
			return nil, FieldError(f, "model %q is listed twice", ref.String())
		}
		seen[ref.String()] = true
		if providers != nil {
			if _, err := providers.ChatModel(ref); err != nil {
				return nil, FieldError(f, "%s", strings.TrimPrefix(publicMessage(err), "model: "))
			}
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// Fallbackable reports whether a failed model call may be tried again on a
// fallback model: the provider could not be reached, timed out, was rate
// limited or failed with a 5xx. A refused request (4xx) or the caller's
// own cancellation is not: another model would not fix it.
func Fallbackable(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, ErrClientGone) {
		return false
	}
	switch ErrorCode(err) {
	case CodeUpstream, CodeUpstreamTimeout, CodeRateLimited, CodeUnavailable:
		return true
	}
	return false
}

// KeyScope is where a fallback model's provider key is resolved: the
// request's own key (used only for the primary model's provider, it is a
// key for that provider), then the pipe's and the owner's keysets, then
// the server's key.
type KeyScope struct {
	RequestKey, PipeID, Owner string
}

// FallbackChat is a ChatModel over an ordered list of models: the primary
// and its fallbacks. Its first call tries them in order while the failure
// is Fallbackable; a stream falls back only when opening it fails, so
// nothing has reached the client yet. Once a model answered, every later
// call of the same run (agent steps) goes to it. It is used by one run at
// a time; the mutex only guards Answered against a concurrent reader.
type FallbackChat struct {
	providers Providers
	keysets   *Keysets
	scope     KeyScope
	log       *slog.Logger
	refs      []ModelRef
	chats     []ChatModel

	mu     sync.Mutex
	chosen int
	keys   map[int]string
}

// NewFallbackChat wraps the primary model (already resolved, with its key
// in the requests it will be given) with its fallbacks.
func NewFallbackChat(p Providers, k *Keysets, scope KeyScope, log *slog.Logger, primary ModelRef, chat ChatModel, fallbacks []ModelRef) *FallbackChat {
	if log == nil {
		log = slog.Default()
	}
	f := &FallbackChat{providers: p, keysets: k, scope: scope, log: log, chosen: -1, keys: map[int]string{}}
	f.refs = append([]ModelRef{primary}, fallbacks...)
	f.chats = make([]ChatModel, len(f.refs))
	f.chats[0] = chat
	return f
}

// Answered is the model that answered (the primary until a call succeeded
// on another).
func (f *FallbackChat) Answered() ModelRef {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.chosen < 0 {
		return f.refs[0]
	}
	return f.refs[f.chosen]
}

// Chat implements ChatModel.
func (f *FallbackChat) Chat(ctx context.Context, req *ChatRequest) (*ChatResponse, error) {
	return tryModels(ctx, f, req, func(m ChatModel, r *ChatRequest) (*ChatResponse, error) { return m.Chat(ctx, r) })
}

// ChatStream implements ChatModel.
func (f *FallbackChat) ChatStream(ctx context.Context, req *ChatRequest) (ChatStream, error) {
	return tryModels(ctx, f, req, func(m ChatModel, r *ChatRequest) (ChatStream, error) { return m.ChatStream(ctx, r) })
}

// request is req addressed to model i: its model id and provider key.
func (f *FallbackChat) request(ctx context.Context, i int, req *ChatRequest) (ChatModel, *ChatRequest, error) {
	if i == 0 {
		return f.chats[0], req, nil
	}
	ref := f.refs[i]
	if f.chats[i] == nil {
		chat, err := f.providers.ChatModel(ref)
		if err != nil {
			return nil, nil, err
		}
		f.chats[i] = chat
	}
	key, ok := f.keys[i]
	if !ok {
		reqKey := ""
		if ref.Provider == f.refs[0].Provider {
			reqKey = f.scope.RequestKey
		}
		key = reqKey
		if f.keysets != nil {
			var err error
			if key, err = f.keysets.Resolve(ctx, ref.Provider, reqKey, f.scope.PipeID, f.scope.Owner); err != nil {
				return nil, nil, err
			}
		}
		f.keys[i] = key
	}
	r := *req
	r.Model, r.APIKey = ref.Model, key
	return f.chats[i], &r, nil
}

func tryModels[T any](ctx context.Context, f *FallbackChat, req *ChatRequest, call func(ChatModel, *ChatRequest) (T, error)) (T, error) {
	f.mu.Lock()
	chosen := f.chosen
	f.mu.Unlock()
	if chosen >= 0 {
		m, r, err := f.request(ctx, chosen, req)
		if err != nil {
			var zero T
			return zero, err
		}
		return call(m, r)
	}
	var first error
	for i := range f.refs {
		m, r, err := f.request(ctx, i, req)
		if err != nil {
			f.log.Warn("fallback model skipped", "model", f.refs[i].String(), "err", err)
			continue
		}
		v, err := call(m, r)
		if err == nil {
			f.mu.Lock()
			f.chosen = i
			f.mu.Unlock()
			if i > 0 {
				f.log.Warn("model fell back", "from", f.refs[0].String(), "to", f.refs[i].String(), "cause", first)
			}
			return v, nil
		}
		if first == nil {
			first = err
		}
		if !Fallbackable(ctx, err) {
			var zero T
			return zero, err
		}
		if i+1 < len(f.refs) {
			fallbackEvent(ctx, f.refs[i], f.refs[i+1], err)
		}
	}
	var zero T
	return zero, first
}

// useFallbacks wraps the run's model with the request's fallback models,
// or the pipe's when the request names none.
func (pr *PreparedRun) useFallbacks(in *RunRequest) error {
	refs := in.FallbackModels
	if refs == nil && len(pr.Pipe.FallbackModels) > 0 {
		var err error
		if refs, err = ParseFallbackModels("fallback_models", pr.Pipe.FallbackModels, pr.r.providers); err != nil {
			return err
		}
	}
	if len(refs) == 0 {
		return nil
	}
	if err := in.Principal.Scope.CheckModels(refs...); err != nil {
		return err
	}
	scope := KeyScope{RequestKey: in.LLMKey, PipeID: pr.Pipe.ID, Owner: pr.Pipe.Owner}
	pr.chat = NewFallbackChat(pr.r.providers, pr.r.keysets, scope, pr.r.log, pr.Ref, pr.chat, refs)
	return nil
}

// answered is the model that served the run (the primary unless it fell back).
func (pr *PreparedRun) answered() ModelRef {
	if f, ok := pr.chat.(*FallbackChat); ok {
		return f.Answered()
	}
	return pr.Ref
}

// AnsweredBy is the model a chain settled on, or ref without a chain.
func AnsweredBy(chain *FallbackChat, ref ModelRef) ModelRef {
	if chain == nil {
		return ref
	}
	return chain.Answered()
}
