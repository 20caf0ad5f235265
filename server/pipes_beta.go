package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// The beta pipe endpoints carry the same settings nested under `config`;
// they read and write the same stored pipe as the v1 endpoints.

type betaPipeBody struct {
	Name        *string            `json:"name"`
	Upsert      bool               `json:"upsert"`
	Description *engine.FlexString `json:"description"`
	Status      *string            `json:"status"`
	Type        *string            `json:"type"`
	Config      *betaConfig        `json:"config"`
}

type betaConfig struct {
	Meta *struct {
		Stream     *bool `json:"stream"`
		JSON       *bool `json:"json"`
		Store      *bool `json:"store"`
		Moderate   *bool `json:"moderate"`
		LogContent *bool `json:"log_content"`
	} `json:"meta"`
	Model *struct {
		Name     *string `json:"name"`
		Provider *string `json:"provider"`
		Params   *struct {
			TopP             *float64  `json:"top_p"`
			MaxTokens        *float64  `json:"max_tokens"`
			Temperature      *float64  `json:"temperature"`
			PresencePenalty  *float64  `json:"presence_penalty"`
			FrequencyPenalty *float64  `json:"frequency_penalty"`
			Stop             *[]string `json:"stop"`
		} `json:"params"`
		ToolChoice        *engine.ToolChoice `json:"tool_choice"`
		ParallelToolCalls *bool              `json:"parallel_tool_calls"`
	} `json:"model"`
	Prompt *struct {
		System    *string           `json:"system"`
		Opening   *string           `json:"opening"`
		Safety    *string           `json:"safety"`
		JSON      *string           `json:"json"`
		RAG       *string           `json:"rag"`
		Messages  *[]engine.Message `json:"messages"`
		Variables *engine.Variables `json:"variables"`
	} `json:"prompt"`
	Tools          *[]engine.Tool         `json:"tools"`
	Memorysets     *memoryNames           `json:"memorysets"`
	ResponseFormat *engine.ResponseFormat `json:"response_format"`
}

// memoryNames accepts ["name", ...] and [{"name": ...}, ...].
type memoryNames []engine.MemoryRef

func (m *memoryNames) UnmarshalJSON(b []byte) error {
	*m = memoryNames{}
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return engine.FieldError("config.memorysets", "must be an array of memory names")
	}
	for i, r := range raw {
		r = bytes.TrimSpace(r)
		var ref engine.MemoryRef
		if len(r) > 0 && r[0] == '"' {
			if err := json.Unmarshal(r, &ref.Name); err != nil {
				return err
			}
		} else if err := json.Unmarshal(r, &ref); err != nil {
			return engine.FieldError("config.memorysets", "item %d must be a memory name or {name}", i)
		}
		*m = append(*m, ref)
	}
	return nil
}

// betaField maps v1 field names to their place in the beta body.
func betaField(name string) string {
	switch name {
	case "name", "description", "status", "type":
		return name
	case "model":
		return "config.model.name"
	case "stream", "json", "store", "moderate", "log_content":
		return "config.meta." + name
	case "top_p", "max_tokens", "temperature", "presence_penalty", "frequency_penalty", "stop":
		return "config.model.params." + name
	case "tool_choice", "parallel_tool_calls":
		return "config.model." + name
	case "messages", "variables":
		return "config.prompt." + name
	case "tools", "response_format":
		return "config." + name
	case "memory":
		return "config.memorysets"
	}
	return name
}

