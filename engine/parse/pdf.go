package parse

import (
	"bytes"
	"errors"
	"strings"
	"unicode"

	"github.com/dslipak/pdf"
)

// PDF text extraction uses github.com/dslipak/pdf for the file structure
// (cross references, objects, stream filters, font encodings) and a small
// text interpreter of our own over each page's content stream, because the
// library's own text helpers ignore positioning (words run together) and
// walk the page tree without protection against cycles.
//
// The library reports many malformed files by panicking; parsePDF recovers
// from every panic and reports the file as corrupt. Known limit: a file
// crafted to make the library recurse without bound can still exhaust the
// goroutine stack, which Go cannot recover from. The server therefore runs
// this parser in a child process (package sandbox) with a small stack, a
// memory limit and a timeout; parse itself stays pure.

// Bounds on the work one PDF may cause.
const (
	pdfMaxPages    = 100_000
	pdfMaxTreeSize = 200_000    // page tree nodes visited
	pdfMaxTreeDeep = 64         // page tree and Parent chain depth
	pdfMaxOps      = 50_000_000 // content stream operators, all pages together
)

// The PDF failures, as functions so that no caller shares an *engine.Error.
func errPDFCorrupt() error { return docError("could not read PDF: file is corrupt or unsupported") }
func errPDFEncrypted() error {
	return docError("PDF is encrypted; remove the password protection and upload it again")
}
func errPDFNoText() error {
	return docError(MsgPDFNoText + " (its text may be drawn as shapes); configure HEARTH_EXTRACTOR_URL to send such PDFs to an external extractor with OCR (docs/memories-and-retrieval.md#external-extractor)")
}
func errPDFNoTextLayer() error {
	return docError(MsgPDFNoTextLayer + " (scanned?); configure HEARTH_EXTRACTOR_URL to send such PDFs to an external extractor with OCR (docs/memories-and-retrieval.md#external-extractor)")
}

// The beginnings of the messages of the two PDF failures an external
// extractor with OCR may still read (see NeedsExtractor).
const (
	MsgPDFNoText      = "PDF contains no extractable text"
	MsgPDFNoTextLayer = "PDF has no text layer"
)

// pdfMinTextPerPage is the text, in non-space characters per page on
// average, below which a PDF whose pages draw images is taken for a scan
// without a text layer: a page number or a running title is not a text
// layer.
const pdfMinTextPerPage = 16

func errPDFTooLarge() error {
	return docError("could not read PDF: it holds more drawing commands than Hearth processes in one document")
}

// pdfAbort is panicked with to stop the interpreter when a bound is hit.
type pdfAbort struct{ err error }

func parsePDF(data []byte, maxText int) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			text = ""
			if a, ok := r.(pdfAbort); ok {
				err = a.err
				return
			}
			err = errPDFCorrupt()
		}
	}()
	data, err = fixPDFFraming(data)
	if err != nil {
		return "", err
	}
	src := newPDFSource(data)
	r, err := pdf.NewReader(src, src.size)
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) || strings.Contains(strings.ToLower(err.Error()), "encrypt") ||
			bytes.Contains(data, []byte("/Encrypt")) {
			return "", errPDFEncrypted()
		}
		return "", errPDFCorrupt()
	}
	pages := pdfPages(r)
	if len(pages) == 0 {
		return "", errPDFCorrupt()
	}
	x := &pdfText{max: maxText}
	for i, p := range pages {
		if i > 0 {
			x.pageBreak()
		}
		x.page(p)
	}
	text = strings.TrimSpace(x.b.String())
	if text == "" && x.pagesWithError > 0 {
		return "", errPDFCorrupt()
	}
	if x.images > 0 && visibleChars(text) < pdfMinTextPerPage*len(pages) {
		return "", errPDFNoTextLayer()
	}
	if text == "" {
		return "", errPDFNoText()
	}
	return text, nil
}

