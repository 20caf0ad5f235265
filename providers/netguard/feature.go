package netguard

import "context"

// Feature returns the label WithFeature put on ctx (a provider's name,
// "mcp", "crawl"), or "".
func Feature(ctx context.Context) string { return featureOf(ctx) }
