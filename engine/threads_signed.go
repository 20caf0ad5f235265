package engine

import (
	"crypto/subtle"
	"encoding/binary"
	"time"
)

// Signed thread ids (docs/pipes-and-threads.md#threads). A run of a pipe that does not store
// its conversation names a new thread without writing it: the id itself
// proves the thread exists. It is a version 7 UUID (RFC 9562: 48 bits of
// Unix milliseconds, then random bits) followed by the random part of the
// pipe's id and a MAC, all lowercase hex but the pipe part:
//
//	0193b3c4-5e6f-7abc-9def-0123456789ab-AbCdEfGhIj0123456789-0123456789abcdef
//	\______________ uuid v7 ______________/ \____ pipe ______/ \_____ mac ____/
//
// The MAC is HMAC-SHA256 under the server's thread id key (a store record,
// threads_signed_key.go), cut to 64 bits, over the owner, the pipe id and
// the UUID (its time and random bits): an id verifies only for the owner
// and pipe it was drawn for, and cannot be made up without the key.
// Such a thread has no record until it is first changed (threads_virtual.go).

const (
	signedUUIDLen   = 36
	signedPipeLen   = 20
	signedMACHexLen = 16
	// SignedThreadIDLen is the length of a signed thread id.
	SignedThreadIDLen = signedUUIDLen + 1 + signedPipeLen + 1 + signedMACHexLen
	signedPipePrefix  = "pipe_"
	threadMACLabel    = "hearth thread id v1"
)

// signedPipePart returns the random part of a pipe id that a signed thread
// id can carry ("pipe_" and 20 base62 characters, as Pipes.Create draws
// them), or false for any other id.
func signedPipePart(pipeID string) (string, bool) {
	if len(pipeID) != len(signedPipePrefix)+signedPipeLen || pipeID[:len(signedPipePrefix)] != signedPipePrefix {
		return "", false
	}
	part := pipeID[len(signedPipePrefix):]
	return part, isBase62(part)
}

func isBase62(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// newSignedThreadID draws a signed thread id of owner's pipe (pipePart,
// the random part of its id) created at now. Its 74 random bits come from
// the id generators (ids_rand.go; the MAC, not the random bits, is what
// keeps an id from being made up): deterministic mode (an IDSource) does not sign ids, since
// the key is random per database.
func newSignedThreadID(key *threadIDKey, owner, pipePart string, now time.Time) string {
	var out threadIDBuf
	fillSignedThreadID(&out, key, owner, pipePart, now)
	return string(out[:])
}

// fillSignedThreadID writes newSignedThreadID's id into out.
func fillSignedThreadID(out *threadIDBuf, key *threadIDKey, owner, pipePart string, now time.Time) {
	var r [10]byte
	readIDRandom(r[:])
	var u [16]byte
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(now.UnixMilli()))
	copy(u[0:6], ms[2:8])
	u[6] = 0x70 | r[0]&0x0f
	u[7] = r[1]
	u[8] = 0x80 | r[2]&0x3f
	copy(u[9:16], r[3:10])
	encodeUUID(out[:signedUUIDLen], &u)
	out[signedUUIDLen] = '-'
	copy(out[signedUUIDLen+1:], pipePart)
	out[signedUUIDLen+1+signedPipeLen] = '-'
	mac := key.mac(owner, pipePart, out[:signedUUIDLen])
	hexEncode(out[SignedThreadIDLen-signedMACHexLen:], mac[:])
}

const hexDigits = "0123456789abcdef"

func hexEncode(dst, src []byte) {
	for i, c := range src {
		dst[2*i], dst[2*i+1] = hexDigits[c>>4], hexDigits[c&0x0f]
	}
}

// encodeUUID writes u in its 8-4-4-4-12 text form into dst (36 bytes).
func encodeUUID(dst []byte, u *[16]byte) {
	hexEncode(dst[0:8], u[0:4])
	dst[8] = '-'
	hexEncode(dst[9:13], u[4:6])
	dst[13] = '-'
	hexEncode(dst[14:18], u[6:8])
	dst[18] = '-'
	hexEncode(dst[19:23], u[8:10])
	dst[23] = '-'
	hexEncode(dst[24:36], u[10:16])
}

// signedThreadID is a parsed signed thread id.
type signedThreadID struct {
	uuid, pipePart, mac string
	created             time.Time
}

// pipeID is the id of the pipe the thread was drawn for.
func (s signedThreadID) pipeID() string { return signedPipePrefix + s.pipePart }

// parseSignedThreadID splits id when it has the shape of a signed thread
// id; whether it is genuine is verify's question.
func parseSignedThreadID(id string) (signedThreadID, bool) {
	if len(id) != SignedThreadIDLen || id[signedUUIDLen] != '-' || id[signedUUIDLen+1+signedPipeLen] != '-' {
		return signedThreadID{}, false
	}
	s := signedThreadID{uuid: id[:signedUUIDLen], pipePart: id[signedUUIDLen+1 : signedUUIDLen+1+signedPipeLen],
		mac: id[SignedThreadIDLen-signedMACHexLen:]}
	var ms uint64
	for i := 0; i < signedUUIDLen; i++ {
		c := s.uuid[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return signedThreadID{}, false
			}
			continue
		case !isLowerHex(c):
			return signedThreadID{}, false
		case i < 13:
			ms = ms<<4 | uint64(hexValue(c))
		}
	}
	if s.uuid[14] != '7' || !isBase62(s.pipePart) {
		return signedThreadID{}, false
	}
	if v := hexValue(s.uuid[19]); v < 8 || v > 11 {
		return signedThreadID{}, false
	}
	for i := 0; i < len(s.mac); i++ {
		if !isLowerHex(s.mac[i]) {
			return signedThreadID{}, false
		}
	}
	s.created = time.UnixMilli(int64(ms)).UTC()
	return s, true
}

// verify reports whether s was drawn under key for owner.
func (s signedThreadID) verify(key *threadIDKey, owner string) bool {
	var u [signedUUIDLen]byte
	copy(u[:], s.uuid)
	mac := key.mac(owner, s.pipePart, u[:])
	var want [signedMACHexLen]byte
	hexEncode(want[:], mac[:])
	return subtle.ConstantTimeCompare(want[:], []byte(s.mac)) == 1
}

func isLowerHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }

func hexValue(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}
