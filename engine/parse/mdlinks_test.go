package parse

import (
	"regexp"
	"strings"
	"testing"
	"unsafe"
)

// The patterns stripLinks stands for, as parseMarkdown applied them.
var (
	imageREOld = regexp.MustCompile(`!\[([^\]\n]*)\]\([^)\n]*\)`)
	linkREOld  = regexp.MustCompile(`\[([^\]\n]+)\]\([^)\n]*\)`)
)

func stripLinksRE(line string) string {
	return linkREOld.ReplaceAllString(imageREOld.ReplaceAllString(line, "$1"), "$1")
}

var linkCases = []string{
	"",
	"no brackets at all",
	"See [the guide](https://example.com/guide) and ![a heron](heron.png).",
	"![](empty-alt.png) and [](empty-text) stay a link pattern only with text",
	"[a[b](c) nested open bracket",
	"![a[b](c) nested in an image",
	"[a](b(c)) parentheses in the url",
	"[a] (b) a space between",
	"[a](b",
	"[a](b\n) newline in the url",
	"[a\n](b) newline in the text",
	"!![x](y) two bangs",
	"![x](y)![z](w)[v](u)",
	"[x](y)[z](w)",
	"![[inner](u)](v)",
	"[![alt](img.png)](https://example.com) a linked image",
	"trailing [",
	"trailing ![",
	"][)(",
	"[\xff](\xfe) invalid UTF-8",
	"ünïcode [wörd](ürl) ok",
}

// TestStripLinksMatchesRegexps: stripLinks gives the regexps' output on
// each case, including nested and unclosed brackets, newlines and invalid
// UTF-8.
func TestStripLinksMatchesRegexps(t *testing.T) {
	for _, c := range linkCases {
		if got, want := stripLinks(c), stripLinksRE(c); got != want {
			t.Errorf("stripLinks(%q) = %q, want %q", c, got, want)
		}
	}
	if got := stripLinks("See [the guide](u) and ![a heron](h.png)."); got != "See the guide and a heron." {
		t.Errorf("got %q", got)
	}
}

// TestStripLinksNoMatchNoCopy: a line without a link is returned as it is,
// not a copy.
func TestStripLinksNoMatchNoCopy(t *testing.T) {
	line := strings.Repeat("prose with a [bracket] but (no) link ", 20)
	if got := stripLinks(line); unsafe.StringData(got) != unsafe.StringData(line) || len(got) != len(line) {
		t.Fatalf("a line without a link came back as a copy: %q", got)
	}
}

// FuzzStripLinks compares stripLinks with the regexps on arbitrary text,
// and checks that refDefStart lets every reference definition through.
func FuzzStripLinks(f *testing.F) {
	for _, c := range linkCases {
		f.Add(c)
	}
	f.Add("   [ref]: https://example.com/ref")
	f.Add("    [code]: four spaces")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := stripLinks(s), stripLinksRE(s); got != want {
			t.Fatalf("stripLinks(%q) = %q, want %q", s, got, want)
		}
		if refDefRE.MatchString(s) && !refDefStart(s) {
			t.Fatalf("refDefStart(%q) is false, but the line is a reference definition", s)
		}
	})
}

// BenchmarkStripLinksAllocs: a line with an image and two links costs
// stripLinks one or two allocations a pass (Go 1.26), the regexps several
// per match; a line without a link none.
func BenchmarkStripLinksAllocs(b *testing.B) {
	links := "See ![a heron](heron.png), [the guide](https://example.com/guide) and [notes](n.md) " + strings.Repeat("and prose ", 20)
	plain := strings.Repeat("prose with a [bracket] but (no) link ", 20)
	for _, c := range []struct {
		name, line string
		strip      func(string) string
	}{
		{"links", links, stripLinks},
		{"links regexps", links, stripLinksRE},
		{"no link", plain, stripLinks},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = c.strip(c.line)
			}
		})
	}
}

// TestRefDefStart: the lines refDefRE matches start as refDefStart needs;
// others with a bracket further in skip the regexp.
func TestRefDefStart(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"[ref]: https://example.com", true},
		{"   [ref]: u", true},
		{"    [ref]: u", false},
		{"See [a](b)", false},
		{"", false},
		{"  ", false},
	} {
		if got := refDefStart(c.line); got != c.want {
			t.Errorf("refDefStart(%q) = %v", c.line, got)
		}
		if refDefRE.MatchString(c.line) && !refDefStart(c.line) {
			t.Errorf("%q matches refDefRE", c.line)
		}
	}
}
