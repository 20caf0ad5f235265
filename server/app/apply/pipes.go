package apply

import (
	"github.com/hearth-dev/hearth/engine/guard"

	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// desired is the pipe a spec declares: the API's defaults with the
// declared fields on top, normalised as the pipe service stores them.
func (s PipeSpec) desired() *engine.Pipe {
	p := engine.NewPipeDefaults()
	p.Name = s.Name
	set := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	setB := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	setF := func(dst *float64, src *float64) {
		if src != nil {
			*dst = *src
		}
	}
	set(&p.Description, s.Description)
	set(&p.Status, s.Status)
	set(&p.Type, s.Type)
	set(&p.Model, s.Model)
	setB(&p.Stream, s.Stream)
	setB(&p.JSON, s.JSON)
	setB(&p.Store, s.Store)
	setB(&p.Moderate, s.Moderate)
	setB(&p.LogContent, s.LogContent)
	setB(&p.Cache, s.Cache)
	setF(&p.TopP, s.TopP)
	setF(&p.Temperature, s.Temperature)
	setF(&p.PresencePenalty, s.PresencePenalty)
	setF(&p.FrequencyPenalty, s.FrequencyPenalty)
	setB(&p.ParallelToolCalls, s.ParallelToolCalls)
	if s.MaxTokens != nil {
		p.MaxTokens = int(*s.MaxTokens)
	}
	if s.Stop != nil {
		p.Stop = *s.Stop
	}
	if s.ToolChoice != nil {
		p.ToolChoice = *s.ToolChoice
	}
	for _, m := range s.Messages {
		p.Messages = append(p.Messages, m.Message)
	}
	if s.Variables != nil {
		p.Variables = []engine.Variable{}
		for _, v := range *s.Variables {
			p.Variables = append(p.Variables, engine.Variable{Name: strings.TrimSpace(v.Name), Value: v.Value})
		}
	}
	if s.Tools != nil {
		p.Tools = *s.Tools
	}
	if s.Memory != nil {
		p.Memory = []engine.MemoryRef{}
		for _, m := range *s.Memory {
			if !containsRef(p.Memory, m.Name) {
				p.Memory = append(p.Memory, m)
			}
		}
	}
	if s.Guard != nil {
		g := *s.Guard
		p.Guard = &g
	}
	if s.ResponseFormat != nil && (s.ResponseFormat.Type != "text" || s.ResponseFormat.JSONSchema != nil) {
		rf := *s.ResponseFormat
		p.ResponseFormat = &rf
	}
	if s.FallbackModels != nil {
		for _, m := range *s.FallbackModels {
			p.FallbackModels = append(p.FallbackModels, strings.TrimSpace(m))
		}
	}
	return p
}

func containsRef(refs []engine.MemoryRef, name string) bool {
	for _, r := range refs {
		if r.Name == name {
			return true
		}
	}
	return false
}

// input sets every field of p, so an update also resets the fields the
// files no longer declare to their defaults.
func input(p *engine.Pipe) *engine.PipeInput {
	maxTokens := float64(p.MaxTokens)
	vars := engine.Variables(p.Variables)
	rf := p.ResponseFormat
	if rf == nil {
		rf = &engine.ResponseFormat{Type: "text"}
	}
	g := p.Guard
	if g == nil {
		g = &guard.Policy{}
	}
	fallbacks := p.FallbackModels
	if fallbacks == nil {
		fallbacks = []string{}
	}
	return &engine.PipeInput{
		Name: &p.Name, Description: &p.Description, Status: &p.Status, Type: &p.Type, Model: &p.Model,
		Stream: &p.Stream, JSON: &p.JSON, Store: &p.Store, Moderate: &p.Moderate, LogContent: &p.LogContent, Cache: &p.Cache, TopP: &p.TopP,
		MaxTokens: &maxTokens, Temperature: &p.Temperature, PresencePenalty: &p.PresencePenalty,
		FrequencyPenalty: &p.FrequencyPenalty, Stop: &p.Stop, ToolChoice: &p.ToolChoice,
		ParallelToolCalls: &p.ParallelToolCalls, Messages: &p.Messages, Variables: &vars, Tools: &p.Tools,
		Memory: &p.Memory, ResponseFormat: rf, FallbackModels: &fallbacks, Guard: g,
	}
}

// samePipe compares the declared fields of two pipes (not id, owner or
// times).
func samePipe(a, b *engine.Pipe) bool {
	norm := func(p *engine.Pipe) []byte {
		c := *p
		c.ID, c.Owner, c.Version = "", "", 0
		c.CreatedAt, c.UpdatedAt = time.Time{}, time.Time{}
		if len(c.FallbackModels) == 0 {
			c.FallbackModels = nil
		}
		if c.Stop == nil {
			c.Stop = []string{}
		}
		if c.Messages == nil {
			c.Messages = []engine.Message{}
		}
		b, _ := json.Marshal(c)
		return b
	}
	return bytes.Equal(norm(a), norm(b))
}

// pipes creates or updates every declared pipe.
func (pl *planner) pipes(ctx context.Context) error {
	ps := pl.svc.Pipes
	for _, s := range pl.spec.Pipes {
		owner := pl.owner(s.Owner)
		want := s.desired()
		cur, err := ps.Get(ctx, owner, s.Name)
		switch {
		case engine.IsNotFound(err):
			pl.plan.add("create", "pipe", owner+"/"+s.Name, "model "+want.Model, func(ctx context.Context) error {
				_, _, _, err := ps.Create(ctx, owner, nil, input(want), false)
				return err
			})
		case err != nil:
			return err
		case !samePipe(cur, want):
			pl.plan.add("update", "pipe", owner+"/"+s.Name, "", func(ctx context.Context) error {
				_, err := ps.Update(ctx, owner, s.Name, input(want))
				return err
			})
		}
	}
	return nil
}
