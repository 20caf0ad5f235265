package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/index"
)

// buildCache opens the response cache when the configuration turns it on
// and puts it in front of the instrumented providers, so a hit calls no
// upstream and reports no upstream metrics. Semantic mode's embedder must
// resolve; its embeddings go to an index of their own (a Manager beside
// the memories', so index metrics count memories only). Whatever the
// mode, what an earlier configuration left behind is swept first. Its
// sweeps start here.
func (a *App) buildCache(cfg Config) error {
	var keep engine.CacheKeep
	var ccfg engine.ResponseCacheConfig
	if cfg.Cache != nil {
		ccfg, keep.Entries = *cfg.Cache, true
	}
	if sc := ccfg.Semantic; sc != nil {
		if _, err := a.Deps.Providers.Embedder(sc.Model); err != nil {
			return fmt.Errorf("HEARTH_CACHE_EMBEDDING_MODEL %s: %w", sc.Model, err)
		}
		if err := a.openCacheIndex(cfg); err != nil {
			return err
		}
		s := *sc
		s.Index, keep.Index = a.CacheIndex, engine.SemanticIndexID(sc.Model)
		ccfg.Semantic = &s
	}
	err := a.sweepCacheLeftovers(cfg, keep)
	if ccfg.Semantic == nil && a.CacheIndex != nil {
		// Opened only to drop an old index.
		err = errors.Join(err, a.CacheIndex.Close())
		a.CacheIndex = nil
	}
	if err != nil {
		return err
	}
	if cfg.Cache == nil {
		return nil
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

// openCacheIndex opens the index semantic mode keeps its embeddings in,
// with the memories' index settings.
func (a *App) openCacheIndex(cfg Config) error {
	if a.CacheIndex != nil {
		return nil
	}
	iopts := cfg.Index
	iopts.Logger, iopts.Cluster = cfg.Logger, a.Cluster
	m := index.NewManager(a.Store, keywordDir(cfg.Data), iopts)
	if err := m.Open(context.Background()); err != nil {
		return err
	}
	a.CacheIndex = m
	return nil
}

// sweepCacheLeftovers deletes the cache records the configuration no
// longer uses (engine.SweepCacheLeftovers), opening the cache's index only
// when an old one must be dropped.
func (a *App) sweepCacheLeftovers(cfg Config, keep engine.CacheKeep) error {
	drop := func(ctx context.Context, id string) error {
		if err := a.openCacheIndex(cfg); err != nil {
			return err
		}
		return a.CacheIndex.DropMemory(ctx, id)
	}
	got, err := engine.SweepCacheLeftovers(context.Background(), a.Store, a.Cluster, keep, drop)
	if err != nil {
		return fmt.Errorf("response cache: sweep what an earlier configuration left: %w", err)
	}
	if got.Entries+got.Indexes+got.Buckets > 0 {
		a.log.Info("response cache: swept what an earlier configuration left",
			"entries", got.Entries, "semantic_indexes", got.Indexes, "old_semantic_lists", got.Buckets)
	}
	return nil
}
