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
	// cache is the prompt-cache pricing (nil: cached and written tokens at
	// the prompt price).
	cache *CachePricing
	// estimated marks prices not taken from the provider's own page.
	estimated bool
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

// CachePricing is the price of prompt-cache reads and writes as multiples
// of the prompt price of the call's tier: Anthropic bills reads at 0.1,
// five-minute writes at 1.25 and one-hour writes at 2; OpenAI bills no
// write premium (1).
type CachePricing struct {
	Read    float64 `json:"read"`
	Write5m float64 `json:"write_5m"`
	Write1h float64 `json:"write_1h"`
}

// check refuses a negative multiple.
func (c *CachePricing) check() error {
	switch {
	case c == nil:
	case c.Read < 0:
		return fmt.Errorf("cache.read: must not be negative")
	case c.Write5m < 0:
		return fmt.Errorf("cache.write_5m: must not be negative")
	case c.Write1h < 0:
		return fmt.Errorf("cache.write_1h: must not be negative")
	}
	return nil
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
	// Cache replaces the provider's cache pricing for this model.
	Cache     *CachePricing `json:"cache"`
	Estimated bool          `json:"estimated"`
}

// catalogueFile is the shape of catalogue.json.
type catalogueFile struct {
	AsOf      string `json:"as_of"`
	Note      string `json:"note"`
	Providers map[string]struct {
		Checked string `json:"checked"`
		Source  string `json:"source"`
		// Cache is the cache pricing of the provider's text models.
		Cache  *CachePricing    `json:"cache"`
		Models []catalogueModel `json:"models"`
	} `json:"providers"`
}

// catalogue is the built-in models per provider; catalogueCache the
// cache pricing of each provider's text models, which models an operator
// adds take too.
var catalogue, catalogueCache, catalogueAsOf = mustLoadCatalogue(catalogueJSON)

// CatalogueAsOf is the date (YYYY-MM-DD) the catalogue's models and prices
// were last checked against the providers' own pages.
func CatalogueAsOf() string { return catalogueAsOf }

func mustLoadCatalogue(b []byte) (map[string][]price, map[string]*CachePricing, string) {
	c, cache, asOf, err := loadCatalogue(b)
	if err != nil {
		panic(err)
	}
	return c, cache, asOf
}

// loadCatalogue parses catalogue.json strictly: every entry is a text
// model (prompt and completion prices, optional tiers) or an image model
// (an image price), never both.
func loadCatalogue(b []byte) (map[string][]price, map[string]*CachePricing, string, error) {
	var f catalogueFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, nil, "", fmt.Errorf("providers: catalogue.json: %w", err)
	}
	out := make(map[string][]price, len(f.Providers))
	cache := map[string]*CachePricing{}
	for p, prov := range f.Providers {
		if err := prov.Cache.check(); err != nil {
			return nil, nil, "", fmt.Errorf("providers: catalogue.json: %s: %w", p, err)
		}
		if prov.Cache != nil {
			cache[p] = prov.Cache
		}
		for _, m := range prov.Models {
			e := price{model: m.Model, contextWindow: m.ContextWindow, retired: m.Retired, estimated: m.Estimated, cache: prov.Cache}
			if m.Cache != nil {
				e.cache = m.Cache
			}
			switch {
			case m.Model == "":
				return nil, nil, "", fmt.Errorf("providers: catalogue.json: a %s entry has no model", p)
			case m.Image != nil && m.Prompt == nil && m.Completion == nil && m.Tiers == nil:
				e.image, e.basePrice, e.sizes, e.qualities = true, *m.Image, m.Sizes, m.Qualities
			case m.Image == nil && m.Prompt != nil && m.Completion != nil:
				e.prompt, e.completion, e.tiers = *m.Prompt, *m.Completion, m.Tiers
			default:
				return nil, nil, "", fmt.Errorf("providers: catalogue.json: %s:%s needs prompt and completion prices, or an image price", p, m.Model)
			}
			if err := checkTiers(e.tiers); err != nil {
				return nil, nil, "", fmt.Errorf("providers: catalogue.json: %s:%s: %w", p, m.Model, err)
			}
			if err := e.cache.check(); err != nil {
				return nil, nil, "", fmt.Errorf("providers: catalogue.json: %s:%s: %w", p, m.Model, err)
			}
			if err := checkRetirement(m.Retired); err != nil {
				return nil, nil, "", fmt.Errorf("providers: catalogue.json: %s:%s: %w", p, m.Model, err)
			}
			out[p] = append(out[p], e)
		}
	}
	return out, cache, f.AsOf, nil
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
		if c := e.cache; c != nil {
			mi.CachePricing = &engine.ModelCachePricing{Read: c.Read, Write5m: c.Write5m, Write1h: c.Write1h}
		}
	}
	mi.PriceEstimated = e.estimated
	if e.retired != nil {
		mi.Retired = &engine.ModelRetirement{Date: e.retired.Date, Replacement: e.retired.Replacement}
	}
	return mi
}

// cost is the USD cost of a text call at e's prices: the last tier whose
// threshold the prompt exceeds, else the base prices.
func (e price) cost(promptTokens, completionTokens int) float64 {
	in, out := e.rates(promptTokens)
	return (float64(promptTokens)*in + float64(completionTokens)*out) / 1e6
}

// rates are the prompt and completion prices of a call with promptTokens.
func (e price) rates(promptTokens int) (in, out float64) {
	in, out = e.prompt, e.completion
	for _, t := range e.tiers {
		if promptTokens > t.AbovePromptTokens {
			in, out = t.Prompt, t.Completion
		}
	}
	return in, out
}

// usageCost is the USD cost of a call's usage at e's prices: every prompt
// token at the tier's prompt price, except cache reads and writes at the
// cache pricing's multiples of it.
func (e price) usageCost(u *engine.Usage) float64 {
	in, out := e.rates(u.PromptTokens)
	usd := float64(u.PromptTokens)*in + float64(u.CompletionTokens)*out
	if c := e.cache; c != nil && u.PromptTokens > 0 {
		read := min(u.CachedTokens(), u.PromptTokens)
		write := min(u.CacheCreationTokens, u.PromptTokens-read)
		long := min(u.CacheCreation1hTokens, write)
		usd += in * (float64(read)*(c.Read-1) + float64(write-long)*(c.Write5m-1) + float64(long)*(c.Write1h-1))
	}
	return usd / 1e6
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

// CostOf returns the USD cost of a text call's usage from the catalogue's
// list prices, cache reads and writes at the provider's cache pricing; ok
// is false when the model is not in the catalogue.
func CostOf(ref engine.ModelRef, u *engine.Usage) (usd float64, ok bool) {
	return (*Models)(nil).costOf(ref, u)
}

// costOf is CostOf at the prices in force.
func (m *Models) costOf(ref engine.ModelRef, u *engine.Usage) (usd float64, ok bool) {
	e, ok := m.entry(ref.Provider, ref.Model)
	if !ok || e.image {
		return 0, false
	}
	return e.usageCost(u), true
}
