package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Piece is one chunk of structure-aware chunking
// (docs/memories-and-retrieval.md#structure-aware-chunking): its text, a
// substring of the document with surrounding whitespace trimmed, and the path
// of the headings it sits under, such as "Guide > Install > Linux" ("" before
// the first heading).
type Piece struct {
	Text    string
	Heading string
	// Start is the byte offset of Text in the text given to Structure or
	// StructureParents (after invalid UTF-8 is replaced).
	Start int
	// Parent is the index, in the parents StructureParents returns, of the
	// section part the piece belongs to; -1 from Structure.
	Parent int
}

// HeadingSeparator joins the headings of a heading path.
const HeadingSeparator = " > "

// Structure cuts markdown text (what the parsers make of markdown and HTML
// documents) at its headings, then packs each section's blocks into chunks
// of at most maxLen runes: a fenced code block or a table is never cut
// while it fits in maxLen, and a block longer than maxLen is cut as Split
// cuts text, with overlap. A section holding only its heading line is
// joined to the next one, so no chunk is a bare heading. Arguments are
// taken as Split takes them; every chunk keeps Split's bounds (at most
// maxLen runes, no empty chunk, every non-whitespace rune in a chunk).
func Structure(text string, maxLen, overlap int) []Piece {
	text = strings.ToValidUTF8(text, "\uFFFD")
	var out []Piece
	for _, sec := range sections(text) {
		for _, c := range pack(text[sec.start:sec.end], maxLen, overlap) {
			out = append(out, Piece{Text: text[sec.start+c.start : sec.start+c.end], Heading: sec.heading, Start: sec.start + c.start, Parent: -1})
		}
	}
	return out
}

// StructureParents is Structure in parent-child mode: each section is
// first packed, without overlap, into parents of at most parentLen runes,
// and each parent into child pieces of at most maxLen runes. Retrieval
// matches the children and hands the model their parent. parentLen is
// taken as at least maxLen.
func StructureParents(text string, maxLen, overlap, parentLen int) (children []Piece, parents []string) {
	text = strings.ToValidUTF8(text, "\uFFFD")
	parentLen = max(parentLen, maxLen, 1)
	for _, sec := range sections(text) {
		for _, p := range pack(text[sec.start:sec.end], parentLen, 0) {
			pstart := sec.start + p.start
			ptext := text[pstart : sec.start+p.end]
			for _, c := range pack(ptext, maxLen, overlap) {
				children = append(children, Piece{Text: ptext[c.start:c.end], Heading: sec.heading, Start: pstart + c.start, Parent: len(parents)})
			}
			parents = append(parents, ptext)
		}
	}
	return children, parents
}

// section is a byte range of the text that starts at a heading line (or at
// the start of the text) and ends before the next one.
type section struct {
	start, end int
	heading    string
}

// sections splits text at ATX headings ("#" to "######") outside fenced
// code blocks. Ranges cover the whole text, in order.
func sections(text string) []section {
	var out []section
	var stack []string // the heading at each level 1..6, "" when none
	cur := section{}
	bare := false // cur holds only its heading line so far
	fence := ""
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		next := len(text)
		if end >= 0 {
			next = off + end + 1
		}
		line := text[off:next]
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			bare = false
		case fenceStart(trimmed) != "":
			fence = fenceStart(trimmed)
			bare = false
		default:
			level, title := atxHeading(line)
			if level == 0 {
				if trimmed != "" {
					bare = false
				}
				break
			}
			for len(stack) < level {
				stack = append(stack, "")
			}
			stack = append(stack[:level-1], title)
			if off > cur.start && !bare {
				cur.end = off
				out = append(out, cur)
				cur = section{start: off}
			}
			cur.heading = headingPath(stack)
			bare = true
		}
		off = next
	}
	cur.end = len(text)
	return append(out, cur)
}

func headingPath(stack []string) string {
	var parts []string
	for _, h := range stack {
		if h != "" {
			parts = append(parts, h)
		}
	}
	return strings.Join(parts, HeadingSeparator)
}

