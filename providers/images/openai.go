package images

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

// OpenAI generates with POST /images/generations and, for image-to-image,
// POST /images/edits (multipart, the image bytes fetched by Hearth).
// gpt-image-1 always answers base64; DALL·E models are asked for
// b64_json so the answer holds data: URLs that do not expire (an answer
// with url items is passed through as https URLs).
type OpenAI struct {
	baseURL string
	up      *providers.Upstream
	fetch   *fetcher
}

var _ engine.ImageGenerator = (*OpenAI)(nil)

type oaiImageRequest struct {
	Model          string `json:"model"`
	Prompt         string `json:"prompt"`
	N              int    `json:"n,omitempty"`
	Size           string `json:"size,omitempty"`
	Quality        string `json:"quality,omitempty"`
	ResponseFormat string `json:"response_format,omitempty"`
}

type oaiImageResponse struct {
	Created      int64  `json:"created"`
	OutputFormat string `json:"output_format"`
	Data         []struct {
		B64JSON       string `json:"b64_json"`
		URL           string `json:"url"`
		RevisedPrompt string `json:"revised_prompt"`
	} `json:"data"`
	Usage *struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

// isDallE tells the DALL·E models (response_format, no usage) from the
// GPT image models.
func isDallE(model string) bool { return strings.HasPrefix(model, "dall-e") }

func (o *OpenAI) check(req *engine.ImageRequest) error {
	name := "openai:" + req.Model
	sp := catalogued("openai", req.Model)
	if req.Steps > 0 {
		return refuse("steps", name, " (only together image models take steps)")
	}
	if req.NegativePrompt != "" {
		return refuse("negative_prompt", name, " (only together image models take a negative prompt)")
	}
	if req.Size != "" && sp.known && !slices.Contains(sp.sizes, req.Size) {
		return engine.FieldError(sizeField(req), "%s is not supported by %s (allowed: %s)", req.Size, name, strings.Join(sp.sizes, ", "))
	}
	if req.Size == "auto" && isDallE(req.Model) {
		return engine.FieldError("size", "auto is not supported by %s (allowed: %s)", name, strings.Join(sp.sizes, ", "))
	}
	max := 10
	if req.Model == "dall-e-3" {
		max = 1
	}
	if err := checkN(req, name, max); err != nil {
		return err
	}
	if req.ImageURL != "" && req.Model == "dall-e-3" {
		return refuse("image_url", name, "; image-to-image needs openai:gpt-image-1 or openai:dall-e-2")
	}
	return checkQuality(req, name, sp)
}

// GenerateImage implements engine.ImageGenerator.
func (o *OpenAI) GenerateImage(ctx context.Context, req *engine.ImageRequest) (*engine.ImageResult, error) {
	if err := o.check(req); err != nil {
		return nil, err
	}
	body := oaiImageRequest{Model: req.Model, Prompt: req.Prompt, N: req.N, Size: req.Size, Quality: req.Quality}
	if isDallE(req.Model) {
		body.ResponseFormat = "b64_json"
	}
	var resp oaiImageResponse
	if req.ImageURL == "" {
		if err := o.up.PostJSON(ctx, o.baseURL+"/images/generations", body, &resp, o.headers(req.APIKey)); err != nil {
			return nil, err
		}
	} else {
		img, mime, err := o.fetch.image(ctx, req.ImageURL)
		if err != nil {
			return nil, err
		}
		form, ctype, err := editForm(body, img, mime)
		if err != nil {
			return nil, err
		}
		if err := o.up.Do(ctx, http.MethodPost, o.baseURL+"/images/edits", ctype, form, &resp, o.headers(req.APIKey)); err != nil {
			return nil, err
		}
	}
	res := &engine.ImageResult{Model: req.Model, FinishReason: "stop"}
	mime := ""
	if resp.OutputFormat != "" {
		mime = "image/" + resp.OutputFormat
	}
	for _, d := range resp.Data {
		switch {
		case d.B64JSON != "":
			res.Images = append(res.Images, b64DataURL(mime, d.B64JSON))
		case d.URL != "":
			res.Images = append(res.Images, d.URL)
		}
	}
	if u := resp.Usage; u != nil {
		res.Usage = engine.ImageUsage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
		res.Usage.CompletionTokensDetails.ImageTokens = u.OutputTokens
	}
	return res, nil
}

func (o *OpenAI) headers(apiKey string) func(http.Header) {
	return func(h http.Header) {
		if apiKey != "" {
			h.Set("Authorization", "Bearer "+apiKey)
		}
	}
}

// editForm builds the multipart body of /images/edits.
func editForm(r oaiImageRequest, img []byte, mime string) ([]byte, string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fields := [][2]string{{"model", r.Model}, {"prompt", r.Prompt}, {"size", r.Size}, {"quality", r.Quality}, {"response_format", r.ResponseFormat}}
	if r.N > 0 {
		fields = append(fields, [2]string{"n", strconv.Itoa(r.N)})
	}
	for _, f := range fields {
		if f[1] != "" {
			if err := w.WriteField(f[0], f[1]); err != nil {
				return nil, "", err
			}
		}
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="image"; filename="image.`+strings.TrimPrefix(mime, "image/")+`"`)
	h.Set("Content-Type", mime)
	part, err := w.CreatePart(h)
	if err != nil {
		return nil, "", err
	}
	if _, err := part.Write(img); err != nil {
		return nil, "", err
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}
