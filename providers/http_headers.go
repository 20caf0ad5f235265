package providers

import "net/http"

// bearerValues holds the Authorization value ("Bearer " and the key) of
// every server-wide provider key, built once from the configuration so an
// upstream call with one of them sets a shared, read-only value instead of
// concatenating a string and allocating a value slice (len == cap, so an
// Add copies instead of writing into it). Keys a request brings
// (LB-LLM-Key, key sets) are not kept: they are worded per call. It is
// derived from this node's configuration only and never changes after
// start: several Hearth nodes each build their own from their settings.
type bearerValues map[string][]string

func newBearerValues(keys []string) bearerValues {
	if len(keys) == 0 {
		return nil
	}
	b := make(bearerValues, len(keys))
	for _, k := range keys {
		if k != "" {
			b[k] = []string{"Bearer " + k}
		}
	}
	return b
}

// setBearer sets "Authorization: Bearer key" on h; an empty key sets
// nothing.
func (c *caller) setBearer(h http.Header, key string) {
	if key == "" {
		return
	}
	if v, ok := c.bearers[key]; ok {
		h["Authorization"] = v
		return
	}
	h.Set("Authorization", "Bearer "+key)
}
