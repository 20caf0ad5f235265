package server

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/labstack/echo/v4"
)

// DefaultMaxPackBytes is the default cap of an imported memory pack's
// body (HEARTH_MAX_PACK_BYTES).
const DefaultMaxPackBytes = 1 << 30

// packRoutes export and import memory packs (docs/memories-and-retrieval.md#memory-packs). Both
// stream: an export reads the memory a page at a time, an import writes
// under a staging id that only its last transaction makes visible, so
// with several nodes on one database any node serves either.
func (s *Server) packRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/v1/memory/:memoryName/export", Auth: AuthOwner, Handler: s.handleMemoryExport,
			Doc: RouteDoc{Summary: "Stream a memory as a portable pack: settings, documents, chunks and vectors (docs/memories-and-retrieval.md#memory-packs)",
				RawType: memory.PackContentType}},
		{Method: http.MethodPost, Path: "/v1/memory/import", Auth: AuthOwner, Handler: s.handleMemoryImport, BodyLimit: s.maxPackBytes(),
			Doc: RouteDoc{Summary: "Create a memory from a pack without embedding anything (?name= renames it, ?replace=true replaces an existing one)",
				RequestType: memory.PackContentType, Query: []string{"name", "replace"}, Response: packImported{}}},
	}
}

func (s *Server) maxPackBytes() int64 {
	if s.cfg.MaxPackBytes > 0 {
		return s.cfg.MaxPackBytes
	}
	return DefaultMaxPackBytes
}

// packImported is the answer of an import.
type packImported struct {
	Name           string `json:"name"`
	OwnerLogin     string `json:"owner_login"`
	URL            string `json:"url"`
	EmbeddingModel string `json:"embedding_model"`
	Documents      int    `json:"documents"`
	Chunks         int    `json:"chunks"`
	Replaced       bool   `json:"replaced"`
}

func (s *Server) handleMemoryExport(c echo.Context) error {
	name, err := pathParam(c, "memoryName")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	ex, err := s.deps.Memory.OpenExport(ctx, principal(c).Owner, name)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Content-Type", memory.PackContentType)
	h.Set("Content-Disposition", `attachment; filename="`+name+`.hearthpack"`)
	h.Set("X-Content-Type-Options", "nosniff")
	c.Response().WriteHeader(http.StatusOK)
	if err := ex.WriteTo(ctx, c.Response()); err != nil {
		// The pack has no end record: cutting the connection also tells
		// the client the answer is broken.
		s.log.Error("memory export stopped", "request_id", headerValue(h, HeaderRequestID), "memory", name, "err", err)
		panic(http.ErrAbortHandler)
	}
	return nil
}

func (s *Server) handleMemoryImport(c echo.Context) error {
	q := c.QueryParams()
	opts := memory.ImportOptions{Name: q.Get("name")}
	if v := q.Get("replace"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return engine.FieldError("replace", "must be true or false, got %q", v)
		}
		opts.Replace = b
	}
	p := principal(c)
	opts.Authorize = func(name string) error { return p.Scope.CheckMemory(name) }
	body := &limitSeen{r: c.Request().Body}
	res, err := s.deps.Memory.Import(c.Request().Context(), p.Owner, body, opts)
	if body.tooLarge() {
		return engine.Errorf(engine.CodePayloadTooLarge, "the pack is larger than the limit of %d bytes (HEARTH_MAX_PACK_BYTES)", s.maxPackBytes())
	}
	if err != nil {
		return err
	}
	m := res.Memory
	return c.JSON(http.StatusOK, packImported{Name: m.Name, OwnerLogin: m.Owner, URL: s.deps.Memory.URL(m), EmbeddingModel: m.EmbeddingModel,
		Documents: res.Documents, Chunks: res.Chunks, Replaced: res.Replaced})
}

// limitSeen remembers whether reading hit the body limit, whatever the
// reader above it (the zstd decoder) made of the error.
type limitSeen struct {
	r    io.Reader
	mu   sync.Mutex
	over bool
}

func (l *limitSeen) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		l.mu.Lock()
		l.over = true
		l.mu.Unlock()
	}
	return n, err
}

func (l *limitSeen) tooLarge() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.over
}
