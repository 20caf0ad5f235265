// Package images holds Hearth's image generation adapters: OpenAI
// (/images/generations and /images/edits), Together (/images/generations),
// Google (Gemini image output through generateContent, and Imagen through
// :predict) and OpenRouter (chat completions with image output). Each
// speaks its provider's real wire format, takes its base URL from the same
// providers.Config as the chat adapters (HEARTH_<P>_BASE_URL), and maps
// Hearth's provider-neutral engine.ImageRequest to what the model accepts,
// refusing what it does not with a 400 that names the field and the
// allowed values (sizes and qualities come from the providers catalogue).
//
// Image URLs the server itself must fetch (to send the bytes upstream for
// image-to-image on OpenAI and Gemini) go through the outbound client
// given to New, which server/app builds from the operator's netguard policy.
package images

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/netguard"
)

// MaxInputImage bounds an image fetched for image-to-image.
const MaxInputImage = 20 << 20

// maxAnswer bounds an upstream answer: up to ten base64 images.
const maxAnswer = 128 << 20

// Registry implements engine.ImageModels over the image adapters.
type Registry struct {
	gens map[string]engine.ImageGenerator
}

var _ engine.ImageModels = (*Registry)(nil)

// New builds the adapters of openai, together, google and openrouter with
// the base URLs, client, retry policy and timeout of cfg. fetch is the
// client used for image URLs given by users (nil refuses them); it should
// come from the operator's netguard policy. New does no I/O.
func New(cfg providers.Config, fetch *http.Client) (*Registry, error) {
	f := &fetcher{client: fetch}
	r := &Registry{gens: map[string]engine.ImageGenerator{}}
	for _, name := range []string{"openai", "together", "google", "openrouter"} {
		base, err := cfg.BaseURL(name)
		if err != nil {
			return nil, err
		}
		up := providers.NewUpstream(name, cfg, maxAnswer)
		switch name {
		case "openai":
			r.gens[name] = &OpenAI{baseURL: base, up: up, fetch: f}
		case "together":
			r.gens[name] = &Together{baseURL: base, up: up}
		case "google":
			r.gens[name] = &Google{baseURL: base, up: up, fetch: f}
		case "openrouter":
			r.gens[name] = &OpenRouter{baseURL: base, up: up}
		}
	}
	return r, nil
}

