package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// This file is image generation: the request Hearth accepts at /v1/images,
// the provider-neutral call adapters implement, and the response shape the
// langbase SDK reads (ImageGenerationResponse in its d.ts).

// MaxImagePrompt bounds the prompt of an image request (bytes).
const MaxImagePrompt = 32000

// ImageGenerateRequest is the body of POST /v1/images. Pointers tell
// "absent" from zero so a zero gets a clear error.
type ImageGenerateRequest struct {
	Prompt         string `json:"prompt"`
	Model          string `json:"model"`
	Width          *int   `json:"width"`
	Height         *int   `json:"height"`
	Size           string `json:"size"`
	N              *int   `json:"n"`
	Steps          *int   `json:"steps"`
	ImageURL       string `json:"image_url"`
	NegativePrompt string `json:"negative_prompt"`
	Quality        string `json:"quality"`
}

// ImageRequest is one generation call to an image adapter. Size is
// normalised: "" (the model's default), "auto" or "WxH" with Width and
// Height set. Adapters validate what depends on the model (allowed sizes,
// n, whether steps, image_url or negative_prompt are supported) and
// report it with FieldError naming the field and the allowed values.
type ImageRequest struct {
	Model         string
	Prompt        string
	Size          string
	Width, Height int
	// SizeFromString says the size came from "size", not width/height
	// (errors name the field the caller used).
	SizeFromString bool
	N              int
	Steps          int
	ImageURL       string
	NegativePrompt string
	Quality        string
	APIKey         string
}

// ImageResult is what an adapter returns: the images as data: URLs or
// https URLs, the text some models add, and the usage it reported.
type ImageResult struct {
	ID                 string
	Model              string
	Images             []string
	Text               string
	FinishReason       string
	NativeFinishReason string
	Usage              ImageUsage
}

// ImageGenerator is one provider's image adapter.
type ImageGenerator interface {
	GenerateImage(ctx context.Context, req *ImageRequest) (*ImageResult, error)
}

// ImageModels finds the image adapter of a model's provider. It returns a
// BAD_REQUEST naming the model field when the provider makes no images.
type ImageModels interface {
	ImageModel(ref ModelRef) (ImageGenerator, error)
}

// ImageGenerationResponse is the /v1/images answer (docs/tools.md#images).
type ImageGenerationResponse struct {
	ID       string        `json:"id"`
	Provider string        `json:"provider"`
	Model    string        `json:"model"`
	Object   string        `json:"object"`
	Created  int64         `json:"created"`
	Choices  []ImageChoice `json:"choices"`
	Usage    ImageUsage    `json:"usage"`
}

// ImageChoice is the one choice of an image answer.
type ImageChoice struct {
	Logprobs           *struct{}    `json:"logprobs"`
	FinishReason       string       `json:"finish_reason"`
	NativeFinishReason string       `json:"native_finish_reason"`
	Index              int          `json:"index"`
	Message            ImageMessage `json:"message"`
}

// ImageMessage carries the images; Content is null unless the model wrote text.
type ImageMessage struct {
	Role    string       `json:"role"`
	Content *string      `json:"content"`
	Images  []ImageEntry `json:"images"`
}

// ImageEntry is one generated image.
type ImageEntry struct {
	Type     string   `json:"type"`
	ImageURL ImageRef `json:"image_url"`
	Index    int      `json:"index"`
}

// ImageRef holds a data: URL or an https URL.
type ImageRef struct {
	URL string `json:"url"`
}

// ImageUsage is the usage block of an image answer; every number is always sent.
type ImageUsage struct {
	PromptTokens            int                `json:"prompt_tokens"`
	CompletionTokens        int                `json:"completion_tokens"`
	TotalTokens             int                `json:"total_tokens"`
	PromptTokensDetails     ImagePromptDetails `json:"prompt_tokens_details"`
	CompletionTokensDetails ImageTokensDetails `json:"completion_tokens_details"`
}

// ImagePromptDetails splits prompt tokens.
type ImagePromptDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// ImageTokensDetails splits completion tokens.
type ImageTokensDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
	ImageTokens     int `json:"image_tokens"`
}

// Add sums usage (adapters that fan one request out into several calls).
func (u *ImageUsage) Add(o ImageUsage) {
	u.PromptTokens += o.PromptTokens
	u.CompletionTokens += o.CompletionTokens
	u.TotalTokens += o.TotalTokens
	u.PromptTokensDetails.CachedTokens += o.PromptTokensDetails.CachedTokens
	u.CompletionTokensDetails.ReasoningTokens += o.CompletionTokensDetails.ReasoningTokens
	u.CompletionTokensDetails.ImageTokens += o.CompletionTokensDetails.ImageTokens
}

// Images is the image generation use case: validate, resolve the provider
// key, call the provider's adapter, shape the answer.
type Images struct {
	models ImageModels
	keys   *Keysets
	now    func() time.Time
}

// NewImages returns the image service. keys may be nil in tests that send
// every key in the request.
func NewImages(models ImageModels, keys *Keysets) *Images {
	return &Images{models: models, keys: keys, now: time.Now}
}

