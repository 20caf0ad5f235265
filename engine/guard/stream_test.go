package guard

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// streamText mixes every kind with neutral text, several times over so
// matches land at every offset of the hold-back.
func streamText() string {
	var b strings.Builder
	for _, s := range neutral {
		b.WriteString(s + " ")
	}
	for _, k := range Kinds {
		for _, s := range corpus[k].pos {
			b.WriteString(s + "\n")
		}
		for _, s := range corpus[k].neg {
			b.WriteString(s + " ")
		}
	}
	return b.String()
}

func allKinds() *Policy {
	return &Policy{Output: &Stage{PII: []string{KindEmail, KindPhone, KindCard, KindIBAN, KindIP, KindSecret, KindNationalID}},
		NationalIDs: []Pattern{{Name: "us_ssn", Pattern: `\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b`}}}
}

// feed streams pieces through a redactor and returns the joined output and
// the longest tail it ever held.
func feed(t *testing.T, g *Guard, pieces []string) (string, int) {
	t.Helper()
	r := g.Stream(nil)
	var b strings.Builder
	held := 0
	for _, p := range pieces {
		out, err := r.Write(p)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(out)
		held = max(held, len(r.carry))
	}
	out, err := r.Flush()
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString(out)
	return b.String(), held
}

// TestStreamEverySplit splits the text in two at every byte and in three
// at every pair of offsets of a short text: the streamed output always
// equals the whole-text redaction.
func TestStreamEverySplit(t *testing.T) {
	g, err := Compile(allKinds(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Kinds {
		text := strings.Join(corpus[k].pos, " ") + "\n" + strings.Join(corpus[k].neg, " ") + " " + neutral[len(k)%len(neutral)]
		if k == KindNationalID {
			text = "ssn 078-05-1120, not 2024-01-15 or 078-05-11200; " + neutral[0]
		}
		want, _, _ := g.Check(context.Background(), StageOutput, text, nil)
		if want == text {
			t.Fatalf("%s: the text has nothing to redact", k)
		}
		for i := 0; i <= len(text); i++ {
			if got, _ := feed(t, g, []string{text[:i], text[i:]}); got != want {
				t.Fatalf("%s: split at %d:\n got %q\nwant %q", k, i, got, want)
			}
		}
	}
	short := "mail jane@example.com, card 4111 1111 1111 1111, ip 10.1.2.3 ok"
	wantShort, _, _ := g.Check(context.Background(), StageOutput, short, nil)
	for i := 0; i <= len(short); i++ {
		for j := i; j <= len(short); j++ {
			if got, _ := feed(t, g, []string{short[:i], short[i:j], short[j:]}); got != wantShort {
				t.Fatalf("split at %d,%d: got %q want %q", i, j, got, wantShort)
			}
		}
	}
}

// TestStreamTokens feeds the text a few bytes at a time, as a model
// streams tokens, and checks the hold-back stays bounded.
func TestStreamTokens(t *testing.T) {
	g, _ := Compile(allKinds(), nil)
	text := streamText()
	want, _, _ := g.Check(context.Background(), StageOutput, text, nil)
	for _, size := range []int{1, 3, 4, 7, 16} {
		var pieces []string
		for i := 0; i < len(text); i += size {
			pieces = append(pieces, text[i:min(i+size, len(text))])
		}
		got, held := feed(t, g, pieces)
		if got != want {
			t.Fatalf("size %d: got %q", size, got)
		}
		if held > g.Hold()+releaseStep+size+64 {
			t.Errorf("size %d: held %d bytes, hold-back is %d", size, held, g.Hold())
		}
	}
}

// TestStreamHoldsOnlyWhatPatternsNeed: without the e-mail detector the
// hold-back shrinks to what the remaining kinds need, and text far from
// any match is released as it arrives.
func TestStreamHoldsOnlyWhatPatternsNeed(t *testing.T) {
	g, _ := Compile(piiPolicy(KindCard, KindIP), nil)
	if g.Hold() > 64 {
		t.Fatalf("hold %d", g.Hold())
	}
	r := g.Stream(nil)
	text := strings.Repeat("plain words here ", 20)
	out, _ := r.Write(text)
	if len(out) < len(text)-g.Hold() || len(out) == 0 {
		t.Fatalf("released %d of %d bytes", len(out), len(text))
	}
}

func TestStreamRefuse(t *testing.T) {
	g, _ := Compile(&Policy{Output: &Stage{PII: []string{KindSecret}, PIIAction: ActionRefuse}}, nil)
	r := g.Stream(nil)
	var sent strings.Builder
	var err error
	for _, p := range []string{"here is the key: sk-abcdefgh", "ijklmnopqrstuvwx and more text ", strings.Repeat("padding ", 20)} {
		var out string
		if out, err = r.Write(p); err != nil {
			break
		}
		sent.WriteString(out)
	}
	if err == nil {
		_, err = r.Flush()
	}
	var ref *Refusal
	if !errors.As(err, &ref) || ref.Rule != "pii.secret" {
		t.Fatalf("err %v", err)
	}
	if strings.Contains(sent.String(), "sk-") {
		t.Fatalf("sent part of the secret: %q", sent.String())
	}
}
