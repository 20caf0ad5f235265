package server

import (
	"net/http"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/agent"
	"github.com/labstack/echo/v4"
)

func (s *Server) agentRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/v1/agent/run", Auth: AuthOwner, Handler: s.handleAgentRun,
			Doc: RouteDoc{Summary: "Run an agent: a model with tools and MCP servers, no stored pipe", Request: agent.AgentRunRequest{}, Response: agentResponse{}, Stream: true}},
	}
}

// agentResponse is the non-stream answer: output plus the completion's
// fields, flat (the SDK also accepts {output, raw}; flat is what the API
// reference shows).
type agentResponse struct {
	Output *string `json:"output"`
	*engine.ChatResponse
}

// agentRun is the memory of one /v1/agent/run request, allocated once: the
// decoded body, the engine's run and the non-stream answer (handed to the
// answer writer as a pointer, so it is not copied into an interface value
// of its own).
type agentRun struct {
	req    agent.AgentRunRequest
	answer agentResponse
	// state is the engine's memory of the run (agent.Agent.RunIn), and
	// model the lb-model header's value (len == cap, so an Add copies it).
	state agent.RunState
	model [1]string
}

// handleAgentRun serves POST /v1/agent/run. The provider key comes from
// the LB-LLM-Key header (matched case-insensitively), then the body's
// apiKey, then the caller's keyset and the server key. It streams only
// when the body says "stream": true.
func (s *Server) handleAgentRun(c echo.Context) error {
	run := new(agentRun)
	req, answer := &run.req, &run.answer
	if err := decodeJSON(c, req); err != nil {
		return err
	}
	if err := s.checkBudget(c, principal(c).Owner); err != nil {
		return err
	}
	s.noteDeployment(c)
	if _, err := s.useCache(c, principal(c).Owner, "cache", ""); err != nil {
		return err
	}
	res, err := s.deps.Agent.RunIn(s.guardContext(c), principal(c).Owner, llmKey(c.Request().Header), req, &run.state)
	if err != nil {
		return err
	}
	run.model[0] = engine.ModelIDOf(res.Model, req.Model)
	c.Response().Header()[HeaderModel] = run.model[:]
	if res.Stream != nil {
		return s.relay(c, res.Stream, newSSEWriter(c), "agent", req.Model)
	}
	*answer = agentResponse{Output: res.Output, ChatResponse: res.Response}
	return answerJSON(c, http.StatusOK, answer)
}
