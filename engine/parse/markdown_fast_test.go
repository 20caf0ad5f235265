package parse

import (
	"strings"
	"testing"
)

// TestParseMarkdownLinePatterns: the lines that skip the regexps (no '[',
// no import/export at the start) are kept as they are, and every line that
// needs one still gets it: links and images reduced to their text,
// reference definitions and MDX import/export lines dropped, words that
// only begin with "import" or "export" kept.
func TestParseMarkdownLinePatterns(t *testing.T) {
	in := strings.Join([]string{
		"Plain prose, with (parentheses) and ] brackets.",
		"See [the guide](https://example.com/guide) and ![a heron](heron.png).",
		"[ref]: https://example.com/ref",
		"   [ref2]: https://example.com/ref2 \"title\"",
		"    [code]: not a definition (four spaces)",
		"import Chart from './chart'",
		"export default function Page() {}",
		"important: imports and exports stay",
		"exported goods [x](y) too",
		"A lone [bracket without a link.",
	}, "\n")
	want := strings.Join([]string{
		"Plain prose, with (parentheses) and ] brackets.",
		"See the guide and a heron.",
		"    [code]: not a definition (four spaces)",
		"important: imports and exports stay",
		"exported goods x too",
		"A lone [bracket without a link.",
	}, "\n")
	got, err := Parse(TypeMarkdown, "f.md", []byte(in))
	if err != nil || got != want {
		t.Fatalf("got (%q, %v)\nwant %q", got, err, want)
	}
}
