package server

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// readOnlyPosts are the POST routes a read-only key may call: they run,
// retrieve or compute, and change no configuration (docs/accounts-and-keys.md#scoped-keys).
// Every other POST, PUT, PATCH and DELETE is a change.
var readOnlyPosts = map[string]bool{
	"/v1/pipes/run": true, "/beta/generate": true, "/beta/chat": true, "/beta/pipes/run": true,
	"/v1/agent/run": true, openAIPrefix + "/chat/completions": true, responsesPath: true,
	anthropicPrefix + "/messages": true, anthropicPrefix + "/messages/count_tokens": true,
	"/v1/memory/retrieve": true, "/beta/memory/retrieve": true,
	"/beta/memorysets/:ownerLogin/:memoryName/retrieve": true, "/v1/memory/:memoryName/eval": true,
	"/v1/embed": true, "/v1/chunker": true, "/v1/parser": true, "/v1/images": true,
	"/v1/tools/crawl": true, "/v1/tools/web-search": true, "/v1/traces": true,
	mcpPath: true,
}

// checkScope enforces the parts of a key's scope that the route alone
// decides: read-only by method and route, key management, and the pipe or
// memory a route names in its path. Runs check pipes, memories and models
// in the engine (Runner, Agent). Expiry is checked by Authenticate.
func checkScope(p *engine.Principal, c echo.Context) error {
	s := p.Scope
	if s.Empty() {
		return nil
	}
	method, path := c.Request().Method, c.Path()
	write := method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
	if s.ReadOnly && write && !(method == http.MethodPost && readOnlyPosts[path]) {
		return &engine.Error{Code: engine.CodeForbidden, Field: "read_only",
			Message: "this API key's read_only scope forbids " + method + " " + path + ": it may read and run, not change"}
	}
	if write && (path == "/v1/keys" || path == "/v1/keys/:id") {
		return &engine.Error{Code: engine.CodeForbidden, Field: "scope",
			Message: "a scoped API key cannot create or revoke keys: use an unscoped key of the owner"}
	}
	switch {
	case strings.HasPrefix(path, "/v1/pipes/:name"):
		return s.CheckPipe(param(c, "name"))
	case path == "/beta/pipes/:owner/:pipe":
		return s.CheckPipe(param(c, "pipe"))
	case strings.Contains(path, ":memoryName"):
		return s.CheckMemory(param(c, "memoryName"))
	}
	return nil
}

func param(c echo.Context, name string) string {
	v, err := url.PathUnescape(c.Param(name))
	if err != nil {
		return c.Param(name)
	}
	return v
}
