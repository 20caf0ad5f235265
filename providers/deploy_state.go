package providers

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// Deployment health: a deployment that fails (it cannot be reached, times
// out, answers 5xx or 429, or refuses its own key) cools down, first for
// coolBase, doubling with each failure in a row up to coolMax. When the
// cool-down ends it is probed (GET <base_url>/models; any answer below 500
// counts as alive) before calls come back; a failed probe starts a longer
// cool-down. All of it is this process's memory: each node of a cluster
// keeps its own view of health, calls in flight and latency.
const (
	coolBase     = 5 * time.Second
	coolMax      = 5 * time.Minute
	probeTimeout = 5 * time.Second
	// latencyAlpha weighs the newest latency in the moving average.
	latencyAlpha = 0.3
	// latencyRing is how many latencies the median is taken over.
	latencyRing = 32
)

// deployment is one server of a deployed model and its health on this node
// (fields below chat are guarded by the model's mu).
type deployment struct {
	Deployment
	model string // upstream model name
	chat  engine.ChatModel
	probe func(ctx context.Context) error
	// tpmKey is the key of its token counter (engine.Cluster.Count).
	tpmKey string

	inFlight  int
	fails     int // failures in a row
	coolUntil time.Time
	probing   bool
	// probed is closed when the running probe ends.
	probed   chan struct{}
	lastErr  string
	ewma     float64 // ms; 0: not measured
	lat      [latencyRing]float64
	latN     int
	requests int64
	errors   int64
	current  int // smooth weighted round-robin
}

// deployedModel routes the calls of one model id over its deployments.
type deployedModel struct {
	id       string
	strategy string
	deps     []*deployment
	// declared is the deployments as declared, to tell an unchanged
	// declaration when the set is rebuilt.
	declared []Deployment
	now      func() time.Time
	counter  engine.Cluster
	// probeDone, when set (tests), is called after each health probe.
	probeDone func(name string, err error)

	mu sync.Mutex
}

// skip is why a deployment was not tried, or how its try failed.
type skip struct {
	name, why string
}

// pick chooses the deployment for the next try among those not in tried,
// reserving a slot in flight on it; nil when none can take the call, with
// why each was passed over and, when one is being probed, the channel
// closed when its probe ends. Cooled-down deployments whose time is up
// get a health probe started here.
func (m *deployedModel) pick(ctx context.Context, tried []*deployment) (*deployment, []skip, <-chan struct{}) {
	full := m.tpmFull(ctx, tried)
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	var cands []*deployment
	var skips []skip
	var probed <-chan struct{}
	for _, d := range m.deps {
		if slices.Contains(tried, d) {
			continue
		}
		switch {
		case d.probing:
			probed = d.probed
			skips = append(skips, skip{d.Name, "being probed after: " + d.lastErr})
		case d.fails > 0 && now.Before(d.coolUntil):
			skips = append(skips, skip{d.Name, fmt.Sprintf("cooling down for %s after: %s", d.coolUntil.Sub(now).Round(time.Second), d.lastErr)})
		case d.fails > 0:
			d.probing, d.probed = true, make(chan struct{})
			probed = d.probed
			go m.runProbe(d)
			skips = append(skips, skip{d.Name, "being probed after: " + d.lastErr})
		case d.MaxConcurrency > 0 && d.inFlight >= d.MaxConcurrency:
			skips = append(skips, skip{d.Name, fmt.Sprintf("at its max_concurrency of %d", d.MaxConcurrency)})
		case full[d]:
			skips = append(skips, skip{d.Name, fmt.Sprintf("used its tpm of %d tokens this minute", d.TPM)})
		default:
			cands = append(cands, d)
		}
	}
	if len(cands) == 0 {
		return nil, skips, probed
	}
	d := m.choose(cands)
	d.inFlight++
	d.requests++
	return d, skips, nil
}

// choose applies the strategy to the candidates (under mu).
func (m *deployedModel) choose(cands []*deployment) *deployment {
	switch m.strategy {
	case StrategyLeastBusy:
		best := cands[0]
		for _, d := range cands[1:] {
			if d.inFlight < best.inFlight {
				best = d
			}
		}
		return best
	case StrategyLatency:
		// An unmeasured deployment (new, or back from a cool-down) is
		// tried first, so every one gets measured.
		best := cands[0]
		for _, d := range cands[1:] {
			if d.ewma < best.ewma {
				best = d
			}
		}
		return best
	}
	// Smooth weighted round-robin (as nginx): each candidate gains its
	// weight, the highest is chosen and loses the candidates' total.
	total := 0
	var best *deployment
	for _, d := range cands {
		w := max(d.Weight, 1)
		d.current += w
		total += w
		if best == nil || d.current > best.current {
			best = d
		}
	}
	best.current -= total
	return best
}

