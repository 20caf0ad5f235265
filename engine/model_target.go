package engine

import "strings"

// ModelTarget is what the model of an OpenAI-compatible request names:
// a provider model (Ref) or a pipe (Pipe set, Owner empty for the key's
// own owner).
type ModelTarget struct {
	Ref   ModelRef
	Pipe  string
	Owner string
}

// ParseModelTarget reads "pipe:<name>", "pipe:<owner>/<name>",
// "provider:model" or "provider/model". The separator that comes first
// wins, so "ollama/llama3:8b" is ollama's llama3:8b and
// "openrouter:meta-llama/llama-3" is openrouter's meta-llama/llama-3.
func ParseModelTarget(field, id string) (ModelTarget, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return ModelTarget{}, FieldError(field, "is required (provider:model, provider/model or pipe:<name>)")
	}
	if rest, ok := strings.CutPrefix(id, "pipe:"); ok {
		owner, name, found := strings.Cut(rest, "/")
		if !found {
			owner, name = "", rest
		} else if owner == "" {
			return ModelTarget{}, FieldError(field, "%q: the owner of pipe:<owner>/<name> is empty", id)
		}
		if err := ValidatePipeName(field, name); err != nil {
			return ModelTarget{}, err
		}
		return ModelTarget{Pipe: name, Owner: strings.ToLower(owner)}, nil
	}
	colon, slash := strings.IndexByte(id, ':'), strings.IndexByte(id, '/')
	sep := colon
	if slash >= 0 && (colon < 0 || slash < colon) {
		sep = slash
	}
	if sep <= 0 || sep == len(id)-1 {
		return ModelTarget{}, FieldError(field, "model %q must name its provider: provider:model (openai:gpt-4o-mini), provider/model (openai/gpt-4o-mini) or pipe:<name>", id)
	}
	return ModelTarget{Ref: ModelRef{Provider: strings.ToLower(id[:sep]), Model: id[sep+1:]}}, nil
}
