package app

import (
	"fmt"

	"github.com/hearth-dev/hearth/engine"
)

// buildCache opens the response cache when the configuration turns it on
// and puts it in front of the instrumented providers, so a hit calls no
// upstream and reports no upstream metrics. Semantic mode's embedder must
// resolve. Its sweeps start here.
func (a *App) buildCache(cfg Config) error {
	if cfg.Cache == nil {
		return nil
	}
	ccfg := *cfg.Cache
	if sc := ccfg.Semantic; sc != nil {
		if _, err := a.Deps.Providers.Embedder(sc.Model); err != nil {
			return fmt.Errorf("HEARTH_CACHE_EMBEDDING_MODEL %s: %w", sc.Model, err)
		}
	}
	ccfg.Cluster, ccfg.Logger = a.Cluster, cfg.Logger
	a.Cache = engine.NewResponseCache(a.Store, ccfg)
	a.Cache.Start(engine.CacheSweepInterval)
	a.Deps.Providers = engine.CacheProviders(a.Deps.Providers, a.Cache)
	a.Deps.Cache = a.Cache
	if ccfg.Semantic != nil {
		a.note(fmt.Sprintf("response cache: semantic (%s, similarity %g)", ccfg.Semantic.Model, a.Cache.Similarity()))
		return nil
	}
	a.note("response cache: on")
	return nil
}
