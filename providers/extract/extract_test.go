package extract

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/netguard"
)

// fakeTika speaks Apache Tika server's wire format: GET /tika greets,
// PUT /tika with "Accept: text/plain" answers the text; Tika answers a
// document it cannot parse with 422 and a Java stack trace.
type fakeTika struct {
	*httptest.Server
	text  string
	puts  atomic.Int32
	got   []byte
	ctype string
	ocr   string
}

func newFakeTika(t *testing.T, text string) *fakeTika {
	f := &fakeTika{text: text}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/tika" && r.Method == http.MethodGet:
			io.WriteString(w, "This is Tika Server (Apache Tika 2.9.2). Please PUT\n")
		case r.URL.Path == "/tika" && r.Method == http.MethodPut:
			f.puts.Add(1)
			if !strings.HasPrefix(r.Header.Get("Accept"), "text/plain") {
				http.Error(w, "want Accept: text/plain", http.StatusNotAcceptable)
				return
			}
			f.got, _ = io.ReadAll(r.Body)
			f.ctype, f.ocr = r.Header.Get("Content-Type"), r.Header.Get("X-Tika-PDFOcrStrategy")
			if string(f.got) == "broken" {
				w.WriteHeader(http.StatusUnprocessableEntity)
				io.WriteString(w, "org.apache.tika.exception.TikaException: Unable to extract PDF content\n\tat org.apache.tika.parser.pdf.PDFParser.parse(PDFParser.java:200)\n")
				return
			}
			w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
			io.WriteString(w, f.text)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

// fakeDocling speaks docling-serve's: GET /health, and POST
// /v1/convert/file with a multipart form ("files", "to_formats") answering
// a ConvertDocumentResponse; FastAPI answers bad forms with 422 and a
// "detail" list.
func newFakeDocling(t *testing.T, answer func(name string, data []byte) (int, any)) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/health" && r.Method == http.MethodGet:
			io.WriteString(w, `{"status":"ok"}`)
		case r.URL.Path == "/v1/convert/file" && r.Method == http.MethodPost:
			if err := r.ParseMultipartForm(32 << 20); err != nil {
				w.WriteHeader(http.StatusUnprocessableEntity)
				io.WriteString(w, `{"detail":[{"type":"missing","loc":["body","files"],"msg":"Field required"}]}`)
				return
			}
			fh := r.MultipartForm.File["files"]
			if len(fh) != 1 || r.FormValue("to_formats") != "md" {
				w.WriteHeader(http.StatusUnprocessableEntity)
				io.WriteString(w, `{"detail":[{"type":"missing","loc":["body","files"],"msg":"Field required"}]}`)
				return
			}
			f, _ := fh[0].Open()
			data, _ := io.ReadAll(f)
			code, body := answer(fh[0].Filename, data)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			json.NewEncoder(w).Encode(body)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"detail":"Not Found"}`)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func doclingOK(md string) map[string]any {
	return map[string]any{"document": map[string]any{"filename": "scan.pdf", "md_content": md}, "status": "success", "errors": []any{}, "processing_time": 1.5}
}

func newClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	if cfg.MaxOutput == 0 {
		cfg.MaxOutput = 1 << 20
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// docErr checks err is a document error whose message has want.
func docErr(t *testing.T, err error, want string) {
	t.Helper()
	e, ok := err.(*engine.Error)
	if !ok || e.Field != "document" || !strings.Contains(e.Message, want) {
		t.Fatalf("err = %v, want a document error with %q", err, want)
	}
}

// TestTika: the document goes as the PUT body with its type and the OCR
// strategy; the text comes back cleaned; Tika's refusal is named.
func TestTika(t *testing.T) {
	tika := newFakeTika(t, "\r\nScanned page one.\r\nSecond line.\r\n\r\n")
	c := newClient(t, Config{URL: tika.URL + "/", Kind: KindTika})
	text, err := c.Extract(context.Background(), "application/pdf", "scan.pdf", []byte("%PDF-1.4 scan"))
	if err != nil || text != "Scanned page one.\nSecond line." {
		t.Fatalf("%q %v", text, err)
	}
	if string(tika.got) != "%PDF-1.4 scan" || tika.ctype != "application/pdf" || tika.ocr != "auto" {
		t.Errorf("sent %q as %q, OCR %q", tika.got, tika.ctype, tika.ocr)
	}
	_, err = c.Extract(context.Background(), "application/pdf", "scan.pdf", []byte("broken"))
	docErr(t, err, "external extractor (tika at "+tika.URL+") failed: HTTP 422 Unprocessable Entity: org.apache.tika.exception.TikaException: Unable to extract PDF content")
	empty := newClient(t, Config{URL: newFakeTika(t, " \n ").URL, Kind: KindTika})
	_, err = empty.Extract(context.Background(), "application/pdf", "scan.pdf", []byte("x"))
	docErr(t, err, "found no text in the document")
}

// TestDocling: the document goes as the "files" part of the form; the
// Markdown comes back; failures name docling and what it said.
func TestDocling(t *testing.T) {
	var gotName string
	d := newFakeDocling(t, func(name string, data []byte) (int, any) {
		gotName = name
		switch string(data) {
		case "fails":
			return 200, map[string]any{"document": map[string]any{"md_content": ""}, "status": "failure",
				"errors": []any{map[string]any{"component_type": "document_backend", "module_name": "pdf", "error_message": "Input document scan.pdf is not valid."}}}
		case "busy":
			return 503, map[string]any{"detail": "Server busy"}
		}
		return 200, doclingOK("## Invoice\n\nTotal: 42 EUR\n")
	})
	c := newClient(t, Config{URL: d.URL, Kind: KindDocling})
	text, err := c.Extract(context.Background(), "application/pdf", `sc"an.pdf`, []byte("%PDF"))
	if err != nil || text != "## Invoice\n\nTotal: 42 EUR" || gotName != "sc_an.pdf" {
		t.Fatalf("%q %v (file name %q)", text, err, gotName)
	}
	_, err = c.Extract(context.Background(), "application/pdf", "scan.pdf", []byte("fails"))
	docErr(t, err, `external extractor (docling at `+d.URL+`) failed: conversion status "failure": Input document scan.pdf is not valid.`)
	_, err = c.Extract(context.Background(), "application/pdf", "scan.pdf", []byte("busy"))
	docErr(t, err, "failed: HTTP 503 Service Unavailable: Server busy")
}

