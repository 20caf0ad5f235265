package guard

import (
	"context"
	"strings"
	"testing"
)

// corpus holds, per PII kind, texts that must be found (pos) and texts
// that must be left alone (neg) by that kind's detector.
var corpus = map[string]struct{ pos, neg []string }{
	KindEmail: {
		pos: []string{"write to jane.doe+news@example.co.uk today", "<bob_99@mail.example.com>", "a.b-c@sub-domain.example.org."},
		neg: []string{"version 1.2.3@beta", "npm i @types/node@18.0.0", "user@localhost", "ping me @alice", "price is 3@5 each"},
	},
	KindPhone: {
		pos: []string{"call +1 415 555 2671 now", "tel: +44 20 7946 0958", "(415) 555-2671", "office 415-555-2671.", "fax 415.555.2671", "+49-30-901820"},
		neg: []string{"on 2024-01-15 at 12:34:56", "version 10.15.7", "order 1234567890", "id 550e8400-e29b-41d4-a716-446655440000", "1,234,567.89 USD", "ISBN 978-3-16-148410-0", "timestamp 1733325600000", "+3 points", "1 + 2 = 3", "pages 123-456"},
	},
	KindCard: {
		pos: []string{"card 4111 1111 1111 1111 exp 12/27", "4111-1111-1111-1111", "pay with 5555555555554444.", "amex 3782 822463 10005", "visa 4012888888881881 2024", "6011 1111 1111 1117"},
		neg: []string{"4111 1111 1111 1112", "order 1234567812345678", "timestamp 1733325600000", "pi 3.14159265358979323846", "call 415 555 2671", "uuid 12345678-1234-1234-1234-123456789012", "nanos 1733325600000000000"},
	},
	KindIBAN: {
		pos: []string{"IBAN DE89 3704 0044 0532 0130 00 please", "GB82WEST12345698765432", "FR14 2004 1010 0505 0001 3M02 606", "to NL91ABNA0417164300."},
		neg: []string{"DE89 3704 0044 0532 0130 01", "GB82WEST12345698765433", "ISO 8601 date", "AB12 is a code", "US12 3456 7890 1234"},
	},
	KindIP: {
		pos: []string{"from 192.168.1.20 at noon", "host 8.8.8.8.", "addr 2001:db8:85a3::8a2e:370:7334 ok", "fe80::1ff:fe23:4567:890a", "::ffff:c000:0280 mapped"},
		neg: []string{"version v1.2.3.4", "release 1.2.3", "OID 1.3.6.1.4.1", "at 12:34:56", "std::vector<int>", "999.1.1.1", "ratio 10:20", "a::b"},
	},
	KindSecret: {
		pos: []string{"key sk-proj-abcdefghijklmnop1234 leaked", "Authorization: Bearer abcdefghijklmnopqrstuvwx", "hth_user_ABCDEFGHIJKLMNOP1234", "AKIAIOSFODNN7EXAMPLE", "ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ", "-----BEGIN RSA PRIVATE KEY-----"},
		neg: []string{"sk-short", "the bearer of news", "task-abcdefghijklmnopqrst", "AIza-short"},
	},
}

// neutral texts no detector may touch.
var neutral = []string{
	"Released v2.14.0 on 2025-03-01T10:15:30Z (build 20250301.4).",
	"The invoice 2024/0012 totals 1,250.00 EUR, due 15.02.2025.",
	"Request id 01HQ3V5N8ZJ6K9T2W4X7Y1B3C5, trace 4bf92f3577b34da6a3ce929d0e0e4736.",
	"Go 1.26.8 runs on linux/amd64; PID 48213 used 512 MiB.",
	"Score: 98.6%, 12 of 13 passed; see section 4.2.1 and RFC 5321.",
	"Coordinates 52.5200, 13.4050; temperature -3.5 C at 07:45.",
}

func piiPolicy(kinds ...string) *Policy {
	return &Policy{Output: &Stage{PII: kinds, PIIAction: ActionRedact}}
}

