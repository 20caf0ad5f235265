package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// envMap returns a getenv that reads m.
func envMap(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// loadValid loads and validates a configuration from args and env.
func loadValid(t *testing.T, args []string, env map[string]string) (Config, error) {
	t.Helper()
	cfg, _, err := Load("serve", args, envMap(env))
	if err == nil {
		err = cfg.Validate()
	}
	return cfg, err
}

// envCase is an environment that must be refused, and what the refusal
// must mention.
type envCase struct {
	env  map[string]string
	want string
}

// expectRefused loads each case's environment and fails the test unless
// loading or validating refuses it with an error that mentions want.
func expectRefused(t *testing.T, cases map[string]envCase) {
	t.Helper()
	for name, tc := range cases {
		if err := loadErr(tc.env); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want mention of %s", name, err, tc.want)
		}
	}
}

// loadErr is what loading and then validating env refuses, or nil.
func loadErr(env map[string]string) error {
	cfg, _, err := Load("serve", nil, envMap(env))
	if err == nil {
		err = cfg.Validate()
	}
	return err
}

// fileCase is a configuration that may name a file written for the case:
// the file's base name and content ("" writes none), the flags and
// environment ({file} stands for the file's path, {dir} for its
// directory), and either a part of the error loading and validating must
// give (with the same stand-ins) or a check of the valid configuration.
type fileCase struct {
	name, file, content string
	args                []string
	env                 map[string]string
	want                string
	check               func(t *testing.T, cfg Config, path string)
}

// runFileCases runs each case in its own directory.
func runFileCases(t *testing.T, cases []fileCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, c.file)
			if c.content != "" {
				if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			stand := strings.NewReplacer("{file}", path, "{dir}", dir)
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = stand.Replace(a)
			}
			env := map[string]string{}
			for k, v := range c.env {
				env[k] = stand.Replace(v)
			}
			cfg, err := loadValid(t, args, env)
			switch want := stand.Replace(c.want); {
			case want != "":
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("err = %v, want %q", err, want)
				}
			case err != nil:
				t.Fatal(err)
			case c.check != nil:
				c.check(t, cfg, path)
			}
		})
	}
}
