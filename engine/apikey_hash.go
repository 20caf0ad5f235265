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
	var out [keyHashLen]byte
	hashKeyTo(&out, key)
	return string(out[:])
}

// keyHashLen is the length of HashKey's answer.
const keyHashLen = 2 * sha256.Size

// hashKeyTo writes HashKey(key) to out.
func hashKeyTo(out *[keyHashLen]byte, key string) {
	h := sha256.Sum256(unsafe.Slice(unsafe.StringData(key), len(key))) // read only
	hex.Encode(out[:], h[:])
}
