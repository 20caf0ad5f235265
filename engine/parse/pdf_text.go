package parse

import (
	"math"
	"strings"
	"unicode"

	"github.com/dslipak/pdf"
)

// matrix is a PDF transformation matrix [a b c d e f].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m×n in the PDF's row-vector convention (apply m, then n).
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func translate(tx, ty float64) matrix { return matrix{1, 0, 0, 1, tx, ty} }

// pdfState is the part of the graphics and text state that positions text.
type pdfState struct {
	ctm      matrix
	tm, tlm  matrix
	font     *pdfFont
	size     float64 // Tf size
	tc, tw   float64 // character and word spacing
	th       float64 // horizontal scaling, 1 = 100%
	leading  float64
	fontName string
}

// pdfText accumulates the text of a document, page after page, deciding
// where spaces, line breaks and paragraph breaks go from the positions of
// the text runs in the order the content stream shows them.
type pdfText struct {
	b   strings.Builder
	max int // bytes of text
	ops int

	has            bool // a run was written on this page
	lastX, lastY   float64
	lastSize       float64
	lastRuneIsWS   bool
	pagesWithError int
	// images counts the pages that draw an image (an image XObject, also
	// inside a form, or an inline image); pageImage marks this page.
	images    int
	pageImage bool
}

func (x *pdfText) pageBreak() {
	if x.b.Len() > 0 {
		x.b.WriteString("\n\n")
		x.lastRuneIsWS = true
	}
	x.has = false
}

// sawImage notes an image drawn on the current page.
func (x *pdfText) sawImage() {
	if !x.pageImage {
		x.pageImage = true
		x.images++
	}
}

// page interprets one page. A page the library cannot read adds no text but
// does not stop the other pages; bound violations stop everything.
func (x *pdfText) page(page pdf.Value) {
	defer func() {
		if r := recover(); r != nil {
			if a, ok := r.(pdfAbort); ok {
				panic(a)
			}
			x.pagesWithError++
		}
	}()
	st := &pdfState{ctm: identity, tm: identity, tlm: identity, th: 1}
	x.pageImage = false
	x.content(page.Key("Contents"), inherited(page, "Resources"), st, 0)
}

// content interprets a content stream (or an array of them) with the given
// resources. depth counts nested form XObjects.
func (x *pdfText) content(strm, res pdf.Value, st *pdfState, depth int) {
	if strm.Kind() == pdf.Array {
		for i := 0; i < strm.Len() && i < 10_000; i++ {
			x.content(strm.Index(i), res, st, depth)
		}
		return
	}
	if strm.IsNull() {
		return // a page without content
	}
	if !pdfStreamSafe(strm) {
		x.pagesWithError++
		return
	}
	fonts := map[string]*pdfFont{}
	var stack []matrix
	pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
		if x.ops++; x.ops > pdfMaxOps {
			panic(pdfAbort{errPDFTooLarge()})
		}
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		num := func(i int) float64 { return args[i].Float64() }
		switch op {
		case "q":
			if len(stack) < 256 {
				stack = append(stack, st.ctm)
			}
		case "Q":
			if n := len(stack); n > 0 {
				st.ctm, stack = stack[n-1], stack[:n-1]
			}
		case "cm":
			if len(args) == 6 {
				st.ctm = matrix{num(0), num(1), num(2), num(3), num(4), num(5)}.mul(st.ctm)
			}
		case "BT":
			st.tm, st.tlm = identity, identity
		case "Tf":
			if len(args) == 2 {
				name := args[0].Name()
				f, ok := fonts[name]
				if !ok {
					f = loadFont(res.Key("Font").Key(name))
					fonts[name] = f
				}
				st.font, st.fontName, st.size = f, name, num(1)
			}
		case "Tc":
			if len(args) == 1 {
				st.tc = num(0)
			}
		case "Tw":
			if len(args) == 1 {
				st.tw = num(0)
			}
		case "Tz":
			if len(args) == 1 {
				st.th = num(0) / 100
			}
		case "TL":
			if len(args) == 1 {
				st.leading = num(0)
			}
		case "Td", "TD":
			if len(args) == 2 {
				if op == "TD" {
					st.leading = -num(1)
				}
				st.tlm = translate(num(0), num(1)).mul(st.tlm)
				st.tm = st.tlm
			}
		case "Tm":
			if len(args) == 6 {
				st.tm = matrix{num(0), num(1), num(2), num(3), num(4), num(5)}
				st.tlm = st.tm
			}
		case "T*":
			x.nextLine(st)
		case "Tj":
			if len(args) == 1 {
				x.show(st, args[0].RawString())
			}
		case "'":
			if len(args) == 1 {
				x.nextLine(st)
				x.show(st, args[0].RawString())
			}
		case "\"":
			if len(args) == 3 {
				st.tw, st.tc = num(0), num(1)
				x.nextLine(st)
				x.show(st, args[2].RawString())
			}
		case "TJ":
			if len(args) == 1 {
				a := args[0]
				for i := 0; i < a.Len(); i++ {
					v := a.Index(i)
					if v.Kind() == pdf.String {
						x.show(st, v.RawString())
					} else {
						st.tm = translate(-v.Float64()/1000*st.size*st.th, 0).mul(st.tm)
					}
				}
			}
		case "Do":
			if len(args) == 1 && depth < 8 {
				xo := res.Key("XObject").Key(args[0].Name())
				switch xo.Key("Subtype").Name() {
				case "Form":
					x.form(xo, res, st, depth)
				case "Image":
					x.sawImage()
				}
			}
		case "BI":
			x.sawImage()
		}
	})
}

