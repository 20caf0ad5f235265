package engine

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
	"time"
	"unsafe"
)

var uuidV7RE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// testIDKey is a fixed key and its bytes.
func testIDKey(tb testing.TB) (*threadIDKey, []byte) {
	tb.Helper()
	raw := []byte("0123456789abcdef0123456789abcdef")
	k, err := newThreadIDKey(threadIDKeyRecord{Key: hex.EncodeToString(raw)})
	if err != nil {
		tb.Fatal(err)
	}
	return k, raw
}

// TestSignedThreadIDShape: a signed id is a version 7 UUID of its
// creation time, the pipe's random part and the HMAC-SHA256 (as
// crypto/hmac computes it) of owner, pipe and UUID; it passes
// ValidateThreadID, parses back and verifies for its owner only.
func TestSignedThreadIDShape(t *testing.T) {
	k, raw := testIDKey(t)
	now := time.Date(2026, 11, 24, 19, 30, 1, 234_567_890, time.UTC)
	const pipe = "AbCdEfGhIj0123456789"
	id := newSignedThreadID(k, "alice", pipe, now)
	if len(id) != SignedThreadIDLen || !uuidV7RE.MatchString(id[:36]) || id[36:58] != "-"+pipe+"-" {
		t.Fatalf("id %q", id)
	}
	if err := ValidateThreadID("threadId", id); err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, raw)
	mac.Write([]byte(threadMACLabel + "\x00alice\x00" + pipe + "\x00" + id[:36]))
	if want := hex.EncodeToString(mac.Sum(nil)[:8]); id[58:] != want {
		t.Fatalf("mac %s, want %s", id[58:], want)
	}
	s, ok := parseSignedThreadID(id)
	if !ok || !s.created.Equal(now.Truncate(time.Millisecond)) || s.pipeID() != "pipe_"+pipe {
		t.Fatalf("parsed %+v %v", s, ok)
	}
	if !s.verify(k, "alice") || s.verify(k, "bob") || s.verify(k, "alic") {
		t.Fatal("verify does not bind the owner")
	}
	other, _ := newThreadIDKey(threadIDKeyRecord{Key: strings.Repeat("ab", 32)})
	if s.verify(other, "alice") {
		t.Fatal("verifies under another key")
	}
	if a, b := newSignedThreadID(k, "alice", pipe, now), newSignedThreadID(k, "alice", pipe, now); a == b || a[:12] != b[:12] {
		t.Fatalf("two ids of one millisecond: %q %q", a, b)
	}
}

// TestSignedThreadIDTampered: changing any one character of a signed id
// (time, random bits, pipe, MAC) makes it fail to parse or to verify.
func TestSignedThreadIDTampered(t *testing.T) {
	k, _ := testIDKey(t)
	id := newSignedThreadID(k, "alice", "AbCdEfGhIj0123456789", time.Now())
	for i := range len(id) {
		for _, c := range []byte{'0', 'a', 'f', 'Z'} {
			if id[i] == c {
				continue
			}
			b := []byte(id)
			b[i] = c
			if s, ok := parseSignedThreadID(string(b)); ok && s.verify(k, "alice") {
				t.Fatalf("tampered id %q verifies", b)
			}
		}
	}
	for _, bad := range []string{"", id[:len(id)-1], id + "0", strings.ToUpper(id), strings.Replace(id, "-", "_", 1)} {
		if s, ok := parseSignedThreadID(bad); ok && s.verify(k, "alice") {
			t.Fatalf("%q verifies", bad)
		}
	}
	if _, ok := signedPipePart("pipe_short"); ok {
		t.Fatal("a pipe id of another shape is signed")
	}
	if _, ok := signedPipePart("pipe_AbCdEfGhIj012345678-"); ok {
		t.Fatal("a pipe id with a non-base62 character is signed")
	}
}

// FuzzSignedThreadID: whatever a client sends as a thread id, parsing it
// never panics; what parses is a valid thread id of the signed length
// whose parts read back as they are in it, and it verifies under a key
// only as drawn (a fresh id of the same parts under that key differs from
// it only in its random bits and MAC).
func FuzzSignedThreadID(f *testing.F) {
	k, _ := testIDKey(f)
	f.Add(newSignedThreadID(k, "alice", "AbCdEfGhIj0123456789", time.Unix(1_700_000_000, 0)))
	f.Add("0193b3c4-5e6f-7abc-9def-0123456789ab-AbCdEfGhIj0123456789-0123456789abcdef")
	f.Add("not-a-thread")
	f.Fuzz(func(t *testing.T, id string) {
		s, ok := parseSignedThreadID(id)
		if !ok {
			return
		}
		if err := ValidateThreadID("threadId", id); err != nil {
			t.Fatalf("%q parses but is not a valid thread id: %v", id, err)
		}
		if s.uuid != id[:36] || s.pipePart != id[37:57] || s.mac != id[58:] || s.created.UnixMilli() < 0 {
			t.Fatalf("%q parsed as %+v", id, s)
		}
		if s.verify(k, "alice") {
			var u [signedUUIDLen]byte
			copy(u[:], s.uuid)
			mac := k.mac("alice", s.pipePart, u[:])
			var want [signedMACHexLen]byte
			hexEncode(want[:], mac[:])
			if string(want[:]) != s.mac {
				t.Fatalf("%q verifies with another MAC", id)
			}
		}
	})
}

// TestSignedThreadIDIn: an id drawn into a run's room has the shape of
// newSignedThreadID's, verifies and shares the room's bytes.
func TestSignedThreadIDIn(t *testing.T) {
	k, _ := testIDKey(t)
	now := time.Date(2026, 11, 24, 19, 30, 1, 234_567_890, time.UTC)
	const pipe = "AbCdEfGhIj0123456789"
	var room threadIDBuf
	id := newSignedThreadIDIn(&room, k, "alice", pipe, now)
	if unsafe.StringData(id) != &room[0] || id[36:58] != "-"+pipe+"-" || id[:13] != newSignedThreadID(k, "alice", pipe, now)[:13] {
		t.Fatalf("id %q (in the room %v)", id, unsafe.StringData(id) == &room[0])
	}
	if s, ok := parseSignedThreadID(id); !ok || !s.verify(k, "alice") || !s.created.Equal(now.Truncate(time.Millisecond)) {
		t.Fatalf("parsed %+v %v", s, ok)
	}
}

// BenchmarkSignedThreadIDAllocs: drawing a signed id allocates only its
// string, none into a run's room, and verifying one nothing (Go 1.26).
func BenchmarkSignedThreadIDAllocs(b *testing.B) {
	k, _ := testIDKey(b)
	now := time.Date(2026, 11, 24, 19, 30, 1, 234_567_890, time.UTC)
	const pipe = "AbCdEfGhIj0123456789"
	s, ok := parseSignedThreadID(newSignedThreadID(k, "alice", pipe, now))
	if !ok {
		b.Fatal("the id does not parse")
	}
	var room threadIDBuf
	for _, c := range []struct {
		name string
		fn   func()
	}{
		{"new", func() { _ = newSignedThreadID(k, "alice", pipe, now) }},
		{"in room", func() { _ = newSignedThreadIDIn(&room, k, "alice", pipe, now) }},
		{"verify", func() { _ = s.verify(k, "alice") }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.fn()
			}
		})
	}
}
