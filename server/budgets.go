package server

import (
	"errors"
	"net/http"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// HeaderBudgetReset is set on a 429 refused by a budget: when the budget
// resets, as an RFC 3339 UTC time (docs/accounts-and-keys.md#budgets).
const HeaderBudgetReset = "lb-budget-reset"

// budgetRoutes serves the spending budgets of the caller's owner and keys
// (docs/accounts-and-keys.md#budgets). Reading needs a user or org key; setting and
// deleting an unscoped one (engine.Budgets.Set).
func (s *Server) budgetRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/v1/budgets", Auth: AuthOwner, Handler: s.handleBudgetList,
			Doc: RouteDoc{Summary: "List the owner's budgets with their use this period", Response: []engine.BudgetStatus{}}},
		{Method: http.MethodPost, Path: "/v1/budgets", Auth: AuthOwner, Handler: s.handleBudgetSet,
			Doc: RouteDoc{Summary: "Create or replace a budget (one per key and period)", Request: engine.BudgetInput{}, Response: engine.BudgetStatus{}}},
		{Method: http.MethodDelete, Path: "/v1/budgets/:id", Auth: AuthOwner, Handler: s.handleBudgetDelete,
			Doc: RouteDoc{Summary: "Delete a budget", Response: successView{}}},
	}
}

func (s *Server) budgets() (*engine.Budgets, error) {
	if s.deps.Budgets == nil {
		return nil, engine.Errorf(engine.CodeUnavailable, "budgets are not available on this server")
	}
	return s.deps.Budgets, nil
}

func (s *Server) handleBudgetList(c echo.Context) error {
	b, err := s.budgets()
	if err != nil {
		return err
	}
	out, err := b.List(c.Request().Context(), principal(c).Owner)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

func (s *Server) handleBudgetSet(c echo.Context) error {
	b, err := s.budgets()
	if err != nil {
		return err
	}
	var in engine.BudgetInput
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	st, err := b.Set(c.Request().Context(), principal(c), in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, st)
}

func (s *Server) handleBudgetDelete(c echo.Context) error {
	b, err := s.budgets()
	if err != nil {
		return err
	}
	id, err := pathParam(c, "id")
	if err != nil {
		return err
	}
	if err := b.Delete(c.Request().Context(), principal(c), id); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, successView{Success: true})
}

// checkBudget is the one budget check of every spending path (pipe runs
// through admitPipe, provider chat, agent runs, images, embeddings): it
// refuses with 429 work for owner by the request's key once a budget of
// either is used up, and sets lb-budget-reset and Retry-After. The check
// reads the store, so it holds across the nodes of a cluster.
func (s *Server) checkBudget(c echo.Context, owner string) error {
	if s.deps.Budgets == nil {
		return nil
	}
	err := s.deps.Budgets.Check(c.Request().Context(), owner, principal(c).KeyID)
	if err == nil {
		return nil
	}
	var ex *engine.BudgetExceeded
	if errors.As(err, &ex) {
		s.metrics.Rejected("budget")
		c.Response().Header().Set(HeaderBudgetReset, ex.Status.ResetsAt.UTC().Format(time.RFC3339))
	}
	return err
}
