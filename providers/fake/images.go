package fake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"time"
)

// PNG is the image every fake image upstream returns: a valid 2x2 PNG.
var PNG = func() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	img.Set(1, 1, color.RGBA{B: 255, A: 255})
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}()

// PNGBase64 is PNG in standard base64; PNGDataURL is its data: URL.
var (
	PNGBase64  = base64.StdEncoding.EncodeToString(PNG)
	PNGDataURL = "data:image/png;base64," + PNGBase64
)

// Multipart decodes a recorded multipart/form-data request: its text
// fields and its files (by field name).
func (r Request) Multipart() (fields map[string]string, files map[string][]byte) {
	fields, files = map[string]string{}, map[string][]byte{}
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return
	}
	mr := multipart.NewReader(bytes.NewReader(r.Body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			return
		}
		b, _ := io.ReadAll(p)
		if p.FileName() != "" {
			files[p.FormName()] = b
		} else {
			fields[p.FormName()] = string(b)
		}
	}
}

// serveFile answers GET /files/<name> with PNG (the "url" outputs).
func serveFile(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet || !strings.Contains(r.URL.Path, "/files/") {
		return false
	}
	w.Header().Set("Content-Type", "image/png")
	w.Write(PNG)
	return true
}

func oaiError(w http.ResponseWriter, rep Reply) {
	typ := "invalid_request_error"
	switch rep.Status {
	case 401:
		typ = "authentication_error"
	case 429:
		typ = "rate_limit_exceeded"
	case 500, 502, 503:
		typ = "server_error"
	}
	writeError(w, rep, map[string]any{"error": map[string]any{"message": errorMessage(rep), "type": typ, "param": nil, "code": nil}})
}

