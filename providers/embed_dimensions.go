package providers

import (
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// Which embedding models can shorten their vectors on request, and the
// wire field each host reads it from:
//   - OpenAI: "dimensions", text-embedding-3-* only
//     (https://platform.openai.com/docs/api-reference/embeddings/create).
//   - Mistral: "output_dimension", codestral-embed only
//     (https://docs.mistral.ai/capabilities/embeddings/code_embeddings/).
//   - Fireworks: "dimensions" (Matryoshka models such as nomic-embed-text-v1.5).
//   - Ollama and other OpenAI-compatible servers: "dimensions", which the
//     server applies when its model can; Hearth checks the answer's size.
//   - Google: outputDimensionality (gemini-embedding-001, text-embedding-004).
//   - Cohere: output_dimension, embed-v4.0 only.
//
// Other hosts and models are refused with a 400 naming "dimensions".

// embedDimensionsField returns the wire field of req.Dimensions on an
// OpenAI-wire host ("" when none is asked for), or the refusal.
func embedDimensionsField(h *host, req *engine.EmbedRequest) (string, error) {
	if req.Dimensions <= 0 {
		return "", nil
	}
	switch {
	case h.name == "openai" && strings.HasPrefix(req.Model, "text-embedding-3"):
		return "dimensions", nil
	case h.name == "mistral" && strings.HasPrefix(req.Model, "codestral-embed"):
		return "output_dimension", nil
	case h.name == "fireworks" || h.local:
		return "dimensions", nil
	}
	return "", refuseDimensions(h.name, req.Model)
}

// refuseDimensions is the 400 of a model that makes vectors of one size.
func refuseDimensions(provider, model string) error {
	return engine.FieldError("dimensions", "%s:%s makes vectors of one size and cannot shorten them; omit dimensions (models that can: openai:text-embedding-3-*, google:gemini-embedding-001, cohere:embed-v4.0, mistral:codestral-embed, and local servers whose model supports it)", provider, model)
}
