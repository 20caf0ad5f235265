package parse

import (
	"strings"
	"testing"
)

// TestOfficeFormats parses files LibreOffice made (testdata/docs/office,
// make.sh): every format keeps the text, the headings and the table rows.
func TestOfficeFormats(t *testing.T) {
	table := []string{"Season | Task", "Spring | Add supers", "Autumn | Feed syrup"}
	for _, tc := range []struct {
		name, ct string
		want     []string
	}{
		{"sample.docx", TypeDOCX, append([]string{"# Beekeeping basics", "## Seasons", "Bees collect nectar from flowers and turn it into honey inside the hive.", "Café crème, naïve — ünïcödé.", "The end."}, table...)},
		{"sample.odt", TypeODT, append([]string{"# Beekeeping basics", "## Seasons", "Bees collect nectar from flowers", "Café crème, naïve — ünïcödé.", "The end."}, table...)},
		{"sample.rtf", TypeRTF, append([]string{"# Beekeeping basics", "## Seasons", "Bees collect nectar from flowers", "Café crème, naïve — ünïcödé.", "The end."}, table...)},
		// LibreOffice's EPUB export styles headings as paragraphs.
		{"sample.epub", TypeEPUB, append([]string{"Beekeeping basics\n\nBees collect", "\n\nSeasons\n\n", "Bees collect nectar from flowers", "Café crème, naïve — ünïcödé.", "The end."}, table...)},
		{"slides.pptx", TypePPTX, []string{"## Slide 1\n\nTides and the moon", "The moon pulls on the oceans.\n\nHigh tide comes twice a day.", "## Slide 2\n\nSpring tides", "Sun and moon in line make the biggest tides."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, err := Parse(tc.ct, tc.name, fixture(t, "office/"+tc.name))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("missing %q in:\n%s", w, text)
				}
			}
			if strings.Contains(text, "\r") || strings.Contains(text, "\n\n\n") {
				t.Errorf("untidy text:\n%q", text)
			}
		})
	}
}

