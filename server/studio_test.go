//go:build !no_ui

package server_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

func studioGet(t *testing.T, ts *servertest.Server, path string, headers ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	// A bare transport: the default client would ask for and undo gzip.
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

func TestStudioServesAppRoutesAndAssets(t *testing.T) {
	ts := servertest.Start(t)
	cases := []struct {
		path, contentType, contains string
	}{
		{"/studio", "text/html; charset=utf-8", `<script type="module" src="/studio/assets/js/app.js">`},
		{"/studio/", "text/html; charset=utf-8", "Hearth Studio"},
		{"/studio/pipes/admin/my-pipe", "text/html; charset=utf-8", "Hearth Studio"},
		{"/studio/memory/admin/docs", "text/html; charset=utf-8", "Hearth Studio"},
		{"/studio/assets/js/app.js", "text/javascript; charset=utf-8", "export function navigate"},
		{"/studio/assets/js/sse.js", "text/javascript; charset=utf-8", "class SSEParser"},
		{"/studio/assets/css/studio.css", "text/css; charset=utf-8", ":focus-visible"},
		{"/studio/assets/favicon.svg", "image/svg+xml", "<svg"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			res := studioGet(t, ts, c.path)
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", res.StatusCode, body)
			}
			if got := res.Header.Get("Content-Type"); got != c.contentType {
				t.Errorf("Content-Type = %q, want %q", got, c.contentType)
			}
			if !strings.Contains(string(body), c.contains) {
				t.Errorf("body lacks %q", c.contains)
			}
			for name, want := range map[string]string{
				"X-Content-Type-Options": "nosniff",
				"X-Frame-Options":        "DENY",
				"Cache-Control":          "no-cache",
			} {
				if got := res.Header.Get(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			csp := res.Header.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'self'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP %q lacks %q", csp, want)
				}
			}
			if res.Header.Get("ETag") == "" {
				t.Error("no ETag")
			}
		})
	}
}

func TestStudioETagAndGzip(t *testing.T) {
	ts := servertest.Start(t)
	res := studioGet(t, ts, "/studio/assets/css/studio.css")
	plain, _ := io.ReadAll(res.Body)
	etag := res.Header.Get("ETag")

	res = studioGet(t, ts, "/studio/assets/css/studio.css", "If-None-Match", etag)
	if res.StatusCode != http.StatusNotModified {
		t.Fatalf("revalidation: status %d, want 304", res.StatusCode)
	}

	res = studioGet(t, ts, "/studio/assets/css/studio.css", "Accept-Encoding", "gzip")
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("no gzip: %v", res.Header)
	}
	if res.Header.Get("ETag") == etag {
		t.Error("the gzip variant shares the plain ETag")
	}
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	unzipped, _ := io.ReadAll(zr)
	if !bytes.Equal(unzipped, plain) {
		t.Error("gzip body differs from the plain body")
	}
}

func TestStudioUnknownAssetIsJSON404(t *testing.T) {
	ts := servertest.Start(t)
	for _, p := range []string{"/studio/assets/nope.js", "/studio/assets/../../secret.key", "/studio/assets/js/../../index.html.bak"} {
		r := ts.Do(http.MethodGet, p, "", nil)
		if r.Status != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", p, r.Status)
		}
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: Content-Type %q", p, r.Header.Get("Content-Type"))
		}
	}
}

func TestRootStaysJSONAndLinksToStudio(t *testing.T) {
	ts := servertest.Start(t)
	r := ts.Do(http.MethodGet, "/", "", nil)
	var info struct {
		Success bool   `json:"success"`
		Link    string `json:"link"`
	}
	r.JSON(t, &info)
	if !info.Success || info.Link != ts.URL+"/studio/" {
		t.Fatalf("root = %s", r.Body)
	}
}
