package server

import (
	"errors"
	"io"
	"net/http"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/labstack/echo/v4"
)

// uploadPath prefixes signed upload URLs: PUT /v1/uploads/<token>.
const uploadPath = "/v1/uploads/"

// uploadRoutes serve step 2 of an upload. The signed token is the proof;
// a bearer key, when sent (the SDK sends the user key), must be valid and
// belong to the owner the URL was issued to: an Authorization header that
// is not a live API key is refused, never ignored. Only this route (and the parser) accept
// bodies up to MaxUploadBytes.
func (s *Server) uploadRoutes() []Route {
	return []Route{
		{Method: http.MethodPut, Path: uploadPath + ":token", Auth: AuthOptional, Handler: s.handleUpload, BodyLimit: s.cfg.MaxUploadBytes,
			Doc: RouteDoc{Summary: "Upload step 2: the document bytes, to the signed URL", RequestType: "application/octet-stream", Response: uploadView{},
				Description: "The token in the URL is the proof; a bearer key, when sent, must belong to the same owner."}},
	}
}

// handleUpload stores the bytes and queues the document. The SDK returns
// this response as a raw fetch Response, so it mimics one: {ok, status,
// statusText} plus what was stored.
func (s *Server) handleUpload(c echo.Context) error {
	owner := ""
	if p := principal(c); p != nil {
		owner = p.Owner
	} else if c.Request().Header.Get("Authorization") != "" {
		return engine.Errorf(engine.CodeUnauthorized, "Authorization: not a valid API key (unknown, revoked or not a Bearer key); send a valid key or no Authorization header")
	}
	res, err := s.deps.Memory.CompleteUpload(c.Request().Context(), memory.UploadRequest{
		Token:       c.Param("token"),
		Owner:       owner,
		ContentType: c.Request().Header.Get("Content-Type"),
		Body:        limitErrors{c.Request().Body},
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{
		"ok": true, "status": http.StatusOK, "statusText": "OK",
		"memoryName": res.Memory, "documentName": res.Document,
		"size": res.Size, "contentType": res.ContentType, "documentStatus": memory.StatusQueued,
	})
}

// limitErrors turns the body limit's error into a 413 engine error and
// other read failures into a 400.
type limitErrors struct{ r io.Reader }

func (l limitErrors) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if err != nil && err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return n, engine.Errorf(engine.CodePayloadTooLarge, "the document is larger than the limit of %d bytes", mbe.Limit)
		}
		return n, engine.Wrap(err, engine.CodeBadRequest, "could not read the document body")
	}
	return n, err
}
