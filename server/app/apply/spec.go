// Package apply is Hearth's declarative setup: it reads users, orgs,
// pipes, memories (with their documents), keysets, API keys, model
// entries and deployments declared in YAML or
// JSON files, compares them with a running application's state and makes
// the difference through the engine services, never by writing records
// itself (docs/pipes-as-code.md). Export writes the state back out in the
// same format.
package apply

import (
	"github.com/hearth-dev/hearth/engine/guard"

	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/chunk"
	"sigs.k8s.io/yaml"
)

// Spec is everything a directory declares. Several files merge; an
// object declared twice is an error.
type Spec struct {
	Users    []UserSpec   `json:"users,omitempty"`
	Orgs     []OrgSpec    `json:"orgs,omitempty"`
	Pipes    []PipeSpec   `json:"pipes,omitempty"`
	Memories []MemorySpec `json:"memories,omitempty"`
	Keysets  []KeysetSpec `json:"keysets,omitempty"`
	Keys     []KeySpec    `json:"keys,omitempty"`
	// Models are model entries (prices, retirements, rules) in the shape
	// of HEARTH_MODELS_FILE's, stored on the server (models.go).
	Models []json.RawMessage `json:"models,omitempty"`
	// Deployments are stored deployments: more servers for a model
	// (deployments.go).
	Deployments []DeploymentSpec `json:"deployments,omitempty"`
	files       map[string]string
	// modelsDeclared: a file has a "models" list (an empty one removes
	// the stored entries); modelFiles names the file of each entry.
	modelsDeclared bool
	modelFiles     map[modelKey]string
}

// UserSpec declares a user.
type UserSpec struct {
	Login string `json:"login"`
}

// OrgSpec declares an organization, its owner and its members.
type OrgSpec struct {
	Login   string   `json:"login"`
	Owner   string   `json:"owner"`
	Members []string `json:"members,omitempty"`
}

