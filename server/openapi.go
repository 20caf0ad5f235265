package server

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
)

// The OpenAPI document is generated from the route table: every served
// route is an operation (path, method, auth as security), and Route.Doc
// (openapi_docs.go) adds its summary and body schemas, reflected from the
// handlers' own types. A route without docs still appears, with generic
// schemas; TestOpenAPIMatchesRouteTable fails until it has a summary.

func (s *Server) openapiRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/openapi.json", Handler: s.handleOpenAPI,
			Doc: RouteDoc{Summary: "This OpenAPI 3.1 document"}},
	}
}

// openapiCache holds the encoded document, built on first request.
type openapiCache struct {
	once sync.Once
	doc  []byte
	err  error
}

func (s *Server) handleOpenAPI(c echo.Context) error {
	s.openapi.once.Do(func() { s.openapi.doc, s.openapi.err = json.Marshal(s.OpenAPI()) })
	if s.openapi.err != nil {
		return s.openapi.err
	}
	return c.JSONBlob(http.StatusOK, s.openapi.doc)
}

var pathParamRE = regexp.MustCompile(`:([A-Za-z0-9_]+)`)

// OpenAPIPath converts an echo route path ("/v1/pipes/:name") to an
// OpenAPI path template ("/v1/pipes/{name}"); a trailing wildcard becomes
// {path}.
func OpenAPIPath(p string) string {
	if strings.HasSuffix(p, "/*") {
		p = strings.TrimSuffix(p, "*") + "{path}"
	}
	return pathParamRE.ReplaceAllString(p, "{$1}")
}

// authDocs describes each key kind for the security section.
var authDocs = map[Auth]string{
	AuthOwner:    "owner",
	AuthUser:     "user",
	AuthOrg:      "org",
	AuthRun:      "run",
	AuthPipe:     "pipe",
	AuthOptional: "optional",
}

var authText = map[Auth]string{
	AuthOwner:    "Needs a user or org API key.",
	AuthUser:     "Needs a user API key.",
	AuthOrg:      "Needs an API key of the org named in the path.",
	AuthRun:      "Needs the pipe's API key, or a user or org key (the body names the pipe).",
	AuthPipe:     "Needs a pipe API key.",
	AuthOptional: "A key is read when present.",
}

// OpenAPI builds the OpenAPI 3.1 document of the routes this server serves.
func (s *Server) OpenAPI() map[string]any {
	g := newSchemaGen()
	errRefs := map[string]any{
		"4XX": map[string]any{"description": "Client error", "content": jsonContent(g.of(ErrorBody4xx{}))},
		"5XX": map[string]any{"description": "Server or upstream error", "content": jsonContent(g.of(ErrorBody5xx{}))},
	}
	paths := map[string]map[string]any{}
	for _, r := range s.routes {
		p := OpenAPIPath(r.Path)
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		paths[p][strings.ToLower(r.Method)] = s.operation(g, r, errRefs)
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "Hearth API",
			"version":     s.cfg.Version,
			"description": "Self-hosted, Langbase-compatible LLM application server. Generated from the route table.",
		},
		"servers": []any{map[string]any{"url": s.cfg.PublicURL}},
		"paths":   paths,
		"components": map[string]any{
			"schemas": g.components,
			"securitySchemes": map[string]any{
				"bearerAuth": map[string]any{"type": "http", "scheme": "bearer", "description": "A Hearth API key: Authorization: Bearer <key>."},
			},
		},
	}
}

func jsonContent(schema map[string]any) map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": schema}}
}

func (s *Server) operation(g *schemaGen, r Route, errs map[string]any) map[string]any {
	doc := r.Doc
	summary, documented := doc.Summary, doc.Summary != ""
	if !documented {
		summary = r.Method + " " + r.Path
	}
	op := map[string]any{
		"operationId": operationID(r.Method, r.Path),
		"summary":     summary,
		"tags":        []string{tagOf(r.Path)},
	}
	if doc.Description != "" || authText[r.Auth] != "" {
		op["description"] = strings.TrimSpace(doc.Description + " " + authText[r.Auth])
	}
	switch r.Auth {
	case AuthNone:
		op["security"] = []any{}
	case AuthOptional:
		op["security"] = []any{map[string]any{}, map[string]any{"bearerAuth": []string{}}}
	default:
		op["security"] = []any{map[string]any{"bearerAuth": []string{}}}
	}
	if k, ok := authDocs[r.Auth]; ok {
		op["x-hearth-key"] = k
	}
	var params []any
	for _, m := range pathParamRE.FindAllStringSubmatch(r.Path, -1) {
		params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
	}
	if strings.HasSuffix(r.Path, "/*") {
		params = append(params, map[string]any{"name": "path", "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
	}
	for _, q := range doc.Query {
		params = append(params, map[string]any{"name": q, "in": "query", "required": false, "schema": map[string]any{"type": "string"}})
	}
	if params != nil {
		op["parameters"] = params
	}
	switch {
	case doc.RequestType != "":
		op["requestBody"] = map[string]any{"content": map[string]any{doc.RequestType: map[string]any{"schema": map[string]any{"type": "string", "contentEncoding": "binary"}}}}
	case doc.Request != nil:
		op["requestBody"] = map[string]any{"content": jsonContent(g.of(doc.Request))}
	case !documented && (r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch):
		op["requestBody"] = map[string]any{"content": jsonContent(map[string]any{"type": "object"})}
	}
	ok := map[string]any{"description": "Success"}
	switch {
	case doc.RawType != "":
		ok["content"] = map[string]any{doc.RawType: map[string]any{"schema": map[string]any{"type": "string"}}}
	case doc.Response != nil:
		ok["content"] = jsonContent(g.of(doc.Response))
	default:
		ok["content"] = jsonContent(map[string]any{})
	}
	if doc.Stream {
		ok["content"].(map[string]any)["text/event-stream"] = map[string]any{
			"schema": map[string]any{"type": "string", "description": "OpenAI-style chat.completion.chunk events, then data: [DONE]; sent when the body says \"stream\": true."}}
	}
	op["responses"] = map[string]any{"200": ok, "4XX": errs["4XX"], "5XX": errs["5XX"]}
	return op
}

// operationID is a stable id such as "post_v1_pipes_name_keys".
func operationID(method, path string) string {
	p := strings.NewReplacer("/", "_", ":", "", "-", "_", ".", "_").Replace(strings.Trim(path, "/"))
	if p == "" {
		p = "root"
	}
	return strings.ToLower(method) + "_" + p
}

// tagOf groups operations by resource: the first path segment after the
// version prefix ("/v1/pipes/run" -> "pipes").
func tagOf(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) > 1 && (parts[0] == "v1" || parts[0] == "beta") {
		if parts[1] == "org" || parts[1] == "user" {
			if len(parts) > 3 {
				return parts[3]
			}
		}
		return parts[1]
	}
	return "info"
}
