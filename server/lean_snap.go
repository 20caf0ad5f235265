package server

import (
	"bufio"
	"net/http"
	"slices"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// leanSnap is the answer's header as the handler had it at WriteHeader,
// sorted by key. net/http clones the header map there (so later changes
// are not sent) and sorts it when it writes it; the snapshot does both
// at once into a slice the connection reuses, without the clone's map
// and value copies. Its value slices are the handler's: replacing or
// appending to a header afterwards (Set, Add) does not change them; only
// writing into a value slice in place would, which nothing does.
type leanSnap struct {
	kvs []leanKV
	// order is the last snapshot's keys, sorted: an answer with the same
	// keys (a keep-alive client's answers from one route) takes that
	// order without sorting. The keys are header names, kept between
	// requests; nothing of the answers' values is. Per connection, in
	// this process: nothing to share between Hearth nodes.
	order []string
	// valid tells, for each key of order, whether it is a valid header
	// field name (write drops the others).
	valid []bool
	// sorts counts the snapshots that were sorted (for tests).
	sorts int
}

type leanKV struct {
	key    string
	values []string
	// gone marks a header the server removed (net/http's delHeader).
	gone bool
}

// take snapshots h, reusing the slice of the last request.
func (s *leanSnap) take(h http.Header) {
	kvs := s.kvs[:0]
	if len(h) == len(s.order) {
		// The same number of keys, each of the last ones present: the
		// same keys, in the order sorting would give.
		for _, k := range s.order {
			v, ok := h[k]
			if !ok {
				break
			}
			kvs = append(kvs, leanKV{key: k, values: v})
		}
		if len(kvs) == len(h) {
			s.kvs = kvs
			return
		}
		clear(kvs)
		kvs = kvs[:0]
	}
	for k, v := range h {
		kvs = append(kvs, leanKV{key: k, values: v})
	}
	slices.SortFunc(kvs, func(a, b leanKV) int { return strings.Compare(a.key, b.key) })
	s.sorts++
	s.kvs = kvs
	s.order, s.valid = s.order[:0], s.valid[:0]
	for i := range kvs {
		s.order = append(s.order, kvs[i].key)
		s.valid = append(s.valid, httpguts.ValidHeaderFieldName(kvs[i].key))
	}
}

// reset drops the references of the last request.
func (s *leanSnap) reset() {
	clear(s.kvs)
	s.kvs = s.kvs[:0]
}

func (s *leanSnap) values(key string) []string {
	for i := range s.kvs {
		if kv := &s.kvs[i]; kv.key == key && !kv.gone {
			return kv.values
		}
	}
	return nil
}

// get is http.Header's exact-key get.
func (s *leanSnap) get(key string) string {
	if v := s.values(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (s *leanSnap) has(key string) bool {
	for i := range s.kvs {
		if kv := &s.kvs[i]; kv.key == key && !kv.gone {
			return true
		}
	}
	return false
}

func (s *leanSnap) del(key string) {
	for i := range s.kvs {
		if s.kvs[i].key == key {
			s.kvs[i].gone = true
		}
	}
}

// write writes the headers left as http.Header.WriteSubset does:
// invalid names dropped, CR and LF in values turned into spaces, values
// trimmed.
func (s *leanSnap) write(bw *bufio.Writer) {
	for i, kv := range s.kvs {
		if kv.gone || !s.valid[i] {
			continue
		}
		for _, v := range kv.values {
			v = cleanHeaderValue(v)
			bw.WriteString(kv.key)
			bw.WriteString(": ")
			bw.WriteString(v)
			bw.WriteString("\r\n")
		}
	}
}

// cleanHeaderValue is a header value as http.Header.WriteSubset writes it:
// CR and LF turned into spaces, then spaces, tabs, CR and LF trimmed from
// both ends. A value with neither inside and none at its ends (nearly
// every one) is returned as it is after two byte searches.
func cleanHeaderValue(v string) string {
	if strings.IndexByte(v, '\r') >= 0 || strings.IndexByte(v, '\n') >= 0 {
		v = strings.NewReplacer("\n", " ", "\r", " ").Replace(v)
	}
	if v != "" && (isHeaderTrim(v[0]) || isHeaderTrim(v[len(v)-1])) {
		v = strings.Trim(v, " \t\n\r")
	}
	return v
}

func isHeaderTrim(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
