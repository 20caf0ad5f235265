package parse

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// odtTextNS is the OpenDocument text namespace.
const odtTextNS = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"

// parseODT reads content.xml of an OpenDocument text: paragraphs become
// lines, headings (text:h with their outline level) markdown headings,
// tables rows of cells joined by " | "; text:s, text:tab and
// text:line-break are kept as spaces, tabs and line breaks. Notes and
// annotations are left out.
func parseODT(data []byte, limit int) (string, error) {
	z, err := openZipDoc("odt", data, limit)
	if err != nil {
		return "", err
	}
	p := &paragraphs{z: z}
	skip := 0 // inside a note or an annotation
	err = z.walk("content.xml", func(tok xml.Token, path []string) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "note", "annotation", "tracked-changes":
				skip++
			case "h":
				if t.Name.Space == odtTextNS && skip == 0 {
					level, _ := strconv.Atoi(attrValue(t, "outline-level"))
					p.prefix = strings.Repeat("#", min(max(level, 1), 6)) + " "
				}
			case "s":
				if t.Name.Space == odtTextNS && skip == 0 {
					n, err := strconv.Atoi(attrValue(t, "c"))
					if err != nil || n < 1 {
						n = 1
					}
					return p.text(strings.Repeat(" ", min(n, 1000)))
				}
			case "tab":
				if skip == 0 {
					return p.text("\t")
				}
			case "line-break":
				if skip == 0 {
					return p.text("\n")
				}
			case "table":
				p.inTable++
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "note", "annotation", "tracked-changes":
				skip = max(skip-1, 0)
			case "p", "h":
				if t.Name.Space == odtTextNS && skip == 0 {
					return p.endParagraph()
				}
			case "table-cell":
				if p.inTable > 0 {
					return p.endCell()
				}
			case "table-row":
				if p.inTable > 0 {
					return p.endRow()
				}
			case "table":
				if p.inTable > 0 {
					return p.endTable()
				}
			}
		case xml.CharData:
			if skip == 0 && inODTParagraph(path) {
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

// inODTParagraph reports whether character data at path is paragraph text.
func inODTParagraph(path []string) bool {
	for i := len(path) - 1; i >= 0; i-- {
		switch path[i] {
		case "p", "h":
			return true
		case "body", "text":
			return false
		}
	}
	return false
}
