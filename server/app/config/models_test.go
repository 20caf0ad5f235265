package config

import "testing"

// TestModelsFileConfig: HEARTH_MODELS_FILE is loaded and checked by
// Validate, reaches the provider registry's configuration, and a bad
// file stops the start with an error naming the file, entry and field.
func TestModelsFileConfig(t *testing.T) {
	const price = "models:\n- {provider: openai, model: gpt-9, prompt: 1, completion: 4}\n"
	runFileCases(t, []fileCase{
		{name: "good file", file: "models.yaml", content: price, env: map[string]string{"HEARTH_MODELS_FILE": "{file}"},
			check: func(t *testing.T, cfg Config, path string) {
				ac := cfg.App(make([]byte, 32), nil, "test")
				if ac.Providers.Models == nil || ac.Providers.Models.File() != path {
					t.Fatalf("models not handed to the registry: %+v", ac.Providers.Models)
				}
			}},
		{name: "bad entry", file: "bad.yaml", content: price + "- {provider: openai, model: gpt-10, prompt: -1, completion: 4}\n",
			args: []string{"-models-file", "{file}"},
			want: "HEARTH_MODELS_FILE {file}: models[1] (openai:gpt-10): prompt: must not be negative"},
		{name: "missing file", env: map[string]string{"HEARTH_MODELS_FILE": "{dir}/missing.yaml"},
			want: "HEARTH_MODELS_FILE open {dir}/missing.yaml: "},
	})
}
