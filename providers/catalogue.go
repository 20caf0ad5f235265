package providers

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/hearth-dev/hearth/engine"
)

// The model catalogue served at /v1/models is data: catalogue.json, with
// the date it was last checked against the providers' pages ("as_of") and
// the page of each provider. Prices are list prices in USD per million
// tokens (text) or per image (image models); operators who pay other
// rates can treat them as estimates. A provider accepts model ids beyond
// this list: the catalogue informs, it does not restrict. The file is
// compiled into the binary, so every node of a cluster serves the same
// catalogue for the same build.
//
//go:embed catalogue.json
var catalogueJSON []byte

type price struct {
	model              string
	prompt, completion float64
	image              bool
	basePrice          float64
	sizes, qualities   []string
}

// catalogueFile is the shape of catalogue.json.
type catalogueFile struct {
	AsOf      string `json:"as_of"`
	Providers map[string]struct {
		Source string `json:"source"`
		Models []struct {
			Model      string   `json:"model"`
			Prompt     *float64 `json:"prompt"`
			Completion *float64 `json:"completion"`
			Image      *float64 `json:"image"`
			Sizes      []string `json:"sizes"`
			Qualities  []string `json:"qualities"`
		} `json:"models"`
	} `json:"providers"`
}

var catalogue, catalogueAsOf = mustLoadCatalogue(catalogueJSON)

// CatalogueAsOf is the date (YYYY-MM-DD) the catalogue's models and prices
// were last checked against the providers' own pages.
func CatalogueAsOf() string { return catalogueAsOf }

func mustLoadCatalogue(b []byte) (map[string][]price, string) {
	c, asOf, err := loadCatalogue(b)
	if err != nil {
		panic(err)
	}
	return c, asOf
}

// loadCatalogue parses catalogue.json: every entry is a text model (prompt
// and completion prices) or an image model (an image price), never both.
func loadCatalogue(b []byte) (map[string][]price, string, error) {
	var f catalogueFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, "", fmt.Errorf("providers: catalogue.json: %w", err)
	}
	out := make(map[string][]price, len(f.Providers))
	for p, prov := range f.Providers {
		for _, m := range prov.Models {
			switch {
			case m.Model == "":
				return nil, "", fmt.Errorf("providers: catalogue.json: a %s entry has no model", p)
			case m.Image != nil && m.Prompt == nil && m.Completion == nil:
				out[p] = append(out[p], price{model: m.Model, image: true, basePrice: *m.Image, sizes: m.Sizes, qualities: m.Qualities})
			case m.Image == nil && m.Prompt != nil && m.Completion != nil:
				out[p] = append(out[p], price{model: m.Model, prompt: *m.Prompt, completion: *m.Completion})
			default:
				return nil, "", fmt.Errorf("providers: catalogue.json: %s:%s needs prompt and completion prices, or an image price", p, m.Model)
			}
		}
	}
	return out, f.AsOf, nil
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

// cacheReadPrice is the share of the input price a provider bills for
// prompt tokens read from its prompt cache (Anthropic: a tenth,
// https://platform.claude.com/docs/en/build-with-claude/prompt-caching#pricing).
// Providers not listed are priced at the full input price.
var cacheReadPrice = map[string]float64{"anthropic": 0.1}

// CostOf returns the USD cost of a text call's usage from the catalogue's
// list prices, cached prompt tokens at the provider's cache-read price; ok
// is false when the model is not in the catalogue.
func CostOf(ref engine.ModelRef, u *engine.Usage) (usd float64, ok bool) {
	usd, ok = Cost(ref, u.PromptTokens, u.CompletionTokens)
	share, discounted := cacheReadPrice[ref.Provider]
	if !ok || !discounted || u.PromptTokensDetails == nil || u.PromptTokensDetails.CachedTokens <= 0 {
		return usd, ok
	}
	cached := min(u.PromptTokensDetails.CachedTokens, u.PromptTokens)
	full, _ := Cost(ref, cached, 0)
	return usd - full*(1-share), true
}
