package engine

import (
	"strings"
	"testing"
)

// A structure-aware chunk shows the model its heading path, and in
// parent-child mode its section instead of the small matched text.
func TestRAGPromptHeadingAndSection(t *testing.T) {
	p := &Pipe{}
	chunks := []RAGChunk{
		{Text: "unpack it", Heading: "Guide > Install > Linux", Section: "### Linux\n\nDownload and unpack it.", DocName: "guide.md"},
		{Text: "plain chunk", DocName: "notes.txt"},
	}
	got := ComposeSystemPrompt(p, false, chunks)
	want := "CONTEXT:\n Section: Guide > Install > Linux\n### Linux\n\nDownload and unpack it. \n\n Source: guide.md\n\nplain chunk \n\n Source: notes.txt"
	if !strings.Contains(got, want) {
		t.Fatalf("prompt %q does not contain %q", got, want)
	}
}
