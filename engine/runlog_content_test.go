package engine_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// TestRunContentSweep: stored content has keys redacted and inline images
// left out (the run's own messages untouched); it expires after its
// retention (the
// owner's period over the server default); expired content is no longer
// answered, and the sweep deletes exactly the expired records, once, and
// skips its round while another node holds its cluster lock.
func TestRunContentSweep(t *testing.T) {
	_, bs := newAccounts(t)
	ctx := context.Background()
	var now atomic.Int64
	now.Store(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	l := engine.NewRunLog(bs, nil, nil)
	t.Cleanup(func() { l.Close() })
	l.SetContentRetention(48*time.Hour, clock)
	if err := l.SetContentSettings(ctx, "bob", &engine.RunContentSettings{LogContent: true, Retention: "1h"}); err != nil {
		t.Fatal(err)
	}
	msgs := []engine.Message{{Role: "user", Content: engine.TextContent("use key AIzaSyA1234567890abcdefghijklmnopqrstuv and sk-live-secret-value")}}
	msgs = append(msgs, engine.Message{Role: "user", Content: engine.Content{Set: true, Parts: []engine.ContentPart{
		{Type: "image_url", ImageURL: &engine.ImageURL{URL: "data:image/png;base64," + strings.Repeat("A", 4000)}}}}})
	rec := func(id, owner string, pipeOptIn bool) {
		r := engine.RunRecord{ID: id, Owner: owner, PipeID: "p", Status: engine.RunSuccess}
		r.WithContent(msgs, "done", nil, pipeOptIn, "sk-live-secret-value")
		l.Record(r)
	}
	rec("a1", "ann", true)  // pipe opt-in: server default, 48h
	rec("a2", "ann", false) // nobody opted in: nothing stored
	rec("b1", "bob", false) // owner opt-in: bob's 1h
	l.Flush()

	if _, err := l.RunContent(ctx, "ann", "a2"); !engine.IsNotFound(err) {
		t.Fatalf("content of a run nobody opted in: %v", err)
	}
	c, err := l.RunContent(ctx, "ann", "a1")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Messages[0].Content.Text; got != "use key [REDACTED] and [REDACTED]" || !c.ExpiresAt.Equal(clock().Add(48*time.Hour)) {
		t.Fatalf("stored %q expiring %s", got, c.ExpiresAt)
	}
	if u := c.Messages[1].Content.Parts[0].ImageURL.URL; !strings.HasPrefix(u, engine.InlineImageOmitted) || len(u) > 100 {
		t.Fatalf("inline image stored as %.80q", u)
	}
	if strings.Contains(msgs[0].Content.Text, engine.RedactedKey) || !strings.HasPrefix(msgs[1].Content.Parts[0].ImageURL.URL, "data:") {
		t.Fatal("redaction changed the run's own messages")
	}
	if c, err := l.RunContent(ctx, "bob", "b1"); err != nil || !c.ExpiresAt.Equal(clock().Add(time.Hour)) {
		t.Fatalf("bob's content %+v %v", c, err)
	}

	now.Add(int64(2 * time.Hour))
	if _, err := l.RunContent(ctx, "bob", "b1"); !engine.IsNotFound(err) {
		t.Fatalf("expired content answered: %v", err)
	}
	other := &engine.Local{}
	release, ok, err := other.TryLock(ctx, "runlog.content.sweep")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if n, ran, err := l.SweepContent(ctx, other); err != nil || ran || n != 0 {
		t.Fatalf("sweep while another holds the lock: %d %v %v", n, ran, err)
	}
	release()
	if n, ran, err := l.SweepContent(ctx, other); err != nil || !ran || n != 1 {
		t.Fatalf("sweep: %d deleted, ran %v, %v; want 1", n, ran, err)
	}
	if n, _, _ := l.SweepContent(ctx, other); n != 0 {
		t.Fatalf("second sweep deleted %d", n)
	}
	if _, err := l.RunContent(ctx, "ann", "a1"); err != nil {
		t.Fatalf("unexpired content swept: %v", err)
	}
	now.Add(int64(48 * time.Hour))
	if n, _, err := l.SweepContent(ctx, other); err != nil || n != 1 {
		t.Fatalf("sweep after ann's retention: %d %v", n, err)
	}
	var left int
	bs.View(ctx, func(tx engine.Tx) error {
		return tx.Scan("runcontent", "", func(k string, _ []byte) error {
			if !strings.HasPrefix(k, "runcontentcfg/") {
				left++
			}
			return nil
		})
	})
	if left != 0 {
		t.Fatalf("%d content records left after every retention ended", left)
	}
}

// TestParseRetention: days or Go durations within bounds; anything else
// is refused naming the field.
func TestParseRetention(t *testing.T) {
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "36h": 36 * time.Hour, "1m": time.Minute} {
		if d, err := engine.ParseRetention("retention", in); err != nil || d != want {
			t.Fatalf("%q: %s %v", in, d, err)
		}
		if got := engine.FormatRetention(want); strings.HasSuffix(in, "d") && got != in {
			t.Fatalf("format %s: %q", want, got)
		}
	}
	for _, in := range []string{"", "0d", "30s", "x", "3651d", "-1h"} {
		if _, err := engine.ParseRetention("retention", in); err == nil || !strings.Contains(err.Error(), "retention") {
			t.Fatalf("%q accepted: %v", in, err)
		}
	}
}
