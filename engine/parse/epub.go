package parse

import (
	"io"
	"path"
	"strings"

	"golang.org/x/net/html"
)

// parseHTML renders an HTML page (sent as text/html) as text, like an
// EPUB section: the <body>, without scripts, styles and navigation. Its
// text is at most linear in its size; the server parses it in the parser
// child process, under its time and memory limits.
func parseHTML(data []byte, limit int) (string, error) {
	z := &zipDoc{kind: "html", out: &capped{max: limit}}
	doc, err := html.Parse(strings.NewReader(strings.ToValidUTF8(string(data), "\ufffd")))
	if err != nil {
		return "", z.corrupt()
	}
	w := &htmlText{p: &paragraphs{z: z}}
	if err := w.node(doc, 0); err != nil {
		return "", err
	}
	if err := w.p.endParagraph(); err != nil {
		return "", err
	}
	return z.result()
}

// epubMaxSection bounds the XHTML read from one spine document.
const epubMaxSection = 16 << 20

// parseEPUB reads the spine documents of an EPUB in reading order
// (META-INF/container.xml names the package document, whose spine lists
// them) and renders each as text: headings as markdown headings,
// paragraphs and list items as lines, table rows as cells joined by " | ".
// Scripts, styles and the navigation document are left out.
func parseEPUB(data []byte, limit int) (string, error) {
	z, err := openZipDoc("epub", data, limit)
	if err != nil {
		return "", err
	}
	var container struct {
		Rootfiles []struct {
			Path string `xml:"full-path,attr"`
		} `xml:"rootfiles>rootfile"`
	}
	if err := z.decode("META-INF/container.xml", &container); err != nil {
		return "", err
	}
	if len(container.Rootfiles) == 0 {
		return "", z.missing("package document")
	}
	opfPath := strings.TrimPrefix(container.Rootfiles[0].Path, "/")
	var opf struct {
		Items []struct {
			ID         string `xml:"id,attr"`
			Href       string `xml:"href,attr"`
			MediaType  string `xml:"media-type,attr"`
			Properties string `xml:"properties,attr"`
		} `xml:"manifest>item"`
		Spine []struct {
			IDRef string `xml:"idref,attr"`
		} `xml:"spine>itemref"`
	}
	if err := z.decode(opfPath, &opf); err != nil {
		return "", err
	}
	hrefs := map[string]string{}
	for _, it := range opf.Items {
		if strings.Contains(it.MediaType, "html") && !strings.Contains(" "+it.Properties+" ", " nav ") {
			hrefs[it.ID] = path.Join(path.Dir(opfPath), it.Href)
		}
	}
	for _, ref := range opf.Spine {
		part := hrefs[ref.IDRef]
		f := z.parts[part]
		if f == nil {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return "", z.corrupt()
		}
		n := min(z.budget, epubMaxSection)
		src, err := io.ReadAll(io.LimitReader(rc, n+1))
		rc.Close()
		if err != nil {
			return "", z.corrupt()
		}
		if int64(len(src)) > n {
			return "", z.tooLarge()
		}
		z.budget -= int64(len(src))
		doc, err := html.Parse(strings.NewReader(strings.ToValidUTF8(string(src), "\ufffd")))
		if err != nil {
			return "", z.corrupt()
		}
		w := &htmlText{p: &paragraphs{z: z}}
		if err := w.node(doc, 0); err != nil {
			return "", err
		}
		if err := w.p.endParagraph(); err != nil {
			return "", err
		}
	}
	return z.result()
}

// htmlText renders an HTML tree as paragraphs.
type htmlText struct{ p *paragraphs }

func (w *htmlText) node(n *html.Node, depth int) error {
	if depth > xlsxMaxDepth*4 {
		return w.p.z.corrupt()
	}
	switch n.Type {
	case html.TextNode:
		s := strings.Join(strings.Fields(n.Data), " ")
		if s == "" {
			if n.Data != "" && w.p.para.Len() > 0 {
				return w.p.text(" ")
			}
			return nil
		}
		if startsSpaceText(n.Data) && w.p.para.Len() > 0 {
			s = " " + s
		}
		if endsSpaceText(n.Data) {
			s += " "
		}
		return w.p.text(s)
	case html.ElementNode:
		switch n.Data {
		case "script", "style", "head", "template", "noscript", "nav":
			return nil
		case "br":
			return w.p.text("\n")
		case "h1", "h2", "h3", "h4", "h5", "h6":
			if err := w.p.endParagraph(); err != nil {
				return err
			}
			w.p.prefix = strings.Repeat("#", int(n.Data[1]-'0')) + " "
		case "li":
			if err := w.p.endParagraph(); err != nil {
				return err
			}
			w.p.prefix = "- "
		case "table":
			w.p.inTable++
		case "p", "div", "section", "article", "blockquote", "pre", "ul", "ol", "dl", "dt", "dd", "figure", "figcaption", "header", "footer", "aside", "hr":
			if err := w.p.endParagraph(); err != nil {
				return err
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if err := w.node(c, depth+1); err != nil {
			return err
		}
	}
	if n.Type != html.ElementNode {
		return nil
	}
	switch n.Data {
	case "td", "th":
		if w.p.inTable > 0 {
			if err := w.p.endParagraph(); err != nil {
				return err
			}
			return w.p.endCell()
		}
	case "tr":
		if w.p.inTable > 0 {
			return w.p.endRow()
		}
	case "table":
		if w.p.inTable > 0 {
			return w.p.endTable()
		}
	case "p", "div", "section", "article", "blockquote", "pre", "li", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "figcaption":
		return w.p.endParagraph()
	}
	return nil
}

func startsSpaceText(s string) bool { return s != "" && strings.ContainsRune(" \t\r\n\f", rune(s[0])) }
func endsSpaceText(s string) bool {
	return s != "" && strings.ContainsRune(" \t\r\n\f", rune(s[len(s)-1]))
}
