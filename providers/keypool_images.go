package providers

import (
	"context"

	"github.com/hearth-dev/hearth/engine"
)

// PoolImages puts every image adapter of models behind this registry's
// key pools, so image generation spreads over a pooled key list and moves
// past a key answered 429 or 401/403 like chat does (docs/providers.md#key-pools).
// The cool-downs are the registry's: a key rate limited by a chat call
// is skipped by image calls too. Like every pool state they live in this
// process's memory (see keyPool).
func (r *Registry) PoolImages(models engine.ImageModels) engine.ImageModels {
	return pooledImageModels{inner: models, pool: r.pool}
}

type pooledImageModels struct {
	inner engine.ImageModels
	pool  *keyPool
}

func (m pooledImageModels) ImageModel(ref engine.ModelRef) (engine.ImageGenerator, error) {
	g, err := m.inner.ImageModel(ref)
	if err != nil {
		return nil, err
	}
	return pooledImages{inner: g, pool: m.pool, provider: ref.Provider}, nil
}

type pooledImages struct {
	inner    engine.ImageGenerator
	pool     *keyPool
	provider string
}

func (g pooledImages) GenerateImage(ctx context.Context, req *engine.ImageRequest) (*engine.ImageResult, error) {
	return poolRequest(ctx, g.pool, g.provider, req, imageKey, g.inner.GenerateImage)
}

func imageKey(r *engine.ImageRequest) *string { return &r.APIKey }

var _ engine.ImageModels = pooledImageModels{}
