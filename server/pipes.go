package server

import (
	"github.com/hearth-dev/hearth/engine/guard"

	"net/http"
	"net/url"
	"strconv"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// pipeRoutes serve pipes CRUD (v1 and beta), pipe runs and run records.
// POST /v1/pipes/run is a static route, so it wins over POST
// /v1/pipes/:name (update): a pipe may therefore not be named "run".
func (s *Server) pipeRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/v1/pipes", Auth: AuthOwner, Handler: s.handlePipeCreate,
			Doc: RouteDoc{Summary: "Create a pipe (upsert: true updates an existing one)", Request: pipeBody{}, Response: pipeCreateView{}}},
		{Method: http.MethodGet, Path: "/v1/pipes", Auth: AuthOwner, Handler: s.handlePipeList,
			Doc: RouteDoc{Summary: "List pipes", Response: []pipeView{}}},
		{Method: http.MethodPost, Path: "/v1/pipes/run", Auth: AuthRun, Handler: s.handlePipeRun,
			Doc: RouteDoc{Summary: "Run a pipe", Request: runBody{}, Response: runResponse{}, Stream: true}},
		{Method: http.MethodGet, Path: "/v1/pipes/:name", Auth: AuthOwner, Handler: s.handlePipeGet,
			Doc: RouteDoc{Summary: "Get a pipe", Response: pipeView{}}},
		{Method: http.MethodPost, Path: "/v1/pipes/:name", Auth: AuthOwner, Handler: s.handlePipeUpdate,
			Doc: RouteDoc{Summary: "Update a pipe (only the fields sent change)", Request: pipeBody{}, Response: pipeCreateView{}}},
		{Method: http.MethodDelete, Path: "/v1/pipes/:name", Auth: AuthOwner, Handler: s.handlePipeDelete,
			Doc: RouteDoc{Summary: "Delete a pipe", Response: successView{}}},
		{Method: http.MethodPost, Path: "/v1/pipes/:name/keys", Auth: AuthOwner, Handler: s.handlePipeRotateKey,
			Doc: RouteDoc{Summary: "Issue a new pipe key, revoking the old ones", Response: pipeCreateView{}}},
		{Method: http.MethodGet, Path: "/v1/pipes/:name/runs", Auth: AuthOwner, Handler: s.handlePipeRuns,
			Doc: RouteDoc{Summary: "A pipe's run records, newest first", Response: runPage{}, Query: []string{"limit", "cursor"}}},
		{Method: http.MethodGet, Path: "/v1/runs", Auth: AuthOwner, Handler: s.handleRunList,
			Doc: RouteDoc{Summary: "The caller's run records, newest first", Response: runPage{}, Query: []string{"limit", "cursor"}}},

		{Method: http.MethodPost, Path: "/beta/org/:org/pipes", Auth: AuthOrg, Handler: s.handleBetaPipeCreate,
			Doc: RouteDoc{Summary: "Create an org pipe (beta)", Request: betaPipeBody{}, Response: betaPipeView{}}},
		{Method: http.MethodPost, Path: "/beta/user/pipes", Auth: AuthUser, Handler: s.handleBetaPipeCreate,
			Doc: RouteDoc{Summary: "Create a user pipe (beta)", Request: betaPipeBody{}, Response: betaPipeView{}}},
		{Method: http.MethodGet, Path: "/beta/pipes/:owner/:pipe", Auth: AuthRun, Handler: s.handleBetaPipeGet,
			Doc: RouteDoc{Summary: "Get a pipe (beta)", Response: betaPipeView{}}},
		{Method: http.MethodPost, Path: "/beta/pipes/:owner/:pipe", Auth: AuthOwner, Handler: s.handleBetaPipeUpdate,
			Doc: RouteDoc{Summary: "Update a pipe (beta)", Request: betaPipeBody{}, Response: betaPipeView{}}},
		{Method: http.MethodPut, Path: "/beta/pipes/:owner/:pipe", Auth: AuthOwner, Handler: s.handleBetaPipeUpdate,
			Doc: RouteDoc{Summary: "Update a pipe (beta)", Request: betaPipeBody{}, Response: betaPipeView{}}},
		{Method: http.MethodPatch, Path: "/beta/pipes/:owner/:pipe", Auth: AuthOwner, Handler: s.handleBetaPipeUpdate,
			Doc: RouteDoc{Summary: "Update a pipe (beta)", Request: betaPipeBody{}, Response: betaPipeView{}}},

		{Method: http.MethodPost, Path: "/beta/generate", Auth: AuthPipe, Handler: s.handleBetaRun("/beta/generate"),
			Doc: RouteDoc{Summary: "Run a pipe, generate mode (beta, deprecated)", Request: runBody{}, Response: runResponse{}, Stream: true}},
		{Method: http.MethodPost, Path: "/beta/chat", Auth: AuthPipe, Handler: s.handleBetaRun("/beta/chat"),
			Doc: RouteDoc{Summary: "Run a pipe, chat mode (beta)", Request: runBody{}, Response: runResponse{}, Stream: true}},
		{Method: http.MethodPost, Path: "/beta/pipes/run", Auth: AuthPipe, Handler: s.handleBetaRun("/beta/pipes/run"),
			Doc: RouteDoc{Summary: "Run a pipe (beta)", Request: runBody{}, Response: runResponse{}, Stream: true}},
	}
}

