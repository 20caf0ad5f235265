package server

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/labstack/echo/v4"
)

// openAIModel is one entry of GET /openai/v1/models.
type openAIModel struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

type openAIList[T any] struct {
	Object string `json:"object"`
	Data   []T    `json:"data"`
}

// runnableModels lists the models a key can run here: catalogue models
// (retired ones left out) of providers that are configured (a base URL)
// and have a key for this caller (or need none), with local servers (Ollama, vLLM, the extra
// providers) listed by the models they really have, as GET /v1/models
// asks them (withLocalModels: a server that cannot be asked lists none);
// chat, embedding and image models each checked against the adapter that
// runs them; then pipe: entries for the caller's pipes (a pipe key sees
// its own pipe only) and, for a user key, pipe:<org>/<name> entries for
// the pipes of the organizations the user is a member of.
func (s *Server) runnableModels(c echo.Context) ([]openAIModel, error) {
	ctx := c.Request().Context()
	who := principal(c)
	out := []openAIModel{}
	if s.deps.Providers != nil && who.IsOwnerKey() {
		cat := withEmbeddingModels(s.withLocalModels(ctx, s.deps.Providers.Catalogue()))
		names := make([]string, 0, len(cat))
		for p := range cat {
			names = append(names, p)
		}
		sort.Strings(names)
		for _, p := range names {
			if len(cat[p]) == 0 {
				continue
			}
			if _, err := s.deps.Keysets.Resolve(ctx, p, c.Request().Header.Get("LB-LLM-Key"), "", who.Owner); err != nil {
				continue
			}
			for _, m := range cat[p] {
				ref, err := engine.ParseModelID("model", m.ID)
				if err != nil {
					continue
				}
				if m.Retired != nil || !s.canRun(ref, m.Type) {
					continue
				}
				out = append(out, openAIModel{ID: m.ID, Object: "model", OwnedBy: p})
			}
		}
	}
	var pipes []*engine.Pipe
	if who.Kind == engine.KeyPipe {
		p, err := s.deps.Pipes.GetByID(ctx, who.PipeID)
		if err != nil {
			return nil, err
		}
		pipes = []*engine.Pipe{p}
	} else {
		var err error
		if pipes, err = s.deps.Pipes.List(ctx, who.Owner); err != nil {
			return nil, err
		}
	}
	for _, p := range pipes {
		out = append(out, openAIModel{ID: "pipe:" + p.Name, Object: "model", Created: p.CreatedAt.Unix(), OwnedBy: p.Owner})
	}
	orgs, err := s.memberOrgs(ctx, who)
	if err != nil {
		return nil, err
	}
	for _, org := range orgs {
		pipes, err := s.deps.Pipes.List(ctx, org)
		if err != nil {
			return nil, err
		}
		for _, p := range pipes {
			out = append(out, openAIModel{ID: "pipe:" + org + "/" + p.Name, Object: "model", Created: p.CreatedAt.Unix(), OwnedBy: p.Owner})
		}
	}
	return out, nil
}

// withEmbeddingModels adds the hosted providers' embedding models (and
// hearth:hash-embed) to a catalogue that lists chat and image models only.
func withEmbeddingModels(cat map[string][]engine.ModelInfo) map[string][]engine.ModelInfo {
	out := maps.Clone(cat)
	for p, models := range memory.EmbeddingModels() {
		if _, ok := out[p]; !ok {
			continue
		}
		for _, m := range models {
			out[p] = append(slices.Clone(out[p]), engine.ModelInfo{ID: p + ":" + m, Provider: p, Type: "embedding"})
		}
	}
	return out
}

// canRun reports whether a model of the given catalogue type has an
// adapter here: embedding models need the provider's embedder, image
// models its image adapter, the others its chat adapter.
func (s *Server) canRun(ref engine.ModelRef, typ string) bool {
	var err error
	switch typ {
	case "embedding":
		_, err = s.deps.Providers.Embedder(ref)
	case "image":
		if s.deps.Images == nil {
			return false
		}
		err = s.deps.Images.Check(ref)
	default:
		_, err = s.deps.Providers.ChatModel(ref)
	}
	return err == nil
}

// handleOpenAIModels serves GET /openai/v1/models.
func (s *Server) handleOpenAIModels(c echo.Context) error {
	models, err := s.runnableModels(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, openAIList[openAIModel]{Object: "list", Data: models})
}

