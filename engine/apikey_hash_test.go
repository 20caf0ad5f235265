package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestHashKey: the hex SHA-256 of the key, for empty and long keys, in
// one allocation.
func TestHashKey(t *testing.T) {
	for _, k := range []string{"", "hth_user_abc", NewKeySecret(KeyUser), string(make([]byte, 1000))} {
		sum := sha256.Sum256([]byte(k))
		if got, want := HashKey(k), hex.EncodeToString(sum[:]); got != want {
			t.Fatalf("HashKey(%q) = %s, want %s", k, got, want)
		}
	}
	key := NewKeySecret(KeyPipe)
	if n := testing.AllocsPerRun(100, func() { HashKey(key) }); n > 1 {
		t.Fatalf("HashKey allocates %.0f times, want 1", n)
	}
}