// TestDetect: with no kind the server is asked once what it is.
func TestDetect(t *testing.T) {
	tika := newFakeTika(t, "from tika")
	c := newClient(t, Config{URL: tika.URL})
	for i := 0; i < 2; i++ {
		if text, err := c.Extract(context.Background(), "application/pdf", "a.pdf", []byte("x")); err != nil || text != "from tika" {
			t.Fatalf("%q %v", text, err)
		}
	}
	d := newFakeDocling(t, func(string, []byte) (int, any) { return 200, doclingOK("from docling") })
	if text, err := newClient(t, Config{URL: d.URL}).Extract(context.Background(), "application/pdf", "a.pdf", []byte("x")); err != nil || text != "from docling" {
		t.Fatalf("%q %v", text, err)
	}
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	_, err := newClient(t, Config{URL: other.URL}).Extract(context.Background(), "application/pdf", "a.pdf", []byte("x"))
	docErr(t, err, "answers neither GET /tika (Apache Tika) nor GET /health (docling-serve); set HEARTH_EXTRACTOR_KIND")
}

// TestLimits: an answer past the output limit, a server slower than the
// timeout and a server the egress allowlist refuses each fail the
// document with the reason.
func TestLimits(t *testing.T) {
	tika := newFakeTika(t, strings.Repeat("word ", 1000))
	_, err := newClient(t, Config{URL: tika.URL, Kind: KindTika, MaxOutput: 1000}).Extract(context.Background(), "application/pdf", "a.pdf", []byte("x"))
	docErr(t, err, "larger than the parser output limit of 1000 bytes (HEARTH_PARSE_MAX_OUTPUT)")
	if engine.ErrorCode(err) != engine.CodePayloadTooLarge {
		t.Errorf("code %s", engine.ErrorCode(err))
	}
	d := newFakeDocling(t, func(string, []byte) (int, any) { return 200, doclingOK(strings.Repeat("é", 1000)) })
	_, err = newClient(t, Config{URL: d.URL, Kind: KindDocling, MaxOutput: 1000}).Extract(context.Background(), "application/pdf", "a.pdf", []byte("x"))
	docErr(t, err, "parser output limit of 1000 bytes")

	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer slow.Close()
	defer close(release)
	_, err = newClient(t, Config{URL: slow.URL, Kind: KindTika, Timeout: 200 * time.Millisecond}).Extract(context.Background(), "application/pdf", "a.pdf", []byte("x"))
	docErr(t, err, "no answer within the timeout (HEARTH_EXTRACTOR_TIMEOUT)")

	eg, err := netguard.NewEgress(netguard.ModeAllowlist, []string{"api.example.com"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := tika.puts.Load()
	_, err = newClient(t, Config{URL: tika.URL, Kind: KindTika, Transport: eg.Transport("extractor")}).Extract(context.Background(), "application/pdf", "a.pdf", []byte("x"))
	docErr(t, err, "external extractor (tika at "+tika.URL+") failed:")
	if !strings.Contains(err.Error(), "HEARTH_OUTBOUND_HOSTS") || tika.puts.Load() != before {
		t.Errorf("the egress allowlist did not stop the call: %v", err)
	}
}

// TestConfig: bad URLs and kinds are refused at start.
func TestConfig(t *testing.T) {
	for _, cfg := range []Config{{URL: "tika:9998", MaxOutput: 1}, {URL: "ftp://x", MaxOutput: 1}, {URL: "http://x", Kind: "textract", MaxOutput: 1}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}

// The request's CPU turn is given to others while the extractor works,
// and taken back when it answers.
func TestExtractMarksItsWait(t *testing.T) {
	tika := newFakeTika(t, "Some text.")
	c := newClient(t, Config{URL: tika.URL, Kind: KindTika})
	wc := &engine.WaitCount{}
	if _, err := c.Extract(engine.WithTurn(context.Background(), wc), "application/pdf", "a.pdf", []byte("%PDF-1.4")); err != nil {
		t.Fatal(err)
	}
	if begun, ended := wc.Counts(); begun != 1 || ended != 1 {
		t.Fatalf("%d waits begun, %d ended; want 1, 1", begun, ended)
	}
}
