package server

import (
	"context"
	"slices"

	"encoding/json"
	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// mcpPipeView is one pipe of list_pipes.
type mcpPipeView struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Model       string   `json:"model"`
	Variables   []string `json:"variables"`
	Memories    []string `json:"memories"`
}

// runnablePipes lists the pipes a key may run: a pipe key's own pipe, or
// the owner's pipes its scope allows.
func (s *Server) runnablePipes(ctx context.Context, p *engine.Principal) ([]*engine.Pipe, error) {
	if p.Kind == engine.KeyPipe {
		pipe, err := s.deps.Pipes.GetByID(ctx, p.PipeID)
		if err != nil {
			return nil, err
		}
		return []*engine.Pipe{pipe}, nil
	}
	list, err := s.deps.Pipes.List(ctx, p.Owner)
	if err != nil {
		return nil, err
	}
	out := list[:0:0]
	for _, pipe := range list {
		if p.Scope.CheckPipe(pipe.Name) == nil {
			out = append(out, pipe)
		}
	}
	return out, nil
}

func (s *Server) mcpListPipes(ctx context.Context, p *engine.Principal) (*mcpToolResult, error) {
	list, err := s.runnablePipes(ctx, p)
	if err != nil {
		return nil, err
	}
	out := make([]mcpPipeView, 0, len(list))
	for _, pipe := range list {
		v := mcpPipeView{Name: pipe.Name, Description: pipe.Description, Model: pipe.Model, Variables: []string{}, Memories: []string{}}
		for _, vr := range pipe.Variables {
			if !slices.Contains(v.Variables, vr.Name) {
				v.Variables = append(v.Variables, vr.Name)
			}
		}
		for _, m := range pipe.Memory {
			v.Memories = append(v.Memories, m.Name)
		}
		out = append(out, v)
	}
	return jsonResult(map[string]any{"pipes": out})
}

type mcpRunArgs struct {
	Name           string            `json:"name"`
	Message        string            `json:"message"`
	Variables      map[string]string `json:"variables"`
	ThreadID       string            `json:"thread_id"`
	IncludeSources bool              `json:"include_sources"`
}

// mcpRunOutput is run_pipe's structured result.
type mcpRunOutput struct {
	Completion string        `json:"completion"`
	ThreadID   string        `json:"thread_id,omitempty"`
	Model      string        `json:"model"`
	Sources    *[]sourceView `json:"sources,omitempty"`
}

// mcpRunPipe is the run_pipe tool: the pipe run API's engine call (scope,
// rate limit, budgets, run log and metering included), recorded with
// endpoint /mcp. recorded reports that the engine wrote the run record:
// every run it accepted, not one refused before (bad arguments, a pipe
// not found or outside the scope, a rate limit).
func (s *Server) mcpRunPipe(c echo.Context, args json.RawMessage) (res *mcpToolResult, recorded bool, err error) {
	var a mcpRunArgs
	if err := toolArgs(args, &a); err != nil {
		return nil, false, err
	}
	p := principal(c)
	if a.Name == "" && p.Kind != engine.KeyPipe {
		return nil, false, engine.FieldError("name", "is required: list_pipes names the pipes this key may run")
	}
	req := &engine.RunRequest{Principal: p, Name: a.Name, ThreadID: a.ThreadID, Endpoint: mcpPath,
		LLMKey: llmKey(c.Request().Header), Admit: s.admitPipe(c, nil)}
	if a.Message != "" {
		req.Messages = []engine.Message{{Role: "user", Content: engine.TextContent(a.Message)}}
	}
	for name, v := range a.Variables {
		req.Variables = append(req.Variables, engine.Variable{Name: name, Value: v})
	}
	slices.SortFunc(req.Variables, func(x, y engine.Variable) int {
		switch {
		case x.Name < y.Name:
			return -1
		case x.Name > y.Name:
			return 1
		}
		return 0
	})
	ctx := c.Request().Context()
	prep := new(engine.PreparedRun)
	pr, err := s.deps.Runner.PrepareIn(ctx, req, prep)
	if err != nil {
		return nil, prep.Pipe != nil, err
	}
	resp, err := pr.Complete(ctx)
	if err != nil {
		return nil, true, err
	}
	out := mcpRunOutput{Completion: engine.Completion(resp), ThreadID: pr.ThreadID, Model: pr.ModelID()}
	if a.IncludeSources {
		src := sourcesOf(pr.Sources)
		out.Sources = &src
	}
	res = &mcpToolResult{Content: []mcpContent{{Type: "text", Text: out.Completion}}, StructuredContent: out}
	if a.IncludeSources && len(pr.Sources) > 0 {
		b, err := json.Marshal(map[string]any{"sources": out.Sources})
		if err != nil {
			return nil, true, err
		}
		res.Content = append(res.Content, mcpContent{Type: "text", Text: string(b)})
	}
	return res, true, nil
}
