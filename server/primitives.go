package server

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/chunk"
	"github.com/labstack/echo/v4"
)

// parserOverhead is the room the parser's body limit leaves for the
// multipart framing and the documentName field around a document of
// MaxUploadBytes.
const parserOverhead = 64 << 10

func (s *Server) primitiveRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/v1/embed", Auth: AuthOwner, Handler: s.handleEmbed,
			Doc: RouteDoc{Summary: "Embed texts", Request: embedBody{}, Response: [][]float64{}}},
		{Method: http.MethodPost, Path: "/v1/chunker", Auth: AuthOwner, Handler: s.handleChunker,
			Doc: RouteDoc{Summary: "Split text into chunks", Request: chunkerBody{}, Response: []string{}}},
		{Method: http.MethodPost, Path: "/v1/parser", Auth: AuthOwner, Handler: s.handleParser, BodyLimit: s.cfg.MaxUploadBytes + parserOverhead,
			Doc: RouteDoc{Summary: "Extract text from a document (multipart: document, documentName)", RequestType: "multipart/form-data", Response: parserView{}}},
	}
}

// handleEmbed answers a bare number[][], one vector per chunk. The
// provider key is the LB-LLM-Key header when sent, else the owner's keyset
// or the server's key.
func (s *Server) handleEmbed(c echo.Context) error {
	var body struct {
		Chunks         []string `json:"chunks"`
		EmbeddingModel string   `json:"embeddingModel"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if err := s.checkBudget(c, principal(c).Owner); err != nil {
		return err
	}
	vecs, err := s.deps.Memory.Embed(c.Request().Context(), principal(c).Owner, body.Chunks, body.EmbeddingModel, c.Request().Header.Get("LB-LLM-Key"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, vecs)
}

// handleChunker answers a bare string[]. The length and overlap rules are
// chunk.ChunkerLimits; the answer is bounded by chunk.ChunkerBounds
// (docs/security.md#parser-and-chunker-limits).
func (s *Server) handleChunker(c echo.Context) error {
	var body struct {
		Content        *string `json:"content"`
		ChunkMaxLength *int    `json:"chunkMaxLength"`
		ChunkOverlap   *int    `json:"chunkOverlap"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if body.Content == nil {
		return engine.FieldError("content", "is required")
	}
	maxLen, overlap := chunk.ChunkerDefaultLength, chunk.ChunkerDefaultOverlap
	if body.ChunkMaxLength != nil {
		maxLen = *body.ChunkMaxLength
	}
	if body.ChunkOverlap != nil {
		overlap = *body.ChunkOverlap
	}
	if err := chunk.ChunkerLimits().Validate(maxLen, overlap, "chunkMaxLength", "chunkOverlap"); err != nil {
		return err
	}
	out, err := chunk.SplitWithin(*body.Content, maxLen, overlap, chunk.ChunkerBounds(), "content")
	if err != nil {
		return err
	}
	if out == nil {
		out = []string{}
	}
	return c.JSON(http.StatusOK, out)
}

// handleParser reads a multipart form with a "document" file part and a
// "documentName" text field and answers {documentName, content}. The SDK
// hands any answer to the caller unchecked, so every failure is JSON too.
func (s *Server) handleParser(c echo.Context) error {
	r := c.Request()
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		return &engine.Error{Code: engine.CodeUnsupportedMedia, Field: "Content-Type",
			Message: "Content-Type must be multipart/form-data with a \"document\" file part and a \"documentName\" field"}
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return engine.Wrap(err, engine.CodeBadRequest, "invalid multipart body")
	}
	var data []byte
	var name, fileName, partType string
	seenDoc := false
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return multipartError(err)
		}
		switch p.FormName() {
		case "document":
			seenDoc = true
			fileName, partType = p.FileName(), p.Header.Get("Content-Type")
			data, err = io.ReadAll(io.LimitReader(p, s.cfg.MaxUploadBytes+1))
			if err != nil {
				return multipartError(err)
			}
			if int64(len(data)) > s.cfg.MaxUploadBytes {
				return engine.Errorf(engine.CodePayloadTooLarge, "the document is larger than the limit of %d bytes", s.cfg.MaxUploadBytes)
			}
		case "documentName":
			b, err := io.ReadAll(io.LimitReader(p, 1024))
			if err != nil {
				return multipartError(err)
			}
			name = strings.TrimSpace(string(b))
		default:
			if _, err := io.Copy(io.Discard, p); err != nil {
				return multipartError(err)
			}
		}
	}
	if !seenDoc {
		return engine.FieldError("document", "is required: send the file as a multipart part named \"document\"")
	}
	if name == "" {
		name = fileName
	}
	if name == "" {
		return engine.FieldError("documentName", "is required")
	}
	text, err := s.deps.Memory.Parse(r.Context(), partType, name, data)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"documentName": name, "content": text})
}

func multipartError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return engine.Errorf(engine.CodePayloadTooLarge, "the request body is larger than the limit of %d bytes", mbe.Limit)
	}
	return engine.Wrap(err, engine.CodeBadRequest, "invalid multipart body: %s", err.Error())
}
