package chunk

import (
	"errors"

	"github.com/hearth-dev/hearth/engine"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func readGuide(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/structure/guide.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStructureHeadingPaths(t *testing.T) {
	got := Structure(readGuide(t), 400, 40)
	want := []struct{ heading, start string }{
		{"Guide", "# Guide"},
		{"Guide > Install", "## Install"},
		{"Guide > Install > Linux", "### Linux"},
		{"Guide > Install > macOS", "### macOS"},
		{"Guide > Configuration", "## Configuration"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d pieces, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Heading != w.heading || !strings.HasPrefix(got[i].Text, w.start) {
			t.Errorf("piece %d = %q under %q, want %q... under %q", i, got[i].Text, got[i].Heading, w.start, w.heading)
		}
	}
}

// TestStructureKeepsBlocksWhole checks that a code block with a blank line
// inside and a table each stay in one chunk when they fit, even with a
// chunk size that cuts the section around them.
func TestStructureKeepsBlocksWhole(t *testing.T) {
	text := readGuide(t)
	code := text[strings.Index(text, "```sh"):]
	code = code[:strings.Index(code[3:], "```")+6]
	table := text[strings.Index(text, "| Setting"):]
	table = table[:strings.Index(table, "\n\n")]
	size := max(utf8.RuneCountInString(code), utf8.RuneCountInString(table)) + 5
	pieces := Structure(text, size, 10)
	for _, block := range []string{code, table} {
		whole := false
		for _, p := range pieces {
			whole = whole || strings.Contains(p.Text, block)
		}
		if !whole {
			t.Errorf("no chunk holds the whole block %q: %+v", block, pieces)
		}
	}
	// Size chunking cuts the code block at its blank line.
	for _, c := range Split(text, size, 10) {
		if strings.Contains(c, code) {
			return
		}
	}
	t.Log("size chunking also kept the code block whole")
}

func TestStructureParents(t *testing.T) {
	children, parents := StructureParents(readGuide(t), 60, 10, 1000)
	if len(parents) != 5 {
		t.Fatalf("got %d parents, want one per section: %q", len(parents), parents)
	}
	linux := -1
	for _, c := range children {
		if utf8.RuneCountInString(c.Text) > 60 {
			t.Fatalf("child %q is longer than 60 runes", c.Text)
		}
		if !strings.Contains(parents[c.Parent], c.Text) {
			t.Fatalf("child %q is not in its parent %q", c.Text, parents[c.Parent])
		}
		if strings.Contains(c.Text, "unpack it") {
			linux = c.Parent
		}
	}
	if linux < 0 || !strings.Contains(parents[linux], "sudo mv hearth") || children[0].Parent != 0 {
		t.Fatalf("the Linux child's parent %d is not the Linux section: %q", linux, parents)
	}
}

func TestStructureBareHeadingsJoinNext(t *testing.T) {
	got := Structure("# A\n\n## B\n\ntext under b\n", 100, 0)
	if len(got) != 1 || got[0].Heading != "A > B" || got[0].Text != "# A\n\n## B\n\ntext under b" {
		t.Fatalf("got %+v", got)
	}
	if got := Structure("", 10, 0); len(got) != 0 {
		t.Fatalf("empty text gave %+v", got)
	}
	if _, title := atxHeading("## Title ##\n"); title != "Title" {
		t.Fatalf("closing hashes kept: %q", title)
	}
	if level, _ := atxHeading("#hashtag"); level != 0 {
		t.Fatal("#hashtag taken as a heading")
	}
	got = Structure("```\n# not a heading\n```\n# Real\nx", 100, 0)
	if len(got) != 2 || got[0].Heading != "" || got[1].Heading != "Real" {
		t.Fatalf("a heading inside a code fence split the text: %+v", got)
	}
}

// checkStructure asserts Split's bounds on structure-aware pieces: each at
// most maxLen runes, trimmed, non-empty, a substring of the text found in
// order at its Start, and every non-whitespace rune in one of them.
func checkStructure(t *testing.T, text string, maxLen int, pieces []Piece) {
	t.Helper()
	text = strings.ToValidUTF8(text, "\uFFFD")
	covered := make([]bool, len(text))
	for i, p := range pieces {
		if n := utf8.RuneCountInString(p.Text); n == 0 || n > max(maxLen, 1) {
			t.Fatalf("piece %d has %d runes (max %d)", i, n, maxLen)
		}
		if strings.TrimSpace(p.Text) != p.Text {
			t.Fatalf("piece %d %q has untrimmed edges", i, p.Text)
		}
		at := p.Start
		if at < 0 || at+len(p.Text) > len(text) || text[at:at+len(p.Text)] != p.Text {
			t.Fatalf("piece %d %q is not the text at its offset %d", i, p.Text, at)
		}
		if i > 0 && at < pieces[i-1].Start {
			t.Fatalf("piece %d starts at %d, before piece %d", i, at, i-1)
		}
		for j := at; j < at+len(p.Text); j++ {
			covered[j] = true
		}
	}
	for j, r := range text {
		if !covered[j] && !unicode.IsSpace(r) {
			t.Fatalf("rune %q at byte %d is in no piece", r, j)
		}
	}
}

func TestStructureBounds(t *testing.T) {
	text := readGuide(t)
	for _, size := range []int{1, 7, 30, 100, 2000} {
		checkStructure(t, text, size, Structure(text, size, size/2))
		children, _ := StructureParents(text, size, size/2, size*3)
		checkStructure(t, text, size, children)
	}
}

func TestSettingsNormalize(t *testing.T) {
	s, err := (&Settings{Mode: ModeStructure, Parent: &ParentSettings{}}).Normalize("chunking", 1000)
	if err != nil || s.ParentSize() != DefaultParentSize {
		t.Fatalf("got %+v, %v", s, err)
	}
	if s, err := (&Settings{}).Normalize("chunking", 1000); err != nil || s.Mode != ModeSize || s.Structured() {
		t.Fatalf("empty settings: %+v, %v", s, err)
	}
	for _, bad := range []struct {
		s     Settings
		field string
	}{
		{Settings{Mode: "semantic"}, "chunking.mode"},
		{Settings{Mode: ModeSize, Parent: &ParentSettings{MaxSize: 2000}}, "chunking.parent"},
		{Settings{Mode: ModeStructure, Parent: &ParentSettings{MaxSize: 500}}, "chunking.parent.max_size"},
		{Settings{Mode: ModeStructure, Parent: &ParentSettings{MaxSize: MemoryMaxSize + 1}}, "chunking.parent.max_size"},
	} {
		_, err := bad.s.Normalize("chunking", 1000)
		var e *engine.Error
		if !errors.As(err, &e) || e.Field != bad.field {
			t.Errorf("%+v: got %v, want an error on %s", bad.s, err, bad.field)
		}
	}
}
