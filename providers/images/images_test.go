package images

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/providers/netguard"
)

func testConfig(name, base string) providers.Config {
	return providers.Config{
		Providers: map[string]providers.ProviderConfig{name: {BaseURL: base}},
		Retry:     providers.RetryPolicy{MaxAttempts: 1},
		Timeout:   5 * time.Second,
	}
}

func TestAspectMapping(t *testing.T) {
	cases := []struct {
		table   ratioTable
		allowed []string
		size    string
		want    string
		err     string
	}{
		{geminiRatios, nil, "1024x1024", "1:1", ""},
		{geminiRatios, nil, "512x512", "1:1", ""},    // same ratio, smaller
		{geminiRatios, nil, "1920x1080", "16:9", ""}, // exact ratio
		{geminiRatios, nil, "1344x768", "16:9", ""},  // the table's own size
		{geminiRatios, nil, "864x1184", "3:4", ""},   // the table's own size, not exactly 3:4
		{geminiRatios, nil, "auto", "", ""},          // model default
		{geminiRatios, nil, "1000x700", "", "allowed sizes: 1024x1024 (1:1)"},
		{imagenRatios, nil, "1024x768", "4:3", ""},
		{imagenRatios, nil, "832x1248", "", "1408x768 (16:9)"}, // 2:3 is Gemini-only
		{geminiRatios, []string{"1024x1024"}, "1344x768", "", "allowed sizes: 1024x1024 (1:1), or"},
	}
	for _, tc := range cases {
		req := &engine.ImageRequest{Size: tc.size}
		if w, h, ok := engine.ParseSize(tc.size); ok {
			req.Width, req.Height = w, h
		}
		got, err := tc.table.aspect(req, "m", tc.allowed)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.size, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.size, got, err, tc.want)
		}
	}
}

func TestDataURLSniffsType(t *testing.T) {
	jpeg := []byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 'J', 'F', 'I', 'F', 0}
	if got := b64DataURL("", base64.StdEncoding.EncodeToString(jpeg)); !strings.HasPrefix(got, "data:image/jpeg;base64,") {
		t.Fatalf("jpeg: %s", got)
	}
	if got := b64DataURL("", fake.PNGBase64); got != fake.PNGDataURL {
		t.Fatalf("png: %s", got)
	}
	if got := b64DataURL("image/webp", "AAAA"); got != "data:image/webp;base64,AAAA" {
		t.Fatalf("given type: %s", got)
	}
}

// An upstream answering url items gets them passed through unchanged.
func TestURLOutputPassesThrough(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"created":1,"data":[{"url":"https://cdn.example/img-1.png","revised_prompt":"x"}]}`))
	}))
	defer up.Close()
	reg, err := New(testConfig("openai", up.URL), nil)
	if err != nil {
		t.Fatal(err)
	}
	gen, _ := reg.ImageModel(engine.ModelRef{Provider: "openai", Model: "dall-e-3"})
	res, err := gen.GenerateImage(context.Background(), &engine.ImageRequest{Model: "dall-e-3", Prompt: "p", N: 1, APIKey: "k"})
	if err != nil || len(res.Images) != 1 || res.Images[0] != "https://cdn.example/img-1.png" {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestFetchLimits(t *testing.T) {
	var hits atomic.Int64
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/big.png": // announced by Content-Length: refused unread
			w.Header().Set("Content-Type", "image/png")
			w.Header().Set("Content-Length", strconv.Itoa(MaxInputImage+10))
			w.Write(make([]byte, MaxInputImage+10))
		case "/big-chunked.png": // no length: refused after the limit
			w.Header().Set("Content-Type", "image/png")
			w.(http.Flusher).Flush()
			w.Write(make([]byte, MaxInputImage+10))
		case "/page.html":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>not an image</html>"))
		case "/missing.png":
			http.NotFound(w, r)
		default:
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(fake.PNG) // sniffed as PNG
		}
	}))
	defer site.Close()
	// Generous timeouts: reading 20 MiB under -race on a loaded machine
	// takes seconds, and time is not what this test checks.
	allow := &fetcher{client: netguard.Policy{AllowLoopback: true}.Client(2*time.Minute, 5)}
	deny := &fetcher{client: netguard.Policy{}.Client(2*time.Minute, 5)}
	// Each fetch gives the request's CPU turn to others while it waits.
	wc := &engine.WaitCount{}
	ctx := engine.WithTurn(context.Background(), wc)
	cases := []struct {
		f   *fetcher
		url string
		err string
	}{
		{allow, site.URL + "/ok.png", ""},
		{allow, site.URL + "/big.png", "larger than 20 MiB"},
		{allow, site.URL + "/big-chunked.png", "larger than 20 MiB"},
		{allow, site.URL + "/page.html", "is not a PNG, JPEG, WebP or GIF image (got text/html"},
		{allow, site.URL + "/missing.png", "answered HTTP 404"},
		{deny, site.URL + "/ok.png", "refuses to fetch it: destination refused by the outbound address policy: not a public address"},
		{nil, site.URL + "/ok.png", "does not fetch image URLs"},
		{allow, "data:image/png;base64,!!", "not valid base64"},
		{allow, "data:image/png,raw", "must be base64"},
	}
	for _, tc := range cases {
		b, mime, err := tc.f.image(ctx, tc.url)
		if tc.err == "" {
			if err != nil || mime != "image/png" || len(b) != len(fake.PNG) {
				t.Errorf("%s: %d bytes %s %v", tc.url, len(b), mime, err)
			}
			continue
		}
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Field != "image_url" || !strings.Contains(ee.Message, tc.err) {
			t.Errorf("%s: %v, want %q", tc.url, err, tc.err)
		}
	}
	// Fetched: ok, big, big-chunked, page, missing and the refused one.
	if begun, ended := wc.Counts(); begun != 6 || ended != 6 {
		t.Errorf("%d waits begun, %d ended; want 6, 6", begun, ended)
	}
}

func TestFanOutCancelsOnFailure(t *testing.T) {
	var started atomic.Int64
	boom := engine.Errorf(engine.CodeBadRequest, "boom")
	_, err := fanOut(context.Background(), 3, func(ctx context.Context) (*engine.ImageResult, error) {
		if started.Add(1) == 1 {
			return nil, boom
		}
		<-ctx.Done() // the others wait until the failure cancels them
		return nil, ctx.Err()
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	res, err := fanOut(context.Background(), 2, func(ctx context.Context) (*engine.ImageResult, error) {
		return &engine.ImageResult{Images: []string{"a"}, Text: "t", Usage: engine.ImageUsage{PromptTokens: 1, TotalTokens: 2}}, nil
	})
	if err != nil || len(res.Images) != 2 || res.Usage.PromptTokens != 2 || res.Usage.TotalTokens != 4 || res.Text != "t\n\nt" {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestRegistryRefusesBadBaseURL(t *testing.T) {
	if _, err := New(testConfig("together", "ftp://x"), nil); err == nil {
		t.Fatal("bad base URL accepted")
	}
}
