package netguard

import "context"

// Label is a feature label made once (NewLabel) for a caller that labels
// many contexts with it: WithFeature boxes its string anew on every call,
// Label.Context attaches the value boxed when the label was made. It is
// read-only after NewLabel: nothing changes with several Hearth nodes.
type Label struct{ v any }

// NewLabel returns the label feature (a provider's name, "mcp", "crawl").
func NewLabel(feature string) Label { return Label{v: feature} }

// Context returns ctx labelled as WithFeature(ctx, feature) labels it.
func (l Label) Context(ctx context.Context) context.Context {
	if l.v == nil {
		return WithFeature(ctx, "")
	}
	return context.WithValue(ctx, featureKey{}, l.v)
}