// fixPDFFraming works around two strict checks of the library that reject
// readable files: the header must be "%PDF-1.0" to "%PDF-1.7" followed by a
// line end (PDF 2.0 files and headers followed by a space fail), and
// "%%EOF" must be in the last 100 bytes (trailing junk after it fails).
// The header is patched in a copy, keeping every byte offset.
func fixPDFFraming(data []byte) ([]byte, error) {
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		return nil, docError("document is not a PDF: it does not start with %%PDF-")
	}
	if i := bytes.LastIndex(data, []byte("%%EOF")); i >= 0 {
		data = data[:i+5]
	}
	if len(data) < pdfTail || !pdfTailOK(data[len(data)-pdfTail:]) {
		return nil, errPDFCorrupt()
	}
	v, sep := data[5:8], data[8]
	if v[0] == '1' && v[1] == '.' && v[2] >= '0' && v[2] <= '7' && (sep == '\n' || sep == '\r') {
		return data, nil
	}
	fixed := bytes.Clone(data)
	copy(fixed[5:], "1.7")
	if sep != '\n' && sep != '\r' {
		fixed[8] = '\n'
	}
	return fixed, nil
}

// pdfTailOK checks that the file ends "startxref <offset> %%EOF", which
// the library lexes without an end-of-input check.
func pdfTailOK(tail []byte) bool {
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return false
	}
	f := bytes.Fields(tail[i+len("startxref"):])
	if len(f) != 2 || string(f[1]) != "%%EOF" || len(f[0]) > 18 {
		return false
	}
	for _, c := range f[0] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// pdfPages lists the page dictionaries in document order, walking the page
// tree with bounds on size and depth so that a cyclic tree cannot loop.
func pdfPages(r *pdf.Reader) []pdf.Value {
	var pages []pdf.Value
	visited := 0
	var walk func(node pdf.Value, depth int)
	walk = func(node pdf.Value, depth int) {
		visited++
		if depth > pdfMaxTreeDeep || visited > pdfMaxTreeSize || len(pages) >= pdfMaxPages {
			panic(pdfAbort{errPDFCorrupt()})
		}
		kids := node.Key("Kids")
		if node.Key("Type").Name() == "Page" || kids.Kind() != pdf.Array {
			if node.Kind() == pdf.Dict {
				pages = append(pages, node)
			}
			return
		}
		for i := 0; i < kids.Len(); i++ {
			walk(kids.Index(i), depth+1)
		}
	}
	walk(r.Trailer().Key("Root").Key("Pages"), 0)
	return pages
}

// inherited looks key up on the page and then up its Parent chain.
func inherited(page pdf.Value, key string) pdf.Value {
	for v, i := page, 0; v.Kind() == pdf.Dict && i < pdfMaxTreeDeep; v, i = v.Key("Parent"), i+1 {
		if x := v.Key(key); !x.IsNull() {
			return x
		}
	}
	return pdf.Value{}
}

// pdfFont is what the interpreter needs from a font resource.
type pdfFont struct {
	enc    pdf.TextEncoding
	first  int
	widths []float64 // glyph widths in 1/1000 em for codes first..; nil when unknown
	simple bool      // one byte per character code
}

func loadFont(v pdf.Value) *pdfFont {
	f := pdf.Font{V: v}
	pf := &pdfFont{simple: v.Key("Subtype").Name() != "Type0"}
	if tu := v.Key("ToUnicode"); tu.IsNull() || pdfStreamSafe(tu) {
		pf.enc = f.Encoder()
	}
	if pf.simple {
		pf.first = f.FirstChar()
		if w := v.Key("Widths"); w.Kind() == pdf.Array && w.Len() > 0 && w.Len() <= 65536 {
			pf.widths = f.Widths()
		}
	}
	return pf
}

// advance returns the width of a shown string in text space units divided
// by the font size, before character and word spacing.
func (f *pdfFont) advance(raw, decoded string) float64 {
	if f.simple && f.widths != nil {
		w := 0.0
		for i := 0; i < len(raw); i++ {
			if c := int(raw[i]) - f.first; c >= 0 && c < len(f.widths) {
				w += f.widths[c]
			}
		}
		return w / 1000
	}
	// Unknown widths: half an em per character is a fair average.
	return 0.5 * float64(len([]rune(decoded)))
}

func (x *pdfText) checkSize() {
	if x.b.Len() > x.max {
		panic(pdfAbort{ErrOutputTooLarge(x.max)})
	}
}

// visibleChars counts the characters of text that are not white space.
func visibleChars(text string) int {
	n := 0
	for _, r := range text {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}
