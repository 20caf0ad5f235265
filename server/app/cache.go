package app

import "github.com/hearth-dev/hearth/engine"

// buildCache opens the response cache when the configuration turns it on
// and puts it in front of the instrumented providers, so a hit calls no
// upstream and reports no upstream metrics. Its sweeps start here.
func (a *App) buildCache(cfg Config) {
	if cfg.Cache == nil {
		return
	}
	ccfg := *cfg.Cache
	ccfg.Cluster, ccfg.Logger = a.Cluster, cfg.Logger
	a.Cache = engine.NewResponseCache(a.Store, ccfg)
	a.Cache.Start(engine.CacheSweepInterval)
	a.Deps.Providers = engine.CacheProviders(a.Deps.Providers, a.Cache)
	a.Deps.Cache = a.Cache
	a.note("response cache: on")
}