// form interprets a form XObject in a copy of the current state.
func (x *pdfText) form(xo, res pdf.Value, st *pdfState, depth int) {
	inner := *st
	if m := xo.Key("Matrix"); m.Len() == 6 {
		inner.ctm = matrix{m.Index(0).Float64(), m.Index(1).Float64(), m.Index(2).Float64(),
			m.Index(3).Float64(), m.Index(4).Float64(), m.Index(5).Float64()}.mul(st.ctm)
	}
	if r := xo.Key("Resources"); r.Kind() == pdf.Dict {
		res = r
	}
	x.content(xo, res, &inner, depth+1)
}

func (x *pdfText) nextLine(st *pdfState) {
	st.tlm = translate(0, -st.leading).mul(st.tlm)
	st.tm = st.tlm
}

// show writes one text string at the current position and moves the
// position past it.
func (x *pdfText) show(st *pdfState, raw string) {
	if raw == "" {
		return
	}
	font := st.font
	var text string
	if font != nil && font.enc != nil {
		text = strings.ToValidUTF8(font.enc.Decode(raw), "")
	} else {
		text = latin1(raw) // no usable encoding: bytes as Latin-1
	}
	m := st.tm.mul(st.ctm)
	x0, y0 := m[4], m[5]
	size := math.Abs(st.size) * math.Hypot(m[2], m[3])
	if size < 0.1 || math.IsNaN(size) || math.IsInf(size, 0) {
		size = 1
	}
	adv := 0.5 * float64(len([]rune(text)))
	spaces := 0
	if font != nil {
		adv = font.advance(raw, text)
		if font.simple {
			spaces = strings.Count(raw, " ")
		}
	}
	n := float64(len(raw))
	if font != nil && !font.simple {
		n = float64(len(raw) / 2)
	}
	tx := (adv*st.size + st.tc*n + st.tw*float64(spaces)) * st.th
	st.tm = translate(tx, 0).mul(st.tm)
	end := st.tm.mul(st.ctm)
	x.write(text, x0, y0, end[4], end[5], size)
}

// write appends a run that starts at (x0, y0) and ends at (x1, y1) in
// device space, first adding the separator its position calls for.
func (x *pdfText) write(text string, x0, y0, x1, y1, size float64) {
	text = cleanPDFText(text)
	if text == "" {
		return
	}
	if x.has {
		ref := math.Max(size, x.lastSize)
		dy := y0 - x.lastY
		startsWS := unicode.IsSpace([]rune(text)[0])
		switch {
		case math.Abs(dy) > 0.5*ref:
			if -dy > 1.8*ref {
				x.b.WriteString("\n\n")
			} else {
				x.b.WriteString("\n")
			}
		case !x.lastRuneIsWS && !startsWS:
			if gap := x0 - x.lastX; gap > 0.15*size || gap < -2*ref {
				x.b.WriteByte(' ')
			}
		}
	}
	x.b.WriteString(text)
	x.checkSize()
	x.has = true
	x.lastX, x.lastY, x.lastSize = x1, y1, size
	r := []rune(text)
	x.lastRuneIsWS = unicode.IsSpace(r[len(r)-1])
}

// cleanPDFText drops control characters and U+FFFD that broken font
// encodings produce, and turns tabs into spaces.
func cleanPDFText(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == unicode.ReplacementChar {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f || r == unicode.ReplacementChar:
			return -1
		}
		return r
	}, s)
}

// latin1 decodes bytes as ISO 8859-1, which maps each byte to one rune.
func latin1(raw string) string {
	r := make([]rune, len(raw))
	for i := 0; i < len(raw); i++ {
		r[i] = rune(raw[i])
	}
	return string(r)
}
