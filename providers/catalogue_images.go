package providers

import "github.com/hearth-dev/hearth/engine"

// ImageCost returns the USD list price of n images of an image model from
// the catalogue's per-image prices (catalogue.json "image"); ok is false
// when the model is not an image model of the catalogue.
func ImageCost(ref engine.ModelRef, n int) (usd float64, ok bool) {
	for _, e := range catalogue[ref.Provider] {
		if e.model == ref.Model && e.image {
			return float64(n) * e.basePrice, true
		}
	}
	return 0, false
}

// ImageCost prices images for the run log (see the package ImageCost).
func (r *Registry) ImageCost(ref engine.ModelRef, n int) (float64, bool) {
	return ImageCost(ref, n)
}
