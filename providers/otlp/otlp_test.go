package otlp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine/telemetry"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/otlp/otlptest"
)

func batch() []*telemetry.SpanData {
	now := time.Unix(1700000000, 5)
	d := &telemetry.SpanData{Name: "chat m", Kind: telemetry.KindClient, Start: now, End: now.Add(time.Second),
		Attrs: []telemetry.Attr{telemetry.String("gen_ai.request.model", "m"), telemetry.Int("gen_ai.usage.input_tokens", 7),
			telemetry.Float("gen_ai.response.time_to_first_chunk", 0.25), telemetry.Bool("b", true),
			telemetry.Strings("gen_ai.response.finish_reasons", []string{"stop"})},
		Events: []telemetry.Event{{Name: "retry", Time: now, Attrs: []telemetry.Attr{telemetry.Int("attempt", 2)}}},
		Failed: true, Message: "upstream 500"}
	d.TraceID[0], d.SpanID[0], d.ParentID[7] = 0xab, 0xcd, 1
	var l telemetry.Remote
	l.TraceID[15], l.SpanID[0] = 0x0f, 0xee
	d.Links = []telemetry.Remote{l}
	return []*telemetry.SpanData{d}
}

func TestExportEncodesOTLPJSON(t *testing.T) {
	rec := &otlptest.Receiver{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	e := New(srv.URL+"/", map[string]string{"Authorization": "Bearer tok"}, srv.Client(), "v1.2.3")
	if err := e.Export(context.Background(), []telemetry.Attr{telemetry.String("service.name", "hearth")}, batch()); err != nil {
		t.Fatal(err)
	}
	if r := rec.Rejected(); len(r) > 0 {
		t.Fatalf("receiver rejected %v", r)
	}
	spans := rec.Spans()
	if len(spans) != 1 {
		t.Fatalf("received %d spans", len(spans))
	}
	s := spans[0]
	if s.TraceID != "ab000000000000000000000000000000" || s.SpanID != "cd00000000000000" || s.ParentSpanID != "0000000000000001" {
		t.Errorf("ids %s %s %s: want lowercase hex", s.TraceID, s.SpanID, s.ParentSpanID)
	}
	if s.Kind != 3 || s.Start != 1700000000000000005 || s.End-s.Start != int64(time.Second) || s.StatusCode != 2 || s.StatusMessage != "upstream 500" {
		t.Errorf("span %+v", s)
	}
	want := map[string]any{"gen_ai.request.model": "m", "gen_ai.usage.input_tokens": int64(7),
		"gen_ai.response.time_to_first_chunk": 0.25, "b": true}
	for k, v := range want {
		if s.Attrs[k] != v {
			t.Errorf("%s = %#v, want %#v", k, s.Attrs[k], v)
		}
	}
	if fr, _ := s.Attrs["gen_ai.response.finish_reasons"].([]any); len(fr) != 1 || fr[0] != "stop" {
		t.Errorf("finish_reasons %#v", s.Attrs["gen_ai.response.finish_reasons"])
	}
	if len(s.Events) != 1 || s.Events[0].Attrs["attempt"] != int64(2) || s.Resource["service.name"] != "hearth" || s.Scope == "" {
		t.Errorf("events %+v resource %v", s.Events, s.Resource)
	}
	if len(s.Links) != 1 || s.Links[0] != (otlptest.Link{TraceID: "0000000000000000000000000000000f", SpanID: "ee00000000000000"}) {
		t.Errorf("links %+v: want the one link in lowercase hex", s.Links)
	}
	h := rec.Headers()[0]
	if h.Get("Authorization") != "Bearer tok" || h.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", h)
	}
}

// TestExportRetries: 429 and 503 are retried after the Retry-After the
// collector asked for; a 400 is final.
func TestExportRetries(t *testing.T) {
	rec := &otlptest.Receiver{Reply: func(n int) (int, string) {
		switch n {
		case 1:
			return http.StatusTooManyRequests, "3"
		case 2:
			return http.StatusServiceUnavailable, ""
		}
		return http.StatusOK, ""
	}}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	e := New(srv.URL, nil, srv.Client(), "")
	var waits []time.Duration
	e.sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	if err := e.Export(context.Background(), nil, batch()); err != nil {
		t.Fatal(err)
	}
	if rec.Posts() != 3 || len(rec.Spans()) != 1 {
		t.Fatalf("posts %d spans %d: want 3 posts, the batch delivered once", rec.Posts(), len(rec.Spans()))
	}
	if len(waits) != 2 || waits[0] != 3*time.Second || waits[1] <= 0 {
		t.Fatalf("waits %v: want Retry-After 3s then a backoff", waits)
	}

	bad := &otlptest.Receiver{Reply: func(int) (int, string) { return http.StatusBadRequest, "" }}
	srv2 := httptest.NewServer(bad)
	defer srv2.Close()
	e2 := New(srv2.URL, nil, srv2.Client(), "")
	e2.sleep = e.sleep
	if err := e2.Export(context.Background(), nil, batch()); err == nil || !strings.Contains(err.Error(), "400") || bad.Posts() != 1 {
		t.Fatalf("400: err %v after %d posts; want a final error after one post", err, bad.Posts())
	}

	busy := &otlptest.Receiver{Reply: func(int) (int, string) { return http.StatusServiceUnavailable, "1" }}
	srv3 := httptest.NewServer(busy)
	defer srv3.Close()
	e3 := New(srv3.URL, nil, srv3.Client(), "")
	e3.sleep = e.sleep
	if err := e3.Export(context.Background(), nil, batch()); err == nil || busy.Posts() != e3.MaxAttempts {
		t.Fatalf("always 503: err %v after %d posts; want an error after %d", err, busy.Posts(), e3.MaxAttempts)
	}
}

func TestRetryAfterDate(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if d := providers.RetryAfter(http.Header{"Retry-After": {now.Add(4 * time.Second).Format(http.TimeFormat)}}, now); d != 4*time.Second {
		t.Fatalf("date Retry-After: %v", d)
	}
	if d := providers.RetryAfter(http.Header{"Retry-After": {"soon"}}, now); d != 0 {
		t.Fatalf("bad Retry-After: %v", d)
	}
}

func TestParseHeaders(t *testing.T) {
	h, err := ParseHeaders("Authorization=Bearer%20abc, x-team = ops ,")
	if err != nil || h["Authorization"] != "Bearer abc" || h["x-team"] != "ops" || len(h) != 2 {
		t.Fatalf("%v %v", h, err)
	}
	if _, err := ParseHeaders("novalue"); err == nil {
		t.Fatal("a pair without = accepted")
	}
	if _, err := ParseHeaders("=x"); err == nil {
		t.Fatal("an empty key accepted")
	}
}

func TestEndpointPath(t *testing.T) {
	for in, want := range map[string]string{
		"http://c:4318":           "http://c:4318/v1/traces",
		"http://c:4318/":          "http://c:4318/v1/traces",
		"http://c:4318/v1/traces": "http://c:4318/v1/traces",
		"https://x/otlp":          "https://x/otlp/v1/traces",
	} {
		if got := New(in, nil, nil, "").URL(); got != want {
			t.Errorf("%s -> %s, want %s", in, got, want)
		}
	}
}
