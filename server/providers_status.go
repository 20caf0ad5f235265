package server

import (
	"net/http"
	"sort"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// providersView answers GET /v1/providers: the defaults a pipe or memory
// created without a model gets, and every provider with where its key
// would come from for the caller, ready ones first (the studio's pickers
// use this order).
type providersView struct {
	DefaultModel          string           `json:"default_model"`
	DefaultEmbeddingModel string           `json:"default_embedding_model"`
	Providers             []providerStatus `json:"providers"`
}

// providerStatus is one provider. Key is "keyset" (the caller's keyset
// has one), "server" (HEARTH_<P>_API_KEY), "not needed" (local servers and
// the offline hearth models) or "missing"; Ready is false only when missing.
type providerStatus struct {
	Provider string `json:"provider"`
	Key      string `json:"key"`
	Ready    bool   `json:"ready"`
	// Deployments are the provider's models served by several servers,
	// each deployment's state as this node sees it.
	Deployments []engine.DeploymentStatus `json:"deployments,omitempty"`
}

func (s *Server) providerRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/v1/providers", Auth: AuthOwner, Handler: s.handleProviders,
			Doc: RouteDoc{Summary: "Default models and each provider's key status for the caller, ready ones first, with the state of its deployments", Response: providersView{}}},
	}
}

// keyRank orders providers: a key of the caller's own, the server's, the
// offline hearth models, other keyless ones, then those without a key.
var keyRank = map[string]int{"keyset": 0, "server": 1, "hearth": 2, "not needed": 3, "missing": 4}

func (s *Server) handleProviders(c echo.Context) error {
	ctx := c.Request().Context()
	out := providersView{DefaultModel: s.deps.Pipes.DefaultModel(), Providers: []providerStatus{}}
	if s.deps.Memory != nil {
		out.DefaultEmbeddingModel = s.deps.Memory.DefaultEmbeddingModel()
	}
	if s.deps.Providers == nil {
		return c.JSON(http.StatusOK, out)
	}
	own := map[string]bool{}
	entries, err := s.deps.Keysets.List(ctx, engine.OwnerScope(principal(c).Owner))
	if err != nil {
		return err
	}
	for _, e := range entries {
		own[e.Provider] = true
	}
	deployed := map[string][]engine.DeploymentStatus{}
	if s.deps.Deployments != nil {
		for _, d := range s.deps.Deployments() {
			p, _, _ := strings.Cut(d.Model, ":")
			deployed[p] = append(deployed[p], d)
		}
	}
	names := map[string]bool{}
	for p := range s.deps.Providers.Catalogue() {
		names[p] = true
	}
	for p := range deployed {
		names[p] = true
	}
	for name := range names {
		st := providerStatus{Provider: name, Key: "missing", Deployments: deployed[name]}
		switch {
		case own[name]:
			st.Key = "keyset"
		case s.deps.Providers.ServerKey(name) != "":
			st.Key = "server"
		case !s.deps.Providers.NeedsKey(name):
			st.Key = "not needed"
		}
		st.Ready = st.Key != "missing"
		out.Providers = append(out.Providers, st)
	}
	rank := func(p providerStatus) int {
		if p.Provider == "hearth" {
			return keyRank["hearth"]
		}
		return keyRank[p.Key]
	}
	sort.Slice(out.Providers, func(i, j int) bool {
		a, b := out.Providers[i], out.Providers[j]
		if rank(a) != rank(b) {
			return rank(a) < rank(b)
		}
		return a.Provider < b.Provider
	})
	return c.JSON(http.StatusOK, out)
}
