package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/chunk"
	"github.com/hearth-dev/hearth/engine/filter"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/labstack/echo/v4"
)

// memoryRoutes serve memories, documents, uploads, retrieval and the
// embed/chunker/parser primitives (https://langbase.com/docs/api-reference/memory/create
// and the pages next to it; docs/memories-and-retrieval.md#memories).
func (s *Server) memoryRoutes() []Route {
	rs := []Route{
		{Method: http.MethodPost, Path: "/v1/memory", Auth: AuthOwner, Handler: s.handleMemoryCreate,
			Doc: RouteDoc{Summary: "Create a memory", Request: memory.CreateRequest{}, Response: memoryCreated{}}},
		{Method: http.MethodGet, Path: "/v1/memory", Auth: AuthOwner, Handler: s.handleMemoryList,
			Doc: RouteDoc{Summary: "List memories", Response: []memoryItem{}}},
		{Method: http.MethodDelete, Path: "/v1/memory/:memoryName", Auth: AuthOwner, Handler: s.handleMemoryDelete,
			Doc: RouteDoc{Summary: "Delete a memory with its documents", Response: successView{}}},
		{Method: http.MethodGet, Path: "/beta/org/:org/memorysets", Auth: AuthOrg, Handler: s.handleMemorySets,
			Doc: RouteDoc{Summary: "List an org's memories (beta)", Response: memorySetsView{}}},
		{Method: http.MethodGet, Path: "/beta/user/memorysets", Auth: AuthUser, Handler: s.handleMemorySets,
			Doc: RouteDoc{Summary: "List the user's memories (beta)", Response: memorySetsView{}}},
		{Method: http.MethodPost, Path: "/v1/memory/retrieve", Auth: AuthOwner, Handler: s.handleMemoryRetrieve,
			Doc: RouteDoc{Summary: "Retrieve chunks similar to a query from memories", Request: retrieveBody{}, Response: []retrievedChunk{}}},
		{Method: http.MethodPost, Path: "/beta/memory/retrieve", Auth: AuthOwner, Handler: s.handleBetaRetrieve,
			Doc: RouteDoc{Summary: "Retrieve chunks (beta)", Request: retrieveBody{}, Response: []retrievedChunk{}}},
		{Method: http.MethodPost, Path: "/beta/memorysets/:ownerLogin/:memoryName/retrieve", Auth: AuthOwner, Handler: s.handleBetaRetrieveOne,
			Doc: RouteDoc{Summary: "Retrieve chunks from one memory (beta)", Request: retrieveBody{}, Response: []retrievedChunk{}}},
	}
	rs = append(rs, s.documentRoutes()...)
	rs = append(rs, s.memoryCrawlRoutes()...)
	rs = append(rs, s.evalRoutes()...)
	rs = append(rs, s.packRoutes()...)
	rs = append(rs, s.uploadRoutes()...)
	return append(rs, s.primitiveRoutes()...)
}

// memoryCreated is the create response (MemoryCreateResponse) plus top_k.
type memoryCreated struct {
	Name           string             `json:"name"`
	Description    string             `json:"description"`
	OwnerLogin     string             `json:"owner_login"`
	URL            string             `json:"url"`
	ChunkSize      int                `json:"chunk_size"`
	ChunkOverlap   int                `json:"chunk_overlap"`
	EmbeddingModel string             `json:"embedding_model"`
	TopK           int                `json:"top_k"`
	Rerank         *engine.RerankSpec `json:"rerank,omitempty"`
	Chunking       *chunk.Settings    `json:"chunking,omitempty"`
}

// memoryItem is a v1 list item. The SDK's type reads embeddingModel, the
// Python SDK embedding_model: both are sent (docs/memories-and-retrieval.md#memories).
type memoryItem struct {
	Name            string `json:"name"`
	Description     string `json:"description"`
	OwnerLogin      string `json:"owner_login"`
	URL             string `json:"url"`
	EmbeddingModel  string `json:"embeddingModel"`
	EmbeddingModel2 string `json:"embedding_model"`
	ChunkSize       int    `json:"chunk_size"`
	ChunkOverlap    int    `json:"chunk_overlap"`
	TopK            int    `json:"top_k"`
	// Rerank is the memory's reranker (docs/memories-and-retrieval.md#reranking).
	Rerank *engine.RerankSpec `json:"rerank,omitempty"`
	// Chunking is the memory's chunk settings
	// (docs/memories-and-retrieval.md#structure-aware-chunking).
	Chunking *chunk.Settings `json:"chunking,omitempty"`
}