// pipeBody is the v1 create/update body. Absent fields are nil: create
// gives them their defaults, update leaves them as they are.
type pipeBody struct {
	Name              *string                `json:"name"`
	Upsert            bool                   `json:"upsert"`
	Description       *engine.FlexString     `json:"description"`
	Status            *string                `json:"status"`
	Type              *string                `json:"type"`
	Model             *string                `json:"model"`
	Stream            *bool                  `json:"stream"`
	JSON              *bool                  `json:"json"`
	Store             *bool                  `json:"store"`
	Moderate          *bool                  `json:"moderate"`
	LogContent        *bool                  `json:"log_content"`
	Cache             *bool                  `json:"cache"`
	TopP              *float64               `json:"top_p"`
	MaxTokens         *float64               `json:"max_tokens"`
	Temperature       *float64               `json:"temperature"`
	PresencePenalty   *float64               `json:"presence_penalty"`
	FrequencyPenalty  *float64               `json:"frequency_penalty"`
	Stop              *[]string              `json:"stop"`
	ToolChoice        *engine.ToolChoice     `json:"tool_choice"`
	ParallelToolCalls *bool                  `json:"parallel_tool_calls"`
	Messages          *[]engine.Message      `json:"messages"`
	Variables         *engine.Variables      `json:"variables"`
	Tools             *[]engine.Tool         `json:"tools"`
	Memory            *[]engine.MemoryRef    `json:"memory"`
	ResponseFormat    *engine.ResponseFormat `json:"response_format"`
	FallbackModels    *[]string              `json:"fallback_models"`
	Guard             *guard.Policy          `json:"guard"`
}

func (b *pipeBody) input() *engine.PipeInput {
	in := &engine.PipeInput{
		Name: b.Name, Status: b.Status, Type: b.Type, Model: b.Model,
		Stream: b.Stream, JSON: b.JSON, Store: b.Store, Moderate: b.Moderate, LogContent: b.LogContent, Cache: b.Cache,
		TopP: b.TopP, MaxTokens: b.MaxTokens, Temperature: b.Temperature,
		PresencePenalty: b.PresencePenalty, FrequencyPenalty: b.FrequencyPenalty,
		Stop: b.Stop, ToolChoice: b.ToolChoice, ParallelToolCalls: b.ParallelToolCalls,
		Messages: b.Messages, Variables: b.Variables, Tools: b.Tools, Memory: b.Memory,
		ResponseFormat: b.ResponseFormat, FallbackModels: b.FallbackModels, Guard: b.Guard,
	}
	if b.Description != nil {
		d := string(*b.Description)
		in.Description = &d
	}
	return in
}

// pipeCreateView is the v1 (and SDK) create/update response.
type pipeCreateView struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Status      string `json:"status"`
	OwnerLogin  string `json:"owner_login"`
	URL         string `json:"url"`
	Type        string `json:"type"`
	APIKey      string `json:"api_key"`
}

