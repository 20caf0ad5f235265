package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/hearth-dev/hearth/server/servertest"
)

// keyLagPoll is how often the revoke probe asks node B; it bounds the
// figures' precision.
const keyLagPoll = time.Millisecond

// measureKeyLag creates a key through a, uses it on b (so b caches it),
// revokes it through a and times from the revoke's answer to the first
// request b refuses, samples times: the bound on a revoked key's life in
// the other nodes' caches.
func measureKeyLag(a, b *servertest.Server, samples int) (p50, p99 float64, err error) {
	var lags []float64
	for i := range samples {
		var created struct {
			Key  string `json:"key"`
			Info struct {
				ID string `json:"id"`
			} `json:"info"`
		}
		r := a.Do("POST", "/v1/keys", servertest.AdminKey, map[string]any{"name": fmt.Sprintf("lag-%d", i)})
		if r.Status != 200 {
			return 0, 0, fmt.Errorf("create key: %d %s", r.Status, r.Body)
		}
		if err := json.Unmarshal(r.Body, &created); err != nil {
			return 0, 0, err
		}
		for deadline := time.Now().Add(30 * time.Second); !b.App.Cluster.Fresh(); time.Sleep(keyLagPoll) {
			if time.Now().After(deadline) {
				return 0, 0, fmt.Errorf("node B not fresh after 30s")
			}
		}
		if r := b.Do("GET", "/v1/pipes", created.Key, nil); r.Status != 200 {
			return 0, 0, fmt.Errorf("new key on B: %d", r.Status)
		}
		if r := a.Do("DELETE", "/v1/keys/"+created.Info.ID, servertest.AdminKey, nil); r.Status != 200 {
			return 0, 0, fmt.Errorf("revoke: %d %s", r.Status, r.Body)
		}
		revoked := time.Now()
		for b.Do("GET", "/v1/pipes", created.Key, nil).Status != 401 {
			if time.Since(revoked) > 30*time.Second {
				return 0, 0, fmt.Errorf("revoked key still served by B after 30s")
			}
			time.Sleep(keyLagPoll)
		}
		lags = append(lags, ms(time.Since(revoked)))
	}
	sort.Float64s(lags)
	return percentile(lags, 50), percentile(lags, 99), nil
}
