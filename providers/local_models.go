package providers

import (
	"context"
	"net/http"
	"sort"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// LocalModels asks a local provider's server (ollama, openai-compatible,
// the extra providers) which models it has: GET <base URL>/models, the
// OpenAI-compatible listing Ollama, vLLM and llama.cpp serve. ok is false
// for other providers and for a local one without a base URL. Models whose
// id says "embed" are listed as type "embedding", the others as "text".
func (r *Registry) LocalModels(ctx context.Context, provider string) (models []engine.ModelInfo, ok bool, err error) {
	o, isOpenAI := r.chat[provider].(*OpenAI)
	if !isOpenAI || !o.host.local {
		return nil, false, nil
	}
	call, err := o.c.send(ctx, http.MethodGet, o.baseURL+"/models", nil, false, o.headers(r.keys[provider]))
	if err != nil {
		return nil, true, err
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := decodeResponse(provider, call, &list); err != nil {
		return nil, true, err
	}
	models = []engine.ModelInfo{}
	for _, m := range list.Data {
		if m.ID == "" {
			continue
		}
		kind := "text"
		if strings.Contains(strings.ToLower(m.ID), "embed") {
			kind = "embedding"
		}
		models = append(models, engine.ModelInfo{ID: provider + ":" + m.ID, Provider: provider, Type: kind})
	}
	sort.Slice(models, func(i, j int) bool { return models[i].ID < models[j].ID })
	return models, true, nil
}

// LocalProviders lists the configured local providers, sorted.
func (r *Registry) LocalProviders() []string {
	var out []string
	for name, m := range r.chat {
		if o, ok := m.(*OpenAI); ok && o.host.local {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
