package providers

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// keyedImages is an image generator that records the key of each call and
// refuses the keys in refuse with 429.
type keyedImages struct {
	keys   []string
	refuse string
}

func (g *keyedImages) GenerateImage(_ context.Context, req *engine.ImageRequest) (*engine.ImageResult, error) {
	g.keys = append(g.keys, req.APIKey)
	if req.APIKey == g.refuse {
		return nil, &HTTPError{Provider: "openai", Status: http.StatusTooManyRequests, Message: "slow down"}
	}
	return &engine.ImageResult{}, nil
}

// TestPooledImagesKeys: an image call with a key list is tried with one
// key at a time, each on its own copy of the request (the caller's keeps
// the list), and moves past a key answered 429, which then cools down.
func TestPooledImagesKeys(t *testing.T) {
	inner := &keyedImages{refuse: "k1"}
	g := pooledImages{inner: inner, pool: newKeyPool(), provider: "openai"}
	req := &engine.ImageRequest{APIKey: "k1, k2"}
	for range 2 {
		if _, err := g.GenerateImage(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	if req.APIKey != "k1, k2" {
		t.Fatalf("caller's request changed: %q", req.APIKey)
	}
	// The first call starts at k1 (refused, then k2); the second starts
	// at k2 by turn and never reaches k1, which is cooling down.
	if want := []string{"k1", "k2", "k2"}; !slices.Equal(inner.keys, want) {
		t.Fatalf("keys tried %q, want %q", inner.keys, want)
	}
}
