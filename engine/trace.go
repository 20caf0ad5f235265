package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Traces store the workflow traces the SDK's Workflow posts at end(): a
// workflow's steps, their outputs and the lb-trace-id of each call.
//
// Key schema: trace/<owner>/<reverse-time id>, so a scan lists newest first.
type Traces struct {
	store Store
	now   func() time.Time
}

// Trace is one stored workflow trace.
type Trace struct {
	ID        string          `json:"id"`
	Owner     string          `json:"owner_login"`
	Name      string          `json:"name"`
	CreatedAt time.Time       `json:"created_at"`
	Body      json.RawMessage `json:"trace"`
}

// MaxTraceBytes bounds one stored trace.
const MaxTraceBytes = 1 << 20

// NewTraces returns the trace service.
func NewTraces(store Store) *Traces { return &Traces{store: store, now: time.Now} }

// Create stores a trace body as sent by the SDK ({workflow:{name, steps...}, entityAuthId}).
func (t *Traces) Create(ctx context.Context, owner string, body json.RawMessage) (*Trace, error) {
	if len(body) == 0 {
		return nil, FieldError("workflow", "is required")
	}
	if len(body) > MaxTraceBytes {
		return nil, Errorf(CodePayloadTooLarge, "a trace may be at most %d bytes", MaxTraceBytes)
	}
	var probe struct {
		Workflow *struct {
			Name string `json:"name"`
		} `json:"workflow"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, FieldError("body", "must be a JSON object")
	}
	if probe.Workflow == nil {
		return nil, FieldError("workflow", "is required")
	}
	now := NowFrom(ctx, t.now).UTC()
	tr := &Trace{ID: "trace_" + reverseTimeID(ctx, now), Owner: owner, Name: probe.Workflow.Name, CreatedAt: now, Body: body}
	err := t.store.Update(ctx, func(tx Tx) error { return tx.Put("trace/"+owner+"/"+tr.ID, tr) })
	if err != nil {
		return nil, err
	}
	return tr, nil
}

// List returns an owner's traces, newest first, at most limit.
func (t *Traces) List(ctx context.Context, owner string, limit int) ([]*Trace, error) {
	out := []*Trace{}
	err := t.store.View(ctx, func(tx Tx) error {
		return scanJSON(tx, "trace/"+owner+"/", func(tr *Trace) error {
			out = append(out, tr)
			if len(out) >= limit {
				return ErrStopScan
			}
			return nil
		})
	})
	return out, err
}

// reverseTimeID sorts newest first: (max - unix nanos) zero-padded, plus randomness.
func reverseTimeID(ctx context.Context, t time.Time) string {
	return fmt.Sprintf("%019d%s", int64(1<<62)-t.UnixNano(), NewID(ctx, 6))
}
