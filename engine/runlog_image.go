package engine

// ImagePricer is implemented by Providers whose catalogue lists per-image
// prices (providers.Registry).
type ImagePricer interface {
	// ImageCost returns the USD list price of n images of a model; ok is
	// false when the model has no image price.
	ImageCost(ref ModelRef, n int) (usd float64, ok bool)
}

// imageCost prices an image run; false without a listed price.
func imageCost(p Providers, ref ModelRef, n int) (float64, bool) {
	if ip, ok := p.(ImagePricer); ok {
		return ip.ImageCost(ref, n)
	}
	return 0, false
}

// ImageCost passes through to the wrapped Providers when it prices images.
func (ip *instrumented) ImageCost(ref ModelRef, n int) (float64, bool) {
	if p, ok := ip.Providers.(ImagePricer); ok {
		return p.ImageCost(ref, n)
	}
	return 0, false
}
