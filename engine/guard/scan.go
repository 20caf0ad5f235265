package guard

import (
	"regexp"
	"strings"
)

// This file holds the candidate scanners. Go's regexp runs at a few MB/s
// on these patterns, so detectors find candidates with byte loops (or run
// their expression only on small windows around a byte every match must
// contain) and validate them afterwards.

// candidates calls fn with each candidate [s, e) of d in text, in order.
func (d *detector) candidates(text string, fn func(s, e int)) {
	if d.pre != nil && !d.pre(text) {
		return
	}
	if d.scan != nil {
		d.scan(text, fn)
		return
	}
	if d.need != nil {
		windowed(d.re, d.need, d.partial, text, fn)
		return
	}
	for _, m := range d.re.FindAllStringIndex(text, -1) {
		fn(m[0], m[1])
	}
}

// windowed runs re only on the stretches of text within maxLen bytes of a
// byte in need (every match contains one), with a byte of context on each
// side; a match touching a window's cut edge is dropped, as the edge may
// have faked a word boundary.
func windowed(re *regexp.Regexp, need *[256]bool, maxLen int, text string, fn func(s, e int)) {
	// Each window costs a regexp call: where needed bytes are dense (one
	// per windowDensity bytes or more), one pass over the text is cheaper.
	n := 0
	for i := 0; i < len(text); i++ {
		if need[text[i]] {
			n++
		}
	}
	if n == 0 {
		return
	}
	if n*windowDensity >= len(text) {
		for _, m := range re.FindAllStringIndex(text, -1) {
			fn(m[0], m[1])
		}
		return
	}
	last := -1
	for i := 0; i < len(text); i++ {
		if !need[text[i]] {
			continue
		}
		ws, we := max(0, i-maxLen-1), min(len(text), i+maxLen+1)
		if ws < last {
			ws = last
		}
		// Extend the window while further needed bytes fall inside it.
		for j := i + 1; j < len(text) && j < we; j++ {
			if need[text[j]] {
				we = min(len(text), j+maxLen+1)
			}
		}
		for _, m := range re.FindAllStringIndex(text[ws:we], -1) {
			s, e := ws+m[0], ws+m[1]
			if (s == ws && ws > 0 && ws != last) || (e == we && we < len(text)) {
				continue
			}
			fn(s, e)
		}
		last, i = we, we-1
	}
}

// windowDensity is the spacing of needed bytes below which windowed
// runs its expression on the whole text.
const windowDensity = 64

func isLocalByte(c byte) bool {
	return isWordByte(c) || c == '.' || c == '%' || c == '+' || c == '-'
}

func isDomainByte(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '-'
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// scanEmail finds local@domain.tld around each '@': a local part of 1 to
// 64 bytes and a domain of dot-separated labels ending in a 2 to 24
// letter top-level domain.
func scanEmail(text string, fn func(s, e int)) {
	for at := 0; ; at++ {
		k := strings.IndexByte(text[at:], '@')
		if k < 0 {
			return
		}
		at += k
		s := at
		for s > 0 && at-s < 64 && isLocalByte(text[s-1]) {
			s--
		}
		e := at + 1
		for e < len(text) && e-at <= 253 && isDomainByte(text[e]) {
			e++
		}
		for e > at+1 && (text[e-1] == '.' || text[e-1] == '-') {
			e--
		}
		if s == at || (e < len(text) && isWordByte(text[e])) || !emailDomain(text[at+1:e]) {
			continue
		}
		fn(s, e)
		at = e - 1
	}
}

// emailDomain checks labels of 1 to 63 bytes not starting or ending with
// '-', at least two of them, the last 2 to 24 letters.
func emailDomain(d string) bool {
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
	}
	tld := labels[len(labels)-1]
	if len(tld) < 2 || len(tld) > 24 {
		return false
	}
	for i := 0; i < len(tld); i++ {
		if !isLetter(tld[i]) {
			return false
		}
	}
	return true
}

// byteClass is a set of bytes.
type byteClass [256]bool

func classOf(f func(byte) bool) *byteClass {
	var c byteClass
	for i := range c {
		c[i] = f(byte(i))
	}
	return &c
}

var (
	ipv4Bytes  = classOf(func(c byte) bool { return isDigit(c) || c == '.' })
	ipv6Bytes  = classOf(func(c byte) bool { return isHexByte(c) || c == ':' || c == '.' })
	phoneBytes = classOf(isPhoneByte)
)

// runs calls fn with each maximal run of bytes in class.
func runs(text string, class *byteClass, fn func(s, e int)) {
	for i := 0; i < len(text); i++ {
		if !class[text[i]] {
			continue
		}
		j := i + 1
		for j < len(text) && class[text[j]] {
			j++
		}
		fn(i, j)
		i = j
	}
}

// scanIPv4 finds dotted quads: runs of digits and dots of exactly four
// numbers of 0 to 255 (a trailing full stop aside), not after a word byte.
func scanIPv4(text string, fn func(s, e int)) {
	runs(text, ipv4Bytes, func(s, e int) {
		if e-s < 7 || e < len(text) && isWordByte(text[e]) || s > 0 && isWordByte(text[s-1]) {
			return
		}
		if text[e-1] == '.' {
			e--
		}
		if dottedQuad(text[s:e]) {
			fn(s, e)
		}
	})
}