// pipeView is the v1 list item (also GET /v1/pipes/{name}), with the
// pipe's type and response_format added.
type pipeView struct {
	Name              string                 `json:"name"`
	Description       string                 `json:"description"`
	Status            string                 `json:"status"`
	OwnerLogin        string                 `json:"owner_login"`
	URL               string                 `json:"url"`
	Type              string                 `json:"type"`
	Model             string                 `json:"model"`
	Stream            bool                   `json:"stream"`
	JSON              bool                   `json:"json"`
	Store             bool                   `json:"store"`
	Moderate          bool                   `json:"moderate"`
	LogContent        bool                   `json:"log_content,omitempty"`
	Guard             *guard.Policy          `json:"guard,omitempty"`
	Cache             bool                   `json:"cache,omitempty"`
	TopP              float64                `json:"top_p"`
	MaxTokens         int                    `json:"max_tokens"`
	Temperature       float64                `json:"temperature"`
	PresencePenalty   float64                `json:"presence_penalty"`
	FrequencyPenalty  float64                `json:"frequency_penalty"`
	Stop              []string               `json:"stop"`
	ToolChoice        engine.ToolChoice      `json:"tool_choice"`
	ParallelToolCalls bool                   `json:"parallel_tool_calls"`
	Messages          []engine.Message       `json:"messages"`
	Variables         []engine.Variable      `json:"variables"`
	Tools             []engine.Tool          `json:"tools"`
	Memory            []engine.MemoryRef     `json:"memory"`
	ResponseFormat    *engine.ResponseFormat `json:"response_format"`
	FallbackModels    []string               `json:"fallback_models,omitempty"`
}

// pipeURL is the absolute studio link of a pipe.
func (s *Server) pipeURL(p *engine.Pipe) string {
	return s.cfg.PublicURL + "/studio/pipes/" + url.PathEscape(p.Owner) + "/" + url.PathEscape(p.Name)
}

func (s *Server) viewPipeCreate(p *engine.Pipe, key string) pipeCreateView {
	return pipeCreateView{Name: p.Name, Description: p.Description, Status: p.Status, OwnerLogin: p.Owner,
		URL: s.pipeURL(p), Type: p.Type, APIKey: key}
}

func nonNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

func (s *Server) viewPipe(p *engine.Pipe) pipeView {
	tc := p.ToolChoice
	if tc.Mode == "" && tc.Function == "" {
		tc.Mode = "auto"
	}
	rf := p.ResponseFormat
	if rf == nil {
		rf = &engine.ResponseFormat{Type: "text"}
	}
	return pipeView{
		Name: p.Name, Description: p.Description, Status: p.Status, OwnerLogin: p.Owner, URL: s.pipeURL(p),
		Type: p.Type, Model: p.Model, Stream: p.Stream, JSON: p.JSON, Store: p.Store, Moderate: p.Moderate, LogContent: p.LogContent, Guard: p.Guard, Cache: p.Cache,
		TopP: p.TopP, MaxTokens: p.MaxTokens, Temperature: p.Temperature,
		PresencePenalty: p.PresencePenalty, FrequencyPenalty: p.FrequencyPenalty,
		Stop: nonNil(p.Stop), ToolChoice: tc, ParallelToolCalls: p.ParallelToolCalls,
		Messages: nonNil(p.Messages), Variables: nonNil(p.Variables), Tools: nonNil(p.Tools),
		Memory: nonNil(p.Memory), ResponseFormat: rf, FallbackModels: p.FallbackModels,
	}
}

// reservedPipeName refuses "run", which POST /v1/pipes/run shadows.
func reservedPipeName(field string, name *string) error {
	if name != nil && *name == "run" {
		return engine.FieldError(field, `"run" is reserved (POST /v1/pipes/run runs pipes); choose another name`)
	}
	return nil
}

func (s *Server) handlePipeCreate(c echo.Context) error {
	var b pipeBody
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	if err := reservedPipeName("name", b.Name); err != nil {
		return err
	}
	p, key, _, err := s.deps.Pipes.Create(c.Request().Context(), principal(c).Owner, nil, b.input(), b.Upsert)
	if err != nil {
		return err
	}
	s.warnMissingKey(c, p.Owner, p.Model)
	return c.JSON(http.StatusOK, s.viewPipeCreate(p, key))
}

