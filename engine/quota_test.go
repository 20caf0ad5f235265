package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

func TestQuotas(t *testing.T) {
	_, store := newAccounts(t)
	ctx := context.Background()
	q := engine.NewQuotas(store, 2, 1000)
	charge := func(owner string, docs, bytes int64) error {
		return store.Update(ctx, func(tx engine.Tx) error { return q.ChargeTx(tx, owner, docs, bytes) })
	}
	usage := func(owner string) engine.StorageUsage {
		u, err := q.Usage(ctx, owner)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	wantCode := func(err error, code string) {
		t.Helper()
		if engine.ErrorCode(err) != code || (code == engine.CodeUsageExceeded && !strings.Contains(err.Error(), "quota")) {
			t.Fatalf("err %v, want %s", err, code)
		}
	}
	if err := q.CheckUpload(ctx, "alice", 600); err != nil {
		t.Fatal(err)
	}
	wantCode(q.CheckUpload(ctx, "alice", 1001), engine.CodeUsageExceeded)
	if err := charge("alice", 1, 600); err != nil {
		t.Fatal(err)
	}
	wantCode(charge("alice", 1, 401), engine.CodeUsageExceeded)
	if u := usage("alice"); u != (engine.StorageUsage{Documents: 1, Bytes: 600}) {
		t.Fatalf("a refused charge changed usage: %+v", u)
	}
	if err := charge("alice", 1, 400); err != nil {
		t.Fatal(err)
	}
	wantCode(q.CheckUpload(ctx, "alice", 0), engine.CodeUsageExceeded)
	// Other owners are separate.
	if err := q.CheckUpload(ctx, "bob", 10); err != nil {
		t.Fatal(err)
	}
	// Replacing a document with a smaller one, then deleting.
	if err := charge("alice", 0, -300); err != nil {
		t.Fatal(err)
	}
	if u := usage("alice"); u != (engine.StorageUsage{Documents: 2, Bytes: 700}) {
		t.Fatalf("usage %+v", u)
	}
	if err := charge("alice", -5, -5000); err != nil {
		t.Fatal(err)
	}
	if u := usage("alice"); u != (engine.StorageUsage{}) {
		t.Fatalf("usage below zero: %+v", u)
	}
	// A charge in a transaction that fails later is not kept.
	boom := errors.New("boom")
	err := store.Update(ctx, func(tx engine.Tx) error {
		if err := q.ChargeTx(tx, "alice", 1, 10); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) || usage("alice") != (engine.StorageUsage{}) {
		t.Fatalf("err %v usage %+v", err, usage("alice"))
	}
}

func TestQuotasOffStillCount(t *testing.T) {
	_, store := newAccounts(t)
	ctx := context.Background()
	q := engine.NewQuotas(store, 0, 0)
	for range 5 {
		if err := store.Update(ctx, func(tx engine.Tx) error { return q.ChargeTx(tx, "alice", 1, 1<<30) }); err != nil {
			t.Fatal(err)
		}
	}
	if u, _ := q.Usage(ctx, "alice"); u.Documents != 5 || u.Bytes != 5<<30 {
		t.Fatalf("usage %+v", u)
	}
	var none *engine.Quotas
	if err := none.CheckUpload(ctx, "alice", 1); err != nil {
		t.Fatal(err)
	}
}
