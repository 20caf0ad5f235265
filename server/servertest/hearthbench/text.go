package main

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"math/rand/v2"
	"strings"
)

// vocab draws words from a 5000-word vocabulary, English stop words then
// pronounceable made-up words, with Zipf frequencies (s = 1.1), like the
// words of real prose.
type vocab struct {
	r     *rand.Rand
	zipf  *rand.Zipf
	words []string
}

func newVocab(seed uint64) *vocab {
	syll := []string{"ka", "lo", "mi", "ren", "sta", "vor", "tel", "an", "qui", "dor", "sel", "ma", "pen", "ri", "ust", "ol",
		"bre", "nix", "ta", "gon", "fe", "lin", "cor", "ed", "ha", "ium", "ver", "so", "tri", "ak"}
	wr := rand.New(rand.NewPCG(42, 42)) // the same vocabulary for every seed
	words := make([]string, 5000)
	seen := map[string]bool{}
	for i := range words {
		for {
			var b strings.Builder
			for n := 1 + wr.IntN(3); n > 0; n-- {
				b.WriteString(syll[wr.IntN(len(syll))])
			}
			if w := b.String(); !seen[w] {
				seen[w], words[i] = true, w
				break
			}
		}
	}
	// The most frequent words of English prose are stop words, which the
	// keyword index drops; so are the first words here.
	copy(words, strings.Fields("the of and to a in is that for it as was with be by on not he this are or his from at which but have an they you were"))
	r := rand.New(rand.NewPCG(seed, 7))
	return &vocab{r: r, zipf: rand.NewZipf(r, 1.1, 1, uint64(len(words)-1)), words: words}
}

func (v *vocab) word() string { return v.words[v.zipf.Uint64()] }

// phrase is n words separated by spaces.
func (v *vocab) phrase(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = v.word()
	}
	return strings.Join(parts, " ")
}

// sentences returns sentences of 6-20 words until about n words were written.
func (v *vocab) sentences(n int) string {
	var b strings.Builder
	for written := 0; written < n; {
		k := 6 + v.r.IntN(15)
		s := v.phrase(k)
		b.WriteString(strings.ToUpper(s[:1]) + s[1:] + ". ")
		written += k
	}
	return strings.TrimSpace(b.String())
}

// prose returns about n bytes of paragraphs.
func (v *vocab) prose(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(v.sentences(40 + v.r.IntN(80)))
		b.WriteString("\n\n")
	}
	return b.String()
}

// markdown returns about n bytes of a markdown document: headings,
// paragraphs with links and emphasis, lists, code blocks and tables.
func (v *vocab) markdown(n int) string {
	var b strings.Builder
	b.WriteString("---\ntitle: " + v.phrase(3) + "\n---\n\n# " + v.phrase(4) + "\n\n")
	for b.Len() < n {
		switch v.r.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "## %s\n\n", v.phrase(2+v.r.IntN(4)))
		case 1:
			for i := 2 + v.r.IntN(4); i > 0; i-- {
				fmt.Fprintf(&b, "- %s\n", v.sentences(5))
			}
			b.WriteString("\n")
		case 2:
			fmt.Fprintf(&b, "```go\nfunc %s() {\n\treturn %q\n}\n```\n\n", v.word(), v.phrase(3))
		case 3:
			fmt.Fprintf(&b, "| %s | %s |\n|---|---|\n| %s | %s |\n| %s | %s |\n\n",
				v.word(), v.word(), v.word(), v.phrase(2), v.word(), v.phrase(2))
		default:
			s := v.sentences(40 + v.r.IntN(60))
			fmt.Fprintf(&b, "%s See [%s](https://example.com/%s) and **%s**.\n\n", s, v.word(), v.word(), v.phrase(2))
		}
	}
	return b.String()
}

// pdf returns a PDF of about n bytes of text, in Courier, 60 lines of up
// to 90 characters a page, each page's content stream Flate-compressed.
func (v *vocab) pdf(n int) []byte {
	var lines []string
	for size := 0; size < n; {
		line := v.sentences(10)
		for len(line) > 90 {
			cut := strings.LastIndexByte(line[:90], ' ')
			lines = append(lines, line[:cut])
			size += cut
			line = line[cut+1:]
		}
		lines = append(lines, line)
		size += len(line)
	}
	var objs []string // object i+1
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	add("<< /Type /Catalog /Pages 2 0 R >>")
	add("") // the page tree, written once the pages are known
	add("<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>")
	var kids []string
	esc := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`)
	for p := 0; p*60 < len(lines); p++ {
		var c strings.Builder
		c.WriteString("BT\n/F1 10 Tf\n12 TL\n50 760 Td\n")
		for _, l := range lines[p*60 : min(len(lines), (p+1)*60)] {
			fmt.Fprintf(&c, "(%s) Tj T*\n", esc.Replace(l))
		}
		c.WriteString("ET")
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write([]byte(c.String()))
		zw.Close()
		page := add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", len(objs)+2))
		add(fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.String()))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xE2\xE3\xCF\xD3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}
