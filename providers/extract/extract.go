// Package extract is the client of an external document extractor the operator
// runs, for documents Hearth's own parsers cannot read: PDFs without a text
// layer (scans), which need OCR
// (docs/memories-and-retrieval.md#external-extractor). Two servers are spoken
// to in their own wire formats:
//
//   - Apache Tika server: PUT {url}/tika with the document as the body and
//     "Accept: text/plain" answers the text
//     (https://cwiki.apache.org/confluence/display/TIKA/TikaServer).
//   - docling-serve: POST {url}/v1/convert/file, a multipart form with the
//     document in "files" and "to_formats=md", answers JSON whose
//     document.md_content is the Markdown
//     (https://github.com/docling-project/docling-serve/blob/main/docs/usage.md).
//
// Every call goes through the transport it is given (the egress dialer,
// HEARTH_OUTBOUND_HOSTS), under a timeout, and reads at most a bounded
// answer. A failure is a document error naming the extractor and what it
// said, so the document's status message tells the operator.
package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/netguard"
)

// The extractor kinds.
const (
	KindTika    = "tika"
	KindDocling = "docling"
)

// DefaultTimeout bounds one extraction: OCR of a long scan takes minutes.
const DefaultTimeout = 5 * time.Minute

// Config configures a Client.
type Config struct {
	// URL is the extractor's base URL, such as http://tika:9998 or
	// http://docling:5001.
	URL string
	// Kind is KindTika, KindDocling, or "" to ask the server which it is
	// (see Client.kind).
	Kind string
	// Timeout bounds one call, the upload and the answer (default
	// DefaultTimeout).
	Timeout time.Duration
	// MaxOutput is the most text a document may produce, in bytes, as for
	// Hearth's own parsers (HEARTH_PARSE_MAX_OUTPUT).
	MaxOutput int
	// Transport carries every call (the egress dialer's; nil: a direct
	// one, as in open egress mode).
	Transport http.RoundTripper
	Logger    *slog.Logger
}

// Client extracts text through one extractor. It is safe for concurrent
// use.
type Client struct {
	cfg  Config
	base *url.URL
	http *http.Client

	// The detected kind lives in this process: each node of a cluster
	// sharing one database asks the server once for itself, which costs
	// one request and needs nothing shared.
	mu       sync.Mutex
	detected string
}

// New checks cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(cfg.URL), "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("extractor URL %q: must be an http:// or https:// URL such as http://tika:9998", cfg.URL)
	}
	switch cfg.Kind {
	case "", KindTika, KindDocling:
	default:
		return nil, fmt.Errorf("extractor kind %q: use tika, docling, or leave it empty to detect", cfg.Kind)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxOutput <= 0 {
		return nil, errors.New("extractor: MaxOutput must be positive")
	}
	if cfg.Transport == nil {
		cfg.Transport = (*netguard.Egress)(nil).Transport("extractor")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Client{cfg: cfg, base: u, detected: cfg.Kind,
		http: &http.Client{Transport: cfg.Transport, Timeout: cfg.Timeout}}, nil
}

// Extract returns the text of a document, with the contract of
// parse.Parse: text, or an *engine.Error whose message is fit for the
// document's status.
func (c *Client) Extract(ctx context.Context, contentType, name string, data []byte) (string, error) {
	// The request's CPU turn goes to others while the server reads.
	defer engine.Back(engine.Away(ctx))
	kind, err := c.kind(ctx)
	if err != nil {
		return "", err
	}
	start := time.Now()
	var text string
	if kind == KindTika {
		text, err = c.tika(ctx, contentType, data)
	} else {
		text, err = c.docling(ctx, contentType, name, data)
	}
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		c.cfg.Logger.Warn("external extractor failed", "kind", kind, "document", name, "err", err)
		return "", err
	}
	c.cfg.Logger.Info("document read by the external extractor", "kind", kind, "document", name, "bytes", len(text), "took", time.Since(start))
	return text, nil
}

// kind returns the configured kind, or asks the server: Tika answers
// GET /tika with its greeting, docling-serve answers GET /health. A
// failed probe is not remembered, so a server started later is found.
func (c *Client) kind(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.detected != "" {
		return c.detected, nil
	}
	for _, p := range []struct{ path, kind string }{{"/tika", KindTika}, {"/health", KindDocling}} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base.String()+p.path, nil)
		if err != nil {
			return "", c.fail("", "%v", err)
		}
		resp, err := c.http.Do(req)
		if err != nil {
			return "", c.fail("", "%s", transportError(err))
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			c.detected = p.kind
			return p.kind, nil
		}
	}
	return "", c.fail("", "the server answers neither GET /tika (Apache Tika) nor GET /health (docling-serve); set HEARTH_EXTRACTOR_KIND")
}

// fail builds the document error of a failed extraction.
func (c *Client) fail(kind, format string, args ...any) *engine.Error {
	who := "external extractor at " + c.base.Redacted()
	if kind != "" {
		who = "external extractor (" + kind + " at " + c.base.Redacted() + ")"
	}
	return &engine.Error{Code: engine.CodeBadRequest, Field: "document", Message: who + " failed: " + fmt.Sprintf(format, args...)}
}

// transportError says what went wrong on the way, without the URL the
// message already names.
func transportError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Client.Timeout") {
		return "no answer within the timeout (HEARTH_EXTRACTOR_TIMEOUT)"
	}
	return err.Error()
}

// readCapped reads at most max bytes of body; over reports a longer body.
func readCapped(body io.Reader, max int) (b []byte, over bool, err error) {
	b, err = io.ReadAll(io.LimitReader(body, int64(max)+1))
	if len(b) > max {
		return b[:max], true, err
	}
	return b, false, err
}

// statusError summarises a failed answer: its status and the start of its
// body, which for Tika is often a Java stack trace.
func statusError(resp *http.Response, body []byte) string {
	msg := strings.TrimSpace(string(body))
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = strings.TrimSpace(msg[:i])
	}
	if len(msg) > 300 {
		cut := 300
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	if msg == "" {
		return "HTTP " + resp.Status
	}
	return "HTTP " + resp.Status + ": " + msg
}

// clean turns an extractor's text into the parsers' form: valid UTF-8,
// "\n" line ends, no surrounding white space.
func clean(text string) string {
	text = strings.ToValidUTF8(text, "")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	return strings.TrimSpace(text)
}
