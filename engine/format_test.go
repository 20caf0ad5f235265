package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

func TestCheckDataFormat(t *testing.T) {
	_, store := newAccounts(t)
	ctx := context.Background()
	if err := engine.CheckDataFormat(ctx, store, "v1.0.0"); err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Format    int    `json:"format"`
		WrittenBy string `json:"written_by"`
	}
	store.View(ctx, func(tx engine.Tx) error { return tx.Get("meta/format", &rec) })
	if rec.Format != engine.DataFormat || rec.WrittenBy != "v1.0.0" {
		t.Fatalf("marker %+v", rec)
	}
	// The same or a newer binary opens it and records itself.
	if err := engine.CheckDataFormat(ctx, store, "v1.1.0"); err != nil {
		t.Fatal(err)
	}
	// A data dir from a future format is refused, clearly.
	store.Update(ctx, func(tx engine.Tx) error {
		return tx.Put("meta/format", map[string]any{"format": engine.DataFormat + 1, "written_by": "v9.0.0"})
	})
	err := engine.CheckDataFormat(ctx, store, "v1.1.0")
	if err == nil || !strings.Contains(err.Error(), "written by Hearth v9.0.0") || !strings.Contains(err.Error(), "restore a backup") {
		t.Fatalf("future format: %v", err)
	}
}
