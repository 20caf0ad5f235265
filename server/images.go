package server

import (
	"net/http"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// maxImageBody allows an image_url sent inline as a data: URL (the input
// image is capped at 20 MiB, about 27 MiB in base64).
const maxImageBody = 32 << 20

func (s *Server) imageRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/v1/images", Auth: AuthOwner, Handler: s.handleImageGenerate, BodyLimit: maxImageBody,
			Doc: RouteDoc{Summary: "Generate images", Request: engine.ImageGenerateRequest{}, Response: engine.ImageGenerationResponse{}}},
	}
}

// handleImageGenerate generates images. The provider key comes from the
// LB-LLM-Key header (the SDK removes apiKey from the body), else the
// owner's keyset, else the server's key.
func (s *Server) handleImageGenerate(c echo.Context) error {
	var req engine.ImageGenerateRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	res, err := s.generateImages(c, &req, "/v1/images")
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}
