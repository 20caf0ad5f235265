package metrics

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestEngineHooks(t *testing.T) {
	m := New("v1.2.3")
	m.UpstreamCall("openai", "chat", 20*time.Millisecond, nil)
	m.UpstreamCall("openai", "chat", time.Second, engine.Errorf(engine.CodeUpstream, "bad"))
	m.UpstreamCall("openai", "chat_stream", time.Second, context.Canceled)
	m.UpstreamCall("exa", "search", time.Second, fmt.Errorf("foreign"))
	m.ModelUsage("openai", "gpt-4o", 100, 20, 0.5)
	m.ModelUsage("openai", "gpt-4o", 1, 2, 0)
	m.IngestionJob("completed", time.Second)
	m.IngestionJob("failed", time.Second)
	m.WatchIngestQueue(func() (int, int) { return 3, 2 })
	m.WatchIndex(func() engine.IndexSizes { return engine.IndexSizes{Memories: 2, Vectors: 150, KeywordDocs: 150} })
	for _, tc := range []struct {
		got  float64
		want float64
	}{
		{testutil.ToFloat64(m.upstream.WithLabelValues("openai", "chat", "ok")), 1},
		{testutil.ToFloat64(m.upstream.WithLabelValues("openai", "chat", "UPSTREAM_ERROR")), 1},
		{testutil.ToFloat64(m.upstream.WithLabelValues("openai", "chat_stream", "canceled")), 1},
		{testutil.ToFloat64(m.upstream.WithLabelValues("exa", "search", "INTERNAL_SERVER_ERROR")), 1},
		{testutil.ToFloat64(m.tokens.WithLabelValues("openai", "gpt-4o", "prompt")), 101},
		{testutil.ToFloat64(m.tokens.WithLabelValues("openai", "gpt-4o", "completion")), 22},
		{testutil.ToFloat64(m.cost.WithLabelValues("openai", "gpt-4o")), 0.5},
		{testutil.ToFloat64(m.jobs.WithLabelValues("failed")), 1},
	} {
		if tc.got != tc.want {
			t.Errorf("got %v, want %v", tc.got, tc.want)
		}
	}
	if err := testutil.GatherAndCompare(m.reg, strings.NewReader(`
# HELP hearth_index_vectors Live vectors in all loaded memory indexes.
# TYPE hearth_index_vectors gauge
hearth_index_vectors 150
# HELP hearth_ingestion_queue_jobs Background jobs of the memory engine waiting (queued) and being processed (running).
# TYPE hearth_ingestion_queue_jobs gauge
hearth_ingestion_queue_jobs{state="queued"} 3
hearth_ingestion_queue_jobs{state="running"} 2
# HELP hearth_build_info Always 1; the version label is the running Hearth version.
# TYPE hearth_build_info gauge
hearth_build_info{version="v1.2.3"} 1
`), "hearth_index_vectors", "hearth_build_info", "hearth_ingestion_queue_jobs"); err != nil {
		t.Fatal(err)
	}
}

func TestModelLabelsAreBounded(t *testing.T) {
	m := New("test")
	for i := range maxModels + 50 {
		m.ModelUsage("openai", fmt.Sprintf("client-chosen-%d", i), 1, 1, 0)
	}
	if n := testutil.CollectAndCount(m.cost); n != maxModels+1 {
		t.Fatalf("%d cost series, want %d (the cap plus other)", n, maxModels+1)
	}
	if got := testutil.ToFloat64(m.tokens.WithLabelValues("openai", "other", "prompt")); got != 50 {
		t.Fatalf("other prompt tokens %v", got)
	}
}
