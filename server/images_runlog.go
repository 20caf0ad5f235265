package server

import (
	"context"
	"errors"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// generateImages runs an image request and records it in the run log
// (kind "image", the number of images, priced per image from the
// catalogue's list prices), so GET /v1/runs and the studio's Usage page
// count image generation next to text runs. The record goes to the shared
// store, so every node of a cluster sees it.
func (s *Server) generateImages(c echo.Context, req *engine.ImageGenerateRequest, endpoint string) (*engine.ImageGenerationResponse, error) {
	ctx := c.Request().Context()
	start := time.Now()
	owner := principal(c).Owner
	if err := s.checkBudget(c, owner); err != nil {
		return nil, err
	}
	res, err := s.deps.Images.Generate(ctx, owner, c.Request().Header.Get("LB-LLM-Key"), req)
	s.recordImages(ctx, owner, start, req.Model, endpoint, res, err)
	return res, err
}

func (s *Server) recordImages(ctx context.Context, owner string, start time.Time, model, endpoint string, res *engine.ImageGenerationResponse, err error) {
	if s.deps.Runner == nil || s.deps.Runner.RunLog() == nil {
		return
	}
	rec := engine.RunRecord{ID: engine.NewRunID(ctx, start), Owner: owner, Model: model, Endpoint: endpoint, Kind: engine.RunKindImage,
		KeyID: engine.KeyIDOf(ctx), Status: engine.RunSuccess, LatencyMs: time.Since(start).Milliseconds(), CreatedAt: start.UTC()}
	if res != nil {
		rec.Model = res.Provider + ":" + res.Model
		rec.PromptTokens, rec.CompletionTokens, rec.TotalTokens = res.Usage.PromptTokens, res.Usage.CompletionTokens, res.Usage.TotalTokens
		if len(res.Choices) > 0 {
			rec.Images = len(res.Choices[0].Message.Images)
		}
	}
	if err != nil {
		rec.Status = engine.RunError
		if errors.Is(err, context.Canceled) {
			rec.Status = engine.RunCancelled
		}
		rec.Error = "internal error"
		var ee *engine.Error
		if errors.As(err, &ee) {
			rec.Error = ee.Message
		} else if errors.Is(err, context.DeadlineExceeded) {
			rec.Error = "timed out"
		}
	}
	s.deps.Runner.RunLog().Record(rec)
}
