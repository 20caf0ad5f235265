package providers

import (
	"net/url"
	"strings"
	"sync"
)

// urlCache keeps the parsed form of the upstream URLs calls are sent to:
// an adapter sends every chat call of a host to the same URL, and
// http.NewRequestWithContext would parse it again (and allocate its
// *url.URL) on every call. It holds at most maxCachedURLs entries; a URL
// met past that is parsed each time, as before, so URLs that carry a model
// name or an id cannot grow it without bound. A parsed URL is a pure
// function of its text, so nothing is ever invalidated: with several
// Hearth nodes each process keeps its own, and none needs to agree.
type urlCache struct {
	m sync.Map // string -> *url.URL, never modified once stored
	n sync.Mutex
	// size counts the entries stored (under n).
	size int
}

// maxCachedURLs bounds a urlCache.
const maxCachedURLs = 256

// parseInto sets *dst to raw parsed, with the host's empty port removed
// as http.NewRequestWithContext removes it; the error is url.Parse's.
func (c *urlCache) parseInto(dst *url.URL, raw string) error {
	if c != nil {
		if u, ok := c.m.Load(raw); ok {
			*dst = *u.(*url.URL)
			return nil
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	u.Host = removeEmptyPort(u.Host)
	*dst = *u
	if c != nil {
		c.n.Lock()
		if c.size < maxCachedURLs {
			if _, loaded := c.m.LoadOrStore(raw, u); !loaded {
				c.size++
			}
		}
		c.n.Unlock()
	}
	return nil
}

// removeEmptyPort strips the empty port of "host:" as net/http does for
// a request's host (RFC 3986 section 6.2.3).
func removeEmptyPort(host string) string {
	if strings.LastIndexByte(host, ':') > strings.LastIndexByte(host, ']') {
		return strings.TrimSuffix(host, ":")
	}
	return host
}
