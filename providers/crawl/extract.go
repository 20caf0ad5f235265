package crawl

import (
	"io"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// page is what extraction keeps of an HTML document.
type page struct {
	markdown string
	title    string   // the <title>, whitespace collapsed
	links    []string // absolute http(s) URLs, fragments removed, in document order
	noindex  bool     // <meta name="robots" content="noindex">
	nofollow bool     // <meta name="robots" content="nofollow">
}

// skipped are elements whose content is never page text: code, styling,
// embedded objects, navigation and page furniture, form controls.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Math: true, atom.Canvas: true, atom.Iframe: true, atom.Object: true, atom.Embed: true,
	atom.Nav: true, atom.Footer: true, atom.Button: true, atom.Select: true, atom.Textarea: true,
	atom.Input: true, atom.Head: true, atom.Dialog: true,
}

// blockLevel are the elements rendered as blocks of their own.
var blockLevel = map[atom.Atom]bool{
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true, atom.Header: true,
	atom.Aside: true, atom.Figure: true, atom.Figcaption: true, atom.Details: true, atom.Summary: true,
	atom.Address: true, atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Form: true, atom.Fieldset: true,
	atom.Br: true, atom.Hr: true, atom.Ul: true, atom.Ol: true, atom.Li: true, atom.Blockquote: true,
	atom.Pre: true, atom.Table: true, atom.Tr: true, atom.Td: true, atom.Th: true,
}

// extractHTML parses an HTML document and returns its readable content as
// markdown (headings, paragraphs, lists, quotes, code, tables, links with
// their text) and its links resolved against base. The main content is
// taken from <main>, else the only <article>, else <body>.
func extractHTML(r io.Reader, base *url.URL) (*page, error) {
	doc, err := html.Parse(r)
	if err != nil {
		return nil, err
	}
	p := &page{}
	var mains, articles []*html.Node
	var body *html.Node
	seen := map[string]bool{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Base:
				if h := attr(n, "href"); h != "" {
					if u, err := base.Parse(h); err == nil {
						base = u
					}
				}
			case atom.Meta:
				if strings.EqualFold(attr(n, "name"), "robots") {
					c := strings.ToLower(attr(n, "content"))
					p.noindex = p.noindex || strings.Contains(c, "noindex") || strings.Contains(c, "none")
					p.nofollow = p.nofollow || strings.Contains(c, "nofollow") || strings.Contains(c, "none")
				}
			case atom.Title:
				if p.title == "" && n.FirstChild != nil {
					p.title = strings.Join(strings.Fields(n.FirstChild.Data), " ")
				}
			case atom.Main:
				mains = append(mains, n)
			case atom.Article:
				articles = append(articles, n)
			case atom.Body:
				body = n
			case atom.A:
				if u := resolveLink(base, attr(n, "href")); u != "" && !seen[u] && !strings.Contains(attr(n, "rel"), "nofollow") {
					seen[u] = true
					p.links = append(p.links, u)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	root := body
	switch {
	case len(mains) > 0:
		root = mains[0]
	case len(articles) == 1:
		root = articles[0]
	}
	if root == nil {
		root = doc
	}
	w := &mdWriter{base: base}
	w.block(root)
	p.markdown = w.String()
	return p, nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return strings.TrimSpace(a.Val)
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// resolveLink returns href as an absolute http(s) URL without fragment, or "".
func resolveLink(base *url.URL, href string) string {
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	u, err := base.Parse(href)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return ""
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// mdWriter renders a node tree as markdown. Blocks are separated by blank
// lines; inline text has its whitespace collapsed.
type mdWriter struct {
	base   *url.URL
	out    strings.Builder
	line   strings.Builder // the inline text of the block being written
	prefix string          // list marker and indentation of the current block
	quote  string          // "> " per enclosing blockquote
	lists  []listState
	// inlineOnly renders block elements as inline text (inside headings,
	// links and table cells).
	inlineOnly bool
}

type listState struct {
	ordered bool
	n       int
}

func (w *mdWriter) String() string {
	w.flush()
	return strings.TrimSpace(w.out.String())
}

// flush ends the current block.
func (w *mdWriter) flush() {
	text := strings.TrimSpace(w.line.String())
	w.line.Reset()
	if text == "" {
		return
	}
	if w.out.Len() > 0 {
		w.out.WriteString("\n\n")
	}
	p := w.prefix
	if p == "" {
		p = w.quote
	}
	w.out.WriteString(p)
	w.out.WriteString(text)
	if w.prefix != "" {
		// Later blocks of the same list item are indented, not marked again.
		w.prefix = w.quote + strings.Repeat(" ", len(w.prefix)-len(w.quote))
	}
}

// text appends inline text, collapsing whitespace.
func (w *mdWriter) text(s string) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		if s != "" && w.line.Len() > 0 {
			w.space()
		}
		return
	}
	if startsSpace(s) {
		w.space()
	}
	w.line.WriteString(strings.Join(fields, " "))
	if endsSpace(s) {
		w.line.WriteByte(' ')
	}
}

func (w *mdWriter) space() {
	if s := w.line.String(); s != "" && !strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\n") {
		w.line.WriteByte(' ')
	}
}

func startsSpace(s string) bool { return s != "" && strings.ContainsRune(" \t\r\n\f", rune(s[0])) }
func endsSpace(s string) bool {
	return s != "" && strings.ContainsRune(" \t\r\n\f", rune(s[len(s)-1]))
}

func (w *mdWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.block(c)
	}
}