// atxHeading returns the level and title of an ATX heading line, or 0.
func atxHeading(line string) (int, string) {
	s := strings.TrimRight(line, "\r\n")
	indent := len(s) - len(strings.TrimLeft(s, " "))
	if indent > 3 {
		return 0, ""
	}
	s = s[indent:]
	level := 0
	for level < len(s) && s[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(s) && s[level] != ' ' && s[level] != '\t') {
		return 0, ""
	}
	title := strings.TrimSpace(s[level:])
	if t := strings.TrimRight(title, "#"); t != title && (t == "" || strings.HasSuffix(t, " ")) {
		title = strings.TrimSpace(t)
	}
	return level, title
}

// fenceStart returns the fence ("```" or "~~~" and longer) a trimmed line
// opens a code block with, or "".
func fenceStart(trimmed string) string {
	for _, c := range []string{"`", "~"} {
		n := 0
		for n < len(trimmed) && trimmed[n] == c[0] {
			n++
		}
		if n >= 3 {
			return trimmed[:n]
		}
	}
	return ""
}

// block is a byte range of a section: a paragraph, a fenced code block or
// a table, with its rune offsets.
type block struct {
	start, end   int // bytes
	rstart, rend int // runes
}

// blocks splits s into blank-line separated blocks; a fenced code block
// (blank lines included) and a table (consecutive lines holding "|") are
// one block each.
func blocks(s string) []block {
	var out []block
	open := false
	var cur block
	fence := ""
	table := false
	runes := 0
	for off := 0; off < len(s); {
		end := strings.IndexByte(s[off:], '\n')
		next := len(s)
		if end >= 0 {
			next = off + end + 1
		}
		line := s[off:next]
		trimmed := strings.TrimSpace(line)
		n := utf8.RuneCountInString(line)
		isTable := strings.Contains(trimmed, "|")
		lineEnd := off + len(strings.TrimRight(line, "\r\n"))
		switch {
		case fence != "":
			cur.end, cur.rend = lineEnd, runes+utf8.RuneCountInString(s[off:lineEnd])
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
				out, open = append(out, cur), false
			}
		case trimmed == "":
			if open {
				out, open = append(out, cur), false
			}
		default:
			f := fenceStart(trimmed)
			if open && (f != "" || isTable != table) {
				out, open = append(out, cur), false
			}
			if !open {
				cur, open, table = block{start: off, rstart: runes}, true, isTable
			}
			cur.end, cur.rend = lineEnd, runes+utf8.RuneCountInString(s[off:lineEnd])
			fence = f
		}
		runes += n
		off = next
	}
	if open {
		out = append(out, cur)
	}
	return out
}

// pack joins the blocks of s into chunks of at most maxLen runes, cutting
// only between blocks; a block longer than maxLen is cut by Spans. It
// returns the chunks' byte ranges in s, whitespace trimmed.
func pack(s string, maxLen, overlap int) []section {
	maxLen = max(maxLen, 1)
	var out []section
	var cur block
	open := false
	flush := func() {
		if open {
			out = appendTrimmed(out, s, cur.start, cur.end)
			open = false
		}
	}
	for _, b := range blocks(s) {
		if open && b.rend-cur.rstart <= maxLen {
			cur.end, cur.rend = b.end, b.rend
			continue
		}
		flush()
		if b.rend-b.rstart <= maxLen {
			cur, open = b, true
			continue
		}
		sub := s[b.start:b.end]
		runes := []rune(sub)
		var start, end cursor
		for _, sp := range Spans(sub, maxLen, overlap) {
			start.advance(runes, sp.Start)
			end.advance(runes, sp.End)
			out = append(out, section{start: b.start + start.b, end: b.start + end.b})
		}
	}
	flush()
	return out
}

// appendTrimmed appends s[start:end] without its surrounding whitespace,
// unless nothing is left.
func appendTrimmed(out []section, s string, start, end int) []section {
	t := strings.TrimLeftFunc(s[start:end], unicode.IsSpace)
	start = end - len(t)
	t = strings.TrimRightFunc(t, unicode.IsSpace)
	if t == "" {
		return out
	}
	return append(out, section{start: start, end: start + len(t)})
}