// tpmFull reports the deployments with a TPM limit that used it in this
// minute's window (read outside mu: a cluster counter is a database round
// trip). A counter out of reach does not block the deployment.
func (m *deployedModel) tpmFull(ctx context.Context, tried []*deployment) map[*deployment]bool {
	var full map[*deployment]bool
	for _, d := range m.deps {
		if d.TPM <= 0 || slices.Contains(tried, d) || m.counter == nil {
			continue
		}
		if n, err := m.counter.Count(ctx, d.tpmKey, time.Minute, 0); err == nil && n >= d.TPM {
			if full == nil {
				full = map[*deployment]bool{}
			}
			full[d] = true
		}
	}
	return full
}

// spend counts a call's tokens against the deployment's TPM limit.
func (m *deployedModel) spend(d *deployment, u *engine.Usage) {
	if d.TPM <= 0 || m.counter == nil || u == nil || u.PromptTokens+u.CompletionTokens == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	_, _ = m.counter.Count(ctx, d.tpmKey, time.Minute, int64(u.PromptTokens+u.CompletionTokens))
}

// done releases the call's slot and records its outcome: latency (when
// lat > 0) on success, a cool-down on a failure of the deployment's own.
func (m *deployedModel) done(d *deployment, lat time.Duration, failed error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d.inFlight--
	if failed != nil {
		m.fail(d, failed)
		return
	}
	d.fails = 0
	if lat > 0 {
		ms := float64(lat) / float64(time.Millisecond)
		if d.ewma == 0 {
			d.ewma = ms
		} else {
			d.ewma = latencyAlpha*ms + (1-latencyAlpha)*d.ewma
		}
		d.lat[d.latN%latencyRing] = ms
		d.latN++
	}
}

// fail starts or lengthens d's cool-down (under mu).
func (m *deployedModel) fail(d *deployment, err error) {
	d.errors++
	d.fails++
	d.lastErr = shortError(err)
	cool := coolBase << min(d.fails-1, 10)
	var ee *engine.Error
	if asEngineError(err, &ee) && ee.RetryAfter > 0 {
		cool = max(cool, time.Duration(ee.RetryAfter)*time.Second)
	}
	d.coolUntil = m.now().Add(min(cool, coolMax))
	d.ewma = 0 // measured again when it is back
}

// runProbe checks a cooled-down deployment and lets calls back to it when
// it answers.
func (m *deployedModel) runProbe(d *deployment) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	err := d.probe(ctx)
	cancel()
	m.mu.Lock()
	d.probing = false
	if err != nil {
		m.fail(d, err)
		d.errors-- // a probe is not a call
	} else {
		d.fails = 0
	}
	close(d.probed)
	m.mu.Unlock()
	if m.probeDone != nil {
		m.probeDone(d.Name, err)
	}
}

// status is the model's deployments as GET /v1/providers shows them.
func (m *deployedModel) status() []engine.DeploymentStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	out := make([]engine.DeploymentStatus, 0, len(m.deps))
	for _, d := range m.deps {
		s := engine.DeploymentStatus{Model: m.id, Strategy: m.strategy, Name: d.Name, State: "healthy", LastError: d.lastErr,
			InFlight: d.inFlight, LatencyMs: d.ewma, Requests: d.requests, Errors: d.errors,
			Weight: max(d.Weight, 1), MaxConcurrency: d.MaxConcurrency, TPM: d.TPM}
		switch {
		case d.probing || (d.fails > 0 && !now.Before(d.coolUntil)):
			s.State = "probing"
		case d.fails > 0:
			s.State = "cooling"
			t := d.coolUntil.UTC()
			s.CoolingUntil = &t
		}
		n := min(d.latN, latencyRing)
		if n > 0 {
			l := slices.Clone(d.lat[:n])
			slices.Sort(l)
			s.P50Ms = l[n/2]
		}
		out = append(out, s)
	}
	return out
}

// probeModels is the health probe of an OpenAI-style or native base URL:
// GET <base>/models; any answer below 500 means the server is up.
func probeModels(c caller, base string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(c.label.Context(ctx), http.MethodGet, strings.TrimRight(base, "/")+"/models", nil)
		if err != nil {
			return err
		}
		resp, err := c.client.Do(req)
		if err != nil {
			return fmt.Errorf("health probe failed: %s", shortError(err))
		}
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			return fmt.Errorf("health probe answered HTTP %d", resp.StatusCode)
		}
		return nil
	}
}
