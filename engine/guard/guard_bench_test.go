package guard

import (
	"context"
	"strings"
	"testing"
)

// benchPolicy turns every built-in check on, on every stage (and, with
// national, a national-id pattern too).
func benchPolicy(national bool) *Policy {
	kinds := []string{KindEmail, KindPhone, KindCard, KindIBAN, KindIP, KindSecret}
	p := &Policy{
		Input:   &Stage{PII: kinds, PIIAction: ActionRedact, Injection: ActionFlag},
		Context: &Stage{PII: kinds, PIIAction: ActionRedact, Injection: ActionStrip},
		Output:  &Stage{PII: kinds, PIIAction: ActionRedact},
	}
	if national {
		for _, s := range []*Stage{p.Input, p.Context, p.Output} {
			s.PII = append(s.PII, KindNationalID)
		}
		p.NationalIDs = []Pattern{{Name: "us_ssn", Pattern: `\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b`}}
	}
	return p
}

// benchTexts is a typical RAG request: a 500-byte question, three 1 KB
// retrieved chunks and a 1 KB answer, with a little PII in each.
func benchTexts() (input string, chunks []string, answer string) {
	prose := "The quarterly report covers revenue, churn and the roadmap for version 2.4.1 released on 2025-03-01. "
	input = strings.Repeat(prose, 4) + "My e-mail is jane.doe@example.com, what changed?"
	for i := 0; i < 3; i++ {
		chunks = append(chunks, strings.Repeat(prose, 9)+"Contact support at +1 415 555 2671 or 10.0.0.12.")
	}
	answer = strings.Repeat(prose, 9) + "Refunds go to DE89 3704 0044 0532 0130 00."
	return
}

// BenchmarkGuardRequest is the cost a request pays with every built-in
// check on: input, three retrieved chunks and a whole (non-streamed)
// answer.
func BenchmarkGuardRequest(b *testing.B) { benchRequest(b, false) }

// BenchmarkGuardRequestNationalID adds one national-id pattern (Go's
// regexp over the text) to BenchmarkGuardRequest.
func BenchmarkGuardRequestNationalID(b *testing.B) { benchRequest(b, true) }

func benchRequest(b *testing.B, national bool) {
	g, err := Compile(benchPolicy(national), nil)
	if err != nil {
		b.Fatal(err)
	}
	input, chunks, answer := benchTexts()
	ctx := context.Background()
	b.SetBytes(int64(len(input) + 3*len(chunks[0]) + len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		var rep Report
		g.Check(ctx, StageInput, input, &rep)
		for _, c := range chunks {
			g.Check(ctx, StageContext, c, &rep)
		}
		g.Check(ctx, StageOutput, answer, &rep)
	}
}

// BenchmarkGuardStream is the cost of redacting a streamed 1 KB answer
// that arrives 4 bytes (about a token) at a time.
func BenchmarkGuardStream(b *testing.B) {
	g, _ := Compile(benchPolicy(false), nil)
	_, _, answer := benchTexts()
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		r := g.Stream(nil)
		for i := 0; i < len(answer); i += 4 {
			r.Write(answer[i:min(i+4, len(answer))])
		}
		r.Flush()
	}
}

// BenchmarkGuardClean is BenchmarkGuardRequest on text with no PII and
// no digits, where the cheap pre-checks skip most detectors.
func BenchmarkGuardClean(b *testing.B) {
	g, _ := Compile(benchPolicy(false), nil)
	text := strings.Repeat("Plain prose about the weather and the garden, nothing else. ", 70)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		g.Check(context.Background(), StageOutput, text, nil)
	}
}
