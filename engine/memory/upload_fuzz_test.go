package memory

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// FuzzVerifyToken checks the signed upload URL verifier: arbitrary tokens,
// and the real token with one byte changed, are refused with FORBIDDEN
// (never another error, never a panic); only the issued token passes.
func FuzzVerifyToken(f *testing.F) {
	s := newTestService(f, nil)
	ctx := context.Background()
	if _, err := s.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: "hearth:bm25"}); err != nil {
		f.Fatal(err)
	}
	ticket, err := s.CreateUpload(ctx, "ann", "kb", "a.txt", nil)
	if err != nil {
		f.Fatal(err)
	}
	valid := ticket.Token
	f.Add("", uint16(0), byte('x'))
	f.Add("u.1.sig", uint16(3), byte('.'))
	f.Add("..", uint16(40), byte('A'))
	f.Add(strings.Repeat("a", 70)+".9999999999.x", uint16(60), byte('-'))
	f.Fuzz(func(t *testing.T, raw string, at uint16, b byte) {
		edited := []byte(valid)
		edited[int(at)%len(edited)] = b
		for _, tok := range []string{raw, string(edited)} {
			rec, err := s.verifyToken(ctx, tok)
			if tok == valid {
				if err != nil || rec.Owner != "ann" {
					t.Fatalf("issued token refused: %v", err)
				}
				continue
			}
			if err == nil || engine.ErrorCode(err) != engine.CodeForbidden {
				t.Fatalf("token %q: %v", tok, err)
			}
		}
	})
}
