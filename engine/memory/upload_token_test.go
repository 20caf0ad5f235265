package memory

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestUploadTokenExpiryIsExact: the signature covers the expiry field's
// exact bytes, so another spelling of the same number (a sign, leading
// zeros, spaces) is refused like any altered token.
func TestUploadTokenExpiryIsExact(t *testing.T) {
	s := newTestService(t, nil)
	ctx := context.Background()
	if _, err := s.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: "hearth:bm25"}); err != nil {
		t.Fatal(err)
	}
	ticket, err := s.CreateUpload(ctx, "ann", "kb", "a.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(ticket.Token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q", ticket.Token)
	}
	id, exp, sig := parts[0], parts[1], parts[2]
	for _, alt := range []string{"+" + exp, "0" + exp, "000" + exp, " " + exp, exp + " ", "-0" + exp[1:], "0x" + exp} {
		tok := id + "." + alt + "." + sig
		if _, err := s.verifyToken(ctx, tok); engine.ErrorCode(err) != engine.CodeForbidden {
			t.Errorf("expiry %q: %v, want FORBIDDEN", alt, err)
		}
	}
	if rec, err := s.verifyToken(ctx, ticket.Token); err != nil || rec.Owner != "ann" {
		t.Fatalf("issued token refused: %v", err)
	}
	if _, ok := canonicalUnix("0"); ok {
		t.Error("a zero expiry was accepted")
	}
}
