package providers

import (
	"bytes"
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
	// tiers replace prompt and completion above their prompt size,
	// sorted by threshold.
	tiers            []PriceTier
	contextWindow    int
	retired          *Retirement
	image            bool
	basePrice        float64
	sizes, qualities []string
	// operator marks an entry that HEARTH_MODELS_FILE added or changed.
	operator bool
}

// PriceTier is the USD price per million tokens of a call whose prompt is
// longer than AbovePromptTokens tokens (a long-context tier): the whole
// call is priced at the tier.
type PriceTier struct {
	AbovePromptTokens int     `json:"above_prompt_tokens"`
	Prompt            float64 `json:"prompt"`
	Completion        float64 `json:"completion"`
}

// Retirement says when a provider stopped serving a model (Date,
// YYYY-MM-DD) and which model of the same provider it suggests instead.
type Retirement struct {
	Date        string `json:"date"`
	Replacement string `json:"replacement"`
}

// catalogueModel is one model of catalogue.json.
type catalogueModel struct {
	Model         string      `json:"model"`
	Prompt        *float64    `json:"prompt"`
	Completion    *float64    `json:"completion"`
	Tiers         []PriceTier `json:"tiers"`
	ContextWindow int         `json:"context_window"`
	Retired       *Retirement `json:"retired"`
	Image         *float64    `json:"image"`
	Sizes         []string    `json:"sizes"`
	Qualities     []string    `json:"qualities"`
}

// catalogueFile is the shape of catalogue.json.
type catalogueFile struct {
	AsOf      string `json:"as_of"`
	Note      string `json:"note"`
	Providers map[string]struct {
		Checked string           `json:"checked"`
		Source  string           `json:"source"`
		Models  []catalogueModel `json:"models"`
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

// loadCatalogue parses catalogue.json strictly: every entry is a text
// model (prompt and completion prices, optional tiers) or an image model
// (an image price), never both.
func loadCatalogue(b []byte) (map[string][]price, string, error) {
	var f catalogueFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, "", fmt.Errorf("providers: catalogue.json: %w", err)
	}
	out := make(map[string][]price, len(f.Providers))
	for p, prov := range f.Providers {
		for _, m := range prov.Models {
			e := price{model: m.Model, contextWindow: m.ContextWindow, retired: m.Retired}
			switch {
			case m.Model == "":
				return nil, "", fmt.Errorf("providers: catalogue.json: a %s entry has no model", p)
			case m.Image != nil && m.Prompt == nil && m.Completion == nil && m.Tiers == nil:
				e.image, e.basePrice, e.sizes, e.qualities = true, *m.Image, m.Sizes, m.Qualities
			case m.Image == nil && m.Prompt != nil && m.Completion != nil:
				e.prompt, e.completion, e.tiers = *m.Prompt, *m.Completion, m.Tiers
			default:
				return nil, "", fmt.Errorf("providers: catalogue.json: %s:%s needs prompt and completion prices, or an image price", p, m.Model)
			}
			if err := checkTiers(e.tiers); err != nil {
				return nil, "", fmt.Errorf("providers: catalogue.json: %s:%s: %w", p, m.Model, err)
			}
			if err := checkRetirement(m.Retired); err != nil {
				return nil, "", fmt.Errorf("providers: catalogue.json: %s:%s: %w", p, m.Model, err)
			}
			out[p] = append(out[p], e)
		}
	}
	return out, f.AsOf, nil
}

// info is the /v1/models entry of e under provider p.
func (e price) info(p string) engine.ModelInfo {
	mi := engine.ModelInfo{ID: p + ":" + e.model, Provider: p, Type: "text", ContextWindow: e.contextWindow, Source: "builtin"}
	if e.operator {
		mi.Source = "operator"
	}
	if e.image {
		mi.Type = "image"
		mi.BasePrice = ptr(e.basePrice)
		mi.SupportedSizes, mi.SupportedQualities = e.sizes, e.qualities
	} else {
		mi.PromptCost, mi.CompletionCost = ptr(e.prompt), ptr(e.completion)
		for _, t := range e.tiers {
			mi.PriceTiers = append(mi.PriceTiers, engine.ModelPriceTier{AbovePromptTokens: t.AbovePromptTokens, PromptCost: t.Prompt, CompletionCost: t.Completion})
		}
	}
	if e.retired != nil {
		mi.Retired = &engine.ModelRetirement{Date: e.retired.Date, Replacement: e.retired.Replacement}
	}
	return mi
}

// cost is the USD cost of a text call at e's prices: the last tier whose
// threshold the prompt exceeds, else the base prices.
func (e price) cost(promptTokens, completionTokens int) float64 {
	in, out := e.prompt, e.completion
	for _, t := range e.tiers {
		if promptTokens > t.AbovePromptTokens {
			in, out = t.Prompt, t.Completion
		}
	}
	return (float64(promptTokens)*in + float64(completionTokens)*out) / 1e6
}

func ptr[T any](v T) *T { return &v }

// Cost returns the USD cost of a text call from the built-in catalogue's
// list prices (tiered by prompt size); ok is false when the model is not
// in the catalogue.
func Cost(ref engine.ModelRef, promptTokens, completionTokens int) (usd float64, ok bool) {
	return (*Models)(nil).cost(ref, promptTokens, completionTokens)
}

// CatalogueEntry returns the built-in catalogue entry of a model; ok is
// false when the model is not listed. Image adapters read supportedSizes
// and supportedQualities from it, and refuse text models.
func CatalogueEntry(provider, model string) (info engine.ModelInfo, ok bool) {
	if e, ok := builtinEntry(provider, model); ok {
		return e.info(provider), true
	}
	return engine.ModelInfo{}, false
}

// builtinEntry returns the built-in catalogue entry of a model.
func builtinEntry(provider, model string) (price, bool) {
	for _, e := range catalogue[provider] {
		if e.model == model {
			return e, true
		}
	}
	return price{}, false
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
	return (*Models)(nil).costOf(ref, u)
}

// costOf is CostOf at the prices in force: the call's price tier, with its
// cached prompt tokens at the provider's cache-read share of that tier's
// prompt price.
func (m *Models) costOf(ref engine.ModelRef, u *engine.Usage) (usd float64, ok bool) {
	usd, ok = m.cost(ref, u.PromptTokens, u.CompletionTokens)
	share, discounted := cacheReadPrice[ref.Provider]
	if !ok || !discounted || u.PromptTokens <= 0 || u.PromptTokensDetails == nil || u.PromptTokensDetails.CachedTokens <= 0 {
		return usd, ok
	}
	cached := min(u.PromptTokensDetails.CachedTokens, u.PromptTokens)
	prompt, _ := m.cost(ref, u.PromptTokens, 0)
	return usd - prompt*float64(cached)/float64(u.PromptTokens)*(1-share), true
}
