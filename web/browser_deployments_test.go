//go:build !no_ui

package web_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// modelHost is a fake OpenAI-wire model server answering with its name,
// or with status when set.
func modelHost(t *testing.T, name string, status int) string {
	srv := httptest.NewServer(fake.FixedChat(name, status, nil))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// TestStudioDeploymentsInBrowser: the Deployments page shows each
// deployment's state as GET /v1/providers reports it (a failing one
// cooling or awaiting its probe, with its error count, a healthy one with its calls and median
// latency), the declarations with their source and masked keys, and
// picks up a deployment stored while the page is open.
func TestStudioDeploymentsInBrowser(t *testing.T) {
	requireChromium(t)
	bad, good := modelHost(t, "from-bad", 503), modelHost(t, "from-good", 0)
	ts := servertest.Start(t, servertest.WithProviders(func(c *providers.Config) {
		c.Deployments = []providers.ModelDeployments{{Model: "local:llama", Servers: []providers.Deployment{
			{Name: "gpu-bad", BaseURL: bad}, {Name: "gpu-good", BaseURL: good}}}}
	}))
	b := newBrowserIn(t, ts, "studio-deployments")
	defer b.checkClean()
	key := servertest.AdminKey
	for range 3 {
		mustDo(t, ts.Do("POST", "/openai/v1/chat/completions", key, map[string]any{"model": "local:llama", "messages": []any{map[string]any{"role": "user", "content": "hi"}}}))
	}
	mustDo(t, ts.Do("POST", "/v1/deployments", key, map[string]any{"name": "box", "model": "gpu:llama", "base_url": good, "api_key": "sk-box-secret-7777", "weight": 2}))
	signIn(t, b)

	b.open("/studio/deployments")
	row := func(id string) string {
		return `document.querySelector('#deployments-table tr[data-deployment="` + id + `"]')`
	}
	b.waitJS("the state rows", `!!`+row("local:llama/gpu-bad")+` && !!`+row("gpu:llama/box"), 15*time.Second)
	cell := func(id, col string) string {
		return eval[string](b, row(id)+`.querySelector('[data-col=`+col+`]').textContent`)
	}
	// Its cool-down may end before the page opens on a loaded machine;
	// with no call since, it then waits for a probe: either way not healthy.
	if st := eval[string](b, row("local:llama/gpu-bad")+`.dataset.state`); st != "cooling" && st != "probing" {
		t.Errorf("the failing deployment shows state %q, want cooling (or probing once its cool-down ended)", st)
	}
	if got := cell("local:llama/gpu-bad", "errors"); got != "1" {
		t.Errorf("the failing deployment shows %q errors, want 1", got)
	}
	if st := eval[string](b, row("local:llama/gpu-good")+`.dataset.state`); st != "healthy" {
		t.Errorf("the healthy deployment shows state %q", st)
	}
	if got := cell("local:llama/gpu-good", "requests"); got != "3" {
		t.Errorf("the healthy deployment shows %q requests, want 3", got)
	}
	if got := cell("local:llama/gpu-good", "p50"); got == "–" || !strings.HasSuffix(got, "s") {
		t.Errorf("the healthy deployment's p50 shows %q, want a latency", got)
	}
	if got := cell("gpu:llama/box", "p50"); got != "–" {
		t.Errorf("an unused deployment's p50 shows %q, want –", got)
	}

	decl := func(name string) string {
		return `document.querySelector('#declared-table tr[data-declared="` + name + `"]')`
	}
	b.waitJS("the declarations", `!!`+decl("box"), 10*time.Second)
	if src := eval[string](b, decl("gpu-bad")+`.dataset.source`); src != "config" {
		t.Errorf("a configured deployment shows source %q", src)
	}
	if src := eval[string](b, decl("box")+`.dataset.source`); src != "stored" {
		t.Errorf("a stored deployment shows source %q", src)
	}
	if k := eval[string](b, decl("box")+`.querySelector('[data-col=key]').textContent`); k != "…7777" {
		t.Errorf("the stored key shows as %q, want …7777", k)
	}
	if strings.Contains(b.text(), "sk-box-secret") {
		t.Error("the page shows a deployment's key")
	}
	b.screenshot("deployments")

	mustDo(t, ts.Do("POST", "/v1/deployments", key, map[string]any{"name": "box-2", "model": "gpu:llama", "base_url": bad}))
	b.waitJS("a deployment stored while the page is open", `!!`+row("gpu:llama/box-2"), 20*time.Second)
}