// block renders n, which may be a block or an inline node.
func (w *mdWriter) block(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.DocumentNode:
		w.children(n)
		return
	case html.ElementNode:
	default:
		return
	}
	if skipped[n.DataAtom] || hasAttr(n, "hidden") || strings.EqualFold(attr(n, "aria-hidden"), "true") {
		return
	}
	if w.inlineOnly {
		if blockLevel[n.DataAtom] {
			w.space()
			w.children(n)
			w.space()
		} else {
			w.inlineElement(n)
		}
		return
	}
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		w.flush()
		level := int(n.Data[1] - '0')
		w.line.WriteString(strings.Repeat("#", level) + " ")
		w.inline(n)
		if strings.TrimSpace(w.line.String()) == strings.Repeat("#", level) {
			w.line.Reset()
		}
		w.flush()
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.Header, atom.Aside,
		atom.Figure, atom.Figcaption, atom.Details, atom.Summary, atom.Address, atom.Dl, atom.Dt, atom.Dd, atom.Form, atom.Fieldset:
		w.flush()
		w.children(n)
		w.flush()
	case atom.Br:
		w.line.WriteString("  \n")
	case atom.Hr:
		w.flush()
		w.line.WriteString("---")
		w.flush()
	case atom.Ul, atom.Ol:
		w.flush()
		w.lists = append(w.lists, listState{ordered: n.DataAtom == atom.Ol})
		w.children(n)
		w.flush()
		w.lists = w.lists[:len(w.lists)-1]
	case atom.Li:
		w.flush()
		marker := "- "
		depth := len(w.lists)
		if depth > 0 {
			l := &w.lists[depth-1]
			l.n++
			if l.ordered {
				marker = strconv.Itoa(l.n) + ". "
			}
		}
		saved := w.prefix
		w.prefix = w.quote + strings.Repeat("  ", max(depth-1, 0)) + marker
		w.children(n)
		w.flush()
		w.prefix = saved
	case atom.Blockquote:
		w.flush()
		saved := w.quote
		w.quote = saved + "> "
		w.children(n)
		w.flush()
		w.quote = saved
	case atom.Pre:
		w.flush()
		code := strings.Trim(rawText(n), "\n")
		if strings.TrimSpace(code) != "" {
			if w.out.Len() > 0 {
				w.out.WriteString("\n\n")
			}
			w.out.WriteString("```\n" + code + "\n```")
		}
	case atom.Table:
		w.flush()
		w.table(n)
	case atom.Img:
		// images carry no text; their alt text is usually decoration
	default:
		w.inlineElement(n)
	}
}

// inline renders the children of n as inline text.
func (w *mdWriter) inline(n *html.Node) {
	saved := w.inlineOnly
	w.inlineOnly = true
	defer func() { w.inlineOnly = saved }()
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			w.text(c.Data)
		case html.ElementNode:
			if !skipped[c.DataAtom] {
				w.inlineElement(c)
			}
		}
	}
}

func (w *mdWriter) inlineElement(n *html.Node) {
	switch n.DataAtom {
	case atom.A:
		w.decorated(n, func(label string) string {
			if href := resolveLink(w.base, attr(n, "href")); href != "" {
				return "[" + label + "](" + href + ")"
			}
			return label
		})
	case atom.Code, atom.Kbd, atom.Samp:
		if t := strings.Join(strings.Fields(rawText(n)), " "); t != "" {
			w.line.WriteString("`" + t + "`")
		}
	case atom.Strong, atom.B:
		w.decorated(n, func(t string) string { return "**" + t + "**" })
	case atom.Em, atom.I:
		w.decorated(n, func(t string) string { return "_" + t + "_" })
	default:
		w.children(n)
	}
}

// decorated renders n's inline content, passes the trimmed text through
// deco, and keeps the spaces around it.
func (w *mdWriter) decorated(n *html.Node, deco func(string) string) {
	inner := mdWriter{base: w.base}
	inner.inline(n)
	raw := inner.line.String()
	t := strings.TrimSpace(raw)
	if t == "" {
		w.text(raw)
		return
	}
	if startsSpace(raw) {
		w.space()
	}
	w.line.WriteString(deco(t))
	if endsSpace(raw) {
		w.line.WriteByte(' ')
	}
}

// table renders rows as "| a | b |" lines, a separator after the first row.
func (w *mdWriter) table(t *html.Node) {
	var rows [][]string
	var collect func(n *html.Node)
	collect = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Tr {
				var cells []string
				for td := c.FirstChild; td != nil; td = td.NextSibling {
					if td.Type == html.ElementNode && (td.DataAtom == atom.Td || td.DataAtom == atom.Th) {
						cw := mdWriter{base: w.base}
						cw.inline(td)
						cells = append(cells, strings.ReplaceAll(strings.TrimSpace(cw.line.String()), "|", `\|`))
					}
				}
				if len(cells) > 0 {
					rows = append(rows, cells)
				}
				continue
			}
			if c.DataAtom != atom.Table {
				collect(c)
			}
		}
	}
	collect(t)
	if len(rows) == 0 {
		return
	}
	var b strings.Builder
	for i, r := range rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("| " + strings.Join(r, " | ") + " |")
		if i == 0 {
			b.WriteString("\n|" + strings.Repeat(" --- |", len(r)))
		}
	}
	if w.out.Len() > 0 {
		w.out.WriteString("\n\n")
	}
	w.out.WriteString(w.quote + b.String())
}

// rawText is the text of n with whitespace kept (for <pre> and <code>).
func rawText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Br {
			b.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