// Providers lists the providers that make images, sorted.
func (r *Registry) Providers() []string {
	out := make([]string, 0, len(r.gens))
	for p := range r.gens {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// ImageModel returns the adapter of ref's provider. A model the catalogue
// lists as a text model is refused.
func (r *Registry) ImageModel(ref engine.ModelRef) (engine.ImageGenerator, error) {
	g, ok := r.gens[ref.Provider]
	if !ok {
		return nil, engine.FieldError("model", "provider %q of %q makes no images here (image providers: %s)",
			ref.Provider, ref.String(), strings.Join(r.Providers(), ", "))
	}
	if info, ok := providers.CatalogueEntry(ref.Provider, ref.Model); ok && info.Type != "image" {
		return nil, engine.FieldError("model", "%s is a text model; image models of %s include: %s",
			ref.String(), ref.Provider, strings.Join(providers.ImageModels(ref.Provider), ", "))
	}
	return g, nil
}

// spec is what the catalogue says about a model; known is false for
// models it does not list (their sizes are not checked here).
type spec struct {
	sizes, qualities []string
	known            bool
}

func catalogued(provider, model string) spec {
	info, ok := providers.CatalogueEntry(provider, model)
	return spec{sizes: info.SupportedSizes, qualities: info.SupportedQualities, known: ok}
}

// sizeField is the request field a size error names.
func sizeField(req *engine.ImageRequest) string {
	if req.SizeFromString {
		return "size"
	}
	return "width"
}

// refuse reports a request field the model does not take.
func refuse(field, model, why string) error {
	return engine.FieldError(field, "is not supported by %s%s", model, why)
}

// checkN bounds n.
func checkN(req *engine.ImageRequest, model string, max int) error {
	if req.N > max {
		if max == 1 {
			return engine.FieldError("n", "%s makes 1 image per request (allowed: 1)", model)
		}
		return engine.FieldError("n", "%s makes at most %d images per request (allowed: 1 to %d)", model, max, max)
	}
	return nil
}

// checkQuality refuses a quality the catalogue does not list for the model.
func checkQuality(req *engine.ImageRequest, model string, sp spec) error {
	if req.Quality == "" || !sp.known || len(sp.qualities) == 0 || slices.Contains(sp.qualities, req.Quality) {
		return nil
	}
	return engine.FieldError("quality", "%q is not supported by %s (allowed: %s)", req.Quality, model, strings.Join(sp.qualities, ", "))
}

// ratioTable maps each size of a model family to its aspect ratio, in the
// order the catalogue lists them.
type ratioTable []struct{ size, ratio string }

var geminiRatios = ratioTable{
	{"1024x1024", "1:1"}, {"832x1248", "2:3"}, {"1248x832", "3:2"}, {"864x1184", "3:4"}, {"1184x864", "4:3"},
	{"896x1152", "4:5"}, {"1152x896", "5:4"}, {"768x1344", "9:16"}, {"1344x768", "16:9"}, {"1536x672", "21:9"},
}

var imagenRatios = ratioTable{
	{"1024x1024", "1:1"}, {"896x1280", "3:4"}, {"1280x896", "4:3"}, {"768x1408", "9:16"}, {"1408x768", "16:9"},
}

// aspect maps a requested size to one of the table's aspect ratios: an
// exact size of the table, or any width x height with exactly that ratio
// (1920x1080 is 16:9). allowed, when set, narrows the table to the
// catalogue's sizes of the model. "" and "auto" leave the ratio unset.
func (t ratioTable) aspect(req *engine.ImageRequest, model string, allowed []string) (string, error) {
	if req.Size == "" || req.Size == "auto" {
		return "", nil
	}
	var list []string
	for _, e := range t {
		if len(allowed) > 0 && !slices.Contains(allowed, e.size) {
			continue
		}
		if e.size == req.Size {
			return e.ratio, nil
		}
		list = append(list, e.size+" ("+e.ratio+")")
	}
	g := gcd(req.Width, req.Height)
	want := fmt.Sprintf("%d:%d", req.Width/g, req.Height/g)
	for _, e := range t {
		if (len(allowed) == 0 || slices.Contains(allowed, e.size)) && e.ratio == want {
			return e.ratio, nil
		}
	}
	return "", engine.FieldError(sizeField(req), "%s is not supported by %s, which takes an aspect ratio (allowed sizes: %s, or any size with one of those ratios)",
		req.Size, model, strings.Join(list, ", "))
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	if a == 0 {
		return 1
	}
	return a
}

// dataURL encodes image bytes as a data: URL; mime is sniffed when empty.
func dataURL(mime string, b []byte) string {
	return "data:" + imageMIME(mime, b) + ";base64," + base64.StdEncoding.EncodeToString(b)
}

// b64DataURL wraps base64 image data from an upstream in a data: URL,
// sniffing the type from the first bytes when mime is empty.
func b64DataURL(mime, b64 string) string {
	if mime == "" {
		head := b64
		if len(head) > 64 {
			head = head[:64]
		}
		raw, _ := base64.StdEncoding.DecodeString(head[:len(head)/4*4])
		mime = imageMIME("", raw)
	}
	return "data:" + mime + ";base64," + b64
}

func imageMIME(mime string, b []byte) string {
	if mime != "" {
		return mime
	}
	if m := http.DetectContentType(b); strings.HasPrefix(m, "image/") {
		return m
	}
	return "image/png"
}

// fetcher loads the image of an image_url: a data: URL is decoded, an
// http(s) URL is fetched with the outbound client.
type fetcher struct {
	client *http.Client
}

var inputTypes = []string{"image/png", "image/jpeg", "image/webp", "image/gif"}

func (f *fetcher) image(ctx context.Context, raw string) ([]byte, string, error) {
	if strings.HasPrefix(raw, "data:") {
		return decodeDataURL(raw)
	}
	if _, err := netguard.CheckURL("image_url", raw); err != nil {
		return nil, "", engine.FieldError("image_url", "%s", strings.TrimPrefix(err.Error(), "image_url: "))
	}
	if f == nil || f.client == nil {
		return nil, "", engine.FieldError("image_url", "this server does not fetch image URLs; send the image as a data: URL")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, "", engine.FieldError("image_url", "%q is not a valid URL", raw)
	}
	req.Header.Set("Accept", "image/*")
	req.Header.Set("User-Agent", "Hearth")
	// The request's CPU turn goes to others while the image arrives.
	defer engine.Back(engine.Away(ctx))
	resp, err := f.client.Do(req)
	if err != nil {
		if errors.Is(err, netguard.ErrRefused) {
			return nil, "", &engine.Error{Code: engine.CodeBadRequest, Field: "image_url",
				Message: "image_url: the server refuses to fetch it: " + refusal(err), Err: err}
		}
		return nil, "", &engine.Error{Code: engine.CodeBadRequest, Field: "image_url", Message: "image_url: could not fetch the image", Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", engine.FieldError("image_url", "fetching the image answered HTTP %d", resp.StatusCode)
	}
	if resp.ContentLength > MaxInputImage { // refused before reading it
		return nil, "", engine.FieldError("image_url", "the image is larger than %d MiB", MaxInputImage>>20)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxInputImage+1))
	if err != nil {
		return nil, "", &engine.Error{Code: engine.CodeBadRequest, Field: "image_url", Message: "image_url: could not read the image", Err: err}
	}
	if len(b) > MaxInputImage {
		return nil, "", engine.FieldError("image_url", "the image is larger than %d MiB", MaxInputImage>>20)
	}
	mime := strings.TrimSpace(strings.Split(resp.Header.Get("Content-Type"), ";")[0])
	if !slices.Contains(inputTypes, mime) {
		mime = http.DetectContentType(b)
	}
	if !slices.Contains(inputTypes, mime) {
		return nil, "", engine.FieldError("image_url", "is not a PNG, JPEG, WebP or GIF image (got %s)", mime)
	}
	return b, mime, nil
}

// refusal is the policy's reason without the error chain's prefixes.
func refusal(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, netguard.ErrRefused.Error()); i >= 0 {
		return msg[i:]
	}
	return netguard.ErrRefused.Error()
}

func decodeDataURL(raw string) ([]byte, string, error) {
	meta, data, ok := strings.Cut(strings.TrimPrefix(raw, "data:"), ",")
	if !ok || !strings.HasSuffix(meta, ";base64") {
		return nil, "", engine.FieldError("image_url", "a data: URL must be base64 (data:image/png;base64,...)")
	}
	mime := strings.TrimSuffix(meta, ";base64")
	if !slices.Contains(inputTypes, mime) {
		return nil, "", engine.FieldError("image_url", "data: URL type %q is not a PNG, JPEG, WebP or GIF image", mime)
	}
	if base64.StdEncoding.DecodedLen(len(data)) > MaxInputImage {
		return nil, "", engine.FieldError("image_url", "the image is larger than %d MiB", MaxInputImage>>20)
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, "", engine.FieldError("image_url", "the data: URL is not valid base64")
	}
	return b, mime, nil
}

// fanOut makes n single-image calls concurrently (models that answer one
// image per call) and merges their images and usage in call order.
func fanOut(ctx context.Context, n int, one func(ctx context.Context) (*engine.ImageResult, error)) (*engine.ImageResult, error) {
	if n <= 1 {
		return one(ctx)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]*engine.ImageResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = one(ctx)
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := *results[0]
	out.Images = nil
	out.Usage = engine.ImageUsage{}
	var texts []string
	for _, r := range results {
		out.Images = append(out.Images, r.Images...)
		out.Usage.Add(r.Usage)
		if r.Text != "" {
			texts = append(texts, r.Text)
		}
	}
	out.Text = strings.Join(texts, "\n\n")
	return &out, nil
}
