package engine

import "testing"

// abilityProviders is a registry with every optional ability, each
// answering a value a wrapper cannot make up.
type abilityProviders struct{ chatOnlyProviders }

func (abilityProviders) CostOf(ModelRef, *Usage) (float64, bool) { return 1.25, true }
func (abilityProviders) ImageCost(ModelRef, int) (float64, bool) { return 2.5, true }
func (abilityProviders) HasDeployments() bool                    { return true }
func (abilityProviders) Reranker(ModelRef) (Reranker, error)     { return stubReranker{}, nil }

type stubReranker struct{ Reranker }

// TestWrappersPassAbilitiesThrough: with tracing, metrics, guardrails and
// the response cache stacked as the server stacks them, prices, image
// prices, reranking and deployment notes still reach the registry.
func TestWrappersPassAbilitiesThrough(t *testing.T) {
	gs, err := NewGuards(nil, nil, NopMetrics{})
	if err != nil {
		t.Fatal(err)
	}
	base := abilityProviders{chatOnlyProviders{model: &nopChat{}}}
	wrappers := map[string]func(Providers) Providers{
		"trace":   TraceProviders,
		"metrics": func(p Providers) Providers { return InstrumentProviders(p, NopMetrics{}) },
		"guard":   func(p Providers) Providers { return GuardProviders(p, gs) },
		"cache":   func(p Providers) Providers { return CacheProviders(p, NewResponseCache(nil, ResponseCacheConfig{})) },
	}
	stack := Providers(base)
	for _, name := range []string{"trace", "metrics", "cache", "guard"} {
		one := wrappers[name](base)
		stack = wrappers[name](stack)
		for _, p := range []struct {
			what string
			p    Providers
		}{{name, one}, {"stack up to " + name, stack}} {
			ref := ModelRef{Provider: "openai", Model: "m"}
			u := Usage{PromptTokens: 10, PromptTokensDetails: &PromptTokensDetails{CachedTokens: 5}}
			if v, ok := costOf(p.p, ref, &u); !ok || v != 1.25 {
				t.Errorf("%s: CostOf = %v, %v", p.what, v, ok)
			}
			if v, ok := imageCost(p.p, ref, 1); !ok || v != 2.5 {
				t.Errorf("%s: ImageCost = %v, %v", p.what, v, ok)
			}
			if _, err := rerankerOf(p.p, ref); err != nil {
				t.Errorf("%s: Reranker: %v", p.what, err)
			}
			if !HasDeployments(p.p) {
				t.Errorf("%s: HasDeployments = false", p.what)
			}
		}
	}
}