// dottedQuad reports whether s is four numbers of 0 to 255 (no leading
// zeros) joined by dots.
func dottedQuad(s string) bool {
	parts := 0
	for len(s) > 0 {
		i := strings.IndexByte(s, '.')
		p := s
		if i >= 0 {
			p, s = s[:i], s[i+1:]
			if s == "" {
				return false
			}
		} else {
			s = ""
		}
		if p == "" || len(p) > 3 || (len(p) > 1 && p[0] == '0') || (len(p) == 3 && p > "255") {
			return false
		}
		parts++
	}
	return parts == 4
}

func isHexByte(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// scanIPv6 finds runs of hex digits, colons and dots with two colons or
// more; checkIPv6 validates them.
func scanIPv6(text string, fn func(s, e int)) {
	runs(text, ipv6Bytes, func(s, e int) {
		for e > s && text[e-1] == '.' {
			e--
		}
		if strings.Count(text[s:e], ":") >= 2 {
			fn(s, e)
		}
	})
}

// scanCard finds runs of digit groups joined by single spaces or hyphens.
func scanCard(text string, fn func(s, e int)) {
	for i := 0; i < len(text); i++ {
		if !isDigit(text[i]) || (i > 0 && isWordByte(text[i-1])) {
			continue
		}
		j := i
		for j < len(text) {
			if isDigit(text[j]) {
				j++
			} else if (text[j] == ' ' || text[j] == '-') && j+1 < len(text) && isDigit(text[j+1]) {
				j += 2
			} else {
				break
			}
		}
		if (j-i) >= 13 && (j == len(text) || !isWordByte(text[j])) {
			fn(i, j)
		}
		i = j
	}
}

// scanIBAN runs the IBAN expression at each two capital letters followed
// by two digits that start a word.
func scanIBAN(text string, fn func(s, e int)) {
	for i := 0; i+4 <= len(text); i++ {
		if !(text[i] >= 'A' && text[i] <= 'Z' && text[i+1] >= 'A' && text[i+1] <= 'Z' && isDigit(text[i+2]) && isDigit(text[i+3])) || (i > 0 && isWordByte(text[i-1])) {
			continue
		}
		w := text[i:min(len(text), i+52)]
		if m := ibanRe.FindStringIndex(w); m != nil && m[0] == 0 {
			fn(i, i+m[1])
			i += m[1] - 1
		}
	}
}

// secretRun is how far after a hint a secret window reaches.
const secretRun = 512

// scanSecret runs the secret expression on a window around each hint.
func scanSecret(text string, fn func(s, e int)) {
	last := 0
	for i := 0; i < len(text); i++ {
		h := hintAt(text, i)
		if h == 0 {
			continue
		}
		ws := max(last, i-8)
		we := i + h
		for tokens := 0; we < len(text) && tokens < 4 && we-i < secretRun; tokens++ {
			for we < len(text) && we-i < secretRun && text[we] != ' ' && text[we] != '\n' && text[we] != '\t' {
				we++
			}
			for we < len(text) && (text[we] == ' ' || text[we] == '\t') {
				we++
			}
		}
		for _, m := range secretRe.FindAllStringIndex(text[ws:we], -1) {
			fn(ws+m[0], ws+m[1])
			last = ws + m[1]
		}
		if last > i {
			i = last - 1
		}
	}
}

// hintFirst marks the first bytes of the secret hints.
var hintFirst = func() (t [256]bool) {
	for _, h := range secretHints {
		t[h[0]] = true
	}
	return t
}()

// hintAt returns the length of the secret hint at text[i:] (0: none).
func hintAt(text string, i int) int {
	if !hintFirst[text[i]] {
		return 0
	}
	for _, h := range secretHints {
		if strings.HasPrefix(text[i:], h) {
			return len(h)
		}
	}
	return 0
}

func isPhoneByte(c byte) bool {
	return isDigit(c) || c == ' ' || c == '+' || c == '(' || c == ')' || c == '.' || c == '-'
}

// phoneShape reports whether a run may hold a phone number: 7 digits or
// more, and a '+', a '(' or digit groups of 3, 3 and 4 in a row (dates
// and versions have neither).
func phoneShape(run string) bool {
	digits, group := 0, 0
	var last [3]int
	shaped := false
	for i := 0; i <= len(run); i++ {
		if i < len(run) && isDigit(run[i]) {
			digits++
			group++
			continue
		}
		if group > 0 {
			last = [3]int{last[1], last[2], group}
			if last == [3]int{3, 3, 4} {
				shaped = true
			}
			group = 0
		}
		if i < len(run) && (run[i] == '+' || run[i] == '(') {
			shaped = true
		}
	}
	return digits >= 7 && shaped
}

// scanPhone runs the phone expression on runs of digits and phone
// punctuation that hold 7 digits or more, with a byte of context.
func scanPhone(text string, fn func(s, e int)) {
	runs(text, phoneBytes, func(s, e int) {
		if !phoneShape(text[s:e]) {
			return
		}
		ws, we := max(0, s-1), min(len(text), e+1)
		for _, m := range phoneRe.FindAllStringIndex(text[ws:we], -1) {
			fn(ws+m[0], ws+m[1])
		}
	})
}
