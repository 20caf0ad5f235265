package providers

import (
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// TestSetStoredSwapsRouters: stored deployments join the configuration's
// without a restart; a model whose declaration did not change keeps its
// router (and health), a configured model ignores stored ones, and an
// alias provider comes and goes with its deployments.
func TestSetStoredSwapsRouters(t *testing.T) {
	clock := &depClock{t: time.Unix(1e9, 0)}
	a, b := newDepUpstream(t, "a"), newDepUpstream(t, "b")
	r, _ := depRegistry(t, StrategyRoundRobin, clock, a)
	if r.Known("gpu") {
		t.Fatal("gpu known before any stored deployment")
	}
	gpu := ModelDeployments{Model: "gpu:llama", Servers: []Deployment{{Name: "b", BaseURL: b.url()}}}
	if err := r.SetStored([]ModelDeployments{gpu}); err != nil {
		t.Fatal(err)
	}
	if !r.Known("gpu") || !strings.Contains(strings.Join(r.Providers(), ","), "gpu") {
		t.Fatalf("alias gpu not known: %v", r.Providers())
	}
	before := r.deployedNow().models[engine.ModelRef{Provider: "local", Model: "llama"}]
	clash := ModelDeployments{Model: "local:llama", Servers: []Deployment{{Name: "b", BaseURL: b.url()}}}
	err := r.SetStored([]ModelDeployments{gpu, clash})
	if err == nil || !strings.Contains(err.Error(), "configuration declares") {
		t.Fatalf("a stored deployment of a configured model: %v", err)
	}
	if got := r.deployedNow().models[engine.ModelRef{Provider: "local", Model: "llama"}]; got != before || len(got.deps) != 1 {
		t.Fatal("the configured model's router changed")
	}
	if name, err := depChat(t, r); err != nil || name != "a" {
		t.Fatalf("configured model answered by %q (%v)", name, err)
	}
	if err := r.SetStored(nil); err != nil {
		t.Fatal(err)
	}
	if r.Known("gpu") {
		t.Fatal("gpu still known with no stored deployment")
	}
	if _, err := r.ChatModel(engine.ModelRef{Provider: "gpu", Model: "llama"}); err == nil {
		t.Fatal("gpu:llama still routed")
	}
}
