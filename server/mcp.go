package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// The MCP endpoint speaks the streamable HTTP transport of the Model
// Context Protocol: each JSON-RPC message is one POST, answered with one
// application/json body (202 for notifications and responses). Hearth
// keeps no MCP session: it issues no Mcp-Session-Id and sends nothing on
// its own, so GET (a server-initiated stream) and DELETE (end a session)
// answer 405, and any node of a cluster answers any request.
const mcpPath = "/mcp"

// mcpVersions are the protocol revisions /mcp speaks, newest first. A
// client asking for another one gets the newest (the specification's
// version negotiation). 2025-11-25 is the newest the official TypeScript
// client speaks; a 2026-07-28 client first tries server/discover, gets
// "method not found" and falls back to initialize, as that revision says.
var mcpVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// JSON-RPC and MCP error codes.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
	rpcInvalidParams  = -32602
	rpcInternalError  = -32603
	// rpcResourceNotFound is MCP's code for a resource that does not exist.
	rpcResourceNotFound = -32002
	// rpcServerError answers a request refused before it reached a method
	// (no key, bad key, rate limit, body too large); data holds Hearth's code.
	rpcServerError = -32000
)

// mcpRequest is one JSON-RPC message as the client sends it.
type mcpRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	// Result and Error make the message a response to the server.
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// mcpResponse is one JSON-RPC response.
type mcpResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object; Data carries Hearth's error code
// and field when the refusal came from the engine.
type rpcError struct {
	Code    int           `json:"code"`
	Message string        `json:"message"`
	Data    *rpcErrorData `json:"data,omitempty"`
}

type rpcErrorData struct {
	Code  string `json:"code,omitempty"`
	Field string `json:"field,omitempty"`
	// Supported lists the protocol versions, on a version refusal.
	Supported []string `json:"supported,omitempty"`
	Requested string   `json:"requested,omitempty"`
}

func (e *rpcError) Error() string { return e.Message }

// rpcErr builds a JSON-RPC error.
func rpcErr(code int, msg string) *rpcError { return &rpcError{Code: code, Message: msg} }

// rpcFromEngine turns an engine refusal into a JSON-RPC error: bad input
// and scope refusals are invalid params, a missing resource is MCP's
// resource-not-found, anything else an internal error with a safe message.
func rpcFromEngine(err error, notFound int) *rpcError {
	var re *rpcError
	if errors.As(err, &re) {
		return re
	}
	ee, status := toEngineError(err)
	out := &rpcError{Code: rpcInvalidParams, Message: ee.Message, Data: &rpcErrorData{Code: ee.Code, Field: ee.Field}}
	switch {
	case ee.Code == engine.CodeNotFound:
		out.Code = notFound
	case status >= 500:
		out.Code = rpcInternalError
		if ee.Code == engine.CodeInternal {
			out.Message = "internal server error"
		}
	}
	return out
}

func (s *Server) mcpRoutes() []Route {
	doc := "Model Context Protocol endpoint (streamable HTTP, JSON-RPC 2.0): the memories, pipes and allow-listed upstream MCP tools the key may use."
	return []Route{
		{Method: http.MethodPost, Path: mcpPath, Auth: AuthRun, Handler: s.handleMCP,
			Doc: RouteDoc{Summary: "MCP server: one JSON-RPC message", Description: doc, Request: mcpRequest{}, Response: mcpResponse{}}},
		{Method: http.MethodGet, Path: mcpPath, Handler: s.handleMCPNoStream,
			Doc: RouteDoc{Summary: "MCP server-initiated stream: 405, Hearth sends nothing on its own", Response: mcpResponse{}}},
		{Method: http.MethodDelete, Path: mcpPath, Handler: s.handleMCPNoStream,
			Doc: RouteDoc{Summary: "MCP session end: 405, Hearth keeps no MCP session", Response: mcpResponse{}}},
	}
}

// handleMCPNoStream answers GET and DELETE /mcp with 405.
func (s *Server) handleMCPNoStream(c echo.Context) error {
	c.Response().Header().Set("Allow", http.MethodPost)
	return c.JSON(http.StatusMethodNotAllowed, mcpResponse{JSONRPC: "2.0", ID: json.RawMessage("null"),
		Error: rpcErr(rpcServerError, c.Request().Method+" is not supported on /mcp: Hearth answers each POST and keeps no session or server-initiated stream")})
}

