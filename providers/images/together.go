package images

import (
	"context"
	"net/http"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

// Together generates with POST /images/generations (FLUX and the other
// hosted image models). It takes width and height as given (Together
// checks them per model), steps, n up to 4, a negative prompt, and an
// image_url for image-to-image models such as FLUX.1 Kontext, which
// Together fetches itself. Images are asked for as base64.
type Together struct {
	baseURL string
	up      *providers.Upstream
}

var _ engine.ImageGenerator = (*Together)(nil)

type togetherImageRequest struct {
	Model          string `json:"model"`
	Prompt         string `json:"prompt"`
	Width          int    `json:"width,omitempty"`
	Height         int    `json:"height,omitempty"`
	Steps          int    `json:"steps,omitempty"`
	N              int    `json:"n,omitempty"`
	NegativePrompt string `json:"negative_prompt,omitempty"`
	ImageURL       string `json:"image_url,omitempty"`
	ResponseFormat string `json:"response_format"`
}

type togetherImageResponse struct {
	ID    string `json:"id"`
	Model string `json:"model"`
	Data  []struct {
		Index   int    `json:"index"`
		B64JSON string `json:"b64_json"`
		URL     string `json:"url"`
	} `json:"data"`
}

func (t *Together) check(req *engine.ImageRequest) error {
	name := "together:" + req.Model
	if req.Quality != "" {
		return refuse("quality", name, " (only openai image models take a quality)")
	}
	if req.Steps > 50 {
		return engine.FieldError("steps", "%s takes 1 to 50 steps", name)
	}
	return checkN(req, name, 4)
}

// GenerateImage implements engine.ImageGenerator.
func (t *Together) GenerateImage(ctx context.Context, req *engine.ImageRequest) (*engine.ImageResult, error) {
	if err := t.check(req); err != nil {
		return nil, err
	}
	body := togetherImageRequest{Model: req.Model, Prompt: req.Prompt, Steps: req.Steps, N: req.N,
		NegativePrompt: req.NegativePrompt, ImageURL: req.ImageURL, ResponseFormat: "base64"}
	if req.Size != "auto" {
		body.Width, body.Height = req.Width, req.Height
	}
	var resp togetherImageResponse
	err := t.up.PostJSON(ctx, t.baseURL+"/images/generations", body, &resp, func(h http.Header) {
		if req.APIKey != "" {
			h.Set("Authorization", "Bearer "+req.APIKey)
		}
	})
	if err != nil {
		return nil, err
	}
	res := &engine.ImageResult{ID: resp.ID, Model: resp.Model, FinishReason: "stop"}
	for _, d := range resp.Data {
		switch {
		case d.B64JSON != "":
			res.Images = append(res.Images, b64DataURL("", d.B64JSON))
		case d.URL != "":
			res.Images = append(res.Images, d.URL)
		}
	}
	return res, nil
}
