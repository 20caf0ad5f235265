package parse

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"path"
	"strings"
)

// Word (docx), PowerPoint (pptx), OpenDocument text (odt) and EPUB files
// are zip archives of XML parts. They are read like xlsx (see xlsx.go):
// parts are streamed as tokens through xmlGuard, never decoded whole, the
// XML inflated from one document is bounded by xlsxMaxXML, a token by
// xlsxMaxToken, the depth by xlsxMaxDepth, and the text stops at the
// output limit. The server parses them in the parser child process.

// zipDoc is one office document being read.
type zipDoc struct {
	kind   string // "docx", for error messages
	parts  map[string]*zip.File
	budget int64
	out    *capped
}

func openZipDoc(kind string, data []byte, max int) (*zipDoc, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, docError("could not read %s: file is not a valid %s (zip) archive", kind, kind)
	}
	if len(zr.File) > xlsxMaxParts {
		return nil, docError("could not read %s: the archive has more than %d parts", kind, xlsxMaxParts)
	}
	z := &zipDoc{kind: kind, parts: map[string]*zip.File{}, budget: xlsxMaxXML, out: &capped{max: max}}
	for _, f := range zr.File {
		z.parts[strings.TrimPrefix(f.Name, "/")] = f
	}
	return z, nil
}

func (z *zipDoc) corrupt() error { return docError("could not read %s: file is corrupt", z.kind) }

func (z *zipDoc) tooLarge() error {
	return docError("could not read %s: the file inflates to more XML than Hearth reads from one document (%d MiB in all, %d KiB in one run of text)",
		z.kind, xlsxMaxXML>>20, xlsxMaxToken>>10)
}

func (z *zipDoc) missing(name string) error {
	return docError("could not read %s: the file has no %s, so it is not a valid %s file", z.kind, name, z.kind)
}

// write appends text, failing past the output limit.
func (z *zipDoc) write(s string) error {
	z.out.WriteString(s)
	if z.out.over() {
		return ErrOutputTooLarge(z.out.max)
	}
	return nil
}

// result is the text read, or an error when there is none.
func (z *zipDoc) result() (string, error) {
	text := tidyLines(z.out.String())
	if strings.TrimSpace(text) == "" {
		return "", docError("%s file contains no text", z.kind)
	}
	return text, nil
}

// decode decodes a small part whole (a manifest, a relationship list).
func (z *zipDoc) decode(name string, v any) error {
	f := z.parts[name]
	if f == nil {
		return z.missing(name)
	}
	rc, err := f.Open()
	if err != nil {
		return z.corrupt()
	}
	defer rc.Close()
	g := &xmlGuard{r: rc, budget: &z.budget, part: xlsxMaxIndexPart}
	if err := xml.NewDecoder(g).Decode(v); err != nil {
		if errors.Is(g.err, errXMLBudget) {
			return z.tooLarge()
		}
		return z.corrupt()
	}
	return nil
}

// walk streams a part's start elements, end elements and character data
// to fn with the path of element local names from the root.
func (z *zipDoc) walk(name string, fn func(tok xml.Token, path []string) error) error {
	f := z.parts[name]
	if f == nil {
		return z.missing(name)
	}
	rc, err := f.Open()
	if err != nil {
		return z.corrupt()
	}
	defer rc.Close()
	g := &xmlGuard{r: rc, budget: &z.budget}
	dec := xml.NewDecoder(g)
	var stack []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if len(stack) > 0 {
				return z.corrupt()
			}
			return nil
		}
		if err != nil {
			if errors.Is(g.err, errXMLBudget) {
				return z.tooLarge()
			}
			return z.corrupt()
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) >= xlsxMaxDepth {
				return z.corrupt()
			}
			stack = append(stack, t.Name.Local)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
		default:
			continue
		}
		if err := fn(tok, stack); err != nil {
			return err
		}
	}
}

// relTargets reads a relationship part: id -> part name, resolved
// against dir (the folder of the part the relationships belong to).
func (z *zipDoc) relTargets(relsPart, dir string) (map[string]string, error) {
	var rels struct {
		Rels []struct {
			ID     string `xml:"Id,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	if err := z.decode(relsPart, &rels); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range rels.Rels {
		if strings.HasPrefix(r.Target, "/") {
			out[r.ID] = strings.TrimPrefix(r.Target, "/")
		} else {
			out[r.ID] = path.Join(dir, r.Target)
		}
	}
	return out, nil
}

// attr returns the value of the attribute with this local name.
func attrValue(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// tidyLines trims trailing spaces of every line and squeezes runs of
// blank lines into one.
func tidyLines(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := true
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			if blank {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// paragraphs collects the text of one paragraph at a time and renders
// tables as rows of cells joined by " | ".
type paragraphs struct {
	z       *zipDoc
	para    strings.Builder
	prefix  string   // "# " for a heading
	cells   []string // the cells of the current table row
	cell    strings.Builder
	inTable int
}

// text adds inline text to the paragraph; a paragraph or table that would
// pass the output limit fails as soon as it does.
func (p *paragraphs) text(s string) error {
	p.para.WriteString(s)
	if p.para.Len()+p.cell.Len()+p.z.out.Len() > p.z.out.max {
		return ErrOutputTooLarge(p.z.out.max)
	}
	return nil
}

// endParagraph ends a paragraph: into the current cell inside a table,
// else as a line of its own.
func (p *paragraphs) endParagraph() error {
	text := strings.TrimSpace(p.para.String())
	p.para.Reset()
	prefix := p.prefix
	p.prefix = ""
	if p.inTable > 0 {
		if text != "" {
			if p.cell.Len() > 0 {
				p.cell.WriteByte(' ')
			}
			p.cell.WriteString(text)
		}
		if p.cell.Len()+p.z.out.Len() > p.z.out.max {
			return ErrOutputTooLarge(p.z.out.max)
		}
		return nil
	}
	if text == "" {
		return p.z.write("\n")
	}
	return p.z.write(prefix + text + "\n\n")
}

func (p *paragraphs) endCell() error {
	p.cells = append(p.cells, p.cell.String())
	p.cell.Reset()
	if len(p.cells) > xlsxMaxCols {
		return p.z.tooLarge()
	}
	return nil
}

func (p *paragraphs) endRow() error {
	row := strings.Join(p.cells, " | ")
	p.cells = p.cells[:0]
	if strings.Trim(row, " |") == "" {
		return nil
	}
	return p.z.write(row + "\n")
}

func (p *paragraphs) endTable() error {
	p.inTable--
	return p.z.write("\n")
}