// Generate runs one image request for owner; requestKey is the LB-LLM-Key
// header (empty when absent).
func (s *Images) Generate(ctx context.Context, owner, requestKey string, in *ImageGenerateRequest) (*ImageGenerationResponse, error) {
	req, ref, err := in.normalize()
	if err != nil {
		return nil, err
	}
	if s.models == nil {
		return nil, Errorf(CodeUnavailable, "image generation is not configured on this server")
	}
	gen, err := s.models.ImageModel(ref)
	if err != nil {
		return nil, err
	}
	if s.keys != nil {
		if req.APIKey, err = s.keys.Resolve(ctx, ref.Provider, requestKey, "", owner); err != nil {
			return nil, err
		}
		// A pooled key list goes to the adapter whole: the providers
		// package spreads it over the keys (docs/providers.md#key-pools).
	} else {
		req.APIKey = strings.TrimSpace(requestKey)
	}
	res, err := gen.GenerateImage(ctx, req)
	if err != nil {
		return nil, err
	}
	if len(res.Images) == 0 {
		// A model that stopped for safety refused this prompt: the caller
		// can change it. Anything else is the upstream's failure.
		code := CodeUpstream
		if res.FinishReason == "content_filter" {
			code = CodeBadRequest
		}
		msg := fmt.Sprintf("%s returned no image", ref)
		if res.NativeFinishReason != "" {
			msg += " (finish reason " + res.NativeFinishReason + ")"
		}
		if res.Text != "" {
			msg += ": " + clipText(res.Text, 300)
		}
		return nil, Errorf(code, "%s", msg)
	}
	return s.response(ctx, ref, res), nil
}

func (s *Images) response(ctx context.Context, ref ModelRef, res *ImageResult) *ImageGenerationResponse {
	id := res.ID
	if id == "" {
		id = "img-" + NewID(ctx, 24)
	}
	model := res.Model
	if model == "" {
		model = ref.Model
	}
	finish, native := res.FinishReason, res.NativeFinishReason
	if finish == "" {
		finish = "stop"
	}
	if native == "" {
		native = finish
	}
	msg := ImageMessage{Role: "assistant", Images: make([]ImageEntry, len(res.Images))}
	if res.Text != "" {
		t := res.Text
		msg.Content = &t
	}
	for i, u := range res.Images {
		msg.Images[i] = ImageEntry{Type: "image_url", ImageURL: ImageRef{URL: u}, Index: i}
	}
	u := res.Usage
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	return &ImageGenerationResponse{
		ID: id, Provider: ref.Provider, Model: model, Object: "chat.completion", Created: NowFrom(ctx, s.now).Unix(),
		Choices: []ImageChoice{{FinishReason: finish, NativeFinishReason: native, Message: msg}},
		Usage:   u,
	}
}

// normalize checks the fields that do not depend on the model and builds
// the adapter request.
func (in *ImageGenerateRequest) normalize() (*ImageRequest, ModelRef, error) {
	if strings.TrimSpace(in.Prompt) == "" {
		return nil, ModelRef{}, FieldError("prompt", "is required")
	}
	if len(in.Prompt) > MaxImagePrompt {
		return nil, ModelRef{}, FieldError("prompt", "must be at most %d bytes", MaxImagePrompt)
	}
	if strings.TrimSpace(in.Model) == "" {
		return nil, ModelRef{}, FieldError("model", "is required (provider:model, for example openai:gpt-image-1)")
	}
	ref, err := ParseModelID("model", strings.TrimSpace(in.Model))
	if err != nil {
		return nil, ModelRef{}, err
	}
	req := &ImageRequest{Model: ref.Model, Prompt: in.Prompt, N: 1, ImageURL: strings.TrimSpace(in.ImageURL),
		NegativePrompt: in.NegativePrompt, Quality: strings.TrimSpace(in.Quality)}
	if err := req.setSize(in.Width, in.Height, in.Size); err != nil {
		return nil, ModelRef{}, err
	}
	if in.N != nil {
		if *in.N < 1 || *in.N > 10 {
			return nil, ModelRef{}, FieldError("n", "must be from 1 to 10")
		}
		req.N = *in.N
	}
	if in.Steps != nil {
		if *in.Steps < 1 || *in.Steps > 100 {
			return nil, ModelRef{}, FieldError("steps", "must be from 1 to 100")
		}
		req.Steps = *in.Steps
	}
	if u := req.ImageURL; u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "data:image/") {
		return nil, ModelRef{}, FieldError("image_url", "must be an http(s) URL or a data:image/... URL")
	}
	return req, ref, nil
}

// setSize picks the size from width and height (both or neither), else
// from the "WxH" size string the SDK sample sends.
func (r *ImageRequest) setSize(width, height *int, size string) error {
	switch {
	case width != nil && height != nil:
		if *width < 64 || *width > 8192 {
			return FieldError("width", "must be from 64 to 8192 pixels")
		}
		if *height < 64 || *height > 8192 {
			return FieldError("height", "must be from 64 to 8192 pixels")
		}
		r.Width, r.Height = *width, *height
	case width != nil:
		return FieldError("height", "is required when width is given")
	case height != nil:
		return FieldError("width", "is required when height is given")
	case strings.TrimSpace(size) != "":
		s := strings.ToLower(strings.TrimSpace(size))
		if s == "auto" {
			r.Size = s
			return nil
		}
		w, h, ok := ParseSize(s)
		if !ok {
			return FieldError("size", "%q must have the form WIDTHxHEIGHT, for example 1024x1024", size)
		}
		r.Width, r.Height, r.SizeFromString = w, h, true
	default:
		return nil
	}
	r.Size = strconv.Itoa(r.Width) + "x" + strconv.Itoa(r.Height)
	return nil
}

// ParseSize parses "WxH" with positive whole numbers.
func ParseSize(s string) (w, h int, ok bool) {
	a, b, found := strings.Cut(strings.ToLower(s), "x")
	if !found {
		return 0, 0, false
	}
	w, err1 := strconv.Atoi(a)
	h, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || w <= 0 || h <= 0 {
		return 0, 0, false
	}
	return w, h, true
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// Check reports whether ref is a model the image adapters can run (nil)
// or why not, without any call.
func (s *Images) Check(ref ModelRef) error {
	if s.models == nil {
		return Errorf(CodeUnavailable, "image generation is not configured on this server")
	}
	_, err := s.models.ImageModel(ref)
	return err
}