func bearer(r *http.Request) bool {
	return strings.TrimSpace(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")) != ""
}

// openAIImageSizes are the sizes the real API accepts per model.
var openAIImageSizes = map[string][]string{
	"gpt-image-1": {"1024x1024", "1024x1536", "1536x1024", "auto"},
	"dall-e-3":    {"1024x1024", "1792x1024", "1024x1792"},
	"dall-e-2":    {"256x256", "512x512", "1024x1024"},
}

// NewOpenAIImages starts a fake OpenAI Images API: POST /images/generations
// (JSON) and POST /images/edits (multipart with an "image" file). It
// answers like the real API: gpt-image models always base64 with token
// usage and refuse response_format; DALL·E models answer url (served by
// the fake under /files/) or b64_json; sizes and n are checked per model.
// BaseURL ends in /v1.
func NewOpenAIImages() *Server { return newServer("openai-images", "/v1", handleOpenAIImages) }

func handleOpenAIImages(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply) {
	if serveFile(w, r) {
		return
	}
	if rep.Status >= 400 {
		oaiError(w, rep)
		return
	}
	if !bearer(r) {
		oaiError(w, Reply{Status: 401, Message: "You didn't provide an API key."})
		return
	}
	var req struct {
		Model          string          `json:"model"`
		Prompt         string          `json:"prompt"`
		N              json.RawMessage `json:"n"`
		Size           string          `json:"size"`
		ResponseFormat *string         `json:"response_format"`
	}
	switch {
	case strings.HasSuffix(r.URL.Path, "/images/generations"):
		if err := json.Unmarshal(body, &req); err != nil {
			oaiError(w, Reply{Status: 400, Message: "We could not parse the JSON body of your request."})
			return
		}
	case strings.HasSuffix(r.URL.Path, "/images/edits"):
		fields, files := Request{Header: r.Header, Body: body}.Multipart()
		if len(files["image"]) == 0 && len(files["image[]"]) == 0 {
			oaiError(w, Reply{Status: 400, Message: "Missing required parameter: 'image'."})
			return
		}
		req.Model, req.Prompt, req.Size = fields["model"], fields["prompt"], fields["size"]
		if n := fields["n"]; n != "" {
			req.N = json.RawMessage(n)
		}
		if f, ok := fields["response_format"]; ok {
			req.ResponseFormat = &f
		}
		if req.Model == "dall-e-3" {
			oaiError(w, Reply{Status: 400, Message: "Invalid value: 'dall-e-3'. Value must be 'dall-e-2' or 'gpt-image-1'."})
			return
		}
	default:
		writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "Invalid URL (POST " + r.URL.Path + ")", "type": "invalid_request_error"}})
		return
	}
	if req.Prompt == "" {
		oaiError(w, Reply{Status: 400, Message: "Missing required parameter: 'prompt'."})
		return
	}
	n := 1
	if len(req.N) > 0 {
		json.Unmarshal(req.N, &n)
	}
	gpt := strings.HasPrefix(req.Model, "gpt-image")
	if sizes, ok := openAIImageSizes[req.Model]; ok && req.Size != "" && !slices.Contains(sizes, req.Size) {
		oaiError(w, Reply{Status: 400, Message: fmt.Sprintf("Invalid value: '%s'. Supported values are: '%s'.", req.Size, strings.Join(sizes, "', '"))})
		return
	}
	if req.Model == "dall-e-3" && n != 1 {
		oaiError(w, Reply{Status: 400, Message: "Invalid 'n': integer above maximum value. Expected a value <= 1."})
		return
	}
	if gpt && req.ResponseFormat != nil {
		oaiError(w, Reply{Status: 400, Message: "Unknown parameter: 'response_format'."})
		return
	}
	data := make([]map[string]any, n)
	for i := range data {
		switch {
		case gpt || (req.ResponseFormat != nil && *req.ResponseFormat == "b64_json"):
			data[i] = map[string]any{"b64_json": PNGBase64}
		default:
			data[i] = map[string]any{"url": fmt.Sprintf("%s/files/img-%d.png", s.URL, i)}
		}
		if req.Model == "dall-e-3" {
			data[i]["revised_prompt"] = "A revised " + req.Prompt
		}
	}
	resp := map[string]any{"created": time.Now().Unix(), "data": data}
	if gpt {
		u := rep.usage()
		resp["usage"] = map[string]any{"input_tokens": u.PromptTokens, "output_tokens": 272 * n, "total_tokens": u.PromptTokens + 272*n,
			"input_tokens_details": map[string]int{"text_tokens": u.PromptTokens, "image_tokens": 0}}
		resp["output_format"], resp["quality"], resp["background"] = "png", "medium", "opaque"
		resp["size"] = req.Size
	}
	writeJSON(w, 200, resp)
}

// NewTogetherImages starts a fake Together images API: POST
// /images/generations with width, height, steps, n (at most 4),
// negative_prompt, image_url and response_format "base64" or "url".
// BaseURL ends in /v1.
func NewTogetherImages() *Server { return newServer("together-images", "/v1", handleTogetherImages) }