// input turns the beta body into a pipe input over cur, the pipe as it is
// (the beta defaults on create): the prompt slots and the model's
// provider/name halves are merged into cur's values.
func (b *betaPipeBody) input(cur *engine.Pipe) *engine.PipeInput {
	in := &engine.PipeInput{Name: b.Name, Status: b.Status, Type: b.Type, Field: betaField}
	if b.Description != nil {
		d := string(*b.Description)
		in.Description = &d
	}
	cfg := b.Config
	if cfg == nil {
		return in
	}
	if m := cfg.Meta; m != nil {
		in.Stream, in.JSON, in.Store, in.Moderate, in.LogContent = m.Stream, m.JSON, m.Store, m.Moderate, m.LogContent
	}
	if m := cfg.Model; m != nil {
		if m.Name != nil || m.Provider != nil {
			provider, model, _ := strings.Cut(cur.Model, ":")
			if m.Provider != nil {
				provider = strings.ToLower(*m.Provider)
			}
			if m.Name != nil {
				model = *m.Name
			}
			id := provider + ":" + model
			in.Model = &id
		}
		if p := m.Params; p != nil {
			in.TopP, in.MaxTokens, in.Temperature = p.TopP, p.MaxTokens, p.Temperature
			in.PresencePenalty, in.FrequencyPenalty, in.Stop = p.PresencePenalty, p.FrequencyPenalty, p.Stop
		}
		in.ToolChoice, in.ParallelToolCalls = m.ToolChoice, m.ParallelToolCalls
	}
	if p := cfg.Prompt; p != nil {
		tmp := *cur
		tmp.Messages = append([]engine.Message{}, cur.Messages...)
		changed := false
		for _, slot := range []struct {
			name string
			v    *string
		}{{"", p.System}, {engine.PromptOpening, p.Opening}, {engine.PromptSafety, p.Safety}, {engine.PromptJSON, p.JSON}, {engine.PromptRAG, p.RAG}} {
			if slot.v != nil {
				tmp.SetPrompt(slot.name, *slot.v)
				changed = true
			}
		}
		if p.Messages != nil {
			var slots []engine.Message
			for _, m := range tmp.Messages {
				if m.Role == "system" {
					slots = append(slots, m)
				}
			}
			tmp.Messages = append(slots, *p.Messages...)
			changed = true
		}
		if changed {
			in.Messages = &tmp.Messages
		}
		in.Variables = p.Variables
	}
	in.Tools = cfg.Tools
	if cfg.Memorysets != nil {
		refs := []engine.MemoryRef(*cfg.Memorysets)
		in.Memory = &refs
	}
	in.ResponseFormat = cfg.ResponseFormat
	return in
}

// betaPipeView is the beta create/update response; GET adds config.
type betaPipeView struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Description string          `json:"description"`
	Status      string          `json:"status"`
	APIKey      string          `json:"api_key"`
	OwnerLogin  string          `json:"owner_login"`
	URL         string          `json:"url"`
	Config      *betaConfigView `json:"config,omitempty"`
}

type betaConfigView struct {
	Meta struct {
		Stream     bool `json:"stream"`
		JSON       bool `json:"json"`
		Store      bool `json:"store"`
		Moderate   bool `json:"moderate"`
		LogContent bool `json:"log_content,omitempty"`
	} `json:"meta"`
	Model struct {
		Name     string `json:"name"`
		Provider string `json:"provider"`
		Params   struct {
			TopP             float64  `json:"top_p"`
			MaxTokens        int      `json:"max_tokens"`
			Temperature      float64  `json:"temperature"`
			PresencePenalty  float64  `json:"presence_penalty"`
			FrequencyPenalty float64  `json:"frequency_penalty"`
			Stop             []string `json:"stop"`
		} `json:"params"`
		ToolChoice        engine.ToolChoice `json:"tool_choice"`
		ParallelToolCalls bool              `json:"parallel_tool_calls"`
	} `json:"model"`
	Prompt struct {
		System    string            `json:"system"`
		Opening   string            `json:"opening"`
		Safety    string            `json:"safety"`
		JSON      string            `json:"json"`
		RAG       string            `json:"rag"`
		Messages  []engine.Message  `json:"messages"`
		Variables []engine.Variable `json:"variables"`
	} `json:"prompt"`
	Tools          []engine.Tool          `json:"tools"`
	Memorysets     []string               `json:"memorysets"`
	ResponseFormat *engine.ResponseFormat `json:"response_format"`
}