// PipeSpec declares a pipe: every field of the pipe API (see
// https://langbase.com/docs/api-reference/pipe/create), plus its owner
// (default: the admin user) and prompts that may come from files.
// Fields left out take the API's defaults.
type PipeSpec struct {
	Owner             string                 `json:"owner,omitempty"`
	Name              string                 `json:"name"`
	Description       *string                `json:"description,omitempty"`
	Status            *string                `json:"status,omitempty"`
	Type              *string                `json:"type,omitempty"`
	Model             *string                `json:"model,omitempty"`
	Stream            *bool                  `json:"stream,omitempty"`
	JSON              *bool                  `json:"json,omitempty"`
	Store             *bool                  `json:"store,omitempty"`
	Moderate          *bool                  `json:"moderate,omitempty"`
	LogContent        *bool                  `json:"log_content,omitempty"`
	Guard             *guard.Policy          `json:"guard,omitempty"`
	Cache             *bool                  `json:"cache,omitempty"`
	TopP              *float64               `json:"top_p,omitempty"`
	MaxTokens         *float64               `json:"max_tokens,omitempty"`
	Temperature       *float64               `json:"temperature,omitempty"`
	PresencePenalty   *float64               `json:"presence_penalty,omitempty"`
	FrequencyPenalty  *float64               `json:"frequency_penalty,omitempty"`
	Stop              *[]string              `json:"stop,omitempty"`
	ToolChoice        *engine.ToolChoice     `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool                  `json:"parallel_tool_calls,omitempty"`
	Messages          []MessageSpec          `json:"messages,omitempty"`
	Variables         *engine.Variables      `json:"variables,omitempty"`
	Tools             *[]engine.Tool         `json:"tools,omitempty"`
	Memory            *[]engine.MemoryRef    `json:"memory,omitempty"`
	ResponseFormat    *engine.ResponseFormat `json:"response_format,omitempty"`
	FallbackModels    *[]string              `json:"fallback_models,omitempty"`
}

// MessageSpec is a pipe message whose content may be read from a file
// (content_file, relative to the declaring file).
type MessageSpec struct {
	engine.Message
	ContentFile string `json:"content_file,omitempty"`
}

// MemorySpec declares a memory and the local files it holds.
type MemorySpec struct {
	Owner          string         `json:"owner,omitempty"`
	Name           string         `json:"name"`
	Description    string         `json:"description,omitempty"`
	EmbeddingModel string         `json:"embedding_model,omitempty"`
	ChunkSize      *int           `json:"chunk_size,omitempty"`
	ChunkOverlap   *int           `json:"chunk_overlap,omitempty"`
	TopK           *int           `json:"top_k,omitempty"`
	Documents      []DocumentSpec `json:"documents,omitempty"`

	// Chunking is the memory's chunk settings
	// (docs/memories-and-retrieval.md#structure-aware-chunking); unlike the
	// other settings it may change in place, and the declared documents are
	// then uploaded again.
	Chunking *chunk.Settings `json:"chunking,omitempty"`
}

// DocumentSpec is a local file ingested into a memory. Name defaults to
// the file's base name.
type DocumentSpec struct {
	Path string            `json:"path"`
	Name string            `json:"name,omitempty"`
	Meta map[string]string `json:"meta,omitempty"`
}

// KeysetSpec declares a stored provider key of an owner or of a pipe.
// The value comes from an environment variable (key_env) or a file
// (key_file); an inline key is refused so no secret lands in the files.
type KeysetSpec struct {
	Owner    string `json:"owner,omitempty"`
	Pipe     string `json:"pipe,omitempty"`
	Provider string `json:"provider"`
	KeyEnv   string `json:"key_env,omitempty"`
	KeyFile  string `json:"key_file,omitempty"`
	Key      string `json:"key,omitempty"`
}

// Load reads every .yaml, .yml and .json file under dir (sorted by path)
// and resolves the files they refer to (prompts, documents, key files)
// relative to the declaring file.
func Load(dir string) (*Spec, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".yaml", ".yml", ".json":
			if !d.IsDir() {
				paths = append(paths, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	out := &Spec{}
	for _, p := range paths {
		one, err := loadFile(p)
		if err != nil {
			return nil, err
		}
		out.Users = append(out.Users, one.Users...)
		out.Orgs = append(out.Orgs, one.Orgs...)
		out.Pipes = append(out.Pipes, one.Pipes...)
		out.Memories = append(out.Memories, one.Memories...)
		out.Keysets = append(out.Keysets, one.Keysets...)
		out.Keys = append(out.Keys, one.Keys...)
		out.Deployments = append(out.Deployments, one.Deployments...)
		if one.Models != nil {
			if err := out.mergeModels(p, one.Models); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// loadFile parses one file strictly (an unknown key is an error naming
// it) and makes its relative paths absolute.
func loadFile(p string) (*Spec, error) {
	raw, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	var s Spec
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if err := checkModels(s.Models); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	base := filepath.Dir(p)
	rel := func(f string) string {
		if f == "" || filepath.IsAbs(f) {
			return f
		}
		return filepath.Join(base, f)
	}
	for i := range s.Pipes {
		for j := range s.Pipes[i].Messages {
			m := &s.Pipes[i].Messages[j]
			if m.ContentFile == "" {
				continue
			}
			b, err := os.ReadFile(rel(m.ContentFile))
			if err != nil {
				return nil, fmt.Errorf("%s: pipe %q messages[%d].content_file: %w", p, s.Pipes[i].Name, j, err)
			}
			m.Content = engine.TextContent(string(b))
			m.ContentFile = ""
		}
	}
	for i := range s.Memories {
		for j := range s.Memories[i].Documents {
			s.Memories[i].Documents[j].Path = rel(s.Memories[i].Documents[j].Path)
		}
	}
	for i := range s.Keysets {
		if s.Keysets[i].Key != "" {
			return nil, fmt.Errorf("%s: keysets[%d].key: keys are never written inline; use key_env or key_file", p, i)
		}
		s.Keysets[i].KeyFile = rel(s.Keysets[i].KeyFile)
	}
	for i := range s.Keys {
		if s.Keys[i].Key != "" {
			return nil, fmt.Errorf("%s: keys[%d].key: keys are never written inline; use key_env or key_file", p, i)
		}
		s.Keys[i].KeyFile = rel(s.Keys[i].KeyFile)
	}
	for i := range s.Deployments {
		if s.Deployments[i].Key != "" {
			return nil, fmt.Errorf("%s: deployments[%d].key: keys are never written inline; use key_env or key_file", p, i)
		}
		s.Deployments[i].KeyFile = rel(s.Deployments[i].KeyFile)
	}
	return &s, nil
}
