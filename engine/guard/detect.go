// Package guard holds Hearth's built-in guardrails: PII detectors (with
// redaction that also works on a stream), prompt-injection heuristics and
// the policy saying which checks run on a request's input, its retrieved
// context and the model's answer. Everything here is pure computation on
// one request's text: nothing is kept between requests, so several Hearth
// nodes sharing one database behave alike given the same configuration.
package guard

import (
	"net/netip"
	"regexp"
	"strings"
)

// PII kinds a policy can name.
const (
	KindEmail      = "email"
	KindPhone      = "phone"
	KindCard       = "credit_card"
	KindIBAN       = "iban"
	KindIP         = "ip"
	KindSecret     = "secret"
	KindNationalID = "national_id"
)

// Kinds lists every PII kind, in the order detectors run.
var Kinds = []string{KindSecret, KindEmail, KindIBAN, KindCard, KindPhone, KindIP, KindNationalID}

// KeyShapes is the expression of the key shapes Hearth redacts from stored
// run content: Hearth keys and the usual provider key formats (OpenAI and
// Anthropic sk-, Google AIza, Groq gsk_, xAI xai-, bearer tokens).
const KeyShapes = `\b(?:hth_[a-z]+_[A-Za-z0-9]{16,}|sk-[A-Za-z0-9_\-]{16,}|gsk_[A-Za-z0-9]{16,}|xai-[A-Za-z0-9]{16,}|AIza[0-9A-Za-z_\-]{30,})|(?i:bearer\s+)[A-Za-z0-9._\-]{16,}`

// secretShapes adds a few well-known credential formats to KeyShapes:
// AWS access key ids, GitHub tokens, Slack tokens and PEM private keys.
const secretShapes = KeyShapes + `|\b(?:AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}|xox[abprs]-[A-Za-z0-9\-]{10,})\b|-----BEGIN [A-Z ]{0,20}PRIVATE KEY-----`

// detector finds one PII kind. scan (or re, on the windows need allows,
// or on the whole text) finds candidates; check, when set, validates a
// candidate (and may narrow it to a sub-span); pre, when set, is a cheap
// test a text must pass first. partial is the most bytes of text that may
// still become a match when more text follows: the hold-back a stream
// needs for this kind.
type detector struct {
	kind    string
	label   string
	scan    func(text string, fn func(s, e int))
	re      *regexp.Regexp
	need    *[256]bool
	check   func(text string, s, e int) (int, int, bool)
	pre     func(string) bool
	partial int
}

// span is one validated match.
type span struct {
	s, e int
	d    *detector
}

var (
	phoneRe  = regexp.MustCompile(`\+[1-9][0-9]{0,3}(?:[ .\-]?\(?[0-9]{1,5}\)?){1,5}[0-9]|\(?\b[0-9]{3}\)?[ \-]?[0-9]{3}-[0-9]{4}\b|\b[0-9]{3}\.[0-9]{3}\.[0-9]{4}\b`)
	ibanRe   = regexp.MustCompile(`^[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{1,4}){3,9}\b`)
	secretRe = regexp.MustCompile(secretShapes)
)

// builtin are the detectors of every kind but national ids, which come
// from the policy's patterns.
var builtin = map[string][]*detector{
	KindEmail:  {{kind: KindEmail, label: "[EMAIL]", scan: scanEmail, pre: hasByte('@'), partial: 128}},
	KindPhone:  {{kind: KindPhone, label: "[PHONE]", scan: scanPhone, check: checkPhone, pre: hasDigitRun(3), partial: 32}},
	KindCard:   {{kind: KindCard, label: "[CREDIT_CARD]", scan: scanCard, check: checkCard, pre: hasDigitRun(2), partial: 32}},
	KindIBAN:   {{kind: KindIBAN, label: "[IBAN]", scan: scanIBAN, check: checkIBAN, pre: hasDigitRun(2), partial: 4 + 9*5}},
	KindIP:     {{kind: KindIP, label: "[IP]", scan: scanIPv6, check: checkIPv6, pre: hasByte(':'), partial: 45}, {kind: KindIP, label: "[IP]", scan: scanIPv4, check: checkIPv4, pre: hasByte('.'), partial: 15}},
	KindSecret: {{kind: KindSecret, label: "[SECRET]", scan: scanSecret, pre: maySecret, partial: 64}},
}

func hasByte(b byte) func(string) bool {
	return func(s string) bool { return strings.IndexByte(s, b) >= 0 }
}

// hasDigitRun reports whether a text holds n digits in a row somewhere.
func hasDigitRun(n int) func(string) bool {
	return func(s string) bool {
		run := 0
		for i := 0; i < len(s); i++ {
			if c := s[i]; c >= '0' && c <= '9' {
				if run++; run >= n {
					return true
				}
			} else {
				run = 0
			}
		}
		return false
	}
}

// secretHints are substrings every secret shape contains.
var secretHints = []string{"hth_", "sk-", "gsk_", "xai-", "AIza", "Bearer", "bearer", "BEARER", "AKIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "-----BEGIN"}

func maySecret(s string) bool {
	for _, h := range secretHints {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordByte(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// digitsOf returns the digits of s, dropping separators.
func digitsOf(s string) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			out = append(out, s[i])
		}
	}
	return out
}

// checkPhone accepts a number of 7 to 15 digits that is not glued to other
// digits, letters or dots (so dates, versions and ids stay untouched).
func checkPhone(text string, s, e int) (int, int, bool) {
	for e > s && !isDigit(text[e-1]) {
		e--
	}
	if s > 0 && (isWordByte(text[s-1]) || text[s-1] == '.' || text[s-1] == '-' || text[s-1] == '/') {
		return 0, 0, false
	}
	if e < len(text) && (isWordByte(text[e]) || text[e] == '-' || text[e] == '/' || (text[e] == '.' && e+1 < len(text) && isDigit(text[e+1]))) {
		return 0, 0, false
	}
	n := len(digitsOf(text[s:e]))
	return s, e, n >= 7 && n <= 15
}

// checkIPv4 refuses dotted quads that are part of a longer dotted number
// (an OID, a five-part version) or follow a "v" (v1.2.3.4).
func checkIPv4(text string, s, e int) (int, int, bool) {
	if s > 0 {
		c := text[s-1]
		if c == '.' || c == 'v' || c == 'V' || isWordByte(c) {
			return 0, 0, false
		}
	}
	if e+1 < len(text) && text[e] == '.' && isDigit(text[e+1]) {
		return 0, 0, false
	}
	return s, e, true
}

// checkIPv6 accepts what net/netip parses as an IPv6 address with at least
// four hex digits, not glued to other hex digits or colons.
func checkIPv6(text string, s, e int) (int, int, bool) {
	if s > 0 && (isWordByte(text[s-1]) || text[s-1] == ':') {
		return 0, 0, false
	}
	if e < len(text) && (isWordByte(text[e]) || text[e] == ':') {
		return 0, 0, false
	}
	hex := 0
	for i := s; i < e; i++ {
		if text[i] != ':' {
			hex++
		}
	}
	if hex < 4 {
		return 0, 0, false
	}
	a, err := netip.ParseAddr(text[s:e])
	return s, e, err == nil && a.Is6()
}