func (s *Server) memoryItem(m *memory.Memory) memoryItem {
	return memoryItem{Name: m.Name, Description: m.Description, OwnerLogin: m.Owner, URL: s.deps.Memory.URL(m),
		EmbeddingModel: m.EmbeddingModel, EmbeddingModel2: m.EmbeddingModel,
		ChunkSize: m.ChunkSize, ChunkOverlap: m.ChunkOverlap, TopK: m.TopK, Rerank: m.Rerank, Chunking: m.Chunking}
}

func (s *Server) handleMemoryCreate(c echo.Context) error {
	var req memory.CreateRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	m, err := s.deps.Memory.Create(c.Request().Context(), principal(c).Owner, req)
	if err != nil {
		return err
	}
	s.warnMissingKey(c, m.Owner, m.EmbeddingModel)
	return c.JSON(http.StatusOK, memoryCreated{Name: m.Name, Description: m.Description, OwnerLogin: m.Owner,
		URL: s.deps.Memory.URL(m), ChunkSize: m.ChunkSize, ChunkOverlap: m.ChunkOverlap,
		EmbeddingModel: m.EmbeddingModel, TopK: m.TopK, Rerank: m.Rerank, Chunking: m.Chunking})
}

func (s *Server) handleMemoryList(c echo.Context) error {
	list, err := s.deps.Memory.List(c.Request().Context(), principal(c).Owner)
	if err != nil {
		return err
	}
	out := make([]memoryItem, len(list))
	for i, m := range list {
		out[i] = s.memoryItem(m)
	}
	return c.JSON(http.StatusOK, out)
}

// handleMemorySets is the beta list: {memorySets: [...]}. The org route's
// key was checked against :org by the auth middleware.
func (s *Server) handleMemorySets(c echo.Context) error {
	list, err := s.deps.Memory.List(c.Request().Context(), principal(c).Owner)
	if err != nil {
		return err
	}
	out := make([]memoryItem, len(list))
	for i, m := range list {
		out[i] = s.memoryItem(m)
	}
	return c.JSON(http.StatusOK, map[string]any{"memorySets": out})
}

func (s *Server) handleMemoryDelete(c echo.Context) error {
	name, err := pathParam(c, "memoryName")
	if err != nil {
		return err
	}
	if err := s.deps.Memory.Delete(c.Request().Context(), principal(c).Owner, name); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]bool{"success": true})
}

// retrievedChunk is one retrieval result: the SDK's {text, similarity,
// meta}, where meta holds the document's upload meta plus documentName and
// docName (the beta shape's document name), and the memory and document
// names at the top level.
type retrievedChunk struct {
	Text         string            `json:"text"`
	Similarity   float64           `json:"similarity"`
	Meta         map[string]string `json:"meta"`
	DocumentName string            `json:"documentName"`
	MemoryName   string            `json:"memoryName"`
	// Heading and Section: docs/memories-and-retrieval.md#structure-aware-chunking.
	Heading string `json:"heading,omitempty"`
	Section string `json:"section,omitempty"`
}

func retrieved(res []memory.Result) []retrievedChunk {
	out := make([]retrievedChunk, len(res))
	for i, r := range res {
		meta := make(map[string]string, len(r.Meta)+2)
		for k, v := range r.Meta {
			meta[k] = v
		}
		meta[memory.MetaDocumentName] = r.Document
		meta[memory.MetaDocName] = r.Document
		out[i] = retrievedChunk{Text: r.Text, Similarity: r.Similarity, Meta: meta, DocumentName: r.Document, MemoryName: r.Memory,
			Heading: r.Heading, Section: r.Section}
	}
	return out
}

type memoryRef struct {
	Name    string          `json:"name"`
	Filters json.RawMessage `json:"filters"`
}

type retrieveBody struct {
	OwnerLogin string      `json:"ownerLogin"`
	Query      string      `json:"query"`
	Memory     []memoryRef `json:"memory"`
	TopK       *int        `json:"topK"`
	// Filters is the meta filter of the single-memory beta route.
	Filters json.RawMessage `json:"filters"`
	// Rerank overrides the memories' rerankers; {"model": "none"} turns
	// them off (docs/memories-and-retrieval.md#reranking).
	Rerank *engine.RerankSpec `json:"rerank,omitempty"`
	// MinScore drops results scoring below it
	// (docs/memories-and-retrieval.md#score-thresholds).
	MinScore *float64 `json:"min_score,omitempty"`
	// KeywordWeight overrides the keyword weight of hybrid fusion.
	KeywordWeight *float64 `json:"keyword_weight,omitempty"`
}

