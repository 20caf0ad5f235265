package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// TestMain makes this test binary the parser child when it is started with
// the subcommand, as the hearth binary is.
func TestMain(m *testing.M) {
	if IsChild(os.Args[1:]) {
		os.Exit(Serve(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

func testParser(t *testing.T, cfg Config) *Parser {
	t.Helper()
	if cfg.Command == nil {
		cfg.Command = []string{os.Args[0], "-test.run=^$", Subcommand}
	}
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../../../testdata/docs/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// classicPDF writes objects 1..n with a cross-reference table; object 1
// is the catalog.
func classicPDF(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	x := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, x)
	return b.Bytes()
}

// deepPDF nests arrays n deep in the page tree: the library reads them
// recursively, one stack frame per level.
func deepPDF(n int) []byte {
	kids := strings.Repeat("[", n) + strings.Repeat("]", n)
	return classicPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids "+kids+" /Count 1 >>")
}

// growingPDF puts an unterminated string in an object stream: the library
// appends newlines to it forever.
func growingPDF() []byte {
	body := "2 0 (never closed"
	obj := fmt.Sprintf("<< /Type /ObjStm /N 1 /First 4 /Length %d >>\nstream\n%s\nendstream", len(body), body)
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	off1 := b.Len()
	b.WriteString("1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
	off3 := b.Len()
	fmt.Fprintf(&b, "3 0 obj\n%s\nendobj\n", obj)
	x := b.Len()
	var rows bytes.Buffer
	for _, r := range [][3]int{{0, 0, 65535}, {1, off1, 0}, {2, 3, 0}, {1, off3, 0}, {1, x, 0}} {
		rows.WriteByte(byte(r[0]))
		rows.Write([]byte{byte(r[1] >> 24), byte(r[1] >> 16), byte(r[1] >> 8), byte(r[1]), byte(r[2] >> 8), byte(r[2])})
	}
	fmt.Fprintf(&b, "4 0 obj\n<< /Type /XRef /Size 5 /W [1 4 2] /Root 1 0 R /Length %d >>\nstream\n", rows.Len())
	b.Write(rows.Bytes())
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", x)
	return b.Bytes()
}

func TestParser(t *testing.T) {
	ctx := context.Background()
	p := testParser(t, Config{Timeout: 30 * time.Second, MemoryLimit: 256 << 20})
	quick := testParser(t, Config{Timeout: 2 * time.Second})
	cases := []struct {
		name, doc string
		data      []byte
		text      string // wanted substring of the text, or
		code, msg string // of the error
		within    time.Duration
	}{
		{name: "readable", doc: "a.pdf", data: fixture(t, "simple.pdf"), text: "quick brown fox"},
		{name: "encrypted", doc: "a.pdf", data: fixture(t, "encrypted.pdf"), code: engine.CodeBadRequest, msg: "PDF is encrypted"},
		{name: "endless loop", doc: "a.pdf", data: fixture(t, "objstm-hang.pdf"), code: engine.CodeBadRequest,
			msg: "parsing timed out after 2s: the PDF may be malformed", within: 10 * time.Second},
		{name: "deep recursion", doc: "a.pdf", data: deepPDF(2_000_000), code: engine.CodeBadRequest,
			msg: "the parser stopped unexpectedly", within: 10 * time.Second},
		{name: "octet-stream by name", doc: "b.PDF", data: fixture(t, "simple.pdf"), text: "Second paragraph"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			ct := "application/pdf"
			if strings.Contains(tc.name, "octet") {
				ct = "application/octet-stream"
			}
			parser := p
			if strings.Contains(tc.msg, "timed out") {
				parser = quick
			}
			text, err := parser.Parse(ctx, ct, tc.doc, tc.data)
			if tc.within > 0 && time.Since(start) > tc.within {
				t.Fatalf("took %s", time.Since(start))
			}
			if tc.text != "" {
				if err != nil || !strings.Contains(text, tc.text) {
					t.Fatalf("text %q, err %v", text, err)
				}
				return
			}
			var e *engine.Error
			if err == nil || !errorsAs(err, &e) || e.Code != tc.code || !strings.Contains(e.Message, tc.msg) || e.Field != "document" {
				t.Fatalf("err %v, want %s %q", err, tc.code, tc.msg)
			}
		})
	}
}

// TestMemoryLimit: a parse that keeps allocating is stopped by the child's
// watchdog (the library grows an unterminated string by a byte per read).
func TestMemoryLimit(t *testing.T) {
	p := testParser(t, Config{Timeout: time.Minute, MemoryLimit: 40 << 20})
	if _, err := p.Parse(context.Background(), "application/pdf", "a.pdf", fixture(t, "multipage.pdf")); err != nil {
		t.Fatalf("a normal PDF within the limit: %v", err)
	}
	start := time.Now()
	_, err := p.Parse(context.Background(), "application/pdf", "a.pdf", growingPDF())
	var e *engine.Error
	if !errorsAs(err, &e) || e.Code != engine.CodeBadRequest || !strings.Contains(e.Message, "parsing needed more than 40 MiB of memory") {
		t.Fatalf("err %v after %s", err, time.Since(start))
	}
	t.Logf("stopped after %s", time.Since(start))
}

func errorsAs(err error, e **engine.Error) bool {
	x, ok := err.(*engine.Error)
	*e = x
	return ok
}

// TestOnlyPDFsAndXLSXGoToTheChild: other formats never start a process
// (here the command does not even exist).
func TestOnlyPDFsAndXLSXGoToTheChild(t *testing.T) {
	p := testParser(t, Config{Command: []string{"/nonexistent/hearth", Subcommand}})
	text, err := p.Parse(context.Background(), "text/markdown", "a.md", []byte("# Title\n\nbody"))
	if err != nil || !strings.Contains(text, "body") {
		t.Fatalf("markdown: %q %v", text, err)
	}
	if text, err := p.Parse(context.Background(), "text/csv", "a.csv", []byte("a,b\n1,2")); err != nil || text != "a: 1, b: 2" {
		t.Fatalf("csv: %q %v", text, err)
	}
	if _, err := p.Parse(context.Background(), "", "a.xlsx", fixture(t, "sheet.xlsx")); engine.ErrorCode(err) != engine.CodeInternal {
		t.Fatalf("xlsx without the child: %v", err)
	}
	for _, name := range []string{"sample.docx", "sample.odt", "slides.pptx", "sheet.xls"} {
		if _, err := p.Parse(context.Background(), "", name, fixture(t, "office/"+name)); engine.ErrorCode(err) != engine.CodeInternal {
			t.Fatalf("%s without the child: %v", name, err)
		}
	}
	if _, err := p.Parse(context.Background(), "text/plain", "a.pdf", []byte("x")); engine.ErrorCode(err) != engine.CodeUnsupportedMedia {
		t.Fatalf("mismatched type: %v", err)
	}
	// A PDF needs the child; one that cannot start is an internal error
	// (ingestion retries those), not a verdict on the document.
	if _, err := p.Parse(context.Background(), "application/pdf", "a.pdf", fixture(t, "simple.pdf")); engine.ErrorCode(err) != engine.CodeInternal {
		t.Fatalf("missing command: %v", err)
	}
}

// TestChildWithoutHook: a test binary without the TestMain hook runs no
// test and answers nothing the parent can read; that is an internal error,
// never a recursive test run.
func TestChildWithoutHook(t *testing.T) {
	p := testParser(t, Config{Command: []string{os.Args[0], "-test.run=^$"}})
	if _, err := p.Parse(context.Background(), "application/pdf", "a.pdf", fixture(t, "simple.pdf")); engine.ErrorCode(err) != engine.CodeInternal {
		t.Fatalf("err %v", err)
	}
}

// TestConcurrencyAndCancel: parses beyond Concurrency wait for a slot, and
// a caller that gives up while waiting gets its context's error.
func TestConcurrencyAndCancel(t *testing.T) {
	p := testParser(t, Config{Concurrency: 1, Timeout: 3 * time.Second})
	done := make(chan error, 1)
	go func() {
		_, err := p.Parse(context.Background(), "application/pdf", "a.pdf", fixture(t, "objstm-hang.pdf"))
		done <- err
	}()
	for len(p.slot) == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := p.Parse(ctx, "application/pdf", "a.pdf", fixture(t, "simple.pdf")); err != context.DeadlineExceeded {
		t.Fatalf("waiting caller: %v", err)
	}
	if err := <-done; engine.ErrorCode(err) != engine.CodeBadRequest {
		t.Fatalf("hanging parse: %v", err)
	}
	// A caller that leaves while its child runs ends the child at once.
	ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := p.Parse(ctx, "application/pdf", "a.pdf", fixture(t, "objstm-hang.pdf")); err != context.DeadlineExceeded || time.Since(start) > 2*time.Second {
		t.Fatalf("cancelled parse: %v after %s", err, time.Since(start))
	}
}

func TestServeRefusesMalformedRequests(t *testing.T) {
	var out bytes.Buffer
	if code := Serve(strings.NewReader("not json\n"), &out); code != 1 || out.Len() != 0 {
		t.Fatalf("exit %d, out %q", code, out.String())
	}
	// A child of another protocol version is refused, not misread.
	if code := Serve(strings.NewReader(`{"v":1,"type":"text/plain","name":"a.txt"}`+"\nhello"), &out); code != 1 || out.Len() != 0 {
		t.Fatalf("exit %d, out %q", code, out.String())
	}
	if code := Serve(strings.NewReader(`{"v":2,"type":"text/plain","name":"a.txt"}`+"\nhello"), &out); code != 0 || !strings.Contains(out.String(), `"text":"hello"`) {
		t.Fatalf("exit %d, out %q", code, out.String())
	}
	out.Reset()
	if code := Serve(strings.NewReader(`{"v":2,"type":"text/plain","name":"a.txt","max_output":3}`+"\nhello"), &out); code != 0 || !strings.Contains(out.String(), `limit of 3 bytes`) {
		t.Fatalf("exit %d, out %q", code, out.String())
	}
}

// TestOutputLimit: the limit applies in process (CSV) and in the child
// (xlsx, PDF), with the parser's own message naming it.
func TestOutputLimit(t *testing.T) {
	ctx := context.Background()
	p := testParser(t, Config{Timeout: 30 * time.Second, MaxOutput: 60})
	want := "parser output limit of 60 bytes (HEARTH_PARSE_MAX_OUTPUT)"
	csv := []byte("name,notes\n" + strings.Repeat("Ada,wrote the first program\n", 10))
	for _, tc := range []struct {
		ct, name string
		data     []byte
	}{
		{"text/csv", "a.csv", csv},
		{"", "a.xlsx", fixture(t, "sheet.xlsx")},
		{"application/pdf", "a.pdf", fixture(t, "simple.pdf")},
		{"", "a.docx", fixture(t, "office/sample.docx")},
		{"", "a.pptx", fixture(t, "office/slides.pptx")},
		{"", "a.odt", fixture(t, "office/sample.odt")},
		{"", "a.xls", fixture(t, "office/sheet.xls")},
	} {
		_, err := p.Parse(ctx, tc.ct, tc.name, tc.data)
		var e *engine.Error
		if !errorsAs(err, &e) || e.Code != engine.CodePayloadTooLarge || !strings.Contains(e.Message, want) {
			t.Errorf("%s: %v, want PAYLOAD_TOO_LARGE naming the limit", tc.name, err)
		}
	}
	big := testParser(t, Config{Timeout: 30 * time.Second})
	if text, err := big.Parse(ctx, "", "a.xlsx", fixture(t, "sheet.xlsx")); err != nil || !strings.Contains(text, "Sheet: Staff") {
		t.Fatalf("xlsx in the child: %q %v", text, err)
	}
	for _, tc := range []struct{ ct, name string }{{"", "sample.docx"}, {"", "sample.epub"}, {"text/html", "sample.html"}} {
		if text, err := big.Parse(ctx, tc.ct, tc.name, fixture(t, "office/"+tc.name)); err != nil || !strings.Contains(text, "Beekeeping basics") {
			t.Fatalf("%s in the child: %q %v", tc.name, text, err)
		}
	}
	if text, err := big.Parse(ctx, "", "small.xls", fixture(t, "office/small.xls")); err != nil || !strings.Contains(text, "city: Lyon") {
		t.Fatalf("xls in the child: %q %v", text, err)
	}
}