// handleOpenAIModel serves GET /openai/v1/models/{id}; the id may hold
// slashes ("openai/gpt-4o-mini" is read as "openai:gpt-4o-mini").
func (s *Server) handleOpenAIModel(c echo.Context) error {
	id := c.Param("*")
	// Clients escape the id as one path segment (the openai SDK sends
	// openai%2Ftext-embedding-3-small).
	if u, err := url.PathUnescape(id); err == nil {
		id = u
	}
	want := id
	if t, err := engine.ParseModelTarget("model", id); err == nil && t.Pipe == "" {
		want = t.Ref.String()
	}
	models, err := s.runnableModels(c)
	if err != nil {
		return err
	}
	for _, m := range models {
		if m.ID == want || m.ID == id {
			return c.JSON(http.StatusOK, m)
		}
	}
	return &engine.Error{Code: engine.CodeNotFound, Field: "model", Message: "The model '" + id + "' does not exist or this key cannot run it"}
}

// maxEmbedDimensions bounds the dimensions field (OpenAI's largest model
// makes 3072; local models may make more).
const maxEmbedDimensions = 16384

// openAIEmbeddingBody is POST /openai/v1/embeddings.
type openAIEmbeddingBody struct {
	Model          string          `json:"model"`
	Input          json.RawMessage `json:"input"`
	EncodingFormat string          `json:"encoding_format"`
	Dimensions     *int            `json:"dimensions"`
}

type openAIEmbedding struct {
	Object    string `json:"object"`
	Index     int    `json:"index"`
	Embedding any    `json:"embedding"`
}

type openAIEmbeddingResponse struct {
	Object string            `json:"object"`
	Data   []openAIEmbedding `json:"data"`
	Model  string            `json:"model"`
	Usage  struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

// handleOpenAIEmbeddings serves POST /openai/v1/embeddings through the
// embedding providers (the same path as /v1/embed). base64 is
// little-endian float32, as OpenAI sends it. dimensions goes to the
// provider for models that can shorten their vectors and is refused
// (400 naming it) for the others.
func (s *Server) handleOpenAIEmbeddings(c echo.Context) error {
	var b openAIEmbeddingBody
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	if s.deps.Memory == nil {
		return engine.Errorf(engine.CodeUnavailable, "embeddings are not available on this server")
	}
	t, err := engine.ParseModelTarget("model", b.Model)
	if err != nil {
		return err
	}
	if t.Pipe != "" {
		return engine.FieldError("model", "pipes make no embeddings; name an embedding model such as openai:text-embedding-3-small")
	}
	var inputs []string
	if err := json.Unmarshal(b.Input, &inputs); err != nil {
		var one string
		if json.Unmarshal(b.Input, &one) != nil {
			return engine.FieldError("input", "must be a string or an array of strings (token arrays are not supported)")
		}
		inputs = []string{one}
	}
	switch b.EncodingFormat {
	case "", "float", "base64":
	default:
		return engine.FieldError("encoding_format", "must be float or base64, got %q", b.EncodingFormat)
	}
	dims := 0
	if b.Dimensions != nil {
		if dims = *b.Dimensions; dims < 1 || dims > maxEmbedDimensions {
			return engine.FieldError("dimensions", "must be between 1 and %d, got %d", maxEmbedDimensions, dims)
		}
	}
	if err := s.checkBudget(c, principal(c).Owner); err != nil {
		return err
	}
	vecs, err := s.deps.Memory.EmbedDimensions(c.Request().Context(), principal(c).Owner, inputs, t.Ref.String(), c.Request().Header.Get("LB-LLM-Key"), dims)
	if err != nil {
		return renameFields(err, map[string]string{"chunks": "input", "embeddingModel": "model"})
	}
	// A server that ignores dimensions (a local OpenAI-compatible one
	// whose model has one size) is caught here rather than answered.
	if dims > 0 && len(vecs) > 0 && dims != len(vecs[0]) {
		return engine.FieldError("dimensions", "%s answered %d-dimensional vectors, not %d: this model cannot shorten them; omit dimensions", t.Ref.String(), len(vecs[0]), dims)
	}
	resp := openAIEmbeddingResponse{Object: "list", Model: t.Ref.String(), Data: make([]openAIEmbedding, len(vecs))}
	chars := 0
	for i, v := range vecs {
		chars += len(inputs[i])
		var e any = v
		if b.EncodingFormat == "base64" {
			e = encodeFloats(v)
		}
		resp.Data[i] = openAIEmbedding{Object: "embedding", Index: i, Embedding: e}
	}
	// Providers do not report embedding usage through Hearth; this is the
	// usual estimate of four characters per token.
	resp.Usage.PromptTokens = (chars + 3) / 4
	resp.Usage.TotalTokens = resp.Usage.PromptTokens
	return c.JSON(http.StatusOK, resp)
}

// encodeFloats is OpenAI's base64 embedding: little-endian float32s.
func encodeFloats(v []float32) string {
	buf := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(f))
	}
	return base64.StdEncoding.EncodeToString(buf)
}

