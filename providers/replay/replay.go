// Package replay records Hearth's upstream exchanges to plain files and
// serves them back without any network (HEARTH_RECORD and HEARTH_REPLAY,
// docs/hearth-in-your-tests.md). Both are http.RoundTripper layers
// of the provider transport chain (see providers.Config.Wrap), so chat,
// streaming chat, embeddings, moderation, images, rerank, web search and
// crawl services are all covered.
//
// An exchange is filed under a stable key: the SHA-256 of the normalised
// request (the provider's name, method, path, query without credentials,
// and the JSON body with volatile fields removed and keys sorted). The
// host is not part of the key, so a recording made against a fake
// upstream on one port replays with the fake on another, or with none.
// Headers are never part of the key nor written, and every credential the
// request carried is scrubbed from what is written.
package replay

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// volatile are body fields left out of the key: they change between runs
// of the same test without changing the answer.
var volatile = map[string]bool{"user": true, "request_id": true, "idempotency_key": true, "timestamp": true, "created": true}

// credentialParams are query parameters that carry keys (Gemini's key=).
var credentialParams = map[string]bool{"key": true, "api_key": true, "apikey": true, "access_token": true, "token": true}

// Request is the normalised request a recording is keyed by; it is
// written beside the answer so a reviewer sees what was asked.
type Request struct {
	Provider string          `json:"provider"`
	Method   string          `json:"method"`
	Path     string          `json:"path"`
	Query    string          `json:"query,omitempty"`
	Body     json.RawMessage `json:"body,omitempty"`
	// Text is a body that is not JSON (multipart uploads), boundary
	// replaced.
	Text string `json:"text,omitempty"`
}

// Response is a recorded answer. Chunks are the pieces of the body as
// they arrived, so a stream replays with its original chunking.
type Response struct {
	Status      int      `json:"status"`
	ContentType string   `json:"content_type,omitempty"`
	RetryAfter  string   `json:"retry_after,omitempty"`
	Chunks      []string `json:"chunks"`
}

// Recording is one file of a recording directory.
type Recording struct {
	Key      string   `json:"key"`
	Request  Request  `json:"request"`
	Response Response `json:"response"`
}

// normalise builds the keyed form of a request to provider with body.
func normalise(provider string, req *http.Request, body []byte) Request {
	n := Request{Provider: provider, Method: req.Method, Path: req.URL.Path, Query: cleanQuery(req.URL.Query())}
	if len(body) == 0 {
		return n
	}
	var v any
	if json.Unmarshal(body, &v) == nil {
		if m, ok := v.(map[string]any); ok {
			for k := range m {
				if volatile[k] {
					delete(m, k)
				}
			}
		}
		n.Body, _ = json.Marshal(v) // maps marshal with sorted keys
		return n
	}
	text := string(body)
	if _, params, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err == nil && params["boundary"] != "" {
		text = strings.ReplaceAll(text, params["boundary"], "BOUNDARY")
	}
	n.Text = text
	return n
}

func cleanQuery(q url.Values) string {
	names := make([]string, 0, len(q))
	for k := range q {
		if !credentialParams[strings.ToLower(k)] {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		for _, v := range q[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(k) + "=" + url.QueryEscape(v))
		}
	}
	return b.String()
}

// Key is the stable key of a normalised request.
func (r Request) Key() string {
	var b bytes.Buffer
	for _, s := range []string{r.Provider, r.Method, r.Path, r.Query, string(r.Body), r.Text} {
		b.WriteString(strconv.Itoa(len(s)) + ":" + s + ";")
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:])
}

// fileName is where the n-th exchange (from 0) of key is filed in dir: a
// test that asks the same twice gets its answers back in order.
func fileName(dir, provider, key string, n int) string {
	if provider == "" {
		provider = "upstream"
	}
	return filepath.Join(dir, safe(provider), key[:32]+"-"+strconv.Itoa(n)+".json")
}

func safe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, strings.ToLower(s))
}
