package config

import (
	"strings"
	"testing"
	"time"
)

// TestJobLeaseSetting: HEARTH_JOB_LEASE (flag -job-lease) sets the memory
// engine's job lease, 30 s by default, and is refused outside 1s-10m.
func TestJobLeaseSetting(t *testing.T) {
	cfg, _, err := Load("serve", nil, envMap(nil))
	if err != nil || cfg.Validate() != nil || cfg.memoryConfig().LeaseTTL != 30*time.Second {
		t.Fatalf("default: %v %v", err, cfg.memoryConfig().LeaseTTL)
	}
	cfg, _, err = Load("serve", []string{"-job-lease", "2s"}, envMap(map[string]string{"HEARTH_JOB_LEASE": "1m"}))
	if err != nil || cfg.Validate() != nil || cfg.memoryConfig().LeaseTTL != 2*time.Second {
		t.Fatalf("flag over env: %v %v", err, cfg.memoryConfig().LeaseTTL)
	}
	for _, bad := range []string{"30", "500ms", "11m", "soon"} {
		cfg, _, err := Load("serve", nil, envMap(map[string]string{"HEARTH_JOB_LEASE": bad}))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), "HEARTH_JOB_LEASE") || !strings.Contains(err.Error(), "must be a duration between 1s and 10m") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
