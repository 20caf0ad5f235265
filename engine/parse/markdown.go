package parse

import (
	"regexp"
	"strings"
)

// Markdown is kept as markdown: headings keep their "#" markers, lists and
// code blocks stay as they are, because both language and embedding models
// read markdown well and the markers tell a chunk where it sits. Only what
// is noise for retrieval is removed:
//
//   - front matter fences ("---" or "+++" around the block that opens the
//     file) are dropped, but the key: value lines are kept, since a title,
//     description or tags are worth finding;
//   - HTML comments are removed everywhere;
//
// and, outside fenced code blocks:
//
//   - links keep their text and images their alt text, without the URL;
//   - reference link definitions ("[id]: https://...") are removed;
//   - MDX import and export lines are removed;
//   - runs of blank lines become one blank line.

var (
	refDefRE  = regexp.MustCompile(`^ {0,3}\[[^\]\n]+\]:\s+\S+`)
	mdxLineRE = regexp.MustCompile(`^(import\s.+\sfrom\s+['"].+['"];?|import\s+['"].+['"];?|export\s+(const|let|var|function|default)\b.*)\s*$`)
)

// parseMarkdown never makes text longer than its input, so its output is
// checked against max only at the end.
func parseMarkdown(data []byte, max int) (string, error) {
	text, err := decodeText(data)
	if err != nil {
		return "", err
	}
	text = stripComments(text)
	lines := strings.Split(text, "\n")
	lines = frontMatter(lines)

	var b strings.Builder
	b.Grow(len(text))
	fence := "" // the opening fence of the code block we are in, if any
	blank := 0
	for _, line := range lines {
		trimmed := strings.TrimSpace(line)
		if fence == "" {
			if f := fenceOf(trimmed); f != "" {
				fence = f
			} else {
				// Every pattern needs a '[' or an import/export at the
				// start: most lines of prose skip the regexps, which were
				// most of the parser's time (docs/bench-log/2026-12-04.md).
				bracket := strings.IndexByte(line, '[') >= 0
				if (bracket && refDefStart(line) && refDefRE.MatchString(line)) ||
					((strings.HasPrefix(line, "import") || strings.HasPrefix(line, "export")) && mdxLineRE.MatchString(line)) {
					continue
				}
				if bracket {
					line = stripLinks(line)
				}
			}
		} else if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
			fence = ""
		}
		if strings.TrimSpace(line) == "" {
			blank++
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
			if blank > 0 {
				b.WriteString("\n")
			}
		}
		blank = 0
		b.WriteString(strings.TrimRight(line, " \t"))
	}
	out := b.String()
	if strings.TrimSpace(out) == "" {
		return "", docError("document contains no text")
	}
	return checkOutput(out, max)
}

// fenceOf returns the fence ("```" or "~~~", possibly longer) that opens a
// code block on this line, or "".
func fenceOf(trimmed string) string {
	for _, c := range []string{"`", "~"} {
		n := len(trimmed) - len(strings.TrimLeft(trimmed, c))
		if n >= 3 {
			return trimmed[:n]
		}
	}
	return ""
}

// frontMatter drops the fences of a YAML ("---") or TOML ("+++") front
// matter block at the start of the file, keeping its lines; it reuses
// lines.
func frontMatter(lines []string) []string {
	if len(lines) == 0 {
		return lines
	}
	open := strings.TrimSpace(lines[0])
	if open != "---" && open != "+++" {
		return lines
	}
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == open {
			// The closing fence becomes the blank line after the block.
			lines[i] = ""
			return lines[1:]
		}
	}
	return lines
}

// stripComments removes HTML comments; an unclosed one runs to the end.
func stripComments(s string) string {
	if !strings.Contains(s, "<!--") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "<!--")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		j := strings.Index(s[i+4:], "-->")
		if j < 0 {
			return b.String()
		}
		s = s[i+4+j+3:]
	}
}
