package images

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

// Google generates with the Gemini API: Imagen models (names starting
// with "imagen") through :predict with sampleCount and aspectRatio, and
// Gemini image models through :generateContent with responseModalities
// IMAGE, the images coming back as inlineData parts. Both take an aspect
// ratio, so a requested size maps to the ratio it has. Gemini makes one
// image per call: n > 1 becomes n concurrent calls. For image-to-image
// (Gemini only) Hearth fetches image_url and sends it inline.
type Google struct {
	baseURL string
	up      *providers.Upstream
	fetch   *fetcher
}

var _ engine.ImageGenerator = (*Google)(nil)

func isImagen(model string) bool { return strings.HasPrefix(model, "imagen") }

func (g *Google) url(model, method string) string {
	return g.baseURL + "/models/" + url.PathEscape(strings.TrimPrefix(model, "models/")) + ":" + method
}

func (g *Google) headers(apiKey string) func(http.Header) {
	return func(h http.Header) {
		if apiKey != "" {
			h.Set("x-goog-api-key", apiKey)
		}
	}
}

func (g *Google) check(req *engine.ImageRequest) (aspect string, err error) {
	name := "google:" + req.Model
	if req.Steps > 0 {
		return "", refuse("steps", name, " (only together image models take steps)")
	}
	if req.NegativePrompt != "" {
		return "", refuse("negative_prompt", name, " (only together image models take a negative prompt)")
	}
	if req.Quality != "" {
		return "", refuse("quality", name, " (only openai image models take a quality)")
	}
	if err := checkN(req, name, 4); err != nil {
		return "", err
	}
	sp := catalogued("google", req.Model)
	if isImagen(req.Model) {
		if req.ImageURL != "" {
			return "", refuse("image_url", name, "; image-to-image on google needs a Gemini image model such as google:gemini-2.5-flash-image")
		}
		return imagenRatios.aspect(req, name, sp.sizes)
	}
	return geminiRatios.aspect(req, name, sp.sizes)
}

// GenerateImage implements engine.ImageGenerator.
func (g *Google) GenerateImage(ctx context.Context, req *engine.ImageRequest) (*engine.ImageResult, error) {
	aspect, err := g.check(req)
	if err != nil {
		return nil, err
	}
	if isImagen(req.Model) {
		return g.imagen(ctx, req, aspect)
	}
	var input *gemBlob
	if req.ImageURL != "" {
		img, mime, err := g.fetch.image(ctx, req.ImageURL)
		if err != nil {
			return nil, err
		}
		input = &gemBlob{MimeType: mime, Data: base64.StdEncoding.EncodeToString(img)}
	}
	return fanOut(ctx, req.N, func(ctx context.Context) (*engine.ImageResult, error) {
		return g.gemini(ctx, req, aspect, input)
	})
}

type imagenRequest struct {
	Instances  []imagenInstance `json:"instances"`
	Parameters imagenParameters `json:"parameters"`
}

type imagenInstance struct {
	Prompt string `json:"prompt"`
}

type imagenParameters struct {
	SampleCount int    `json:"sampleCount"`
	AspectRatio string `json:"aspectRatio,omitempty"`
}

type imagenResponse struct {
	Predictions []struct {
		BytesBase64Encoded string `json:"bytesBase64Encoded"`
		MimeType           string `json:"mimeType"`
		RAIFilteredReason  string `json:"raiFilteredReason"`
	} `json:"predictions"`
}

func (g *Google) imagen(ctx context.Context, req *engine.ImageRequest, aspect string) (*engine.ImageResult, error) {
	body := imagenRequest{Instances: []imagenInstance{{Prompt: req.Prompt}},
		Parameters: imagenParameters{SampleCount: req.N, AspectRatio: aspect}}
	var resp imagenResponse
	if err := g.up.PostJSON(ctx, g.url(req.Model, "predict"), body, &resp, g.headers(req.APIKey)); err != nil {
		return nil, err
	}
	res := &engine.ImageResult{Model: req.Model, FinishReason: "stop"}
	var filtered []string
	for _, p := range resp.Predictions {
		if p.BytesBase64Encoded != "" {
			res.Images = append(res.Images, b64DataURL(p.MimeType, p.BytesBase64Encoded))
		} else if p.RAIFilteredReason != "" {
			filtered = append(filtered, p.RAIFilteredReason)
		}
	}
	if len(res.Images) == 0 && len(filtered) > 0 {
		return nil, engine.Errorf(engine.CodeBadRequest, "google filtered every image of this prompt: %s", strings.Join(filtered, "; "))
	}
	return res, nil
}