// retrieveRequest turns a decoded body into an engine request.
func retrieveRequest(b *retrieveBody) (memory.RetrieveRequest, error) {
	req := memory.RetrieveRequest{Query: b.Query, TopK: memory.DefaultRetrieveTopK,
		Rerank: b.Rerank, MinScore: b.MinScore, KeywordWeight: b.KeywordWeight}
	if b.TopK != nil {
		req.TopK = *b.TopK
	}
	if b.Memory == nil {
		return req, engine.FieldError("memory", "is required: an array of {name, filters?}")
	}
	for i, m := range b.Memory {
		if strings.TrimSpace(m.Name) == "" {
			return req, engine.FieldError(fmt.Sprintf("memory[%d].name", i), "is required")
		}
		f, err := filter.ParseField(m.Filters, fmt.Sprintf("memory[%d].filters", i))
		if err != nil {
			return req, err
		}
		req.Memories = append(req.Memories, memory.MemoryQuery{Name: m.Name, Filter: f})
	}
	return req, nil
}

func (s *Server) handleMemoryRetrieve(c echo.Context) error {
	var body retrieveBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	req, err := retrieveRequest(&body)
	if err != nil {
		return err
	}
	return s.retrieve(c, req)
}

// HeaderRetrievalMode is set to "keyword-fallback" on a retrieval whose
// query could not be embedded for some memory (provider down, missing
// key): those memories were searched by keyword only. It holds
// "rerank-fallback" when a reranker failed and its memories answered in
// their first-stage order; both values, comma-separated, when both happened.
const HeaderRetrievalMode = "lb-retrieval-mode"

// retrievalMode is the HeaderRetrievalMode value of a retrieval ("" when
// every stage worked).
func retrievalMode(r *memory.Retrieval) string {
	var modes []string
	if len(r.KeywordFallback) > 0 {
		modes = append(modes, "keyword-fallback")
	}
	if len(r.RerankFallback) > 0 {
		modes = append(modes, "rerank-fallback")
	}
	return strings.Join(modes, ", ")
}

// retrieve runs a retrieval and answers its results.
func (s *Server) retrieve(c echo.Context, req memory.RetrieveRequest) error {
	for _, m := range req.Memories {
		if err := principal(c).Scope.CheckMemory(m.Name); err != nil {
			return err
		}
	}
	r, err := s.deps.Memory.Search(c.Request().Context(), principal(c).Owner, req)
	if err != nil {
		return err
	}
	if mode := retrievalMode(r); mode != "" {
		setHeader(c.Response().Header(), HeaderRetrievalMode, mode)
	}
	return c.JSON(http.StatusOK, retrieved(r.Results))
}

// checkOwnerLogin refuses a beta ownerLogin other than the key's owner.
func checkOwnerLogin(c echo.Context, login string) error {
	if login == "" {
		return engine.FieldError("ownerLogin", "is required")
	}
	if owner := principal(c).Owner; !strings.EqualFold(login, owner) {
		return engine.Errorf(engine.CodeForbidden, "ownerLogin %q is not the owner of this API key (%q); a key reaches only its owner's memories", login, owner)
	}
	return nil
}

func (s *Server) handleBetaRetrieve(c echo.Context) error {
	var body retrieveBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if err := checkOwnerLogin(c, body.OwnerLogin); err != nil {
		return err
	}
	req, err := retrieveRequest(&body)
	if err != nil {
		return err
	}
	return s.retrieve(c, req)
}

func (s *Server) handleBetaRetrieveOne(c echo.Context) error {
	login, err := pathParam(c, "ownerLogin")
	if err != nil {
		return err
	}
	name, err := pathParam(c, "memoryName")
	if err != nil {
		return err
	}
	if err := checkOwnerLogin(c, login); err != nil {
		return err
	}
	var body retrieveBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	body.Memory = []memoryRef{{Name: name, Filters: body.Filters}}
	req, err := retrieveRequest(&body)
	if err != nil {
		return err
	}
	return s.retrieve(c, req)
}