// TestOfficeBadFiles: corrupt, truncated, incomplete and oversized office
// files fail with a reason naming the format, never a crash.
func TestOfficeBadFiles(t *testing.T) {
	docx := fixture(t, "office/sample.docx")
	w := `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`
	bigPara := w + strings.Repeat(`<w:p><w:r><w:t>`+strings.Repeat("word ", 200)+`</w:t></w:r></w:p>`, 50) + `</w:body></w:document>`
	for _, tc := range []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"not a zip", "a.docx", []byte("hello, not a zip"), "not a valid docx (zip) archive"},
		{"truncated", "a.docx", docx[:len(docx)/2], "could not read docx"},
		{"no document part", "a.docx", zipOf(t, map[string]string{"other.xml": "<a/>"}), "has no word/document.xml"},
		{"unclosed XML", "a.docx", zipOf(t, map[string]string{"word/document.xml": w + "<w:p>"}), "could not read docx: file is corrupt"},
		{"DTD", "a.odt", zipOf(t, map[string]string{"content.xml": `<!DOCTYPE x [<!ENTITY a "b">]><x/>`}), "could not read odt: file is corrupt"},
		{"no text", "a.odt", zipOf(t, map[string]string{"content.xml": `<office:document-content xmlns:office="o"/>`}), "odt file contains no text"},
		{"no slides", "a.pptx", zipOf(t, map[string]string{"ppt/presentation.xml": "<p/>", "ppt/_rels/presentation.xml.rels": "<Relationships/>"}), "pptx file contains no text"},
		{"epub without container", "a.epub", zipOf(t, map[string]string{"mimetype": "application/epub+zip"}), "has no META-INF/container.xml"},
		{"epub without text", "a.epub", zipOf(t, map[string]string{"META-INF/container.xml": `<container><rootfiles><rootfile full-path="p.opf"/></rootfiles></container>`,
			"p.opf":   `<package><manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="a"/></spine></package>`,
			"a.xhtml": `<html><head><title>t</title><script>x()</script></head><body> </body></html>`}), "epub file contains no text"},
		{"rtf without header", "a.rtf", []byte("plain text"), "does not start with {\\rtf"},
		{"rtf too deep", "a.rtf", []byte(`{\rtf1 ` + strings.Repeat("{", 2000)), "groups nest deeper than 1000"},
		{"rtf only tables of fonts", "a.rtf", []byte(`{\rtf1{\fonttbl{\f0 Arial;}}{\*\generator x;}}`), "rtf file contains no text"},
		{"rtf past the output limit", "a.rtf", []byte(`{\rtf1 ` + strings.Repeat("word ", 300) + `}`), "parser output limit of 1000 bytes"},
		{"past the output limit", "a.docx", zipOf(t, map[string]string{"word/document.xml": bigPara}), "parser output limit of 1000 bytes"},
	} {
		_, err := ParseWith("", tc.file, tc.data, Options{MaxOutput: 1000})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestEPUBStructure: spine order, headings, list items and skipped parts
// of a hand-built EPUB.
func TestEPUBStructure(t *testing.T) {
	epub := zipOf(t, map[string]string{
		"META-INF/container.xml": `<container><rootfiles><rootfile full-path="OPS/p.opf"/></rootfiles></container>`,
		"OPS/p.opf": `<package><manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>` +
			`<item id="b" href="b.xhtml" media-type="application/xhtml+xml"/><item id="a" href="text/a.xhtml" media-type="application/xhtml+xml"/></manifest>` +
			`<spine><itemref idref="a"/><itemref idref="b"/><itemref idref="missing"/></spine></package>`,
		"OPS/nav.xhtml":    `<html><body><nav>Table of contents</nav></body></html>`,
		"OPS/text/a.xhtml": `<!DOCTYPE html><html><head><style>p{}</style></head><body><h2>First <em>chapter</em></h2><p>Some  text<br/>next line</p><ul><li>one</li><li>two</li></ul><script>alert(1)</script></body></html>`,
		"OPS/b.xhtml":      `<html><body><h1>Second</h1><p>More.</p></body></html>`,
	})
	text, err := Parse("", "book.epub", epub)
	want := "## First chapter\n\nSome text\nnext line\n\n- one\n\n- two\n\n# Second\n\nMore."
	if err != nil || text != want {
		t.Fatalf("got %q, %v\nwant %q", text, err, want)
	}
}

// TestHTML: .html and .htm sent as text/html are rendered as text; sent
// as text/plain they keep their markup as before; text/html fits no other
// extension.
func TestHTML(t *testing.T) {
	page := fixture(t, "office/sample.html")
	text, err := Parse(TypeHTML, "page.html", page)
	want := "# Beekeeping basics\n\nBees collect nectar from flowers and turn it into honey inside the hive.\n\n## Seasons\n\n" +
		"In spring the colony grows; in winter the bees cluster to stay warm. Café crème, naïve — ünïcödé.\n\n" +
		"Season | Task\nSpring | Add supers\nAutumn | Feed syrup\n\nThe end."
	if err != nil || text != want {
		t.Fatalf("got %q, %v\nwant %q", text, err, want)
	}
	if text, err := Parse(TypeHTML+"; charset=utf-8", "PAGE.HTM", []byte(`<nav>menu</nav><p>Body <b>bold</b>.</p>`)); err != nil || text != "Body bold." {
		t.Fatalf("htm: %q %v", text, err)
	}
	if text, err := Parse(TypeText, "page.html", page); err != nil || !strings.Contains(text, "<h1>Beekeeping basics</h1>") {
		t.Fatalf("text/plain keeps the markup: %q %v", text, err)
	}
	if text, err := Parse("", "page.html", page); err != nil || !strings.Contains(text, "<h1>") {
		t.Fatalf("no content type stays text/plain: %q %v", text, err)
	}
	if _, err := Parse(TypeHTML, "notes.md", page); err == nil || !strings.Contains(err.Error(), "does not match document") {
		t.Fatalf("text/html for a .md: %v", err)
	}
	if _, err := Parse(TypeHTML, "empty.html", []byte("<html><script>x</script></html>")); err == nil || !strings.Contains(err.Error(), "html file contains no text") {
		t.Fatalf("no text: %v", err)
	}
}
