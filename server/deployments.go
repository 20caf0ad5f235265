package server

import (
	"net/http"
	"sort"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// deploymentView is a deployment as /v1/deployments shows it: its
// declaration with the key masked, and where it was declared ("stored":
// this API or hearth apply; "config": the config file or
// HEARTH_DEPLOYMENTS, read-only).
type deploymentView struct {
	engine.StoredDeployment
	Source string `json:"source"`
}

// deploymentBody is the body of POST /v1/deployments: a deployment and its
// key in clear (never answered back).
type deploymentBody struct {
	Name           string `json:"name"`
	Model          string `json:"model"`
	BaseURL        string `json:"base_url"`
	APIKey         string `json:"api_key,omitempty"`
	UpstreamModel  string `json:"upstream_model,omitempty"`
	Strategy       string `json:"strategy,omitempty"`
	Weight         int    `json:"weight,omitempty"`
	MaxConcurrency int    `json:"max_concurrency,omitempty"`
	TPM            int64  `json:"tpm,omitempty"`
}

// deploymentPatchBody is the body of PUT /v1/deployments/{name}: the fields
// to change (a name, when sent, must be the path's).
type deploymentPatchBody struct {
	Name *string `json:"name,omitempty"`
	engine.DeploymentPatch
}

// deploymentsList is the answer of GET /v1/deployments.
type deploymentsList struct {
	Deployments []deploymentView `json:"deployments"`
}

// deploymentRoutes manage the deployments of models served by several
// servers (operator only); their state is in GET /v1/providers.
func (s *Server) deploymentRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/v1/deployments", Auth: AuthUser, Handler: s.handleDeploymentList,
			Doc: RouteDoc{Summary: "List the deployments, stored and from the configuration, keys masked (admin user)", Response: deploymentsList{}}},
		{Method: http.MethodPost, Path: "/v1/deployments", Auth: AuthUser, Handler: s.handleDeploymentCreate,
			Doc: RouteDoc{Summary: "Store a deployment: one more server for a model (admin user)", Request: deploymentBody{}, Response: deploymentView{}}},
		{Method: http.MethodGet, Path: "/v1/deployments/:name", Auth: AuthUser, Handler: s.handleDeploymentGet,
			Doc: RouteDoc{Summary: "Show one deployment, key masked (admin user)", Response: deploymentView{}}},
		{Method: http.MethodPut, Path: "/v1/deployments/:name", Auth: AuthUser, Handler: s.handleDeploymentUpdate,
			Doc: RouteDoc{Summary: "Change the fields sent of a stored deployment (admin user)", Request: deploymentPatchBody{}, Response: deploymentView{}}},
		{Method: http.MethodPost, Path: "/v1/deployments/:name", Auth: AuthUser, Handler: s.handleDeploymentUpdate,
			Doc: RouteDoc{Summary: "Change the fields sent of a stored deployment (admin user)", Request: deploymentPatchBody{}, Response: deploymentView{}}},
		{Method: http.MethodDelete, Path: "/v1/deployments/:name", Auth: AuthUser, Handler: s.handleDeploymentDelete,
			Doc: RouteDoc{Summary: "Remove a stored deployment (admin user)", Response: successView{}}},
	}
}

// deploymentsAdmin refuses callers other than the operator, and servers
// without stored deployments.
func (s *Server) deploymentsAdmin(c echo.Context) error {
	acct, err := s.deps.Accounts.Get(c.Request().Context(), principal(c).Owner)
	if err != nil {
		return err
	}
	if !acct.Admin {
		return engine.Errorf(engine.CodeForbidden, "only the operator (admin) user may manage deployments")
	}
	if s.deps.StoredDeployments == nil {
		return engine.Errorf(engine.CodeUnavailable, "stored deployments are not available on this server")
	}
	return nil
}

// configDeployment is the configuration's deployment called name, if any.
func (s *Server) configDeployment(name string) (engine.StoredDeployment, bool) {
	if s.deps.ConfigDeployments != nil {
		for _, d := range s.deps.ConfigDeployments() {
			if d.Name == name {
				return d, true
			}
		}
	}
	return engine.StoredDeployment{}, false
}

func (s *Server) handleDeploymentList(c echo.Context) error {
	if err := s.deploymentsAdmin(c); err != nil {
		return err
	}
	stored, err := s.deps.StoredDeployments.List(c.Request().Context())
	if err != nil {
		return err
	}
	out := deploymentsList{Deployments: []deploymentView{}}
	if s.deps.ConfigDeployments != nil {
		for _, d := range s.deps.ConfigDeployments() {
			out.Deployments = append(out.Deployments, deploymentView{StoredDeployment: d, Source: "config"})
		}
	}
	for _, d := range stored {
		out.Deployments = append(out.Deployments, deploymentView{StoredDeployment: d, Source: "stored"})
	}
	sort.SliceStable(out.Deployments, func(i, j int) bool {
		a, b := out.Deployments[i], out.Deployments[j]
		if a.Model != b.Model {
			return a.Model < b.Model
		}
		return a.Name < b.Name
	})
	return c.JSON(http.StatusOK, out)
}

func (s *Server) handleDeploymentCreate(c echo.Context) error {
	if err := s.deploymentsAdmin(c); err != nil {
		return err
	}
	var in deploymentBody
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	d, err := s.deps.StoredDeployments.Create(c.Request().Context(), engine.StoredDeployment{Name: in.Name, Model: in.Model,
		BaseURL: in.BaseURL, APIKey: in.APIKey, UpstreamModel: in.UpstreamModel, Strategy: in.Strategy, Weight: in.Weight,
		MaxConcurrency: in.MaxConcurrency, TPM: in.TPM})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, deploymentView{StoredDeployment: *d, Source: "stored"})
}

func (s *Server) handleDeploymentGet(c echo.Context) error {
	if err := s.deploymentsAdmin(c); err != nil {
		return err
	}
	name := c.Param("name")
	d, err := s.deps.StoredDeployments.Get(c.Request().Context(), name)
	if engine.IsNotFound(err) {
		if cd, ok := s.configDeployment(name); ok {
			return c.JSON(http.StatusOK, deploymentView{StoredDeployment: cd, Source: "config"})
		}
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, deploymentView{StoredDeployment: *d, Source: "stored"})
}

func (s *Server) handleDeploymentUpdate(c echo.Context) error {
	if err := s.deploymentsAdmin(c); err != nil {
		return err
	}
	name := c.Param("name")
	var in deploymentPatchBody
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	if in.Name != nil && *in.Name != name {
		return engine.FieldError("name", "%q differs from the deployment in the path (%q); a deployment cannot be renamed", *in.Name, name)
	}
	d, err := s.deps.StoredDeployments.Update(c.Request().Context(), name, in.DeploymentPatch)
	if engine.IsNotFound(err) {
		if _, ok := s.configDeployment(name); ok {
			return engine.Errorf(engine.CodeConflict, "deployment %q is declared in the configuration (config file or HEARTH_DEPLOYMENTS) and is read-only here", name)
		}
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, deploymentView{StoredDeployment: *d, Source: "stored"})
}

func (s *Server) handleDeploymentDelete(c echo.Context) error {
	if err := s.deploymentsAdmin(c); err != nil {
		return err
	}
	name := c.Param("name")
	err := s.deps.StoredDeployments.Delete(c.Request().Context(), name)
	if engine.IsNotFound(err) {
		if _, ok := s.configDeployment(name); ok {
			return engine.Errorf(engine.CodeConflict, "deployment %q is declared in the configuration (config file or HEARTH_DEPLOYMENTS) and is read-only here", name)
		}
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]bool{"success": true})
}
