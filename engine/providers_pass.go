package engine

// Every wrapper of a Providers (tracing, metrics, guardrails, response
// cache) passes the optional abilities of the registry under it through:
// prices, image prices, reranking and deployment notes. A wrapper that
// missed one would make that ability vanish whenever the wrapper is on
// (TestWrappersPassAbilitiesThrough).

// rerankerOf returns p's reranker for ref, or the error of a registry
// without reranking.
func rerankerOf(p Providers, ref ModelRef) (Reranker, error) {
	rp, ok := p.(RerankProviders)
	if !ok {
		return nil, Errorf(CodeBadRequest, "no provider of this server offers reranking")
	}
	return rp.Reranker(ref)
}

// CostOf prices u with the wrapped providers.
func (tp *traced) CostOf(ref ModelRef, u *Usage) (float64, bool) { return costOf(tp.Providers, ref, u) }

// ImageCost passes through to the wrapped providers.
func (tp *traced) ImageCost(ref ModelRef, n int) (float64, bool) {
	return imageCost(tp.Providers, ref, n)
}

// Reranker passes through to the wrapped providers.
func (tp *traced) Reranker(ref ModelRef) (Reranker, error) { return rerankerOf(tp.Providers, ref) }

// HasDeployments reports whether the wrapped registry has deployments.
func (gp *guardedProviders) HasDeployments() bool { return HasDeployments(gp.Providers) }

// HasDeployments reports whether the wrapped registry has deployments.
func (cp *cachedProviders) HasDeployments() bool { return HasDeployments(cp.Providers) }

// chatModelInto lets the metrics layer under the guardrails reuse the
// run's instrumented chat, as it does without them.
func (gp *guardedProviders) chatModelInto(ref ModelRef, dst *instrumentedChat) (ChatModel, error) {
	ci, ok := gp.Providers.(chatModelInto)
	if !ok {
		return gp.ChatModel(ref)
	}
	m, err := ci.chatModelInto(ref, dst)
	if err != nil {
		return nil, err
	}
	return &guardedChat{next: m, gs: gp.gs}, nil
}
