package images

import (
	"context"
	"net/http"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

// OpenRouter generates with POST /chat/completions and modalities
// ["image","text"]; the images come back in choices[].message.images[].
// A size maps to image_config.aspect_ratio (the Gemini ratios). An
// image_url is sent as an image_url content part, which OpenRouter
// fetches itself. One image per call: n > 1 becomes n concurrent calls.
type OpenRouter struct {
	baseURL string
	up      *providers.Upstream
}

var _ engine.ImageGenerator = (*OpenRouter)(nil)

type orImageRequest struct {
	Model       string           `json:"model"`
	Messages    []engine.Message `json:"messages"`
	Modalities  []string         `json:"modalities"`
	ImageConfig *orImageConfig   `json:"image_config,omitempty"`
}

type orImageConfig struct {
	AspectRatio string `json:"aspect_ratio"`
}

type orImageResponse struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		FinishReason       string `json:"finish_reason"`
		NativeFinishReason string `json:"native_finish_reason"`
		Message            struct {
			Content *string `json:"content"`
			Images  []struct {
				ImageURL struct {
					URL string `json:"url"`
				} `json:"image_url"`
			} `json:"images"`
		} `json:"message"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		TotalTokens         int `json:"total_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails *struct {
			ReasoningTokens int `json:"reasoning_tokens"`
			ImageTokens     int `json:"image_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
}

func (o *OpenRouter) check(req *engine.ImageRequest) (string, error) {
	name := "openrouter:" + req.Model
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
	return geminiRatios.aspect(req, name, catalogued("openrouter", req.Model).sizes)
}

// GenerateImage implements engine.ImageGenerator.
func (o *OpenRouter) GenerateImage(ctx context.Context, req *engine.ImageRequest) (*engine.ImageResult, error) {
	aspect, err := o.check(req)
	if err != nil {
		return nil, err
	}
	msg := engine.Message{Role: "user", Content: engine.TextContent(req.Prompt)}
	if req.ImageURL != "" {
		msg.Content = engine.Content{Set: true, Parts: []engine.ContentPart{
			{Type: "text", Text: req.Prompt},
			{Type: "image_url", ImageURL: &engine.ImageURL{URL: req.ImageURL}},
		}}
	}
	body := orImageRequest{Model: req.Model, Messages: []engine.Message{msg}, Modalities: []string{"image", "text"}}
	if aspect != "" {
		body.ImageConfig = &orImageConfig{AspectRatio: aspect}
	}
	return fanOut(ctx, req.N, func(ctx context.Context) (*engine.ImageResult, error) {
		var resp orImageResponse
		err := o.up.PostJSON(ctx, o.baseURL+"/chat/completions", body, &resp, func(h http.Header) {
			if req.APIKey != "" {
				h.Set("Authorization", "Bearer "+req.APIKey)
			}
		})
		if err != nil {
			return nil, err
		}
		res := &engine.ImageResult{ID: resp.ID, Model: resp.Model}
		for _, c := range resp.Choices {
			res.FinishReason, res.NativeFinishReason = c.FinishReason, c.NativeFinishReason
			if c.Message.Content != nil && *c.Message.Content != "" {
				res.Text += *c.Message.Content
			}
			for _, img := range c.Message.Images {
				if img.ImageURL.URL != "" {
					res.Images = append(res.Images, img.ImageURL.URL)
				}
			}
		}
		if u := resp.Usage; u != nil {
			res.Usage = engine.ImageUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
			if d := u.PromptTokensDetails; d != nil {
				res.Usage.PromptTokensDetails.CachedTokens = d.CachedTokens
			}
			if d := u.CompletionTokensDetails; d != nil {
				res.Usage.CompletionTokensDetails.ReasoningTokens = d.ReasoningTokens
				res.Usage.CompletionTokensDetails.ImageTokens = d.ImageTokens
			}
		}
		return res, nil
	})
}
