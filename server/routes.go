package server

import (
	"net/http"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// Auth says which keys a route accepts.
type Auth int

const (
	// AuthNone: public route.
	AuthNone Auth = iota
	// AuthOwner: a user or an org key.
	AuthOwner
	// AuthUser: a user key only (/beta/user/...).
	AuthUser
	// AuthOrg: an org key for the org named by the :org path parameter.
	AuthOrg
	// AuthRun: a pipe key, or a user/org key (the body names the pipe).
	AuthRun
	// AuthPipe: a pipe key only.
	AuthPipe
	// AuthOptional: a key is read when present (signed upload URLs carry their own proof).
	AuthOptional
)

// Route is one entry of the route table; /routes serves this table.
type Route struct {
	Method  string
	Path    string
	Auth    Auth
	Handler echo.HandlerFunc
	// BodyLimit overrides the default request body cap when > 0.
	BodyLimit int64
	// Doc documents the route in /openapi.json; every route has one.
	Doc RouteDoc
}

// routeTable lists every route Hearth serves, grouped by resource.
func (s *Server) routeTable() []Route {
	var rs []Route
	rs = append(rs, s.infoRoutes()...)
	rs = append(rs, s.keyRoutes()...)
	rs = append(rs, s.keysetRoutes()...)
	rs = append(rs, s.budgetRoutes()...)
	rs = append(rs, s.providerRoutes()...)
	rs = append(rs, s.deploymentRoutes()...)
	rs = append(rs, s.pipeRoutes()...)
	rs = append(rs, s.pipeVersionRoutes()...)
	rs = append(rs, s.runDetailRoutes()...)
	rs = append(rs, s.threadRoutes()...)
	rs = append(rs, s.traceRoutes()...)
	rs = append(rs, s.memoryRoutes()...)
	rs = append(rs, s.imageRoutes()...)
	rs = append(rs, s.toolRoutes()...)
	rs = append(rs, s.agentRoutes()...)
	rs = append(rs, s.openAIRoutes()...)
	rs = append(rs, s.openAIResponsesRoutes()...)
	rs = append(rs, s.anthropicRoutes()...)
	rs = append(rs, s.mcpRoutes()...)
	rs = append(rs, s.adminRoutes()...)
	rs = append(rs, s.egressRoutes()...)
	rs = append(rs, s.metricsRoutes()...)
	rs = append(rs, s.openapiRoutes()...)
	rs = append(rs, s.studioRoutes()...)
	return rs
}

func (s *Server) infoRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/", Handler: s.handleRoot,
			Doc: RouteDoc{Summary: "Server banner", Response: infoResponse{}}},
		{Method: http.MethodGet, Path: "/health", Handler: s.handleHealth,
			Doc: RouteDoc{Summary: "Health check (the store answers a read)", Response: infoResponse{}}},
		{Method: http.MethodGet, Path: "/routes", Handler: s.handleRoutes,
			Doc: RouteDoc{Summary: "The route table", Response: routesView{}}},
		{Method: http.MethodGet, Path: "/v1/models", Handler: s.handleModels,
			Doc: RouteDoc{Summary: "Model catalogue by provider", Response: map[string][]engine.ModelInfo{}}},
	}
}
