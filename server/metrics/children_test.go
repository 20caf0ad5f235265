package metrics

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestPerRequestSeries: the series recorded on every request, through
// their cached children, hold what they held when every call looked its
// child up in the vector; a token type never reported gets no series.
func TestPerRequestSeries(t *testing.T) {
	m := New("test")
	for i := 0; i < 3; i++ {
		m.Request("POST", "/v1/pipes/run", 200, 10*time.Millisecond)
		m.UpstreamCall("openai", "chat", 2*time.Second, nil)
		m.ModelUsage("openai", "text-embedding-3-small", 5, 0, 0.25)
	}
	m.Request("POST", "/v1/pipes/run", 429, time.Millisecond)
	m.Request("GET", "/health", 200, time.Millisecond)
	if err := testutil.GatherAndCompare(m.reg, strings.NewReader(`
# HELP hearth_http_requests_total HTTP requests answered, by method, route template and status.
# TYPE hearth_http_requests_total counter
hearth_http_requests_total{method="GET",route="/health",status="200"} 1
hearth_http_requests_total{method="POST",route="/v1/pipes/run",status="200"} 3
hearth_http_requests_total{method="POST",route="/v1/pipes/run",status="429"} 1
# HELP hearth_model_tokens_total Tokens used by model calls, by provider, model and type (prompt, completion).
# TYPE hearth_model_tokens_total counter
hearth_model_tokens_total{model="text-embedding-3-small",provider="openai",type="prompt"} 15
# HELP hearth_model_cost_usd_total List-price cost in USD of model calls, by provider and model (0 for unpriced models).
# TYPE hearth_model_cost_usd_total counter
hearth_model_cost_usd_total{model="text-embedding-3-small",provider="openai"} 0.75
# HELP hearth_upstream_requests_total Calls to providers and other outside services, by provider, kind and outcome code (ok, canceled or an error code).
# TYPE hearth_upstream_requests_total counter
hearth_upstream_requests_total{code="ok",kind="chat",provider="openai"} 3
`), "hearth_http_requests_total", "hearth_model_tokens_total", "hearth_model_cost_usd_total", "hearth_upstream_requests_total"); err != nil {
		t.Fatal(err)
	}
	// Every per-request series went through its cache.
	for name, n := range map[string]int{"requests": m.requestsC.size(), "request duration": m.reqDurationC.size(),
		"upstream": m.upstreamC.size(), "upstream duration": m.upstreamDurationC.size(), "tokens": m.tokensC.size(), "cost": m.costC.size()} {
		if want := map[string]int{"requests": 3, "request duration": 2}[name]; (want == 0 && n != 1) || (want != 0 && n != want) {
			t.Fatalf("%s: %d cached children", name, n)
		}
	}
	if n := testutil.CollectAndCount(m.reqDuration); n != 2 {
		t.Fatalf("%d request duration series, want 2 (by method and route)", n)
	}
	if c := histogramCount(t, m, "hearth_upstream_request_duration_seconds"); c != 3 {
		t.Fatalf("upstream duration count %d, want 3", c)
	}
	if c := histogramCount(t, m, "hearth_http_request_duration_seconds"); c != 5 {
		t.Fatalf("request duration count %d, want 5", c)
	}
}

// histogramCount sums the sample counts of a histogram's series.
func histogramCount(t *testing.T, m *Metrics, name string) uint64 {
	t.Helper()
	mfs, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, s := range mf.GetMetric() {
				n += s.GetHistogram().GetSampleCount()
			}
		}
	}
	return n
}

// TestChildCacheBounded: past its bound the cache keeps no more children
// and still answers each key with its vector's child.
func TestChildCacheBounded(t *testing.T) {
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "x"}, []string{"a"})
	c := newChildCache[prometheus.Counter](vec, 1)
	if c.most != maxCachedChildren {
		t.Fatalf("bound %d", c.most)
	}
	c.most = 64
	for i := 0; i < c.most+10; i++ {
		c.with([3]string{fmt.Sprint(i)}).Inc()
	}
	c.with([3]string{"7"}).Inc()
	c.with([3]string{fmt.Sprint(c.most + 5)}).Inc()
	if n := c.size(); n != c.most {
		t.Fatalf("%d children cached, want %d", n, c.most)
	}
	if got := testutil.ToFloat64(vec.WithLabelValues("7")); got != 2 {
		t.Fatalf("cached child: %v, want 2", got)
	}
	if got := testutil.ToFloat64(vec.WithLabelValues(fmt.Sprint(c.most + 5))); got != 2 {
		t.Fatalf("uncached child: %v, want 2", got)
	}
}

// BenchmarkPerRequestSeriesAllocs: recording a request (in flight, then
// done), an upstream call and a model's usage allocates nothing once
// their series exist (Go 1.26). The vectors' own lookups allocated a label
// slice on every call when the cache was written; on Go 1.26 they no
// longer do (BenchmarkRequestSeries/vector).
func BenchmarkPerRequestSeriesAllocs(b *testing.B) {
	m := New("test")
	record := func() {
		m.InFlight(1)
		m.InFlight(-1)
		m.Request("POST", "/v1/agent/run", 200, time.Millisecond)
		m.UpstreamCall("openai", "chat", time.Millisecond, nil)
		m.ModelUsage("openai", "gpt-4o-mini", 10, 5, 0.001)
	}
	record() // the series exist from here on
	b.ReportAllocs()
	for b.Loop() {
		record()
	}
}

// BenchmarkRequestSeries: recording one request's HTTP series through the
// cache, and through the vectors' own lookups.
func BenchmarkRequestSeries(b *testing.B) {
	m := New("test")
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.Request("POST", "/v1/agent/run", 200, time.Millisecond)
		}
	})
	b.Run("vector", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.requests.WithLabelValues("POST", "/v1/agent/run", statusLabel(200)).Inc()
			m.reqDuration.WithLabelValues("POST", "/v1/agent/run").Observe(0.001)
		}
	})
}

// TestInFlightGauge: the in-flight gauge reads the request count at each
// scrape, from any number of goroutines.
func TestInFlightGauge(t *testing.T) {
	m := New("test")
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Go(func() {
			for i := 0; i < 1000; i++ {
				m.InFlight(1)
				m.InFlight(-1)
			}
			m.InFlight(1)
		})
	}
	wg.Wait()
	m.InFlight(-1)
	if err := testutil.GatherAndCompare(m.reg, strings.NewReader(`
# HELP hearth_http_requests_in_flight HTTP requests being served now, streams included.
# TYPE hearth_http_requests_in_flight gauge
hearth_http_requests_in_flight 3
`), "hearth_http_requests_in_flight"); err != nil {
		t.Fatal(err)
	}
	if m.inFlight.Load() != 3 {
		t.Fatalf("count %d", m.inFlight.Load())
	}
}
