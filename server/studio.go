package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/web"
	"github.com/labstack/echo/v4"
)

// studioCSP allows the studio to load and call nothing but its own origin:
// no inline script or style, no CDN, no framing.
const studioCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// studioRoutes serve the studio (package web) at /studio/. Files under
// /studio/assets/ are served as they are; every other /studio path is a
// client-side route and gets index.html, so the url fields of pipes and
// memories (/studio/pipes/<owner>/<name>) open directly.
func (s *Server) studioRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/studio", Handler: s.handleStudio,
			Doc: RouteDoc{Summary: "The studio web UI", RawType: "text/html"}},
		{Method: http.MethodGet, Path: "/studio/*", Handler: s.handleStudio,
			Doc: RouteDoc{Summary: "Studio assets and client-side routes", RawType: "text/html"}},
	}
}

// studioAsset is one embedded file, read and hashed once.
type studioAsset struct {
	body        []byte
	gzipped     []byte // nil when compression does not pay
	contentType string
	etag        string
}

// studioTypes are the content types of the files the studio ships; Go's
// mime table depends on the host, this does not.
var studioTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".ico":  "image/x-icon",
	".json": "application/json",
	".txt":  "text/plain; charset=utf-8",
}

// loadStudio indexes the embedded studio once; nil when built without it.
var loadStudio = sync.OnceValues(func() (map[string]*studioAsset, error) {
	if web.FS == nil {
		return nil, nil
	}
	out := map[string]*studioAsset{}
	err := fs.WalkDir(web.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(web.FS, p)
		if err != nil {
			return err
		}
		ct, ok := studioTypes[path.Ext(p)]
		if !ok {
			ct = "application/octet-stream"
		}
		sum := sha256.Sum256(b)
		a := &studioAsset{body: b, contentType: ct, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}
		if len(b) > 1024 {
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			_, _ = zw.Write(b)
			_ = zw.Close()
			if buf.Len() < len(b) {
				a.gzipped = buf.Bytes()
			}
		}
		out[p] = a
		return nil
	})
	return out, err
})

func (s *Server) handleStudio(c echo.Context) error {
	files, err := loadStudio()
	if err != nil {
		return engine.Wrap(err, engine.CodeInternal, "the studio could not be loaded")
	}
	if files == nil {
		return engine.Errorf(engine.CodeNotFound, "%s", web.Notice)
	}
	name := "index.html"
	if p := c.Param("*"); strings.HasPrefix(p, "assets/") {
		name = p
	}
	a, ok := files[name]
	if !ok {
		return engine.NotFound("studio file", name)
	}
	h := c.Response().Header()
	h.Set("Content-Security-Policy", studioCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	// Asset names carry no hash, so the browser revalidates every time;
	// the ETag makes that a 304 without a body.
	h.Set("Cache-Control", "no-cache")
	h.Set("Vary", "Accept-Encoding")
	body, etag := a.body, a.etag
	if a.gzipped != nil && acceptsGzip(c.Request()) {
		body, etag = a.gzipped, strings.TrimSuffix(a.etag, `"`)+`-gz"`
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", etag)
	if etagMatches(c.Request().Header.Get("If-None-Match"), etag) {
		h.Del("Content-Encoding")
		return c.NoContent(http.StatusNotModified)
	}
	return c.Blob(http.StatusOK, a.contentType, body)
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(strings.TrimSpace(q), " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// etagMatches implements If-None-Match's weak comparison.
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
