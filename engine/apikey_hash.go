package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"unsafe"
)

// HashKey returns the hex SHA-256 of a key. Every authenticated request
// hashes its key, so the hash reads the key's bytes in place and the hex
// digits are written on the stack: the returned string is its only
// allocation.
func HashKey(key string) string {
	h := sha256.Sum256(unsafe.Slice(unsafe.StringData(key), len(key))) // read only
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], h[:])
	return string(out[:])
}
