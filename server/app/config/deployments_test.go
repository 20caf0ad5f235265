package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeploymentsConfig: deployments come from the config file or, over
// it, HEARTH_DEPLOYMENTS; they reach the provider registry's
// configuration; an alias provider may be the default model's; every
// mistake names its source and field.
func TestDeploymentsConfig(t *testing.T) {
	const file = `{"deployments":[{"model":"local:llama-70b","strategy":"least-busy","servers":[
		{"name":"gpu1","base_url":"http://10.0.0.1:8000/v1","weight":2},{"name":"gpu2","base_url":"http://10.0.0.2:8000/v1","max_concurrency":8,"tpm":100000}]}]}`
	refused := func(name, env, want string) fileCase {
		return fileCase{name: name, env: map[string]string{"HEARTH_DEPLOYMENTS": env}, want: want}
	}
	runFileCases(t, []fileCase{
		{name: "config file", file: "hearth.json", content: file, args: []string{"-config", "{file}"},
			env: map[string]string{"HEARTH_DEFAULT_MODEL": "local:llama-70b"},
			check: func(t *testing.T, cfg Config, _ string) {
				ac := cfg.App(make([]byte, 32), nil, "test")
				if d := ac.Providers.Deployments; len(d) != 1 || d[0].Strategy != "least-busy" || len(d[0].Servers) != 2 || d[0].Servers[1].TPM != 100000 || d[0].Servers[0].Weight != 2 {
					t.Fatalf("deployments not handed to the registry: %+v", d)
				}
			}},
		{name: "env over file", file: "hearth.json", content: file, args: []string{"-config", "{file}"},
			env: map[string]string{"HEARTH_DEPLOYMENTS": `[{"model":"openai:gpt-4o","servers":[{"name":"eu","base_url":"https://eu.example/v1","api_key":"sk-eu"}]}]`},
			check: func(t *testing.T, cfg Config, _ string) {
				if d := cfg.Deployments; len(d) != 1 || d[0].Model != "openai:gpt-4o" || d[0].Servers[0].APIKey != "sk-eu" {
					t.Fatalf("HEARTH_DEPLOYMENTS did not replace the file's list: %+v", d)
				}
			}},
		refused("base_url not a URL", `[{"model":"local:x","servers":[{"name":"a","base_url":"10.0.0.1:8000"}]}]`, `HEARTH_DEPLOYMENTS: deployments[0].servers[0].base_url "10.0.0.1:8000": must be an absolute http(s) URL`),
		refused("unknown field", `[{"model":"local:x","servers":[{"name":"a","baseurl":"http://h"}]}]`, `HEARTH_DEPLOYMENTS: not a JSON list of deployments: json: unknown field "baseurl"`),
		refused("not a list", `{"model":"local:x"}`, `HEARTH_DEPLOYMENTS: not a JSON list`),
		refused("unknown strategy", `[{"model":"local:x","strategy":"random","servers":[{"name":"a","base_url":"http://h"}]}]`, `deployments[0].strategy "random": use round-robin, least-busy or latency`),
		{name: "bad weight in file", file: "hearth.json", args: []string{"-config", "{file}"},
			content: `{"deployments":[{"model":"local:x","servers":[{"name":"a","base_url":"http://h","weight":5000}]}]}`,
			want:    "config file: deployments[0].servers[0].weight 5000: must be from 0 (meaning 1) to 1000"},
	})
}

// TestDeploymentsReadmeConfig: the config file of the deployments
// section of docs/providers.md loads and validates as it is.
func TestDeploymentsReadmeConfig(t *testing.T) {
	guide, err := os.ReadFile("../../../docs/providers.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(guide), "## Deployments: one model on several servers\n")
	_, block, ok2 := strings.Cut(sec, "```json\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/providers.md: no JSON block in the deployments section")
	}
	file := filepath.Join(t.TempDir(), "hearth.json")
	os.WriteFile(file, []byte(block), 0o600)
	cfg, _, err := Load("serve", []string{"-config", file}, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Deployments) != 2 || len(cfg.Deployments[0].Servers) != 3 {
		t.Fatalf("docs/providers.md deployments: %+v", cfg.Deployments)
	}
}