// renameFields re-labels an error's field (and its message prefix) for a
// route whose request names it differently.
func renameFields(err error, names map[string]string) error {
	var e *engine.Error
	if !errors.As(err, &e) || e.Field == "" {
		return err
	}
	for from, to := range names {
		if e.Field == from || strings.HasPrefix(e.Field, from+"[") || strings.HasPrefix(e.Field, from+".") {
			c := *e
			c.Field = to + strings.TrimPrefix(e.Field, from)
			c.Message = to + strings.TrimPrefix(e.Message, from)
			return &c
		}
	}
	return err
}

// maxModerationInputs bounds one moderation request (one provider call each).
const maxModerationInputs = 32

// handleOpenAIModerations serves POST /openai/v1/moderations through the
// provider moderation code pipes use. model is optional (OpenAI's when
// absent or an OpenAI moderation model name); "hearth:..." is the offline
// test double. Only flagged categories are listed, with score 1: the
// moderation adapters report categories, not scores.
func (s *Server) handleOpenAIModerations(c echo.Context) error {
	var b openAIModerationBody
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	var inputs []string
	if err := json.Unmarshal(b.Input, &inputs); err != nil {
		var one string
		if json.Unmarshal(b.Input, &one) != nil {
			return engine.FieldError("input", "must be a string or an array of strings")
		}
		inputs = []string{one}
	}
	if len(inputs) == 0 || len(inputs) > maxModerationInputs {
		return engine.FieldError("input", "must hold 1 to %d strings, got %d", maxModerationInputs, len(inputs))
	}
	provider, model := "openai", strings.TrimSpace(b.Model)
	if model == "" {
		model = "omni-moderation-latest"
	}
	if t, err := engine.ParseModelTarget("model", model); err == nil && t.Pipe == "" {
		provider, model = t.Ref.Provider, t.Ref.Model
	}
	if s.deps.Providers == nil {
		return engine.Errorf(engine.CodeUnavailable, "no model providers are configured on this server")
	}
	mod, err := s.deps.Providers.Moderator(provider)
	if err != nil {
		return engine.FieldError("model", "provider %q offers no moderation (openai does; hearth is the offline test double)", provider)
	}
	ctx := c.Request().Context()
	key, err := s.deps.Keysets.Resolve(ctx, provider, c.Request().Header.Get("LB-LLM-Key"), "", principal(c).Owner)
	if err != nil {
		return err
	}
	out := openAIModerationResponse{ID: "modr-" + engine.NewID(ctx, 24), Model: model}
	for _, in := range inputs {
		res, err := mod.Moderate(ctx, key, []string{in})
		if err != nil {
			return err
		}
		r := openAIModerationResult{Flagged: res.Flagged, Categories: map[string]bool{}, CategoryScores: map[string]float64{}}
		for _, cat := range res.Categories {
			r.Categories[cat], r.CategoryScores[cat] = true, 1
		}
		out.Results = append(out.Results, r)
	}
	return c.JSON(http.StatusOK, out)
}

// handleOpenAIImages serves POST /openai/v1/images/generations through
// the image code of /v1/images. Images that come back as data: URLs are
// answered as b64_json, unless response_format is url; https URLs as url.
func (s *Server) handleOpenAIImages(c echo.Context) error {
	var b openAIImageBody
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	switch b.ResponseFormat {
	case "", "url", "b64_json":
	default:
		return engine.FieldError("response_format", "must be url or b64_json, got %q", b.ResponseFormat)
	}
	model := b.Model
	if t, err := engine.ParseModelTarget("model", model); err == nil && t.Pipe == "" {
		model = t.Ref.String()
	}
	req := engine.ImageGenerateRequest{Prompt: b.Prompt, Model: model, N: b.N, Size: b.Size, Quality: b.Quality}
	res, err := s.generateImages(c, &req, openAIPrefix+"/images/generations")
	if err != nil {
		return err
	}
	out := openAIImageResponse{Created: res.Created, Data: []openAIImage{}}
	if len(res.Choices) > 0 {
		for _, img := range res.Choices[0].Message.Images {
			u := img.ImageURL.URL
			if _, data, ok := strings.Cut(u, ";base64,"); ok && strings.HasPrefix(u, "data:") && b.ResponseFormat != "url" {
				out.Data = append(out.Data, openAIImage{B64JSON: data})
			} else {
				out.Data = append(out.Data, openAIImage{URL: u})
			}
		}
	}
	setHeader(c.Response().Header(), HeaderModel, res.Provider+":"+res.Model)
	return c.JSON(http.StatusOK, out)
}
