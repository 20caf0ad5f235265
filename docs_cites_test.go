package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	commentBreak = regexp.MustCompile(`\n\s*//\s*`)
)

// docHeadings returns the text of a Markdown file's headings, outside
// fenced code, with inline-code backticks dropped.
func docHeadings(doc string) []string {
	var hs []string
	fence := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
			fence = !fence
			continue
		}
		if m := headingLine.FindStringSubmatch(line); m != nil && !fence {
			hs = append(hs, strings.ReplaceAll(m[1], "`", ""))
		}
	}
	return hs
}

// TestCodeCitesExistingDocs: the docs that Go comments and messages cite
// exist: every docs/x.md or README.md path, its #anchor, and a quoted
// section title after it ("README "Title"", "docs/x.md, "Title"") names a
// heading of that file, so no citation outlives the section it names.
// (This file and docs_links_test.go are left out: they cite examples.)
func TestCodeCitesExistingDocs(t *testing.T) {
	cite := regexp.MustCompile(`(?:^|[^\w/.-])((?:docs/[\w./-]+|README)\.md)(?:#([\w-]+))?`)
	quoted := regexp.MustCompile(`(?:^|[^\w/.-])((?:docs/[\w./-]+\.md|README(?:\.md)?))(?:'s)?,?\s+(?:section\s+)?\\?"([^"\\]+)\\?"`)
	anchors := map[string]map[string]bool{}
	n, q := 0, 0
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "." && (d.Name() == "node_modules" || d.Name() == "testdata" || d.Name() == "bin" || d.Name() == "dist" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasPrefix(p, "docs_") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		src := string(b)
		if strings.HasSuffix(p, "_test.go") {
			// tests cite in comments; their strings are fixtures
			src = strings.Join(lineComment.FindAllString(src, -1), "\n")
		}
		// join comment lines so that citations broken over lines match
		src = commentBreak.ReplaceAllString(src, " ")
		for _, m := range cite.FindAllStringSubmatch(src, -1) {
			if m[1] == "README.md" && m[2] == "" {
				continue // the file's name alone, such as an upload's name in a test
			}
			n++
			if msg := checkDocTarget(m[1], m[2], anchors); msg != "" {
				t.Errorf("%s cites %s#%s: %s", p, m[1], m[2], msg)
			}
		}
		for _, m := range quoted.FindAllStringSubmatch(src, -1) {
			file := m[1]
			if file == "README" {
				file = "README.md"
			}
			q++
			doc, err := os.ReadFile(file)
			if err != nil {
				t.Errorf("%s cites %s %q: %v", p, m[1], m[2], err)
				continue
			}
			found := false
			for _, h := range docHeadings(string(doc)) {
				found = found || strings.HasPrefix(h, m[2])
			}
			if !found {
				t.Errorf("%s cites %s %q, which is no heading there; cite the guide's anchor (docs/x.md#anchor)", p, m[1], m[2])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 || q < 5 {
		t.Fatalf("found %d doc citations and %d quoted titles in Go files; the citation patterns are broken", n, q)
	}
}
