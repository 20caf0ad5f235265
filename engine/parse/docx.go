package parse

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// parseDOCX reads word/document.xml: paragraphs become lines, headings
// (styles Title and Heading1-9) markdown headings, tables rows of cells
// joined by " | "; tabs and line breaks are kept. Headers, footers,
// comments and footnotes are left out.
func parseDOCX(data []byte, max int) (string, error) {
	z, err := openZipDoc("docx", data, max)
	if err != nil {
		return "", err
	}
	p := &paragraphs{z: z}
	err = z.walk("word/document.xml", func(tok xml.Token, path []string) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "pStyle":
				p.prefix = docxHeading(attrValue(t, "val"))
			case "tab":
				if under(path, "r", "tab") {
					return p.text("\t")
				}
			case "br", "cr":
				return p.text("\n")
			case "tbl":
				p.inTable++
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "p":
				return p.endParagraph()
			case "tc":
				if p.inTable > 0 {
					return p.endCell()
				}
			case "tr":
				if p.inTable > 0 {
					return p.endRow()
				}
			case "tbl":
				if p.inTable > 0 {
					return p.endTable()
				}
			}
		case xml.CharData:
			if under(path, "r", "t") {
				return p.text(string(t))
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return z.result()
}

// docxHeading maps a paragraph style to a markdown heading prefix.
func docxHeading(style string) string {
	s := strings.ToLower(style)
	if s == "title" {
		return "# "
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(s, "heading")); err == nil && strings.HasPrefix(s, "heading") && n >= 1 && n <= 6 {
		return strings.Repeat("#", n) + " "
	}
	return ""
}

// under reports whether the innermost elements of path are names.
func under(path []string, names ...string) bool {
	if len(path) < len(names) {
		return false
	}
	tail := path[len(path)-len(names):]
	for i, n := range names {
		if tail[i] != n {
			return false
		}
	}
	return true
}
