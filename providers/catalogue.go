package providers

import "github.com/hearth-dev/hearth/engine"

// This file is the model catalogue served at /v1/models: list prices in
// USD per million tokens (text) or per image (image models, whose adapters
// come later). Prices are public list prices when this table was written;
// operators who pay other rates can treat them as estimates. A provider
// accepts model ids beyond this list: the catalogue informs, it does not
// restrict.

type price struct {
	model              string
	prompt, completion float64
	image              bool
	basePrice          float64
	sizes, qualities   []string
}

func text(model string, prompt, completion float64) price {
	return price{model: model, prompt: prompt, completion: completion}
}

func image(model string, base float64, sizes, qualities []string) price {
	return price{model: model, image: true, basePrice: base, sizes: sizes, qualities: qualities}
}

// Image sizes of the model families (width x height). Gemini image models
// and Imagen take an aspect ratio; these are the sizes each ratio yields.
// FLUX on Together takes any width and height: these are common ones.
var (
	geminiImageSizes = []string{"1024x1024", "832x1248", "1248x832", "864x1184", "1184x864", "896x1152", "1152x896", "768x1344", "1344x768", "1536x672"}
	imagenSizes      = []string{"1024x1024", "896x1280", "1280x896", "768x1408", "1408x768"}
	fluxSizes        = []string{"1024x1024", "1024x768", "768x1024", "1344x768", "768x1344", "1152x896", "896x1152", "512x512"}
)

var catalogue = map[string][]price{
	"openai": {
		text("gpt-5", 1.25, 10), text("gpt-5-mini", 0.25, 2), text("gpt-5-nano", 0.05, 0.4),
		text("gpt-4.1", 2, 8), text("gpt-4.1-mini", 0.4, 1.6), text("gpt-4.1-nano", 0.1, 0.4),
		text("gpt-4o", 2.5, 10), text("gpt-4o-mini", 0.15, 0.6),
		text("o3", 2, 8), text("o3-mini", 1.1, 4.4), text("o4-mini", 1.1, 4.4),
		text("gpt-4-turbo", 10, 30), text("gpt-3.5-turbo", 0.5, 1.5),
		image("gpt-image-1", 0.042, []string{"1024x1024", "1024x1536", "1536x1024", "auto"}, []string{"low", "medium", "high", "auto"}),
		image("dall-e-3", 0.04, []string{"1024x1024", "1792x1024", "1024x1792"}, []string{"standard", "hd"}),
		image("dall-e-2", 0.02, []string{"256x256", "512x512", "1024x1024"}, []string{"standard"}),
	},
	"anthropic": {
		text("claude-opus-4-1", 15, 75), text("claude-sonnet-4-5", 3, 15), text("claude-sonnet-4-0", 3, 15),
		text("claude-haiku-4-5", 1, 5), text("claude-3-7-sonnet-latest", 3, 15), text("claude-3-5-haiku-latest", 0.8, 4),
	},
	"google": {
		text("gemini-2.5-pro", 1.25, 10), text("gemini-2.5-flash", 0.3, 2.5), text("gemini-2.5-flash-lite", 0.1, 0.4),
		text("gemini-2.0-flash", 0.1, 0.4),
		image("imagen-4.0-generate-001", 0.04, imagenSizes, []string{"standard"}),
		image("imagen-4.0-ultra-generate-001", 0.06, imagenSizes, []string{"standard"}),
		image("imagen-4.0-fast-generate-001", 0.02, imagenSizes, []string{"standard"}),
		image("imagen-3.0-generate-002", 0.03, imagenSizes, []string{"standard"}),
		image("gemini-2.5-flash-image", 0.039, geminiImageSizes, []string{"standard"}),
		image("gemini-2.5-flash-image-preview", 0.039, geminiImageSizes, []string{"standard"}),
	},
	"cohere": {
		text("command-a-03-2025", 2.5, 10), text("command-r-plus-08-2024", 2.5, 10),
		text("command-r-08-2024", 0.15, 0.6), text("command-r7b-12-2024", 0.0375, 0.15),
	},
	"groq": {
		text("llama-3.3-70b-versatile", 0.59, 0.79), text("llama-3.1-8b-instant", 0.05, 0.08),
		text("openai/gpt-oss-120b", 0.15, 0.75), text("openai/gpt-oss-20b", 0.1, 0.5),
	},
	"together": {
		text("meta-llama/Llama-3.3-70B-Instruct-Turbo", 0.88, 0.88), text("deepseek-ai/DeepSeek-V3", 1.25, 1.25),
		text("Qwen/Qwen2.5-72B-Instruct-Turbo", 1.2, 1.2),
		image("black-forest-labs/FLUX.1-schnell-Free", 0, fluxSizes, nil),
		image("black-forest-labs/FLUX.1-schnell", 0.0027, fluxSizes, nil),
		image("black-forest-labs/FLUX.1-dev", 0.025, fluxSizes, nil),
		image("black-forest-labs/FLUX.1.1-pro", 0.04, fluxSizes, nil),
		image("black-forest-labs/FLUX.1-kontext-dev", 0.025, fluxSizes, nil),
		image("black-forest-labs/FLUX.1-kontext-pro", 0.04, fluxSizes, nil),
		image("black-forest-labs/FLUX.1-kontext-max", 0.08, fluxSizes, nil),
	},
	"fireworks": {
		text("accounts/fireworks/models/llama-v3p3-70b-instruct", 0.9, 0.9),
		text("accounts/fireworks/models/deepseek-v3", 0.9, 0.9),
	},
	"deepseek": {
		text("deepseek-chat", 0.27, 1.1), text("deepseek-reasoner", 0.55, 2.19),
	},
	"mistral": {
		text("mistral-large-latest", 2, 6), text("mistral-medium-latest", 0.4, 2), text("mistral-small-latest", 0.1, 0.3),
		text("codestral-latest", 0.3, 0.9), text("open-mistral-nemo", 0.15, 0.15),
	},
	"xai": {
		text("grok-4", 3, 15), text("grok-3", 3, 15), text("grok-3-mini", 0.3, 0.5),
	},
	"perplexity": {
		text("sonar", 1, 1), text("sonar-pro", 3, 15), text("sonar-reasoning", 1, 5), text("sonar-reasoning-pro", 2, 8),
	},
	"openrouter": {
		text("openai/gpt-4o-mini", 0.15, 0.6), text("anthropic/claude-sonnet-4.5", 3, 15),
		text("google/gemini-2.5-flash", 0.3, 2.5), text("meta-llama/llama-3.3-70b-instruct", 0.13, 0.4),
		image("google/gemini-2.5-flash-image", 0.039, geminiImageSizes, nil),
		image("google/gemini-2.5-flash-image-preview", 0.039, geminiImageSizes, nil),
	},
	"ollama": {
		text("llama3.2", 0, 0), text("qwen2.5", 0, 0),
	},
	// The hearth provider's entries are TEST DOUBLES, not models.
	"hearth": {
		text(EchoModel, 0, 0),
	},
}

