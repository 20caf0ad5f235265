package otlp

import (
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/hearth-dev/hearth/engine/telemetry"
)

// The OTLP/JSON shapes (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding):
// ids are hex strings, 64-bit integers are decimal strings, enums numbers.
type (
	request struct {
		ResourceSpans []resourceSpans `json:"resourceSpans"`
	}
	resourceSpans struct {
		Resource   resource     `json:"resource"`
		ScopeSpans []scopeSpans `json:"scopeSpans"`
	}
	resource struct {
		Attributes []keyValue `json:"attributes"`
	}
	scopeSpans struct {
		Scope scope  `json:"scope"`
		Spans []span `json:"spans"`
	}
	scope struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	}
	span struct {
		TraceID      string     `json:"traceId"`
		SpanID       string     `json:"spanId"`
		ParentSpanID string     `json:"parentSpanId,omitempty"`
		Name         string     `json:"name"`
		Kind         int        `json:"kind"`
		Start        string     `json:"startTimeUnixNano"`
		End          string     `json:"endTimeUnixNano"`
		Attributes   []keyValue `json:"attributes,omitempty"`
		Events       []event    `json:"events,omitempty"`
		Links        []link     `json:"links,omitempty"`
		Status       status     `json:"status"`
	}
	link struct {
		TraceID string `json:"traceId"`
		SpanID  string `json:"spanId"`
	}
	event struct {
		Time       string     `json:"timeUnixNano"`
		Name       string     `json:"name"`
		Attributes []keyValue `json:"attributes,omitempty"`
	}
	status struct {
		Code    int    `json:"code,omitempty"`
		Message string `json:"message,omitempty"`
	}
	keyValue struct {
		Key   string   `json:"key"`
		Value anyValue `json:"value"`
	}
	anyValue struct {
		String *string     `json:"stringValue,omitempty"`
		Int    *string     `json:"intValue,omitempty"`
		Double *float64    `json:"doubleValue,omitempty"`
		Bool   *bool       `json:"boolValue,omitempty"`
		Array  *arrayValue `json:"arrayValue,omitempty"`
	}
	arrayValue struct {
		Values []anyValue `json:"values"`
	}
)

// Status codes of OTLP's Status.StatusCode.
const statusError = 2

// Encode is the OTLP/JSON ExportTraceServiceRequest of one batch.
func Encode(res []telemetry.Attr, scopeName, version string, spans []*telemetry.SpanData) ([]byte, error) {
	ss := scopeSpans{Scope: scope{Name: scopeName, Version: version}, Spans: make([]span, 0, len(spans))}
	for _, d := range spans {
		sp := span{TraceID: d.TraceID.String(), SpanID: d.SpanID.String(), Name: d.Name, Kind: int(d.Kind),
			Start: nanos(d.Start.UnixNano()), End: nanos(d.End.UnixNano()), Attributes: keyValues(d.Attrs)}
		if !d.ParentID.IsZero() {
			sp.ParentSpanID = d.ParentID.String()
		}
		for _, ev := range d.Events {
			sp.Events = append(sp.Events, event{Time: nanos(ev.Time.UnixNano()), Name: ev.Name, Attributes: keyValues(ev.Attrs)})
		}
		for _, l := range d.Links {
			sp.Links = append(sp.Links, link{TraceID: l.TraceID.String(), SpanID: l.SpanID.String()})
		}
		if d.Failed {
			sp.Status = status{Code: statusError, Message: d.Message}
		}
		ss.Spans = append(ss.Spans, sp)
	}
	return json.Marshal(request{ResourceSpans: []resourceSpans{{Resource: resource{Attributes: keyValues(res)}, ScopeSpans: []scopeSpans{ss}}}})
}

func nanos(n int64) string { return strconv.FormatInt(n, 10) }

func keyValues(attrs []telemetry.Attr) []keyValue {
	out := make([]keyValue, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, keyValue{Key: a.Key, Value: value(a)})
	}
	return out
}

func value(a telemetry.Attr) anyValue {
	switch a.Kind {
	case telemetry.IntValue:
		s := strconv.FormatInt(a.Int, 10)
		return anyValue{Int: &s}
	case telemetry.FloatValue:
		f := a.Float
		return anyValue{Double: &f}
	case telemetry.BoolValue:
		b := a.Int == 1
		return anyValue{Bool: &b}
	case telemetry.StringsValue:
		arr := &arrayValue{Values: make([]anyValue, 0, len(a.Strs))}
		for _, s := range a.Strs {
			arr.Values = append(arr.Values, anyValue{String: &s})
		}
		return anyValue{Array: arr}
	}
	s := a.Str
	return anyValue{String: &s}
}

func unescape(s string) (string, error) { return url.PathUnescape(s) }
