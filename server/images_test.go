package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// imageServer starts Hearth with every image provider pointed at its fake.
type imageFakes struct {
	openai, together, google, openrouter *fake.Server
}

func startImages(t *testing.T, opts ...servertest.Option) (*servertest.Server, imageFakes) {
	t.Helper()
	f := imageFakes{fake.NewOpenAIImages(), fake.NewTogetherImages(), fake.NewGoogleImages(), fake.NewOpenRouterImages()}
	for _, s := range []*fake.Server{f.openai, f.together, f.google, f.openrouter} {
		t.Cleanup(s.Close)
	}
	opts = append([]servertest.Option{
		servertest.WithProvider("openai", f.openai.BaseURL(), ""),
		servertest.WithProvider("together", f.together.BaseURL(), ""),
		servertest.WithProvider("google", f.google.BaseURL(), ""),
		servertest.WithProvider("openrouter", f.openrouter.BaseURL(), ""),
	}, opts...)
	return servertest.Start(t, opts...), f
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestImageResponseShape(t *testing.T) {
	ts, f := startImages(t)
	r := ts.Do("POST", "/v1/images", servertest.AdminKey,
		map[string]any{"prompt": "a red fox", "model": "openai:gpt-image-1", "size": "1024x1536"}, "lb-llm-key", "sk-user")
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	got := f.openai.LastRequest()
	if got.Path != "/v1/images/generations" || got.Header.Get("Authorization") != "Bearer sk-user" {
		t.Fatalf("upstream got %s %v", got.Path, got.Header)
	}
	if want := map[string]any{"model": "gpt-image-1", "prompt": "a red fox", "n": 1.0, "size": "1024x1536"}; !reflect.DeepEqual(got.JSON(), want) {
		t.Fatalf("upstream body %v, want %v", got.JSON(), want)
	}
	var m map[string]any
	r.JSON(t, &m)
	if k := strings.Join(keys(m), ","); k != "choices,created,id,model,object,provider,usage" {
		t.Fatalf("top-level keys %s", k)
	}
	if m["provider"] != "openai" || m["model"] != "gpt-image-1" || m["object"] != "chat.completion" || m["created"].(float64) <= 0 {
		t.Fatalf("header fields %v", m)
	}
	ch := m["choices"].([]any)[0].(map[string]any)
	if k := strings.Join(keys(ch), ","); k != "finish_reason,index,logprobs,message,native_finish_reason" || ch["logprobs"] != nil || ch["finish_reason"] != "stop" {
		t.Fatalf("choice %v", ch)
	}
	msg := ch["message"].(map[string]any)
	if msg["role"] != "assistant" || msg["content"] != nil {
		t.Fatalf("message %v", msg)
	}
	if _, ok := msg["content"]; !ok {
		t.Fatal("content must be present as null")
	}
	imgs := msg["images"].([]any)
	img := imgs[0].(map[string]any)
	if len(imgs) != 1 || img["type"] != "image_url" || img["index"] != 0.0 || img["image_url"].(map[string]any)["url"] != fake.PNGDataURL {
		t.Fatalf("images %v", imgs)
	}
	wantUsage := map[string]any{"prompt_tokens": 12.0, "completion_tokens": 272.0, "total_tokens": 284.0,
		"prompt_tokens_details":     map[string]any{"cached_tokens": 0.0},
		"completion_tokens_details": map[string]any{"reasoning_tokens": 0.0, "image_tokens": 272.0}}
	if !reflect.DeepEqual(m["usage"], wantUsage) {
		t.Fatalf("usage %v", m["usage"])
	}
}

// imageSite serves PNG at /cat.png for image-to-image tests.
func imageSite(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(fake.PNG)
	}))
	t.Cleanup(s.Close)
	return s.URL + "/cat.png"
}

