package parse

import "strings"

// stripLinks reduces markdown images to their alt text and then links to
// their text, giving what imageRE.ReplaceAllString(line, "$1") followed by
// linkRE.ReplaceAllString(…, "$1") gives (a differential test and a fuzz
// target compare them), without the regexp engine, which was most of
// parsing a markdown upload's time and allocations (measured on HTTP
// ingestion, docs/bench-log/2026-12-04.md).
func stripLinks(line string) string {
	if strings.Contains(line, "![") {
		line = replaceLinks(line, true)
	}
	return replaceLinks(line, false)
}

// replaceLinks replaces each leftmost, non-overlapping image ("![alt](url)",
// image true) or link ("[text](url)", text not empty) of s by its alt text
// or text. Neither part may hold a newline, the text no ']' and the URL no
// ')': so a match starting at a given byte is unique, and scanning starts
// from left to right finds the regexp's leftmost matches.
func replaceLinks(s string, image bool) string {
	var b strings.Builder
	done := 0 // s[:done] is written to b (when b is in use)
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '[')
		if j < 0 {
			break
		}
		open := i + j // the '['
		start := open
		if image {
			if open == 0 || s[open-1] != '!' {
				i = open + 1
				continue
			}
			start = open - 1
		}
		textEnd, end := linkAt(s, open+1, !image)
		if end < 0 {
			i = open + 1
			continue
		}
		if b.Cap() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[done:start])
		b.WriteString(s[open+1 : textEnd])
		done, i = end, end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// linkAt matches `([^\]\n]*)\]\([^)\n]*\)` at s[from:] (with nonEmpty, at
// least one byte of text): it returns the end of the text (the ']') and
// the end of the match, or -1, -1.
func linkAt(s string, from int, nonEmpty bool) (textEnd, end int) {
	k := from
	for k < len(s) && s[k] != ']' && s[k] != '\n' {
		k++
	}
	if k == len(s) || s[k] != ']' || (nonEmpty && k == from) || k+1 >= len(s) || s[k+1] != '(' {
		return -1, -1
	}
	u := k + 2
	for u < len(s) && s[u] != ')' && s[u] != '\n' {
		u++
	}
	if u == len(s) || s[u] != ')' {
		return -1, -1
	}
	return k, u + 1
}

// refDefStart reports whether line begins as refDefRE needs: at most
// three spaces, then '['. Most lines with a bracket do not, and skip the
// regexp.
func refDefStart(line string) bool {
	for i := 0; i < len(line) && i <= 3; i++ {
		switch line[i] {
		case '[':
			return true
		case ' ':
		default:
			return false
		}
	}
	return false
}
