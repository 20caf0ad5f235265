package server

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// anthropicModel is one model in Anthropic's shape.
type anthropicModel struct {
	Type        string `json:"type"`
	ID          string `json:"id"`
	DisplayName string `json:"display_name"`
	CreatedAt   string `json:"created_at"`
}

// anthropicModelList is a page of GET /anthropic/v1/models.
type anthropicModelList struct {
	Data    []anthropicModel `json:"data"`
	HasMore bool             `json:"has_more"`
	FirstID *string          `json:"first_id"`
	LastID  *string          `json:"last_id"`
}

// anthropicModels lists what a Messages request may name: the alias
// table's names first (shown with their targets), then the chat models
// and pipes this key can run, Anthropic's by their bare names.
func (s *Server) anthropicModels(c echo.Context) ([]anthropicModel, error) {
	all, err := s.runnableModels(c)
	if err != nil {
		return nil, err
	}
	var out []anthropicModel
	seen := map[string]bool{}
	add := func(id, display string, created int64) {
		if seen[id] {
			return
		}
		seen[id] = true
		out = append(out, anthropicModel{Type: "model", ID: id, DisplayName: display, CreatedAt: time.Unix(created, 0).UTC().Format(time.RFC3339)})
	}
	aliases := make([]string, 0, len(s.cfg.AnthropicModelAliases))
	for name := range s.cfg.AnthropicModelAliases {
		if name != "*" {
			aliases = append(aliases, name)
		}
	}
	slices.Sort(aliases)
	for _, name := range aliases {
		add(name, name+" (→ "+s.cfg.AnthropicModelAliases[name]+")", 0)
	}
	types := map[string]string{}
	if s.deps.Providers != nil {
		for _, models := range s.deps.Providers.Catalogue() {
			for _, m := range models {
				types[m.ID] = m.Type
			}
		}
	}
	for _, m := range all {
		if t, ok := types[m.ID]; ok && t != "text" && t != "chat" {
			continue
		}
		if isEmbeddingModel(m.ID) {
			continue
		}
		id := m.ID
		if bare, ok := strings.CutPrefix(id, "anthropic:"); ok {
			id = bare
		}
		add(id, id, m.Created)
	}
	return out, nil
}

// isEmbeddingModel reports whether id names an embedding model by its name.
func isEmbeddingModel(id string) bool {
	return strings.Contains(id, "embed") || strings.HasSuffix(id, ":bm25")
}

// handleAnthropicModels serves GET /anthropic/v1/models with Anthropic's
// pagination: limit (1-1000, default 20), after_id, before_id.
func (s *Server) handleAnthropicModels(c echo.Context) error {
	q := c.QueryParams()
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return engine.FieldError("limit", "must be an integer from 1 to 1000, got %q", v)
		}
		limit = n
	}
	all, err := s.anthropicModels(c)
	if err != nil {
		return err
	}
	index := func(field, id string) (int, error) {
		i := slices.IndexFunc(all, func(m anthropicModel) bool { return m.ID == id })
		if i < 0 {
			return 0, engine.FieldError(field, "no model %q in this list", id)
		}
		return i, nil
	}
	from, to := 0, len(all)
	if a := q.Get("after_id"); a != "" {
		i, err := index("after_id", a)
		if err != nil {
			return err
		}
		from = i + 1
	}
	if bid := q.Get("before_id"); bid != "" {
		i, err := index("before_id", bid)
		if err != nil {
			return err
		}
		to = i
	}
	page := anthropicModelList{Data: []anthropicModel{}}
	if from < to {
		page.Data = all[from:to]
	}
	if len(page.Data) > limit {
		if q.Get("before_id") != "" && q.Get("after_id") == "" {
			page.Data = page.Data[len(page.Data)-limit:]
		} else {
			page.Data = page.Data[:limit]
		}
		page.HasMore = true
	}
	if n := len(page.Data); n > 0 {
		page.FirstID, page.LastID = &page.Data[0].ID, &page.Data[n-1].ID
	}
	return c.JSON(http.StatusOK, page)
}

// handleAnthropicModel serves GET /anthropic/v1/models/{id}.
func (s *Server) handleAnthropicModel(c echo.Context) error {
	id, err := url.PathUnescape(c.Param("*"))
	if err != nil {
		id = c.Param("*")
	}
	all, err := s.anthropicModels(c)
	if err != nil {
		return err
	}
	for _, m := range all {
		if m.ID == id {
			return c.JSON(http.StatusOK, m)
		}
	}
	return &engine.Error{Code: engine.CodeNotFound, Field: "model", Message: "model: " + id + " not found"}
}