func TestImageProviderMappings(t *testing.T) {
	ts, f := startImages(t)
	catURL := imageSite(t)
	cases := []struct {
		name     string
		body     map[string]any
		upstream func() *fake.Server
		calls    int
		images   int
		check    func(t *testing.T, reqs []fake.Request)
		usage    map[string]float64 // optional usage numbers to assert
	}{
		{name: "dall-e-3 width and height become size, b64 asked",
			body:     map[string]any{"prompt": "p", "model": "openai:dall-e-3", "width": 1792, "height": 1024, "quality": "hd"},
			upstream: func() *fake.Server { return f.openai }, calls: 1, images: 1,
			check: func(t *testing.T, reqs []fake.Request) {
				want := map[string]any{"model": "dall-e-3", "prompt": "p", "n": 1.0, "size": "1792x1024", "quality": "hd", "response_format": "b64_json"}
				if !reflect.DeepEqual(reqs[0].JSON(), want) {
					t.Fatalf("body %v", reqs[0].JSON())
				}
			}},
		{name: "dall-e-2 image_url as data URL goes to edits",
			body:     map[string]any{"prompt": "add a hat", "model": "openai:dall-e-2", "image_url": fake.PNGDataURL, "n": 2, "size": "512x512"},
			upstream: func() *fake.Server { return f.openai }, calls: 1, images: 2,
			check: func(t *testing.T, reqs []fake.Request) {
				fields, files := reqs[0].Multipart()
				if reqs[0].Path != "/v1/images/edits" || !bytes.Equal(files["image"], fake.PNG) {
					t.Fatalf("edits call %s, files %d", reqs[0].Path, len(files))
				}
				want := map[string]string{"model": "dall-e-2", "prompt": "add a hat", "n": "2", "size": "512x512", "response_format": "b64_json"}
				if !reflect.DeepEqual(fields, want) {
					t.Fatalf("fields %v", fields)
				}
			}},
		{name: "gpt-image-1 image_url is fetched through the outbound policy",
			body:     map[string]any{"prompt": "watercolor", "model": "openai:gpt-image-1", "image_url": catURL},
			upstream: func() *fake.Server { return f.openai }, calls: 1, images: 1,
			check: func(t *testing.T, reqs []fake.Request) {
				fields, files := reqs[0].Multipart()
				if !bytes.Equal(files["image"], fake.PNG) || fields["model"] != "gpt-image-1" || fields["response_format"] != "" {
					t.Fatalf("fields %v", fields)
				}
				if !strings.Contains(reqs[0].Header.Get("Content-Type"), "multipart/form-data; boundary=") {
					t.Fatalf("content type %s", reqs[0].Header.Get("Content-Type"))
				}
			}},
		{name: "together takes width, height, steps, n, negative prompt and image_url",
			body: map[string]any{"prompt": "kontext", "model": "together:black-forest-labs/FLUX.1-kontext-pro", "width": 1024, "height": 768,
				"steps": 28, "n": 2, "negative_prompt": "blurry", "image_url": "https://images.example/cat.jpg"},
			upstream: func() *fake.Server { return f.together }, calls: 1, images: 2,
			check: func(t *testing.T, reqs []fake.Request) {
				want := map[string]any{"model": "black-forest-labs/FLUX.1-kontext-pro", "prompt": "kontext", "width": 1024.0, "height": 768.0,
					"steps": 28.0, "n": 2.0, "negative_prompt": "blurry", "image_url": "https://images.example/cat.jpg", "response_format": "base64"}
				if !reflect.DeepEqual(reqs[0].JSON(), want) || reqs[0].Header.Get("Authorization") != "Bearer k" {
					t.Fatalf("body %v", reqs[0].JSON())
				}
			}},
		{name: "gemini size maps to an aspect ratio and n to concurrent calls",
			body:     map[string]any{"prompt": "banana", "model": "google:gemini-2.5-flash-image", "size": "1344x768", "n": 2},
			upstream: func() *fake.Server { return f.google }, calls: 2, images: 2,
			usage: map[string]float64{"prompt_tokens": 24, "completion_tokens": 2590, "total_tokens": 2614},
			check: func(t *testing.T, reqs []fake.Request) {
				b := reqs[0].JSON()
				gc := b["generationConfig"].(map[string]any)
				if reqs[0].Path != "/v1beta/models/gemini-2.5-flash-image:generateContent" || reqs[0].Header.Get("x-goog-api-key") != "k" ||
					gc["imageConfig"].(map[string]any)["aspectRatio"] != "16:9" || !reflect.DeepEqual(gc["responseModalities"], []any{"TEXT", "IMAGE"}) {
					t.Fatalf("%s %v", reqs[0].Path, b)
				}
			}},
		{name: "gemini image-to-image sends the image inline",
			body:     map[string]any{"prompt": "edit", "model": "google:gemini-2.5-flash-image", "image_url": catURL, "width": 1920, "height": 1080},
			upstream: func() *fake.Server { return f.google }, calls: 1, images: 1,
			check: func(t *testing.T, reqs []fake.Request) {
				var body struct {
					Contents []struct {
						Parts []struct {
							Text       string
							InlineData *struct{ MimeType, Data string }
						}
					}
					GenerationConfig struct{ ImageConfig struct{ AspectRatio string } }
				}
				json.Unmarshal(reqs[0].Body, &body)
				parts := body.Contents[0].Parts
				if len(parts) != 2 || parts[0].Text != "edit" || parts[1].InlineData == nil || parts[1].InlineData.Data != fake.PNGBase64 ||
					parts[1].InlineData.MimeType != "image/png" || body.GenerationConfig.ImageConfig.AspectRatio != "16:9" {
					t.Fatalf("body %s", reqs[0].Body)
				}
			}},
		{name: "imagen uses predict with sampleCount and aspectRatio",
			body:     map[string]any{"prompt": "lighthouse", "model": "google:imagen-4.0-generate-001", "width": 1408, "height": 768, "n": 3},
			upstream: func() *fake.Server { return f.google }, calls: 1, images: 3,
			check: func(t *testing.T, reqs []fake.Request) {
				want := map[string]any{"instances": []any{map[string]any{"prompt": "lighthouse"}}, "parameters": map[string]any{"sampleCount": 3.0, "aspectRatio": "16:9"}}
				if reqs[0].Path != "/v1beta/models/imagen-4.0-generate-001:predict" || !reflect.DeepEqual(reqs[0].JSON(), want) {
					t.Fatalf("%s %v", reqs[0].Path, reqs[0].JSON())
				}
			}},
		{name: "openrouter asks for image output with an aspect ratio",
			body:     map[string]any{"prompt": "robot", "model": "openrouter:google/gemini-2.5-flash-image-preview", "size": "1024x1024"},
			upstream: func() *fake.Server { return f.openrouter }, calls: 1, images: 1,
			usage: map[string]float64{"prompt_tokens": 12, "completion_tokens": 1295},
			check: func(t *testing.T, reqs []fake.Request) {
				want := map[string]any{"model": "google/gemini-2.5-flash-image-preview", "modalities": []any{"image", "text"},
					"messages": []any{map[string]any{"role": "user", "content": "robot"}}, "image_config": map[string]any{"aspect_ratio": "1:1"}}
				if reqs[0].Path != "/api/v1/chat/completions" || !reflect.DeepEqual(reqs[0].JSON(), want) {
					t.Fatalf("%s %v", reqs[0].Path, reqs[0].JSON())
				}
			}},
		{name: "openrouter image_url becomes an image part",
			body:     map[string]any{"prompt": "restyle", "model": "openrouter:google/gemini-2.5-flash-image", "image_url": "https://images.example/a.png"},
			upstream: func() *fake.Server { return f.openrouter }, calls: 1, images: 1,
			check: func(t *testing.T, reqs []fake.Request) {
				msg := reqs[0].JSON()["messages"].([]any)[0].(map[string]any)
				want := []any{map[string]any{"type": "text", "text": "restyle"}, map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://images.example/a.png"}}}
				if !reflect.DeepEqual(msg["content"], want) {
					t.Fatalf("content %v", msg["content"])
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			up := tc.upstream()
			up.Reset()
			r := ts.Do("POST", "/v1/images", servertest.AdminKey, tc.body, "LB-LLM-Key", "k")
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			reqs := up.Requests()
			if len(reqs) != tc.calls {
				t.Fatalf("%d upstream calls, want %d", len(reqs), tc.calls)
			}
			tc.check(t, reqs)
			var resp struct {
				Choices []struct {
					Message struct {
						Images []struct {
							ImageURL struct{ URL string } `json:"image_url"`
							Index    int
						}
					}
				}
				Usage map[string]any
			}
			r.JSON(t, &resp)
			imgs := resp.Choices[0].Message.Images
			if len(imgs) != tc.images {
				t.Fatalf("%d images, want %d", len(imgs), tc.images)
			}
			for i, img := range imgs {
				if img.Index != i || !strings.HasPrefix(img.ImageURL.URL, "data:image/png;base64,") && !strings.HasPrefix(img.ImageURL.URL, "http") {
					t.Fatalf("image %d: %+v", i, img)
				}
			}
			for k, v := range tc.usage {
				if resp.Usage[k] != v {
					t.Fatalf("usage %s = %v, want %v (%v)", k, resp.Usage[k], v, resp.Usage)
				}
			}
		})
	}
}

func TestImageKeyResolution(t *testing.T) {
	ts, f := startImages(t)
	body := map[string]any{"prompt": "p", "model": "openai:gpt-image-1"}
	r := ts.Do("POST", "/v1/images", servertest.AdminKey, body)
	if r.Status != 400 || !strings.Contains(string(r.Body), `no API key for provider \"openai\"`) {
		t.Fatalf("no key: %d %s", r.Status, r.Body)
	}
	if r := ts.Do("PUT", "/v1/keysets/openai", servertest.AdminKey, map[string]string{"key": "sk-from-keyset"}); r.Status != 200 {
		t.Fatalf("keyset: %d %s", r.Status, r.Body)
	}
	if r := ts.Do("POST", "/v1/images", servertest.AdminKey, body); r.Status != 200 {
		t.Fatalf("with keyset: %d %s", r.Status, r.Body)
	}
	if got := f.openai.LastRequest().Header.Get("Authorization"); got != "Bearer sk-from-keyset" {
		t.Fatalf("keyset key not used: %q", got)
	}
	if r := ts.Do("POST", "/v1/images", servertest.AdminKey, body, "LB-LLM-KEY", "sk-header"); r.Status != 200 {
		t.Fatalf("header: %d %s", r.Status, r.Body)
	}
	if got := f.openai.LastRequest().Header.Get("Authorization"); got != "Bearer sk-header" {
		t.Fatalf("header key must win: %q", got)
	}
	if r := ts.Do("POST", "/v1/images", "", body, "LB-LLM-Key", "k"); r.Status != 401 {
		t.Fatalf("no Hearth key: %d", r.Status)
	}
}

func TestImageValidation(t *testing.T) {
	ts, f := startImages(t)
	cases := []struct {
		body  map[string]any
		field string
		msg   string
	}{
		{map[string]any{"model": "openai:gpt-image-1"}, "prompt", "prompt: is required"},
		{map[string]any{"prompt": "p"}, "model", "model: is required"},
		{map[string]any{"prompt": "p", "model": "gpt-image-1"}, "model", "must have the form provider:model_id"},
		{map[string]any{"prompt": "p", "model": "anthropic:claude-sonnet-4-5"}, "model", `provider \"anthropic\" of \"anthropic:claude-sonnet-4-5\" makes no images here (image providers: google, openai, openrouter, together)`},
		{map[string]any{"prompt": "p", "model": "openai:gpt-4o"}, "model", "openai:gpt-4o is a text model; image models of openai include: gpt-image-1, dall-e-3, dall-e-2"},
		{map[string]any{"prompt": "p", "model": "openai:gpt-image-1", "width": 1024}, "height", "height: is required when width is given"},
		{map[string]any{"prompt": "p", "model": "openai:gpt-image-1", "width": 10, "height": 10}, "width", "width: must be from 64 to 8192 pixels"},
		{map[string]any{"prompt": "p", "model": "openai:gpt-image-1", "size": "large"}, "size", `size: \"large\" must have the form WIDTHxHEIGHT`},
		{map[string]any{"prompt": "p", "model": "openai:gpt-image-1", "width": "wide", "height": 1}, "width", "width"},
		{map[string]any{"prompt": "p", "model": "openai:gpt-image-1", "width": 512, "height": 512}, "width",
			"width: 512x512 is not supported by openai:gpt-image-1 (allowed: 1024x1024, 1024x1536, 1536x1024, auto)"},
		{map[string]any{"prompt": "p", "model": "openai:dall-e-3", "size": "1024x1536"}, "size",
			"size: 1024x1536 is not supported by openai:dall-e-3 (allowed: 1024x1024, 1792x1024, 1024x1792)"},
		{map[string]any{"prompt": "p", "model": "openai:dall-e-3", "n": 2}, "n", "n: openai:dall-e-3 makes 1 image per request (allowed: 1)"},
		{map[string]any{"prompt": "p", "model": "openai:dall-e-3", "image_url": "https://x.example/a.png"}, "image_url", "image_url: is not supported by openai:dall-e-3; image-to-image needs openai:gpt-image-1 or openai:dall-e-2"},
		{map[string]any{"prompt": "p", "model": "openai:dall-e-3", "quality": "ultra"}, "quality", `quality: \"ultra\" is not supported by openai:dall-e-3 (allowed: standard, hd)`},
		{map[string]any{"prompt": "p", "model": "openai:gpt-image-1", "steps": 4}, "steps", "steps: is not supported by openai:gpt-image-1 (only together image models take steps)"},
		{map[string]any{"prompt": "p", "model": "openai:gpt-image-1", "negative_prompt": "x"}, "negative_prompt", "negative_prompt: is not supported by openai:gpt-image-1"},
		{map[string]any{"prompt": "p", "model": "openai:gpt-image-1", "n": 0}, "n", "n: must be from 1 to 10"},
		{map[string]any{"prompt": "p", "model": "openai:gpt-image-1", "n": 11}, "n", "n: must be from 1 to 10"},
		{map[string]any{"prompt": "p", "model": "openai:gpt-image-1", "image_url": "ftp://x/a.png"}, "image_url", "image_url: must be an http(s) URL or a data:image/... URL"},
		{map[string]any{"prompt": "p", "model": "openai:gpt-image-1", "image_url": "data:image/bmp;base64,AAAA"}, "image_url", `data: URL type \"image/bmp\" is not a PNG, JPEG, WebP or GIF image`},
		{map[string]any{"prompt": "p", "model": "openai:gpt-image-1", "image_url": "http://10.1.2.3/cat.png"}, "image_url",
			"image_url: the server refuses to fetch it: destination refused by the outbound address policy: not a public address"},
		{map[string]any{"prompt": "p", "model": "together:black-forest-labs/FLUX.1-schnell", "n": 5}, "n",
			"n: together:black-forest-labs/FLUX.1-schnell makes at most 4 images per request (allowed: 1 to 4)"},
		{map[string]any{"prompt": "p", "model": "together:black-forest-labs/FLUX.1-schnell", "steps": 60}, "steps", "takes 1 to 50 steps"},
		{map[string]any{"prompt": "p", "model": "together:black-forest-labs/FLUX.1-schnell", "quality": "hd"}, "quality", "only openai image models take a quality"},
		{map[string]any{"prompt": "p", "model": "google:imagen-4.0-generate-001", "image_url": "https://x.example/a.png"}, "image_url", "image-to-image on google needs a Gemini image model"},
		{map[string]any{"prompt": "p", "model": "google:imagen-4.0-generate-001", "n": 5}, "n", "at most 4 images"},
		{map[string]any{"prompt": "p", "model": "google:gemini-2.5-flash-image", "width": 1000, "height": 700}, "width",
			"width: 1000x700 is not supported by google:gemini-2.5-flash-image, which takes an aspect ratio (allowed sizes: 1024x1024 (1:1), 832x1248 (2:3)"},
		{map[string]any{"prompt": "p", "model": "google:imagen-4.0-generate-001", "size": "1344x768"}, "size", "(allowed sizes: 1024x1024 (1:1), 896x1280 (3:4), 1280x896 (4:3), 768x1408 (9:16), 1408x768 (16:9)"},
		{map[string]any{"prompt": "p", "model": "google:gemini-2.5-flash-image", "steps": 3}, "steps", "only together image models take steps"},
		{map[string]any{"prompt": "p", "model": "openrouter:google/gemini-2.5-flash-image", "negative_prompt": "x"}, "negative_prompt", "only together"},
	}
	for _, tc := range cases {
		r := ts.Do("POST", "/v1/images", servertest.AdminKey, tc.body, "LB-LLM-Key", "k")
		var e struct {
			Error struct {
				Status  int
				Code    string
				Message string
				Field   string
			}
		}
		r.JSON(t, &e)
		if r.Status != 400 || e.Error.Code != "BAD_REQUEST" || e.Error.Field != tc.field || !strings.Contains(string(r.Body), tc.msg) {
			t.Errorf("%v: %d %s\nwant field %s, message containing %q", tc.body, r.Status, r.Body, tc.field, tc.msg)
		}
	}
	for _, s := range []*fake.Server{f.openai, f.together, f.google, f.openrouter} {
		if s.Count() != 0 {
			t.Errorf("%s got %d requests for invalid input", s.Kind(), s.Count())
		}
	}
}

func TestImageUpstreamErrors(t *testing.T) {
	ts, f := startImages(t)
	body := map[string]any{"prompt": "p", "model": "openai:gpt-image-1"}
	cases := []struct {
		name   string
		reply  fake.Reply
		status int
		code   string
		msg    string
	}{
		{"rejected provider key is not a Hearth 401", fake.Reply{Status: 401}, 400, "BAD_REQUEST", "openai rejected the provider API key (HTTP 401): Incorrect API key provided"},
		{"rate limit", fake.Reply{Status: 429, RetryAfter: "7"}, 429, "RATE_LIMITED", "openai rate limit reached"},
		{"upstream failure", fake.Reply{Status: 500, Message: "boom"}, 502, "", "openai failed (HTTP 500)"},
		{"bad request passes the message", fake.Reply{Status: 400, Message: "Your request was rejected as a result of our safety system."}, 400, "BAD_REQUEST", "openai: Your request was rejected as a result of our safety system."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f.openai.Reset()
			f.openai.SetDefault(tc.reply)
			r := ts.Do("POST", "/v1/images", servertest.AdminKey, body, "LB-LLM-Key", "k")
			if r.Status != tc.status || !strings.Contains(string(r.Body), tc.msg) || (tc.code != "" && !strings.Contains(string(r.Body), tc.code)) {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			if tc.status == 429 && r.Header.Get("Retry-After") != "7" {
				t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
			}
		})
	}
	f.openai.Reset()

	// A Gemini answer stopped for safety carries no image: the prompt was refused.
	f.google.SetDefault(fake.Reply{Finish: "IMAGE_SAFETY"})
	r := ts.Do("POST", "/v1/images", servertest.AdminKey, map[string]any{"prompt": "p", "model": "google:gemini-2.5-flash-image"}, "LB-LLM-Key", "k")
	if r.Status != 400 || !strings.Contains(string(r.Body), "google:gemini-2.5-flash-image returned no image (finish reason IMAGE_SAFETY)") {
		t.Fatalf("safety stop: %d %s", r.Status, r.Body)
	}
	// Text next to the image becomes the message content.
	f.google.SetDefault(fake.Reply{Text: "Here is your banana."})
	r = ts.Do("POST", "/v1/images", servertest.AdminKey, map[string]any{"prompt": "p", "model": "google:gemini-2.5-flash-image"}, "LB-LLM-Key", "k")
	if r.Status != 200 || !strings.Contains(string(r.Body), `"content":"Here is your banana."`) {
		t.Fatalf("text: %d %s", r.Status, r.Body)
	}
	// One failing call of a fanned-out request fails the request.
	f.google.Reset()
	f.google.Enqueue(fake.Reply{}, fake.Reply{Status: 400, Message: "bad aspect"})
	r = ts.Do("POST", "/v1/images", servertest.AdminKey, map[string]any{"prompt": "p", "model": "google:gemini-2.5-flash-image", "n": 2}, "LB-LLM-Key", "k")
	if r.Status != 400 || !strings.Contains(string(r.Body), "bad aspect") {
		t.Fatalf("fan-out failure: %d %s", r.Status, r.Body)
	}
}

func TestImagesUnconfigured(t *testing.T) {
	ts := servertest.Start(t)
	// Providers point at a closed port: the connection error is a 502, not a hang.
	r := ts.Do("POST", "/v1/images", servertest.AdminKey, map[string]any{"prompt": "p", "model": "openai:gpt-image-1"}, "LB-LLM-Key", "k")
	if r.Status != 502 || !strings.Contains(string(r.Body), "could not reach openai") {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}