// handleMCP serves one POSTed JSON-RPC message.
func (s *Server) handleMCP(c echo.Context) error {
	r := c.Request()
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "application/json") {
		return mcpHTTPError(c, http.StatusUnsupportedMediaType, rpcErr(rpcInvalidRequest, "Content-Type must be application/json"))
	}
	if !acceptsJSON(r.Header.Get("Accept")) {
		return mcpHTTPError(c, http.StatusNotAcceptable, rpcErr(rpcInvalidRequest, "Accept must list application/json and text/event-stream"))
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		return mcpHTTPError(c, http.StatusBadRequest, rpcErr(rpcInvalidRequest, "JSON-RPC batches are not supported: send one message per POST"))
	}
	if err := checkDepth(body); err != nil {
		return mcpHTTPError(c, http.StatusBadRequest, rpcErr(rpcParseError, "parse error: "+err.Error()))
	}
	var req mcpRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return mcpHTTPError(c, http.StatusBadRequest, rpcErr(rpcParseError, "parse error: the body is not a JSON-RPC message: "+err.Error()))
	}
	if req.JSONRPC != "2.0" {
		return mcpHTTPError(c, http.StatusBadRequest, rpcErr(rpcInvalidRequest, `jsonrpc must be "2.0"`))
	}
	if req.Method == "" || len(req.ID) == 0 || string(req.ID) == "null" {
		// A notification or a response to the server: nothing to answer.
		if req.Method == "" && req.Result == nil && req.Error == nil {
			return mcpHTTPError(c, http.StatusBadRequest, rpcErr(rpcInvalidRequest, "a message needs a method, a result or an error"))
		}
		return c.NoContent(http.StatusAccepted)
	}
	if req.Method != "initialize" {
		if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !slices.Contains(mcpVersions, v) {
			e := rpcErr(rpcInvalidRequest, "unsupported MCP-Protocol-Version "+quoteShort(v))
			e.Data = &rpcErrorData{Supported: mcpVersions, Requested: v}
			return mcpHTTPError(c, http.StatusBadRequest, e)
		}
	}
	out := mcpResponse{JSONRPC: "2.0", ID: req.ID}
	res, err := s.mcpDispatch(c, &req)
	if err != nil {
		out.Error = rpcFromEngine(err, rpcInvalidParams)
	} else {
		out.Result = res
	}
	return c.JSON(http.StatusOK, out)
}

// mcpDispatch runs one request's method.
func (s *Server) mcpDispatch(c echo.Context, req *mcpRequest) (any, error) {
	switch req.Method {
	case "initialize":
		return s.mcpInitialize(req.Params)
	case "ping":
		return struct{}{}, nil
	case "tools/list":
		return s.mcpToolsList(c)
	case "tools/call":
		return s.mcpToolsCall(c, req.Params)
	case "resources/list":
		return s.mcpResourcesList(c, req.Params)
	case "resources/templates/list":
		return mcpTemplates(), nil
	case "resources/read":
		return s.mcpResourcesRead(c, req.Params)
	}
	return nil, rpcErr(rpcMethodNotFound, "method not found: "+req.Method)
}

type mcpInitParams struct {
	ProtocolVersion string `json:"protocolVersion"`
}

type mcpInitResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ServerInfo      map[string]any `json:"serverInfo"`
	Instructions    string         `json:"instructions,omitempty"`
}

// mcpInitialize negotiates the protocol version and names the server's capabilities.
func (s *Server) mcpInitialize(params json.RawMessage) (any, error) {
	var p mcpInitParams
	if err := unmarshalParams(params, &p); err != nil {
		return nil, err
	}
	v := mcpVersions[0]
	if slices.Contains(mcpVersions, p.ProtocolVersion) {
		v = p.ProtocolVersion
	}
	return mcpInitResult{ProtocolVersion: v,
		Capabilities: map[string]any{"tools": map[string]any{"listChanged": false}, "resources": map[string]any{"listChanged": false, "subscribe": false}},
		ServerInfo:   map[string]any{"name": "hearth", "title": "Hearth", "version": s.cfg.Version},
		Instructions: "Hearth holds memories (searchable documents) and pipes (stored prompts). Use list_memories and retrieve to find passages, " +
			"list_pipes and run_pipe to run a stored prompt; documents are resources under hearth://memory/.",
	}, nil
}

// unmarshalParams decodes a request's params; absent params decode as {}.
func unmarshalParams(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		return nil
	}
	if err := json.Unmarshal(params, v); err != nil {
		return rpcErr(rpcInvalidParams, "invalid params: "+err.Error())
	}
	return nil
}

// acceptsJSON reports whether an Accept header lets the answer be
// application/json (an absent header does).
func acceptsJSON(accept string) bool {
	if strings.TrimSpace(accept) == "" {
		return true
	}
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "application/json", "application/*", "*/*":
			return true
		}
	}
	return false
}

// quoteShort quotes a client-supplied value, cut to 40 bytes.
func quoteShort(v string) string {
	if len(v) > 40 {
		v = v[:40]
	}
	return `"` + v + `"`
}

// mcpHTTPError answers a message refused before dispatch: an HTTP error
// status with a JSON-RPC error body of id null.
func mcpHTTPError(c echo.Context, status int, e *rpcError) error {
	return c.JSON(status, mcpResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: e})
}

// mcpErrorBody is the body of a refusal the middleware made (no key, a
// bad key, a rate limit): a JSON-RPC error of id null carrying Hearth's
// error code. A 401 also gets the WWW-Authenticate header clients look for.
func mcpErrorBody(c echo.Context, ee *engine.Error, status int) mcpResponse {
	if status == http.StatusUnauthorized {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="hearth"`)
	}
	msg := ee.Message
	if status >= 500 && ee.Code == engine.CodeInternal {
		msg = "internal server error"
	}
	return mcpResponse{JSONRPC: "2.0", ID: json.RawMessage("null"),
		Error: &rpcError{Code: rpcServerError, Message: msg, Data: &rpcErrorData{Code: ee.Code, Field: ee.Field}}}
}
