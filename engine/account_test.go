package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

func newAccounts(t testing.TB) (*engine.Accounts, *blob.Store) {
	t.Helper()
	s := blob.New(blob.Options{InMemory: true})
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return engine.NewAccounts(s), s
}

// newAliceKey returns accounts (local cluster) with the user alice and a
// key of hers: its id and its secret.
func newAliceKey(t testing.TB) (acc *engine.Accounts, keyID, key string) {
	t.Helper()
	acc, _ = newAccounts(t)
	acc.UseCluster(&engine.Local{})
	bg := context.Background()
	if _, err := acc.CreateUser(bg, "alice"); err != nil {
		t.Fatal(err)
	}
	rec, key, err := acc.CreateKey(bg, "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	return acc, rec.ID, key
}

func TestKeysAreStoredHashedAndShownOnce(t *testing.T) {
	acc, store := newAccounts(t)
	ctx := context.Background()
	if _, err := acc.CreateUser(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	rec, key, err := acc.CreateKey(ctx, "alice", "laptop")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(key, "hth_user_") || len(key) != len("hth_user_")+32 {
		t.Fatalf("key %q", key)
	}
	if rec.Hash != engine.HashKey(key) || rec.Hash == key {
		t.Fatal("stored hash is not the key's SHA-256")
	}
	// The plain key appears nowhere in the store.
	err = store.View(ctx, func(tx engine.Tx) error {
		return tx.Scan("", "", func(k string, v []byte) error {
			if strings.Contains(string(v), key) || strings.Contains(k, key) {
				t.Errorf("key stored in clear under %s", k)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := acc.Authenticate(ctx, key)
	if err != nil || p.Owner != "alice" || p.Kind != engine.KeyUser || p.KeyID != rec.ID {
		t.Fatalf("authenticate: %+v %v", p, err)
	}
	if _, err := acc.Authenticate(ctx, key+"x"); engine.ErrorCode(err) != engine.CodeUnauthorized {
		t.Fatalf("wrong key: %v", err)
	}
	if _, err := acc.Authenticate(ctx, ""); engine.ErrorCode(err) != engine.CodeUnauthorized {
		t.Fatalf("empty key: %v", err)
	}
}

func TestRevocation(t *testing.T) {
	acc, _ := newAccounts(t)
	ctx := context.Background()
	acc.CreateUser(ctx, "alice")
	acc.CreateUser(ctx, "bob")
	rec, key, _ := acc.CreateKey(ctx, "alice", "")
	if err := acc.RevokeKey(ctx, "bob", rec.ID); !engine.IsNotFound(err) {
		t.Fatalf("bob revoking alice's key: %v", err)
	}
	if err := acc.RevokeKey(ctx, "alice", rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := acc.Authenticate(ctx, key); engine.ErrorCode(err) != engine.CodeUnauthorized {
		t.Fatalf("revoked key still works: %v", err)
	}
	keys, _ := acc.ListKeys(ctx, "alice")
	if len(keys) != 1 || keys[0].RevokedAt == nil {
		t.Fatalf("list after revoke: %+v", keys)
	}
	if err := acc.RevokeKey(ctx, "alice", rec.ID); err != nil {
		t.Fatalf("second revoke should be a no-op: %v", err)
	}
}

func TestOrgsAndMembership(t *testing.T) {
	acc, _ := newAccounts(t)
	ctx := context.Background()
	if _, err := acc.CreateOrg(ctx, "acme", "ghost"); !engine.IsNotFound(err) {
		t.Fatalf("org with missing owner: %v", err)
	}
	acc.CreateUser(ctx, "alice")
	if _, err := acc.CreateOrg(ctx, "alice", "alice"); engine.ErrorCode(err) != engine.CodeConflict {
		t.Fatalf("org login clashing with a user: %v", err)
	}
	if _, err := acc.CreateOrg(ctx, "acme", "alice"); err != nil {
		t.Fatal(err)
	}
	_, key, _ := acc.CreateKey(ctx, "acme", "")
	if !strings.HasPrefix(key, "hth_org_") {
		t.Fatalf("org key %q", key)
	}
	acc.CreateUser(ctx, "bob")
	if err := acc.AddMember(ctx, "acme", "bob"); err != nil {
		t.Fatal(err)
	}
	if err := acc.AddMember(ctx, "alice", "bob"); engine.ErrorCode(err) != engine.CodeBadRequest {
		t.Fatalf("adding to a user: %v", err)
	}
	a, _ := acc.Get(ctx, "acme")
	if strings.Join(a.Members, ",") != "alice,bob" {
		t.Fatalf("members %v", a.Members)
	}
}

func TestBootstrap(t *testing.T) {
	acc, _ := newAccounts(t)
	ctx := context.Background()
	created, key, err := acc.Bootstrap(ctx, "admin", "")
	if err != nil || !created || !strings.HasPrefix(key, "hth_user_") {
		t.Fatalf("first bootstrap: %v %v %q", created, err, key)
	}
	created, key, err = acc.Bootstrap(ctx, "admin", "")
	if err != nil || created || key != "" {
		t.Fatalf("second bootstrap must do nothing: %v %v %q", created, err, key)
	}

	acc2, _ := newAccounts(t)
	if _, _, err := acc2.Bootstrap(ctx, "root", "my-chosen-admin-key-123"); err != nil {
		t.Fatal(err)
	}
	p, err := acc2.Authenticate(ctx, "my-chosen-admin-key-123")
	if err != nil || p.Owner != "root" {
		t.Fatalf("HEARTH_ADMIN_KEY not usable: %v", err)
	}
}
