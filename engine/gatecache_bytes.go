package engine

// getBytes is get with the key given as bytes: the map lookup converts
// them without allocating, so a lookup that hits costs nothing (an API
// key's hash is written on the stack, apikey_hash.go).
func (c *gateCache[V]) getBytes(k []byte) (v V, ok bool, gen uint64) {
	if c == nil {
		return v, false, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok = c.m[string(k)]
	return v, ok, c.gen
}
