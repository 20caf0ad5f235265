package parse

import (
	"errors"
	"io"
)

// Reader errors of xmlGuard.
var (
	errXMLBudget = errors.New("xlsx: XML budget exceeded")
	errXMLDTD    = errors.New("xlsx: document type declaration")
)

// Where xmlGuard is in the XML.
const (
	guardMarkup  = iota // text, tags and attributes: a '<' ends a token
	guardComment        // inside <!-- -->
	guardCDATA          // inside <![CDATA[ ]]>
	guardPI             // inside <? ?>
)

// xmlGuard reads a part within the workbook's XML budget, at most part
// bytes of it (0: no per-part bound), and bounds each token the decoder
// buffers to xlsxMaxToken bytes: a run of text or attributes without a
// '<', a comment, a CDATA section or a processing instruction (the last
// three may hold '<'). Document type declarations, which xlsx parts never
// have, are refused rather than measured.
type xmlGuard struct {
	r      io.Reader
	budget *int64
	part   int64
	mode   int
	run    int     // bytes of the current token
	last   [9]byte // the bytes read last, to find delimiters across reads
	err    error
}

func (g *xmlGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	*g.budget -= int64(n)
	if g.part > 0 {
		if g.part -= int64(n); g.part < 0 {
			g.err = errXMLBudget
		}
	}
	if *g.budget < 0 {
		g.err = errXMLBudget
	}
	for i := 0; i < n && g.err == nil; i++ {
		g.err = g.scan(p[i])
	}
	if g.err != nil {
		return 0, g.err
	}
	return n, err
}

func (g *xmlGuard) scan(c byte) error {
	copy(g.last[:], g.last[1:])
	g.last[len(g.last)-1] = c
	g.run++
	switch {
	case g.mode == guardMarkup && c == '<':
		g.run = 0
	case g.mode == guardMarkup && (c == '-' || c == '[' || c == '?' || c|0x20 == 'd'):
		switch {
		case g.ends("<!--"):
			g.mode, g.run = guardComment, 0
		case g.ends("<![CDATA["):
			g.mode, g.run = guardCDATA, 0
		case g.ends("<?"):
			g.mode, g.run = guardPI, 0
		case g.ends("<!D"), g.ends("<!d"):
			return errXMLDTD
		}
	case c != '>':
	case g.mode == guardComment && g.ends("-->"),
		g.mode == guardCDATA && g.ends("]]>"),
		g.mode == guardPI && g.ends("?>"):
		g.mode, g.run = guardMarkup, 0
	}
	if g.run > xlsxMaxToken {
		return errXMLBudget
	}
	return nil
}

// ends reports whether the bytes read last are s.
func (g *xmlGuard) ends(s string) bool {
	return string(g.last[len(g.last)-len(s):]) == s
}