type gemBlob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

type gemPart struct {
	Text       string   `json:"text,omitempty"`
	InlineData *gemBlob `json:"inlineData,omitempty"`
	Thought    bool     `json:"thought,omitempty"`
}

type gemContent struct {
	Role  string    `json:"role,omitempty"`
	Parts []gemPart `json:"parts"`
}

type gemImageRequest struct {
	Contents         []gemContent   `json:"contents"`
	GenerationConfig gemImageConfig `json:"generationConfig"`
}

type gemImageConfig struct {
	ResponseModalities []string       `json:"responseModalities"`
	ImageConfig        *gemAspectOnly `json:"imageConfig,omitempty"`
}

type gemAspectOnly struct {
	AspectRatio string `json:"aspectRatio"`
}

type gemImageResponse struct {
	Candidates []struct {
		Content      gemContent `json:"content"`
		FinishReason string     `json:"finishReason"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata *struct {
		PromptTokenCount        int `json:"promptTokenCount"`
		CandidatesTokenCount    int `json:"candidatesTokenCount"`
		TotalTokenCount         int `json:"totalTokenCount"`
		ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
		CachedContentTokenCount int `json:"cachedContentTokenCount"`
		CandidatesTokensDetails []struct {
			Modality   string `json:"modality"`
			TokenCount int    `json:"tokenCount"`
		} `json:"candidatesTokensDetails"`
	} `json:"usageMetadata"`
	ModelVersion string `json:"modelVersion"`
	ResponseID   string `json:"responseId"`
}

func (g *Google) gemini(ctx context.Context, req *engine.ImageRequest, aspect string, input *gemBlob) (*engine.ImageResult, error) {
	parts := []gemPart{{Text: req.Prompt}}
	if input != nil {
		parts = append(parts, gemPart{InlineData: input})
	}
	body := gemImageRequest{Contents: []gemContent{{Role: "user", Parts: parts}},
		GenerationConfig: gemImageConfig{ResponseModalities: []string{"TEXT", "IMAGE"}}}
	if aspect != "" {
		body.GenerationConfig.ImageConfig = &gemAspectOnly{AspectRatio: aspect}
	}
	var resp gemImageResponse
	if err := g.up.PostJSON(ctx, g.url(req.Model, "generateContent"), body, &resp, g.headers(req.APIKey)); err != nil {
		return nil, err
	}
	if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" && len(resp.Candidates) == 0 {
		return nil, engine.Errorf(engine.CodeBadRequest, "google blocked the prompt (%s)", pf.BlockReason)
	}
	res := &engine.ImageResult{ID: resp.ResponseID, Model: req.Model, FinishReason: "stop"}
	if resp.ModelVersion != "" {
		res.Model = resp.ModelVersion
	}
	var texts []string
	for _, c := range resp.Candidates {
		res.NativeFinishReason = c.FinishReason
		if c.FinishReason != "" && c.FinishReason != "STOP" {
			res.FinishReason = "content_filter"
			if c.FinishReason == "MAX_TOKENS" {
				res.FinishReason = "length"
			}
		}
		for _, p := range c.Content.Parts {
			switch {
			case p.Thought:
			case p.InlineData != nil && strings.HasPrefix(p.InlineData.MimeType, "image/"):
				res.Images = append(res.Images, b64DataURL(p.InlineData.MimeType, p.InlineData.Data))
			case p.Text != "":
				texts = append(texts, p.Text)
			}
		}
	}
	res.Text = strings.Join(texts, "")
	if u := resp.UsageMetadata; u != nil {
		res.Usage = engine.ImageUsage{PromptTokens: u.PromptTokenCount, CompletionTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount, TotalTokens: u.TotalTokenCount}
		res.Usage.PromptTokensDetails.CachedTokens = u.CachedContentTokenCount
		res.Usage.CompletionTokensDetails.ReasoningTokens = u.ThoughtsTokenCount
		for _, d := range u.CandidatesTokensDetails {
			if d.Modality == "IMAGE" {
				res.Usage.CompletionTokensDetails.ImageTokens += d.TokenCount
			}
		}
	}
	return res, nil
}
