package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var (
	headingLine = regexp.MustCompile(`^#{1,6} (.+)$`)
	codeSpan    = regexp.MustCompile("`[^`]*`")
	inlineLink  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// docFiles returns README.md and every Markdown file under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir("docs", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, filepath.ToSlash(p))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// headingSlug is GitHub's anchor for a heading's text: the rendered text
// lowercased, punctuation other than '-' and '_' dropped, spaces made '-'.
func headingSlug(text string) string {
	text = inlineLink.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// proseLines returns the lines of a Markdown file outside fenced code
// blocks, with inline code spans blanked out.
func proseLines(doc string) []string {
	var out []string
	fence := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
			fence = !fence
			out = append(out, "")
			continue
		}
		if fence {
			out = append(out, "")
			continue
		}
		out = append(out, codeSpan.ReplaceAllString(line, "``"))
	}
	return out
}

// docAnchors returns the anchors GitHub gives the headings of a Markdown
// file: repeated slugs get -1, -2, ... in order.
func docAnchors(doc string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
			fence = !fence
			continue
		}
		m := headingLine.FindStringSubmatch(line)
		if fence || m == nil {
			continue
		}
		s := headingSlug(strings.NewReplacer("`", "", "*", "").Replace(m[1]))
		a := s
		if n := seen[s]; n > 0 {
			a = s + "-" + strconv.Itoa(n)
		}
		seen[s]++
		anchors[a] = true
	}
	return anchors
}

// checkDocTarget reports whether path (relative to the repository root)
// is a file and, for a Markdown file, whether it has the anchor.
func checkDocTarget(path, anchor string, cache map[string]map[string]bool) string {
	b, err := os.ReadFile(path)
	if err != nil {
		if st, serr := os.Stat(path); serr == nil && st.IsDir() && anchor == "" {
			return ""
		}
		return "no such file " + path
	}
	if anchor == "" || !strings.HasSuffix(path, ".md") {
		return ""
	}
	if cache[path] == nil {
		cache[path] = docAnchors(string(b))
	}
	if !cache[path][anchor] {
		return path + " has no heading with anchor #" + anchor
	}
	return ""
}

// TestDocLinksResolve: every relative link (and its anchor) in README.md
// and docs/ leads to a file and heading that exist.
func TestDocLinksResolve(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	cache := map[string]map[string]bool{}
	n := 0
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range proseLines(string(b)) {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				if path == "" {
					path = f
				} else {
					path = filepath.ToSlash(filepath.Join(filepath.Dir(f), path))
				}
				n++
				if msg := checkDocTarget(path, anchor, cache); msg != "" {
					t.Errorf("%s:%d: link %s: %s", f, i+1, target, msg)
				}
			}
		}
	}
	if n < 100 {
		t.Fatalf("found only %d relative links in the docs; the link pattern is broken", n)
	}
}
