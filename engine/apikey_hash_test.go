package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestHashKey: the hex SHA-256 of the key, for empty and long keys.
func TestHashKey(t *testing.T) {
	for _, k := range []string{"", "hth_user_abc", NewKeySecret(KeyUser), string(make([]byte, 1000))} {
		sum := sha256.Sum256([]byte(k))
		if got, want := HashKey(k), hex.EncodeToString(sum[:]); got != want {
			t.Fatalf("HashKey(%q) = %s, want %s", k, got, want)
		}
	}
}

// BenchmarkHashKeyAllocs: hashing a key is one allocation, its hex string
// (Go 1.26).
func BenchmarkHashKeyAllocs(b *testing.B) {
	key := NewKeySecret(KeyPipe)
	b.ReportAllocs()
	for b.Loop() {
		HashKey(key)
	}
}
