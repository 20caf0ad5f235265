package netguard

import (
	"sort"
	"sync"
	"time"
)

// Entry is one line of the egress record: connections to one destination
// for one feature, and whether they were dialled or refused.
type Entry struct {
	Host    string    `json:"host"`
	Port    string    `json:"port"`
	Feature string    `json:"feature"`
	Outcome string    `json:"outcome"` // "connected", "failed" or "refused"
	Count   int64     `json:"count"`
	Last    time.Time `json:"last"`
}

// Record counts connection attempts since start. It lives in this
// process's memory: with several Hearth nodes on one database each node
// records and reports only the connections it made itself (GET
// /v1/admin/egress answers for the node that serves it), and a restart
// empties it. It is deliberately not shared through engine.Cluster: what
// an auditor of a node needs is that node's own connections. It is bounded to maxEntries destinations; further ones
// are counted under one "(other)" line.
type Record struct {
	mu sync.Mutex
	m  map[recordKey]*Entry
}

type recordKey struct{ host, port, feature, outcome string }

const maxEntries = 4096

func newRecord() *Record { return &Record{m: map[recordKey]*Entry{}} }

func (r *Record) add(host, port, feature string, ok, refused bool) {
	outcome := "failed"
	switch {
	case refused:
		outcome = "refused"
	case ok:
		outcome = "connected"
	}
	k := recordKey{host, port, feature, outcome}
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.m[k]
	if e == nil {
		if len(r.m) >= maxEntries {
			k = recordKey{"(other)", "", feature, outcome}
			e = r.m[k]
		}
		if e == nil {
			e = &Entry{Host: k.host, Port: k.port, Feature: feature, Outcome: outcome}
			r.m[k] = e
		}
	}
	e.Count++
	e.Last = time.Now().UTC()
}

// entries returns a copy sorted by host, port, feature and outcome.
func (r *Record) entries() []Entry {
	r.mu.Lock()
	out := make([]Entry, 0, len(r.m))
	for _, e := range r.m {
		out = append(out, *e)
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Host != b.Host {
			return a.Host < b.Host
		}
		if a.Port != b.Port {
			return a.Port < b.Port
		}
		if a.Feature != b.Feature {
			return a.Feature < b.Feature
		}
		return a.Outcome < b.Outcome
	})
	return out
}
