package providers

import (
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// Models is the model data in force, in three layers: the entries of
// HEARTH_MODELS_FILE (LoadModelsFile) over the entries `hearth apply`
// stored (ParseModelEntries, swapped in by Registry.SetApplied) over the
// built-in catalogue and rules. A field of a model comes from the highest
// layer that sets it, and within a layer from its most specific entry. A
// nil *Models is the built-in data alone. Every node of a cluster loads
// its own file at start, so nodes agree when they are given the same
// file; the applied entries live in the shared store and reach every
// node through the change feed.
type Models struct {
	file    string
	entries []modelEntry
	// applied is the layer under this one (nil: none).
	applied atomic.Pointer[Models]
}

// modelEntry is one validated entry of the operator's file.
type modelEntry struct {
	index            int
	provider         string
	model, pattern   string
	prompt           *float64
	completion       *float64
	tiers            []PriceTier
	contextWindow    *int
	retired          *Retirement
	rule             *modelRule
	ant              *antRule
	gem              *gemRule
	cohDrop          []string
	image            *float64
	sizes, qualities []string
	cache            *CachePricing
	estimated        *bool
}

// name is how errors name the entry.
func (e *modelEntry) name() string {
	if e.model != "" {
		return e.provider + ":" + e.model
	}
	return e.provider + ":" + e.pattern
}

// matches reports whether the entry applies to provider's model.
func (e *modelEntry) matches(provider, model string) bool {
	if e.provider != provider {
		return false
	}
	if e.model != "" {
		return e.model == model
	}
	return globMatch(e.pattern, model)
}

// layers are this layer and the applied one under it.
func (m *Models) layers() []*Models {
	if below := m.applied.Load(); below != nil {
		return []*Models{m, below}
	}
	return []*Models{m}
}

// File is the path the operator's entries were read from ("" for none).
func (m *Models) File() string {
	if m == nil {
		return ""
	}
	return m.file
}

// matching returns the operator entries that apply to a model, the most
// specific first: the exact entry, then the patterns in file order.
func (m *Models) matching(provider, model string) []*modelEntry {
	if m == nil {
		return nil
	}
	own := m.own(provider, model)
	if below := m.applied.Load(); below != nil {
		return append(own, below.own(provider, model)...)
	}
	return own
}

// own returns the entries of this layer that apply to a model, the most
// specific first.
func (m *Models) own(provider, model string) []*modelEntry {
	var exact, patterns []*modelEntry
	for i := range m.entries {
		e := &m.entries[i]
		switch {
		case !e.matches(provider, model):
		case e.model != "":
			exact = append(exact, e)
		default:
			patterns = append(patterns, e)
		}
	}
	return append(exact, patterns...)
}

// entry returns a model's catalogue entry with the operator's fields laid
// over the built-in ones; ok is false when neither knows the model.
func (m *Models) entry(provider, model string) (price, bool) {
	e, ok := builtinEntry(provider, model)
	ops := m.matching(provider, model)
	if len(ops) == 0 {
		return e, ok
	}
	e.model = model
	if !ok {
		e.cache = catalogueCache[provider]
	}
	// Each field comes from the most specific entry that sets it, so
	// walk from the least specific and let later ones win.
	for i := len(ops) - 1; i >= 0; i-- {
		o := ops[i]
		touched := false
		if o.prompt != nil {
			e.image, e.prompt, e.completion, e.tiers = false, *o.prompt, *o.completion, o.tiers
			touched = true
		}
		if o.image != nil {
			e.image, e.basePrice, e.sizes, e.qualities = true, *o.image, o.sizes, o.qualities
			touched = true
		}
		if o.contextWindow != nil {
			e.contextWindow, touched = *o.contextWindow, true
		}
		if o.retired != nil {
			e.retired, touched = o.retired, true
		}
		if o.cache != nil {
			e.cache, touched = o.cache, true
		}
		if o.estimated != nil {
			e.estimated, touched = *o.estimated, true
		}
		if touched {
			e.operator, ok = true, ok || o.prompt != nil || o.image != nil
		}
	}
	return e, ok
}

// rule returns the operator's parameter rule of a model, or nil.
func (m *Models) rule(provider, model string) *modelRule {
	for _, e := range m.matching(provider, model) {
		if e.rule != nil {
			return e.rule
		}
	}
	return nil
}

// rule returns the rule of model on host h: the operator's, else the
// built-in one, else nil.
func (h *host) rule(model string) *modelRule {
	if r := h.models.rule(h.name, model); r != nil {
		return r
	}
	return ruleFor(h.name, model)
}

// retirement returns the retirement of a model (operator first), or nil.
// It runs on every chat call, so the built-in retirements are a map.
func (m *Models) retirement(provider, model string) *Retirement {
	if m != nil {
		for _, e := range m.matching(provider, model) {
			if e.retired != nil {
				return e.retired
			}
		}
	}
	return builtinRetired[modelKey{provider, model}]
}

// modelKey names a model of a provider.
type modelKey struct{ provider, model string }

// builtinRetired are the built-in catalogue's retired models.
var builtinRetired = func() map[modelKey]*Retirement {
	out := map[modelKey]*Retirement{}
	for p, entries := range catalogue {
		for _, e := range entries {
			if e.retired != nil {
				out[modelKey{p, e.model}] = e.retired
			}
		}
	}
	return out
}()

// cost is the USD cost of a text call at the model's prices in force.
func (m *Models) cost(ref engine.ModelRef, promptTokens, completionTokens int) (float64, bool) {
	e, ok := m.entry(ref.Provider, ref.Model)
	if !ok || e.image {
		return 0, false
	}
	return e.cost(promptTokens, completionTokens), true
}

// catalogue returns the /v1/models entries of the given providers: the
// built-in models with the operator's changes, then the models the
// operator's file adds (exact ids only: a pattern is not a model).
func (m *Models) catalogue(providers []string) map[string][]engine.ModelInfo {
	out := make(map[string][]engine.ModelInfo, len(providers))
	for _, p := range providers {
		seen := map[string]bool{}
		for _, b := range catalogue[p] {
			e, _ := m.entry(p, b.model)
			out[p] = append(out[p], e.info(p))
			seen[b.model] = true
		}
		if m == nil {
			continue
		}
		var added []string
		for _, layer := range m.layers() {
			for _, o := range layer.entries {
				if o.provider == p && o.model != "" && !seen[o.model] && (o.prompt != nil || o.image != nil) {
					added = append(added, o.model)
					seen[o.model] = true
				}
			}
		}
		sort.Strings(added)
		for _, id := range added {
			e, _ := m.entry(p, id)
			out[p] = append(out[p], e.info(p))
		}
	}
	return out
}

// retiredError is the error of a call to a retired model: it names the
// model, the date and the suggested replacement.
func retiredError(ref engine.ModelRef, r *Retirement) error {
	msg := fmt.Sprintf("model %q was retired by %s on %s", ref.String(), ref.Provider, r.Date)
	if r.Replacement != "" {
		msg += fmt.Sprintf("; use %q instead", ref.Provider+":"+r.Replacement)
	}
	return engine.FieldError("model", "%s", msg)
}

// checkTiers checks that tiers have positive, increasing thresholds and
// prices that are not negative.
func checkTiers(tiers []PriceTier) error {
	last := 0
	for i, t := range tiers {
		switch {
		case t.AbovePromptTokens <= last:
			return fmt.Errorf("tiers[%d].above_prompt_tokens: must be positive and larger than the tier before (%d)", i, last)
		case t.Prompt < 0:
			return fmt.Errorf("tiers[%d].prompt: must not be negative", i)
		case t.Completion < 0:
			return fmt.Errorf("tiers[%d].completion: must not be negative", i)
		}
		last = t.AbovePromptTokens
	}
	return nil
}

// checkRetirement checks a retirement's date (YYYY-MM-DD).
func checkRetirement(r *Retirement) error {
	if r == nil {
		return nil
	}
	if _, err := time.Parse(time.DateOnly, r.Date); err != nil {
		return fmt.Errorf("retired.date: %q is not a date (YYYY-MM-DD)", r.Date)
	}
	return nil
}
