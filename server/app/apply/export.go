package apply

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"sigs.k8s.io/yaml"
)

// Export writes the state of svc to dir in the format Load reads:
// hearth.yaml (accounts, pipes, memories, keysets, declared API keys,
// model entries, deployments) and each document's
// bytes under documents/<owner>/<memory>/. Keysets are written without
// their keys: each names an environment variable (key_env) to fill in
// before the files are applied; so are the API keys apply manages and the
// deployments' keys.
func Export(ctx context.Context, svc Services, dir string) (*Spec, error) {
	accts, err := svc.Accounts.List(ctx)
	if err != nil {
		return nil, err
	}
	out := &Spec{}
	for _, a := range accts {
		if a.Kind == engine.AccountOrg {
			o := OrgSpec{Login: a.Login}
			if len(a.Members) > 0 {
				o.Owner, o.Members = a.Members[0], a.Members[1:]
			}
			out.Orgs = append(out.Orgs, o)
		} else {
			out.Users = append(out.Users, UserSpec{Login: a.Login})
		}
		if err := exportOwner(ctx, svc, dir, a.Login, out); err != nil {
			return nil, err
		}
	}
	if err := exportModels(ctx, svc, out); err != nil {
		return nil, err
	}
	if err := exportDeployments(ctx, svc, out); err != nil {
		return nil, err
	}
	b, err := yaml.Marshal(out)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return out, os.WriteFile(filepath.Join(dir, "hearth.yaml"), b, 0o644)
}

// exportOwner adds one owner's pipes, memories, keysets and managed keys.
func exportOwner(ctx context.Context, svc Services, dir, owner string, out *Spec) error {
	pipes, err := svc.Pipes.List(ctx, owner)
	if err != nil {
		return err
	}
	for _, p := range pipes {
		out.Pipes = append(out.Pipes, pipeSpec(owner, p))
		entries, err := svc.Keysets.List(ctx, engine.PipeScope(p.ID))
		if err != nil {
			return err
		}
		for _, e := range entries {
			out.Keysets = append(out.Keysets, KeysetSpec{Owner: owner, Pipe: p.Name, Provider: e.Provider, KeyEnv: envName(owner, p.Name, e.Provider)})
		}
	}
	mems, err := svc.Memory.List(ctx, owner)
	if err != nil {
		return err
	}
	for _, m := range mems {
		chunkSize, overlap, topK := m.ChunkSize, m.ChunkOverlap, m.TopK
		ms := MemorySpec{Owner: owner, Name: m.Name, Description: m.Description, EmbeddingModel: m.EmbeddingModel,
			ChunkSize: &chunkSize, ChunkOverlap: &overlap, TopK: &topK, Chunking: m.Chunking}
		_, docs, err := svc.Memory.Documents(ctx, owner, m.Name)
		if err != nil {
			return err
		}
		for _, d := range docs {
			data, err := svc.Store.GetBlob(ctx, d.Current.Blob)
			if err != nil {
				return fmt.Errorf("memory %s/%s document %q: %w", owner, m.Name, d.Name, err)
			}
			rel := filepath.Join("documents", owner, m.Name, d.Name)
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, rel), data, 0o644); err != nil {
				return err
			}
			meta := maps.Clone(d.Current.Meta)
			delete(meta, MetaSourceHash)
			if len(meta) == 0 {
				meta = nil
			}
			ms.Documents = append(ms.Documents, DocumentSpec{Path: filepath.ToSlash(rel), Meta: meta})
		}
		out.Memories = append(out.Memories, ms)
	}
	entries, err := svc.Keysets.List(ctx, engine.OwnerScope(owner))
	if err != nil {
		return err
	}
	for _, e := range entries {
		out.Keysets = append(out.Keysets, KeysetSpec{Owner: owner, Provider: e.Provider, KeyEnv: envName(owner, "", e.Provider)})
	}
	return exportKeys(ctx, svc, owner, out)
}

// pipeSpec declares every field of p.
func pipeSpec(owner string, p *engine.Pipe) PipeSpec {
	maxTokens := float64(p.MaxTokens)
	vars := engine.Variables(p.Variables)
	s := PipeSpec{Owner: owner, Name: p.Name, Description: &p.Description, Status: &p.Status, Type: &p.Type,
		Model: &p.Model, Stream: &p.Stream, JSON: &p.JSON, Store: &p.Store, Moderate: &p.Moderate, TopP: &p.TopP,
		MaxTokens: &maxTokens, Temperature: &p.Temperature, PresencePenalty: &p.PresencePenalty,
		FrequencyPenalty: &p.FrequencyPenalty, Stop: &p.Stop, ToolChoice: &p.ToolChoice,
		ParallelToolCalls: &p.ParallelToolCalls, Variables: &vars, Tools: &p.Tools, Memory: &p.Memory,
		ResponseFormat: p.ResponseFormat}
	if len(p.FallbackModels) > 0 {
		s.FallbackModels = &p.FallbackModels
	}
	if p.LogContent {
		s.LogContent = &p.LogContent
	}
	s.Guard = p.Guard
	if p.Cache {
		s.Cache = &p.Cache
	}
	for _, m := range p.Messages {
		s.Messages = append(s.Messages, MessageSpec{Message: m})
	}
	return s
}

// envName is the environment variable an exported keyset names:
// HEARTH_KEY_<OWNER>[_<PIPE>]_<PROVIDER>, upper-cased, other characters
// turned into '_'.
func envName(owner, pipe, provider string) string {
	parts := []string{"HEARTH_KEY", owner}
	if pipe != "" {
		parts = append(parts, pipe)
	}
	return envVar(append(parts, provider)...)
}

// envVar joins parts with '_', upper-cased, other characters turned into '_'.
func envVar(parts ...string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'):
			return r
		}
		return '_'
	}, strings.Join(parts, "_"))
}