func handleTogetherImages(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply) {
	if serveFile(w, r) {
		return
	}
	if rep.Status >= 400 {
		writeError(w, rep, map[string]any{"error": map[string]any{"message": errorMessage(rep), "type": "invalid_request_error"}})
		return
	}
	if !bearer(r) {
		writeJSON(w, 401, map[string]any{"error": map[string]any{"message": "Invalid API key provided.", "type": "invalid_request_error", "code": "invalid_api_key"}})
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/images/generations") {
		writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "not found"}})
		return
	}
	var req struct {
		Model          string `json:"model"`
		Prompt         string `json:"prompt"`
		N              int    `json:"n"`
		Steps          int    `json:"steps"`
		ResponseFormat string `json:"response_format"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Prompt == "" || req.Model == "" {
		writeJSON(w, 400, map[string]any{"error": map[string]any{"message": "prompt and model are required", "type": "invalid_request_error"}})
		return
	}
	if req.N == 0 {
		req.N = 1
	}
	if req.N > 4 || req.Steps > 50 {
		writeJSON(w, 400, map[string]any{"error": map[string]any{"message": "n must be at most 4 and steps at most 50", "type": "invalid_request_error"}})
		return
	}
	data := make([]map[string]any, req.N)
	for i := range data {
		if req.ResponseFormat == "base64" || req.ResponseFormat == "b64_json" {
			data[i] = map[string]any{"index": i, "b64_json": PNGBase64, "type": "b64_json"}
		} else {
			data[i] = map[string]any{"index": i, "url": fmt.Sprintf("%s/files/together-%d.png", s.URL, i), "type": "url"}
		}
	}
	writeJSON(w, 200, map[string]any{"id": "fake-together-img", "model": req.Model, "object": "list", "data": data})
}

// geminiRatios are the aspect ratios Gemini image models and Imagen accept.
var (
	geminiRatios = []string{"1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9"}
	imagenRatios = []string{"1:1", "3:4", "4:3", "9:16", "16:9"}
)

// NewGoogleImages starts a fake Gemini API for images: POST
// /models/{model}:generateContent with responseModalities IMAGE answers
// inlineData image parts (a Reply's Text adds a text part; a Reply's
// Finish other than STOP answers no image), and POST
// /models/{imagen}:predict answers sampleCount predictions. BaseURL ends
// in /v1beta.
func NewGoogleImages() *Server { return newServer("google-images", "/v1beta", handleGoogleImages) }

func gemError(w http.ResponseWriter, rep Reply) {
	status := map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}[rep.Status]
	writeError(w, rep, map[string]any{"error": map[string]any{"code": rep.Status, "message": errorMessage(rep), "status": status}})
}

func handleGoogleImages(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply) {
	if rep.Status >= 400 {
		gemError(w, rep)
		return
	}
	if r.Header.Get("x-goog-api-key") == "" {
		gemError(w, Reply{Status: 403, Message: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."})
		return
	}
	model, method, _ := strings.Cut(r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:], ":")
	switch method {
	case "predict":
		var req struct {
			Instances []struct {
				Prompt string `json:"prompt"`
			} `json:"instances"`
			Parameters struct {
				SampleCount int    `json:"sampleCount"`
				AspectRatio string `json:"aspectRatio"`
			} `json:"parameters"`
		}
		if json.Unmarshal(body, &req) != nil || len(req.Instances) == 0 || req.Instances[0].Prompt == "" {
			gemError(w, Reply{Status: 400, Message: "Invalid JSON payload: instances[0].prompt is required"})
			return
		}
		n := max(req.Parameters.SampleCount, 1)
		if n > 4 || (req.Parameters.AspectRatio != "" && !slices.Contains(imagenRatios, req.Parameters.AspectRatio)) {
			gemError(w, Reply{Status: 400, Message: "Image generation failed with the following error: invalid sampleCount or aspectRatio"})
			return
		}
		preds := make([]map[string]any, n)
		for i := range preds {
			preds[i] = map[string]any{"bytesBase64Encoded": PNGBase64, "mimeType": "image/png"}
		}
		writeJSON(w, 200, map[string]any{"predictions": preds})
	case "generateContent":
		var req struct {
			Contents []struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"contents"`
			GenerationConfig struct {
				ResponseModalities []string `json:"responseModalities"`
				ImageConfig        *struct {
					AspectRatio string `json:"aspectRatio"`
				} `json:"imageConfig"`
			} `json:"generationConfig"`
		}
		if json.Unmarshal(body, &req) != nil || len(req.Contents) == 0 {
			gemError(w, Reply{Status: 400, Message: "* GenerateContentRequest.contents: contents is not specified"})
			return
		}
		if ic := req.GenerationConfig.ImageConfig; ic != nil && !slices.Contains(geminiRatios, ic.AspectRatio) {
			gemError(w, Reply{Status: 400, Message: "* GenerateContentRequest.generation_config.image_config.aspect_ratio: unsupported aspect ratio"})
			return
		}
		finish := "STOP"
		if rep.Finish != "" {
			finish = rep.Finish
		}
		var parts []map[string]any
		if rep.Text != "" {
			parts = append(parts, map[string]any{"text": rep.Text})
		}
		image := slices.Contains(req.GenerationConfig.ResponseModalities, "IMAGE") && finish == "STOP"
		if image {
			parts = append(parts, map[string]any{"inlineData": map[string]any{"mimeType": "image/png", "data": PNGBase64}})
		}
		u := rep.usage()
		imageTokens := 0
		if image {
			imageTokens = 1290
		}
		cand := map[string]any{"finishReason": finish, "index": 0}
		if len(parts) > 0 {
			cand["content"] = map[string]any{"role": "model", "parts": parts}
		}
		writeJSON(w, 200, map[string]any{
			"candidates": []any{cand},
			"usageMetadata": map[string]any{"promptTokenCount": u.PromptTokens, "candidatesTokenCount": imageTokens + u.CompletionTokens,
				"totalTokenCount":         u.PromptTokens + imageTokens + u.CompletionTokens,
				"promptTokensDetails":     []any{map[string]any{"modality": "TEXT", "tokenCount": u.PromptTokens}},
				"candidatesTokensDetails": []any{map[string]any{"modality": "IMAGE", "tokenCount": imageTokens}, map[string]any{"modality": "TEXT", "tokenCount": u.CompletionTokens}}},
			"modelVersion": model,
			"responseId":   "fake-gemini-image",
		})
	default:
		gemError(w, Reply{Status: 404, Message: "method not found"})
	}
}

