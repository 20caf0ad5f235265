package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path"
	"strconv"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// errTooLarge is the parsers' output limit error, with the limit named.
func (c *Client) errTooLarge() error {
	return &engine.Error{Code: engine.CodePayloadTooLarge, Field: "document",
		Message: "document text from the external extractor is larger than the parser output limit of " +
			strconv.Itoa(c.cfg.MaxOutput) + " bytes (HEARTH_PARSE_MAX_OUTPUT); split the document or ask the operator to raise the limit"}
}

// tika sends the document to Apache Tika server: PUT /tika, the text in
// the answer. "X-Tika-PDFOcrStrategy: auto" asks Tika to OCR the pages
// that have too little text, when its server has Tesseract.
func (c *Client) tika(ctx context.Context, contentType string, data []byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, c.base.String()+"/tika", bytes.NewReader(data))
	if err != nil {
		return "", c.fail(KindTika, "%v", err)
	}
	req.Header.Set("Accept", "text/plain; charset=UTF-8")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("X-Tika-PDFOcrStrategy", "auto")
	resp, err := c.http.Do(req)
	if err != nil {
		return "", c.fail(KindTika, "%s", transportError(err))
	}
	defer resp.Body.Close()
	body, over, err := readCapped(resp.Body, c.cfg.MaxOutput)
	if resp.StatusCode != http.StatusOK {
		return "", c.fail(KindTika, "%s", statusError(resp, body))
	}
	if err != nil {
		return "", c.fail(KindTika, "reading the answer: %s", transportError(err))
	}
	if over {
		return "", c.errTooLarge()
	}
	text := clean(string(body))
	if text == "" {
		return "", c.fail(KindTika, "it found no text in the document (OCR needs a Tika server with Tesseract, such as the apache/tika full image)")
	}
	return text, nil
}

// doclingAnswer is the part of docling-serve's ConvertDocumentResponse
// read here.
type doclingAnswer struct {
	Document struct {
		MDContent string `json:"md_content"`
	} `json:"document"`
	Status string `json:"status"`
	Errors []struct {
		Message string `json:"error_message"`
	} `json:"errors"`
	Detail json.RawMessage `json:"detail"` // FastAPI's error answers
}

// docling sends the document to docling-serve: POST /v1/convert/file,
// Markdown in the answer. OCR is on by default there.
func (c *Client) docling(ctx context.Context, contentType, name string, data []byte) (string, error) {
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="files"; filename="`+quoteName(name)+`"`)
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	h.Set("Content-Type", contentType)
	part, _ := mw.CreatePart(h)
	_, _ = part.Write(data)
	_ = mw.WriteField("to_formats", "md")
	_ = mw.WriteField("do_ocr", "true")
	_ = mw.WriteField("image_export_mode", "placeholder")
	_ = mw.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.String()+"/v1/convert/file", &form)
	if err != nil {
		return "", c.fail(KindDocling, "%v", err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return "", c.fail(KindDocling, "%s", transportError(err))
	}
	defer resp.Body.Close()
	// JSON escapes at most six bytes per byte of text ("\u0001").
	body, over, err := readCapped(resp.Body, 6*c.cfg.MaxOutput+64<<10)
	var ans doclingAnswer
	jerr := json.Unmarshal(body, &ans)
	if resp.StatusCode != http.StatusOK {
		if jerr == nil && len(ans.Detail) > 0 {
			return "", c.fail(KindDocling, "HTTP %s: %s", resp.Status, detailText(ans.Detail))
		}
		return "", c.fail(KindDocling, "%s", statusError(resp, body))
	}
	switch {
	case err != nil:
		return "", c.fail(KindDocling, "reading the answer: %s", transportError(err))
	case over:
		return "", c.errTooLarge()
	case jerr != nil:
		return "", c.fail(KindDocling, "the answer is not docling-serve's JSON (%v)", jerr)
	}
	text := clean(ans.Document.MDContent)
	if ans.Status != "" && ans.Status != "success" && ans.Status != "partial_success" || text == "" && len(ans.Errors) > 0 {
		var msgs []string
		for _, e := range ans.Errors {
			msgs = append(msgs, e.Message)
		}
		return "", c.fail(KindDocling, "conversion status %q: %s", ans.Status, strings.Join(msgs, "; "))
	}
	if len(text) > c.cfg.MaxOutput {
		return "", c.errTooLarge()
	}
	if text == "" {
		return "", c.fail(KindDocling, "it found no text in the document")
	}
	return text, nil
}

// detailText renders FastAPI's "detail": a string, or a list of
// validation errors with "msg" fields.
func detailText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []struct {
		Msg string `json:"msg"`
	}
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		msgs := make([]string, len(list))
		for i, d := range list {
			msgs[i] = d.Msg
		}
		return strings.Join(msgs, "; ")
	}
	return string(raw)
}

// quoteName keeps a document name safe inside a quoted header parameter.
func quoteName(name string) string {
	name = path.Base(name)
	return strings.NewReplacer(`"`, "_", "\\", "_", "\r", "_", "\n", "_").Replace(name)
}