func (s *Server) viewBetaPipe(p *engine.Pipe, key string, withConfig bool) betaPipeView {
	v := betaPipeView{Name: p.Name, Type: p.Type, Description: p.Description, Status: p.Status,
		APIKey: key, OwnerLogin: p.Owner, URL: s.pipeURL(p)}
	if !withConfig {
		return v
	}
	pv := s.viewPipe(p)
	cfg := &betaConfigView{}
	cfg.Meta.Stream, cfg.Meta.JSON, cfg.Meta.Store, cfg.Meta.Moderate, cfg.Meta.LogContent = p.Stream, p.JSON, p.Store, p.Moderate, p.LogContent
	cfg.Model.Provider, cfg.Model.Name, _ = strings.Cut(p.Model, ":")
	pr := &cfg.Model.Params
	pr.TopP, pr.MaxTokens, pr.Temperature, pr.PresencePenalty, pr.FrequencyPenalty, pr.Stop =
		p.TopP, p.MaxTokens, p.Temperature, p.PresencePenalty, p.FrequencyPenalty, pv.Stop
	cfg.Model.ToolChoice, cfg.Model.ParallelToolCalls = pv.ToolChoice, p.ParallelToolCalls
	cfg.Prompt.System, cfg.Prompt.Opening, cfg.Prompt.Safety = p.SystemPrompt(), p.Prompt(engine.PromptOpening), p.Prompt(engine.PromptSafety)
	cfg.Prompt.JSON, cfg.Prompt.RAG = p.Prompt(engine.PromptJSON), p.Prompt(engine.PromptRAG)
	cfg.Prompt.Messages, cfg.Prompt.Variables = nonNil(p.FewShot()), pv.Variables
	cfg.Tools, cfg.ResponseFormat = pv.Tools, pv.ResponseFormat
	cfg.Memorysets = []string{}
	for _, m := range p.Memory {
		cfg.Memorysets = append(cfg.Memorysets, m.Name)
	}
	v.Config = cfg
	return v
}

// handleBetaPipeCreate serves POST /beta/user/pipes and /beta/org/{org}/pipes.
func (s *Server) handleBetaPipeCreate(c echo.Context) error {
	var b betaPipeBody
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	if err := reservedPipeName("name", b.Name); err != nil {
		return err
	}
	base := engine.BetaPipeDefaults()
	owner := principal(c).Owner
	cur := base
	if b.Upsert && b.Name != nil {
		if p, err := s.deps.Pipes.Get(c.Request().Context(), owner, *b.Name); err == nil {
			cur = p
		}
	}
	p, key, _, err := s.deps.Pipes.Create(c.Request().Context(), owner, base, b.input(cur), b.Upsert)
	if err != nil {
		return err
	}
	s.warnMissingKey(c, p.Owner, p.Model)
	return c.JSON(http.StatusOK, s.viewBetaPipe(p, key, false))
}

// betaPipeParams reads :owner and :pipe.
func betaPipeParams(c echo.Context) (owner, name string, err error) {
	if owner, err = pathParam(c, "owner"); err != nil {
		return "", "", err
	}
	name, err = pathParam(c, "pipe")
	return strings.ToLower(owner), name, err
}

// handleBetaPipeGet returns a pipe in the beta shape with its config. The
// owner's keys and the pipe's key see it; other keys see public pipes only.
func (s *Server) handleBetaPipeGet(c echo.Context) error {
	owner, name, err := betaPipeParams(c)
	if err != nil {
		return err
	}
	p, err := s.deps.Pipes.Read(c.Request().Context(), principal(c), owner, name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.viewBetaPipe(p, "", true))
}

// handleBetaPipeUpdate serves POST, PUT and PATCH /beta/pipes/{owner}/{pipe}:
// a partial update, like the v1 update.
func (s *Server) handleBetaPipeUpdate(c echo.Context) error {
	owner, name, err := betaPipeParams(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	who := principal(c)
	if owner != who.Owner {
		if _, err := s.deps.Pipes.Read(ctx, who, owner, name); err != nil {
			return err
		}
		return engine.Errorf(engine.CodeForbidden, "only %q's keys can update this pipe", owner)
	}
	var b betaPipeBody
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	if err := reservedPipeName("name", b.Name); err != nil {
		return err
	}
	cur, err := s.deps.Pipes.Get(ctx, owner, name)
	if err != nil {
		return err
	}
	p, err := s.deps.Pipes.Update(ctx, owner, name, b.input(cur))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.viewBetaPipe(p, "", false))
}