// NewOpenRouterImages starts a fake OpenRouter chat completions API with
// image output: a request with modalities including "image" answers
// choices[0].message.images[] data: URLs (a Reply's Text becomes the
// message content). BaseURL ends in /api/v1.
func NewOpenRouterImages() *Server {
	return newServer("openrouter-images", "/api/v1", handleOpenRouterImages)
}

func handleOpenRouterImages(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply) {
	if rep.Status >= 400 {
		writeError(w, rep, map[string]any{"error": map[string]any{"message": errorMessage(rep), "code": rep.Status}})
		return
	}
	if !bearer(r) {
		writeJSON(w, 401, map[string]any{"error": map[string]any{"message": "No auth credentials found", "code": 401}})
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "Not Found", "code": 404}})
		return
	}
	var req struct {
		Model      string            `json:"model"`
		Messages   []json.RawMessage `json:"messages"`
		Modalities []string          `json:"modalities"`
	}
	if json.Unmarshal(body, &req) != nil || req.Model == "" || len(req.Messages) == 0 {
		writeJSON(w, 400, map[string]any{"error": map[string]any{"message": "Input required: specify \"prompt\" or \"messages\"", "code": 400}})
		return
	}
	u := rep.usage()
	msg := map[string]any{"role": "assistant", "content": rep.Text, "refusal": nil, "reasoning": nil}
	imageTokens := 0
	if slices.Contains(req.Modalities, "image") {
		msg["images"] = []any{map[string]any{"type": "image_url", "image_url": map[string]any{"url": PNGDataURL}, "index": 0}}
		imageTokens = 1290
	}
	writeJSON(w, 200, map[string]any{
		"id": "gen-fake-openrouter", "provider": "Google", "model": req.Model, "object": "chat.completion", "created": time.Now().Unix(),
		"choices": []any{map[string]any{"logprobs": nil, "finish_reason": "stop", "native_finish_reason": "STOP", "index": 0, "message": msg}},
		"usage": map[string]any{"prompt_tokens": u.PromptTokens, "completion_tokens": imageTokens + u.CompletionTokens,
			"total_tokens":              u.PromptTokens + imageTokens + u.CompletionTokens,
			"prompt_tokens_details":     map[string]int{"cached_tokens": 0},
			"completion_tokens_details": map[string]int{"reasoning_tokens": 0, "image_tokens": imageTokens}},
	})
}
