package config

import (
	"strings"
	"testing"
)

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
