package engine

import (
	"github.com/hearth-dev/hearth/engine/guard"

	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Run content is the prompt and completion text of a run, kept for
// debugging only when the pipe (log_content) or its owner opted in
// (docs/pipes-and-threads.md#run-log). It lives in its own records, apart from the
// RunRecord, so listing usage never reads it.
//
// Key schema: runcontent/<owner>/<run id> holds a RunContent;
// runcontentexp/<expiry, 19 digits of Unix ns>/<owner>/<run id> indexes
// it by expiry for the sweep; runcontentcfg/<owner> holds the owner's
// RunContentSettings. All of it is in the store, so every node of a
// cluster reads the same settings and content.
const (
	prefixRunContent    = "runcontent/"
	prefixRunContentExp = "runcontentexp/"
	prefixRunContentCfg = "runcontentcfg/"
)

// DefaultRunContentRetention is how long stored run content is kept when
// neither the owner nor HEARTH_RUN_CONTENT_RETENTION says otherwise.
const DefaultRunContentRetention = 7 * 24 * time.Hour

// Run kinds (RunRecord.Kind).
const (
	RunKindPipe       = "pipe"
	RunKindAgent      = "agent"
	RunKindCompletion = "completion"
	RunKindImage      = "image"
	// RunKindMCP is a tool call or resource read on the MCP endpoint
	// (a run_pipe call is recorded as the pipe run it is).
	RunKindMCP = "mcp"
)

// RunKindOf is a record's kind; records written before kinds existed are
// pipe runs when they name a pipe, provider-model completions otherwise.
func RunKindOf(r *RunRecord) string {
	switch {
	case r.Kind != "":
		return r.Kind
	case r.PipeID != "":
		return RunKindPipe
	}
	return RunKindCompletion
}

// RunToolCall is one MCP tool call an agent run made.
type RunToolCall struct {
	Name       string `json:"name"`
	Server     string `json:"server"`
	DurationMs int64  `json:"duration_ms"`
	Error      string `json:"error,omitempty"`
}

// RunContent is the stored text of one run: the messages sent to the
// model, the completion, and the tool calls the model asked for. Key-shaped
// strings are redacted before it is written.
type RunContent struct {
	Messages   []Message  `json:"messages"`
	Completion string     `json:"completion"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ExpiresAt  time.Time  `json:"expires_at"`
}

// runContentItem is content offered with a record: kept when pipeOptIn is
// set or the owner opted in. secrets are exact values to redact (the
// provider key of the run).
type runContentItem struct {
	content   RunContent
	pipeOptIn bool
	secrets   []string
}

// WithContent attaches the run's text to r, to be kept when pipeOptIn is
// set or the owner's settings log content. secrets (the run's provider
// key, for example) are redacted from it. Nothing is copied: the slices
// must not change after the call.
func (r *RunRecord) WithContent(messages []Message, completion string, toolCalls []ToolCall, pipeOptIn bool, secrets ...string) {
	r.content = &runContentItem{content: RunContent{Messages: messages, Completion: completion, ToolCalls: toolCalls},
		pipeOptIn: pipeOptIn, secrets: secrets}
}

// RunContentSettings is an owner's run-content setting (GET/PUT
// /v1/runs/settings).
type RunContentSettings struct {
	// LogContent keeps the content of every run of the owner.
	LogContent bool `json:"log_content"`
	// Retention is how long content is kept, as "7d", "36h" or "90m";
	// "" is the server's default.
	Retention string `json:"retention"`
}

// ParseRetention reads a retention period: a whole number of days ("7d")
// or a Go duration ("36h", "90m"), between one minute and 3650 days.
func ParseRetention(field, s string) (time.Duration, error) {
	var d time.Duration
	var err error
	if n, ok := strings.CutSuffix(s, "d"); ok {
		var days int
		days, err = strconv.Atoi(n)
		d = time.Duration(days) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d < time.Minute || d > 3650*24*time.Hour {
		return 0, FieldError(field, "must be a period between 1m and 3650d, such as 7d or 36h, got %q", s)
	}
	return d, nil
}

// SetContentRetention sets the default retention of stored run content
// (DefaultRunContentRetention when d <= 0) and the clock that dates it
// (time.Now when nil). Call it before recording.
func (l *RunLog) SetContentRetention(d time.Duration, now func() time.Time) {
	l.retention, l.now = d, now
}

func (l *RunLog) clock() time.Time {
	if l.now != nil {
		return l.now()
	}
	return time.Now()
}

// ContentSettings returns an owner's run-content settings (the zero value
// when never set).
func (l *RunLog) ContentSettings(ctx context.Context, owner string) (*RunContentSettings, error) {
	var s RunContentSettings
	err := l.store.View(ctx, func(tx Tx) error { return tx.Get(prefixRunContentCfg+owner, &s) })
	if err != nil && !IsNotFound(err) {
		return nil, err
	}
	return &s, nil
}

// SetContentSettings validates and stores an owner's run-content settings.
// They apply to runs recorded from then on.
func (l *RunLog) SetContentSettings(ctx context.Context, owner string, s *RunContentSettings) error {
	if s.Retention != "" {
		if _, err := ParseRetention("retention", s.Retention); err != nil {
			return err
		}
	}
	return l.store.Update(ctx, func(tx Tx) error { return tx.Put(prefixRunContentCfg+owner, s) })
}

// putContent writes r's content when it was offered and someone opted in,
// and marks r. opted caches owner settings for one batch.
func (l *RunLog) putContent(tx Tx, r *RunRecord, opted map[string]*RunContentSettings) error {
	it := r.content
	if it == nil {
		return nil
	}
	s, ok := opted[r.Owner]
	if !ok {
		s = &RunContentSettings{}
		if err := tx.Get(prefixRunContentCfg+r.Owner, s); err != nil && !IsNotFound(err) {
			return err
		}
		opted[r.Owner] = s
	}
	if !it.pipeOptIn && !s.LogContent {
		return nil
	}
	keep := l.ContentRetention()
	if s.Retention != "" {
		if d, err := ParseRetention("retention", s.Retention); err == nil {
			keep = d
		}
	}
	c := redactContent(it.content, it.secrets)
	c.ExpiresAt = l.clock().Add(keep).UTC()
	if err := tx.Put(prefixRunContent+r.Owner+"/"+r.ID, c); err != nil {
		return err
	}
	if err := tx.PutRaw(runContentExpKey(c.ExpiresAt, r.Owner, r.ID), nil); err != nil {
		return err
	}
	r.ContentStored = true
	return nil
}

func runContentExpKey(at time.Time, owner, id string) string {
	return fmt.Sprintf("%s%019d/%s/%s", prefixRunContentExp, at.UnixNano(), owner, id)
}

// RunContent returns the stored content of an owner's run; a NOT_FOUND
// error when none is stored (never kept, or expired).
func (l *RunLog) RunContent(ctx context.Context, owner, id string) (*RunContent, error) {
	var c RunContent
	err := l.store.View(ctx, func(tx Tx) error { return tx.Get(prefixRunContent+owner+"/"+id, &c) })
	if err != nil {
		return nil, err
	}
	if !c.ExpiresAt.After(l.clock()) {
		return nil, Errorf(CodeNotFound, "the content of run %s expired", id)
	}
	return &c, nil
}

// Get returns one of an owner's run records.
func (l *RunLog) Get(ctx context.Context, owner, id string) (*RunRecord, error) {
	var r RunRecord
	err := l.store.View(ctx, func(tx Tx) error { return tx.Get(prefixRun+owner+"/"+id, &r) })
	if IsNotFound(err) {
		return nil, Errorf(CodeNotFound, "run %s not found", id)
	}
	if err != nil {
		return nil, err
	}
	r.Kind = RunKindOf(&r)
	return &r, nil
}

// keyPattern matches key-shaped strings (guard.KeyShapes), the same
// shapes the secret guardrail finds.
var keyPattern = regexp.MustCompile(guard.KeyShapes)

// RedactedKey replaces a key in stored run content.
const RedactedKey = "[REDACTED]"

// InlineImageOmitted starts the text that replaces an inline (data:) image
// in stored run content: images are not kept, only their size.
const InlineImageOmitted = "[inline image]"

func redactText(s string, secrets []string) string {
	for _, v := range secrets {
		if v = strings.TrimSpace(v); len(v) >= 8 {
			s = strings.ReplaceAll(s, v, RedactedKey)
		}
	}
	return keyPattern.ReplaceAllString(s, RedactedKey)
}

// redactContent returns a copy of c with keys replaced and inline images
// left out; c's slices are not modified (they belong to the run).
func redactContent(c RunContent, secrets []string) RunContent {
	out := RunContent{Completion: redactText(c.Completion, secrets), Messages: make([]Message, len(c.Messages))}
	for i, m := range c.Messages {
		m.Content.Text = redactText(m.Content.Text, secrets)
		if len(m.Content.Parts) > 0 {
			parts := make([]ContentPart, len(m.Content.Parts))
			for j, p := range m.Content.Parts {
				p.Text = redactText(p.Text, secrets)
				if p.ImageURL != nil && strings.HasPrefix(p.ImageURL.URL, "data:") {
					img := *p.ImageURL
					img.URL = fmt.Sprintf("%s (%d bytes of inline image not stored)", InlineImageOmitted, len(img.URL))
					p.ImageURL = &img
				}
				parts[j] = p
			}
			m.Content.Parts = parts
		}
		m.ToolCalls = redactCalls(m.ToolCalls, secrets)
		out.Messages[i] = m
	}
	out.ToolCalls = redactCalls(c.ToolCalls, secrets)
	return out
}

func redactCalls(calls []ToolCall, secrets []string) []ToolCall {
	if len(calls) == 0 {
		return calls
	}
	out := make([]ToolCall, len(calls))
	for i, c := range calls {
		c.Function.Arguments = redactText(c.Function.Arguments, secrets)
		out[i] = c
	}
	return out
}

// ContentRetention is the default retention of stored run content.
func (l *RunLog) ContentRetention() time.Duration {
	if l.retention > 0 {
		return l.retention
	}
	return DefaultRunContentRetention
}

// FormatRetention writes a retention period as ParseRetention reads it:
// whole days as "7d", anything else as a Go duration.
func FormatRetention(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
	return d.String()
}
