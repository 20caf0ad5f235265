package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestStoredDeploymentsSealKeys: a stored deployment's key is encrypted at
// rest and never listed; Records opens it; an update that sends no key
// keeps it, an empty key removes it; watchers hear every change.
func TestStoredDeploymentsSealKeys(t *testing.T) {
	_, store := newAccounts(t)
	sd, err := engine.NewStoredDeployments(store, nil, make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	changes := 0
	sd.Watch(func() { changes++ })
	ctx := context.Background()
	if _, err := sd.Create(ctx, engine.StoredDeployment{Name: "a", Model: "GPU:llama", BaseURL: "http://h:1/v1", APIKey: "sk-sealed-4321"}); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	if err := store.View(ctx, func(tx engine.Tx) error {
		return tx.Scan("deployment/", "", func(_ string, v []byte) error { raw = append(raw, v...); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if len(raw) == 0 || strings.Contains(string(raw), "sk-sealed") {
		t.Fatalf("stored record holds the key in clear (or nothing): %s", raw)
	}
	list, err := sd.List(ctx)
	if err != nil || len(list) != 1 || list[0].APIKey != "" || list[0].APIKeyLast4 != "4321" || list[0].Model != "gpu:llama" {
		t.Fatalf("list %+v %v", list, err)
	}
	w := 3
	if _, err := sd.Update(ctx, "a", engine.DeploymentPatch{Weight: &w}); err != nil {
		t.Fatal(err)
	}
	recs, err := sd.Records(ctx)
	if err != nil || len(recs) != 1 || recs[0].APIKey != "sk-sealed-4321" || recs[0].Weight != 3 {
		t.Fatalf("records %+v %v", recs, err)
	}
	if ok, err := sd.HoldsKey(ctx, "a", "sk-sealed-4321"); !ok || err != nil {
		t.Fatalf("HoldsKey: %v %v", ok, err)
	}
	empty := ""
	if _, err := sd.Update(ctx, "a", engine.DeploymentPatch{APIKey: &empty}); err != nil {
		t.Fatal(err)
	}
	if recs, _ = sd.Records(ctx); recs[0].APIKey != "" || recs[0].APIKeyLast4 != "" {
		t.Fatalf("key not removed: %+v", recs[0])
	}
	other, _ := engine.NewStoredDeployments(store, nil, []byte("0123456789abcdef0123456789abcdef"))
	key := "sk-x"
	sd.Update(ctx, "a", engine.DeploymentPatch{APIKey: &key})
	if _, err := other.Records(ctx); err == nil || !strings.Contains(err.Error(), "cannot be decrypted") {
		t.Fatalf("another secret must not open the key: %v", err)
	}
	if err := sd.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if changes != 5 {
		t.Fatalf("watchers heard %d changes, want 5", changes)
	}
	if err := sd.Delete(ctx, "a"); engine.ErrorCode(err) != engine.CodeNotFound {
		t.Fatalf("second delete: %v", err)
	}
}