// Catalogue returns the catalogue of the given providers (all of them when
// providers is empty), in the /v1/models shape.
func buildCatalogue(providers []string) map[string][]engine.ModelInfo {
	out := make(map[string][]engine.ModelInfo, len(providers))
	for _, p := range providers {
		for _, e := range catalogue[p] {
			out[p] = append(out[p], e.info(p))
		}
	}
	return out
}

// info is the /v1/models entry of e under provider p.
func (e price) info(p string) engine.ModelInfo {
	mi := engine.ModelInfo{ID: p + ":" + e.model, Provider: p, Type: "text"}
	if e.image {
		mi.Type = "image"
		mi.BasePrice = ptr(e.basePrice)
		mi.SupportedSizes, mi.SupportedQualities = e.sizes, e.qualities
	} else {
		mi.PromptCost, mi.CompletionCost = ptr(e.prompt), ptr(e.completion)
	}
	return mi
}

func ptr[T any](v T) *T { return &v }

// Cost returns the USD cost of a text call from the catalogue's list
// prices; ok is false when the model is not in the catalogue.
func Cost(ref engine.ModelRef, promptTokens, completionTokens int) (usd float64, ok bool) {
	for _, e := range catalogue[ref.Provider] {
		if e.model == ref.Model && !e.image {
			return (float64(promptTokens)*e.prompt + float64(completionTokens)*e.completion) / 1e6, true
		}
	}
	return 0, false
}

// CatalogueEntry returns the catalogue entry of a model; ok is false when
// the model is not listed. Image adapters read supportedSizes and
// supportedQualities from it, and refuse text models.
func CatalogueEntry(provider, model string) (info engine.ModelInfo, ok bool) {
	for _, e := range catalogue[provider] {
		if e.model == model {
			return e.info(provider), true
		}
	}
	return engine.ModelInfo{}, false
}

// ImageModels lists the catalogue's image model names of a provider.
func ImageModels(provider string) []string {
	var out []string
	for _, e := range catalogue[provider] {
		if e.image {
			out = append(out, e.model)
		}
	}
	return out
}