func TestCorpus(t *testing.T) {
	for kind, c := range corpus {
		g, err := Compile(piiPolicy(kind), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range c.pos {
			var rep Report
			out, _, err := g.Check(context.Background(), StageOutput, s, &rep)
			if err != nil {
				t.Fatal(err)
			}
			if out == s || len(rep.Events()) == 0 {
				t.Errorf("%s: %q not detected", kind, s)
			}
		}
		for _, s := range c.neg {
			out, _, _ := g.Check(context.Background(), StageOutput, s, nil)
			if out != s {
				t.Errorf("%s: false positive on %q: %q", kind, s, out)
			}
		}
	}
	all, _ := Compile(piiPolicy(KindEmail, KindPhone, KindCard, KindIBAN, KindIP, KindSecret), nil)
	for _, s := range neutral {
		if out, _, _ := all.Check(context.Background(), StageOutput, s, nil); out != s {
			t.Errorf("false positive on %q: %q", s, out)
		}
	}
}

func TestRedactLabels(t *testing.T) {
	g, _ := Compile(piiPolicy(KindEmail, KindCard, KindIBAN, KindIP, KindSecret, KindPhone), nil)
	in := "Mail a@example.com, card 4111 1111 1111 1111, IBAN DE89370400440532013000, ip 10.0.0.1, key sk-abcdefghijklmnopqrst, tel +1 415 555 2671."
	want := "Mail [EMAIL], card [CREDIT_CARD], IBAN [IBAN], ip [IP], key [SECRET], tel [PHONE]."
	out, _, err := g.Check(context.Background(), StageOutput, in, nil)
	if err != nil || out != want {
		t.Fatalf("got %q, %v\nwant %q", out, err, want)
	}
}

func TestNationalIDPatterns(t *testing.T) {
	p := &Policy{Input: &Stage{PII: []string{KindNationalID}}, NationalIDs: []Pattern{
		{Name: "us_ssn", Pattern: `\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b`},
		{Name: "nl_bsn", Pattern: `\bBSN:? ?[0-9]{9}\b`},
	}}
	g, err := Compile(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	out, _, _ := g.Check(context.Background(), StageInput, "SSN 078-05-1120 and BSN 123456782; date 2024-01-15", &rep)
	if out != "SSN [NATIONAL_ID] and [NATIONAL_ID]; date 2024-01-15" {
		t.Fatalf("got %q", out)
	}
	ev := rep.Events()
	if len(ev) != 2 || ev[0].Rule != "pii.national_id.nl_bsn" || ev[1].Rule != "pii.national_id.us_ssn" {
		t.Fatalf("events %+v", ev)
	}
}

func TestActions(t *testing.T) {
	text := "contact jane@example.com"
	for _, c := range []struct{ action, want string }{{ActionAnnotate, text}, {ActionRedact, "contact [EMAIL]"}} {
		g, _ := Compile(&Policy{Input: &Stage{PII: []string{KindEmail}, PIIAction: c.action}}, nil)
		var rep Report
		out, _, err := g.Check(context.Background(), StageInput, text, &rep)
		if err != nil || out != c.want {
			t.Errorf("%s: got %q, %v", c.action, out, err)
		}
		if ev := rep.Events(); len(ev) != 1 || ev[0] != (Event{Stage: StageInput, Rule: "pii.email", Action: c.action, Count: 1}) {
			t.Errorf("%s: events %+v", c.action, ev)
		}
	}
	g, _ := Compile(&Policy{Input: &Stage{PII: []string{KindEmail}, PIIAction: ActionRefuse}}, nil)
	_, _, err := g.Check(context.Background(), StageInput, text, nil)
	ref, ok := err.(*Refusal)
	if !ok || ref.Rule != "pii.email" || ref.Stage != StageInput {
		t.Fatalf("refuse: %v", err)
	}
	if strings.Contains(err.Error(), "jane") || !strings.Contains(err.Error(), "pii.email") {
		t.Fatalf("refusal message %q leaks or does not name the rule", err)
	}
}
