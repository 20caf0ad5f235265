// Package otlptest is an in-process OTLP/HTTP trace receiver for tests: it
// accepts ExportTraceServiceRequest posts in the JSON encoding, decodes
// them independently of the exporter and keeps the spans it got.
package otlptest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
)

// Span is a received span with its attributes decoded to Go values
// (string, int64, float64, bool, []any).
type Span struct {
	TraceID, SpanID, ParentSpanID string
	Name                          string
	Kind                          int
	Start, End                    int64
	Attrs                         map[string]any
	Events                        []Event
	Links                         []Link
	StatusCode                    int
	StatusMessage                 string
	Resource                      map[string]any
	Scope                         string
}

// Link is a received span link.
type Link struct{ TraceID, SpanID string }

// Event is a received span event.
type Event struct {
	Name  string
	Time  int64
	Attrs map[string]any
}

// Receiver is an http.Handler for POST /v1/traces. Reply, when set,
// chooses the answer to the n-th post (1-based): a status and a
// Retry-After value; nil accepts everything.
type Receiver struct {
	Reply func(n int) (status int, retryAfter string)

	mu       sync.Mutex
	spans    []Span
	posts    int
	headers  []http.Header
	types    []string
	rejected []string
}

type wire struct {
	ResourceSpans []struct {
		Resource struct {
			Attributes []kv `json:"attributes"`
		} `json:"resource"`
		ScopeSpans []struct {
			Scope struct {
				Name string `json:"name"`
			} `json:"scope"`
			Spans []struct {
				TraceID      string `json:"traceId"`
				SpanID       string `json:"spanId"`
				ParentSpanID string `json:"parentSpanId"`
				Name         string `json:"name"`
				Kind         int    `json:"kind"`
				Start        string `json:"startTimeUnixNano"`
				End          string `json:"endTimeUnixNano"`
				Attributes   []kv   `json:"attributes"`
				Events       []struct {
					Time       string `json:"timeUnixNano"`
					Name       string `json:"name"`
					Attributes []kv   `json:"attributes"`
				} `json:"events"`
				Links []struct {
					TraceID string `json:"traceId"`
					SpanID  string `json:"spanId"`
				} `json:"links"`
				Status struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"status"`
			} `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type kv struct {
	Key   string   `json:"key"`
	Value anyValue `json:"value"`
}

type anyValue struct {
	StringValue *string  `json:"stringValue"`
	IntValue    *string  `json:"intValue"`
	DoubleValue *float64 `json:"doubleValue"`
	BoolValue   *bool    `json:"boolValue"`
	ArrayValue  *struct {
		Values []anyValue `json:"values"`
	} `json:"arrayValue"`
}

func (v anyValue) decode() any {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.IntValue != nil:
		n, _ := strconv.ParseInt(*v.IntValue, 10, 64)
		return n
	case v.DoubleValue != nil:
		return *v.DoubleValue
	case v.BoolValue != nil:
		return *v.BoolValue
	case v.ArrayValue != nil:
		out := []any{}
		for _, e := range v.ArrayValue.Values {
			out = append(out, e.decode())
		}
		return out
	}
	return nil
}

func attrs(l []kv) map[string]any {
	m := map[string]any{}
	for _, a := range l {
		m[a.Key] = a.Value.decode()
	}
	return m
}

func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.posts++
	r.headers = append(r.headers, req.Header.Clone())
	r.types = append(r.types, req.Header.Get("Content-Type"))
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		r.rejected = append(r.rejected, req.Method+" "+req.URL.Path)
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if r.Reply != nil {
		if status, ra := r.Reply(r.posts); status != 0 && status != http.StatusOK {
			if ra != "" {
				w.Header().Set("Retry-After", ra)
			}
			http.Error(w, "refused", status)
			return
		}
	}
	var body wire
	if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
		r.rejected = append(r.rejected, "bad json: "+err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for _, rs := range body.ResourceSpans {
		res := attrs(rs.Resource.Attributes)
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				sp := Span{TraceID: s.TraceID, SpanID: s.SpanID, ParentSpanID: s.ParentSpanID, Name: s.Name, Kind: s.Kind,
					Attrs: attrs(s.Attributes), StatusCode: s.Status.Code, StatusMessage: s.Status.Message, Resource: res, Scope: ss.Scope.Name}
				sp.Start, _ = strconv.ParseInt(s.Start, 10, 64)
				sp.End, _ = strconv.ParseInt(s.End, 10, 64)
				for _, e := range s.Events {
					t, _ := strconv.ParseInt(e.Time, 10, 64)
					sp.Events = append(sp.Events, Event{Name: e.Name, Time: t, Attrs: attrs(e.Attributes)})
				}
				for _, l := range s.Links {
					sp.Links = append(sp.Links, Link{TraceID: l.TraceID, SpanID: l.SpanID})
				}
				r.spans = append(r.spans, sp)
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{}`))
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Posts is the number of requests received (accepted or not).
func (r *Receiver) Posts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.posts
}

// Headers returns the request headers of each post.
func (r *Receiver) Headers() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.headers...)
}

// Rejected lists posts refused for their path, method or body.
func (r *Receiver) Rejected() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.rejected...)
}

// Trace returns the received spans of one trace.
func (r *Receiver) Trace(traceID string) []Span {
	var out []Span
	for _, s := range r.Spans() {
		if s.TraceID == traceID {
			out = append(out, s)
		}
	}
	return out
}

// Named returns the spans of list whose name is name.
func Named(list []Span, name string) []Span {
	var out []Span
	for _, s := range list {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// Children returns the spans of list whose parent is parent.
func Children(list []Span, parent Span) []Span {
	var out []Span
	for _, s := range list {
		if s.ParentSpanID == parent.SpanID && s.TraceID == parent.TraceID {
			out = append(out, s)
		}
	}
	return out
}
