package server

import (
	"net/http"
	"time"

	"github.com/hearth-dev/hearth/engine/chunk"
	"github.com/labstack/echo/v4"
)

func (s *Server) documentRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/v1/memory/documents", Auth: AuthOwner, Handler: s.handleUploadStart,
			Doc: RouteDoc{Summary: "Upload step 1: a signed URL to PUT the document to", Request: uploadURLBody{}, Response: uploadURLView{},
				Description: "Refused with 403 USAGE_EXCEEDED at a storage quota."}},
		{Method: http.MethodGet, Path: "/v1/memory/:memoryName/documents", Auth: AuthOwner, Handler: s.handleDocumentList,
			Doc: RouteDoc{Summary: "List a memory's documents and their ingestion status", Response: []documentItem{}}},
		{Method: http.MethodDelete, Path: "/v1/memory/:memoryName/documents/:documentName", Auth: AuthOwner, Handler: s.handleDocumentDelete,
			Doc: RouteDoc{Summary: "Delete a document", Response: successView{}}},
		{Method: http.MethodGet, Path: "/v1/memory/:memoryName/documents/:documentName/embeddings/retry", Auth: AuthOwner, Handler: s.handleDocumentRetry,
			Doc: RouteDoc{Summary: "Queue a failed document again", Response: retryView{}}},
		s.documentChunksRoute(),
	}
}

// documentItem is one entry of the documents list (MemoryListDocResponse).
type documentItem struct {
	Name          string            `json:"name"`
	Status        string            `json:"status"`
	StatusMessage *string           `json:"status_message"`
	Metadata      documentMetadata  `json:"metadata"`
	Meta          map[string]string `json:"meta"`
	Enabled       bool              `json:"enabled"`
	ChunkSize     int               `json:"chunk_size"`
	ChunkOverlap  int               `json:"chunk_overlap"`
	OwnerLogin    string            `json:"owner_login"`
	Chunks        int               `json:"chunks"`
	CreatedAt     time.Time         `json:"created_at"`
	UpdatedAt     time.Time         `json:"updated_at"`
}

type documentMetadata struct {
	Size int64  `json:"size"`
	Type string `json:"type"`
}

// handleDocumentList answers a bare array (the old beta API wrapped it).
// Size, type and meta are those of the latest upload; chunks counts the
// chunks of the searchable version.
func (s *Server) handleDocumentList(c echo.Context) error {
	name, err := pathParam(c, "memoryName")
	if err != nil {
		return err
	}
	m, docs, err := s.deps.Memory.Documents(c.Request().Context(), principal(c).Owner, name)
	if err != nil {
		return err
	}
	out := make([]documentItem, len(docs))
	for i, d := range docs {
		var msg *string
		if d.StatusMessage != "" {
			msg = &d.StatusMessage
		}
		meta := d.Current.Meta
		if meta == nil {
			meta = map[string]string{}
		}
		chunks := 0
		if d.Live != nil {
			chunks = d.Live.Chunks
		}
		out[i] = documentItem{
			Name: d.Name, Status: d.Status, StatusMessage: msg,
			Metadata: documentMetadata{Size: d.Current.Size, Type: d.Current.ContentType},
			Meta:     meta, Enabled: true, ChunkSize: m.ChunkSize, ChunkOverlap: m.ChunkOverlap,
			OwnerLogin: m.Owner, Chunks: chunks, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
		}
	}
	return c.JSON(http.StatusOK, out)
}

func (s *Server) documentParams(c echo.Context) (memoryName, documentName string, err error) {
	if memoryName, err = pathParam(c, "memoryName"); err != nil {
		return "", "", err
	}
	documentName, err = pathParam(c, "documentName")
	return memoryName, documentName, err
}

func (s *Server) handleDocumentDelete(c echo.Context) error {
	mem, doc, err := s.documentParams(c)
	if err != nil {
		return err
	}
	if err := s.deps.Memory.DeleteDocument(c.Request().Context(), principal(c).Owner, mem, doc); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]bool{"success": true})
}

// handleDocumentRetry answers {success: true} when a failed document was
// queued again, and {success: false, message} (still 200, so the SDK hands
// it to the caller) when there was nothing to retry.
func (s *Server) handleDocumentRetry(c echo.Context) error {
	mem, doc, err := s.documentParams(c)
	if err != nil {
		return err
	}
	res, err := s.deps.Memory.RetryDocument(c.Request().Context(), principal(c).Owner, mem, doc)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"success": res.Started, "message": res.Message})
}

// handleUploadStart is step 1 of an upload: it answers the absolute signed
// URL the document's bytes are PUT to. The SDK sends the document name as
// fileName (deprecated); documentName wins when both are sent.
func (s *Server) handleUploadStart(c echo.Context) error {
	var body struct {
		MemoryName   string            `json:"memoryName"`
		DocumentName string            `json:"documentName"`
		FileName     string            `json:"fileName"`
		Meta         map[string]string `json:"meta"`
		// Chunking overrides the memory's chunk settings for this upload
		// (docs/memories-and-retrieval.md#structure-aware-chunking).
		Chunking *chunk.Settings `json:"chunking"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if err := principal(c).Scope.CheckMemory(body.MemoryName); err != nil {
		return err
	}
	name := body.DocumentName
	if name == "" {
		name = body.FileName
	}
	t, err := s.deps.Memory.CreateUploadChunked(c.Request().Context(), principal(c).Owner, body.MemoryName, name, body.Meta, body.Chunking)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{
		"signedUrl": s.cfg.PublicURL + uploadPath + t.Token,
		"expiresAt": t.ExpiresAt,
	})
}