func (s *Server) handlePipeList(c echo.Context) error {
	list, err := s.deps.Pipes.List(c.Request().Context(), principal(c).Owner)
	if err != nil {
		return err
	}
	out := make([]pipeView, 0, len(list))
	for _, p := range list {
		out = append(out, s.viewPipe(p))
	}
	return c.JSON(http.StatusOK, out)
}

func (s *Server) handlePipeGet(c echo.Context) error {
	name, err := pathParam(c, "name")
	if err != nil {
		return err
	}
	p, err := s.deps.Pipes.Get(c.Request().Context(), principal(c).Owner, name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.viewPipe(p))
}

// handlePipeUpdate is the SDK's pipes.update: only the fields in the body
// change. api_key is "" in the answer: a pipe key is shown once, when it
// is issued (create, or POST /v1/pipes/{name}/keys).
func (s *Server) handlePipeUpdate(c echo.Context) error {
	name, err := pathParam(c, "name")
	if err != nil {
		return err
	}
	var b pipeBody
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	if err := reservedPipeName("name", b.Name); err != nil {
		return err
	}
	p, err := s.deps.Pipes.Update(c.Request().Context(), principal(c).Owner, name, b.input())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.viewPipeCreate(p, ""))
}

func (s *Server) handlePipeDelete(c echo.Context) error {
	name, err := pathParam(c, "name")
	if err != nil {
		return err
	}
	if err := s.deps.Pipes.Delete(c.Request().Context(), principal(c).Owner, name); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]bool{"success": true})
}

// handlePipeRotateKey revokes the pipe's keys and returns a new one once.
func (s *Server) handlePipeRotateKey(c echo.Context) error {
	name, err := pathParam(c, "name")
	if err != nil {
		return err
	}
	p, key, err := s.deps.Pipes.RotateKey(c.Request().Context(), principal(c).Owner, name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.viewPipeCreate(p, key))
}

// pageParams reads ?limit= and ?cursor=.
func pageParams(c echo.Context) (int, string, error) {
	limit := 0
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, "", engine.FieldError("limit", "must be a positive whole number")
		}
		limit = n
	}
	return limit, c.QueryParam("cursor"), nil
}

// runPage is a page of run records; next_cursor is null on the last page.
type runPage struct {
	Data       []*engine.RunRecord `json:"data"`
	NextCursor *string             `json:"next_cursor"`
}

func (s *Server) listRuns(c echo.Context, pipeID string) error {
	limit, cursor, err := pageParams(c)
	if err != nil {
		return err
	}
	out := runPage{Data: []*engine.RunRecord{}}
	if rl := s.deps.Runner.RunLog(); rl != nil {
		page, err := rl.List(c.Request().Context(), principal(c).Owner, pipeID, limit, cursor)
		if err != nil {
			return err
		}
		out.Data = scopeRuns(principal(c).Scope, page.Runs)
		if page.Next != "" {
			out.NextCursor = &page.Next
		}
	}
	return c.JSON(http.StatusOK, out)
}

// handlePipeRuns lists a pipe's run records, newest first (usage view).
func (s *Server) handlePipeRuns(c echo.Context) error {
	name, err := pathParam(c, "name")
	if err != nil {
		return err
	}
	p, err := s.deps.Pipes.Get(c.Request().Context(), principal(c).Owner, name)
	if err != nil {
		return err
	}
	return s.listRuns(c, p.ID)
}

// handleRunList lists the caller's run records, optionally for ?pipe=<name>.
func (s *Server) handleRunList(c echo.Context) error {
	if name := c.QueryParam("pipe"); name != "" {
		if err := principal(c).Scope.CheckPipe(name); err != nil {
			return err
		}
		p, err := s.deps.Pipes.Get(c.Request().Context(), principal(c).Owner, name)
		if err != nil {
			return err
		}
		return s.listRuns(c, p.ID)
	}
	return s.listRuns(c, "")
}
