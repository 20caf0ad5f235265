package parse

import (
	"archive/zip"
	"bytes"
	"testing"
)

// fuzzOffice runs one office parser on arbitrary bytes, seeded with the
// LibreOffice sample and a zip of its main part alone: either text within
// the output limit or an *engine.Error, never a panic.
func fuzzOffice(f *testing.F, sample, part string, parse func([]byte, int) (string, error)) {
	data := fixture(f, "office/"+sample)
	f.Add(data)
	f.Add(data[:len(data)/2])
	if zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data))); err == nil {
		for _, zf := range zr.File {
			if zf.Name == part {
				var buf bytes.Buffer
				rc, _ := zf.Open()
				buf.ReadFrom(rc)
				rc.Close()
				f.Add(zipOf(f, map[string]string{part: buf.String()}))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := parse(data, fuzzMaxOutput)
		checkResult(t, text, err)
		if len(text) > fuzzMaxOutput {
			t.Fatalf("%d bytes of text, past the limit of %d", len(text), fuzzMaxOutput)
		}
	})
}

func FuzzDOCX(f *testing.F) { fuzzOffice(f, "sample.docx", "word/document.xml", parseDOCX) }
func FuzzPPTX(f *testing.F) { fuzzOffice(f, "slides.pptx", "ppt/slides/slide1.xml", parsePPTX) }
func FuzzODT(f *testing.F)  { fuzzOffice(f, "sample.odt", "content.xml", parseODT) }
func FuzzEPUB(f *testing.F) {
	fuzzOffice(f, "sample.epub", "OEBPS/sections/section0001.xhtml", parseEPUB)
}

// FuzzRTF runs the RTF parser on arbitrary bytes, seeded with the
// LibreOffice sample: text within the output limit and linear in the
// input, or an *engine.Error.
func FuzzRTF(f *testing.F) {
	f.Add(fixture(f, "office/sample.rtf"))
	f.Add([]byte(`{\rtf1 a\u-3913?b {\*\x hidden}\'93q\'94\uc0\u8364 d\par\intbl x\cell\row e}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := parseRTF(append([]byte(`{\rtf1 `), data...), fuzzMaxOutput)
		checkResult(t, text, err)
		if len(text) > fuzzMaxOutput || len(text) > linearBound(len(data)+7) {
			t.Fatalf("%d bytes of input made %d bytes of text", len(data), len(text))
		}
	})
}

// FuzzHTML runs the HTML renderer on arbitrary bytes: text within the
// output limit and linear in the input, or an *engine.Error.
func FuzzHTML(f *testing.F) {
	f.Add(fixture(f, "office/sample.html"))
	f.Add([]byte(`<table><tr><td><p>a</p><table><tr><td>b</td></tr></table></td></tr></table><ul><li>x<li>y</ul><h7>z`))
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := parseHTML(data, fuzzMaxOutput)
		checkResult(t, text, err)
		if len(text) > fuzzMaxOutput || len(text) > linearBound(len(data)) {
			t.Fatalf("%d bytes of input made %d bytes of text", len(data), len(text))
		}
	})
}

// zipOf builds a zip archive of the given parts.
func zipOf(t testing.TB, parts map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
