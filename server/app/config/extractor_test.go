package config

import (
	"strings"
	"testing"
	"time"
)

func TestExtractorConfig(t *testing.T) {
	for name, tc := range map[string]struct {
		env  map[string]string
		want string
	}{
		"not a URL":     {map[string]string{"HEARTH_EXTRACTOR_URL": "tika:9998"}, `HEARTH_EXTRACTOR_URL: must be an absolute http(s) URL such as http://tika:9998, got "tika:9998"`},
		"unknown kind":  {map[string]string{"HEARTH_EXTRACTOR_KIND": "textract"}, `HEARTH_EXTRACTOR_KIND: must be one of empty, tika, docling, got "textract"`},
		"short timeout": {map[string]string{"HEARTH_EXTRACTOR_TIMEOUT": "10ms"}, `HEARTH_EXTRACTOR_TIMEOUT: must be a duration between 1s and 1h, got "10ms"`},
	} {
		cfg, _, err := Load("serve", nil, envMap(tc.env))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want mention of %s", name, err, tc.want)
		}
	}
	cfg, _, err := Load("serve", []string{"-extractor-kind", "Docling"}, envMap(map[string]string{"HEARTH_EXTRACTOR_URL": " http://docling:5001 "}))
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		t.Fatal(err)
	}
	ex := cfg.App(make([]byte, 32), nil, "test").Extractor
	if ex.URL != "http://docling:5001" || ex.Kind != "docling" || ex.Timeout != 5*time.Minute || ex.MaxOutput != 32<<20 {
		t.Fatalf("extractor settings: %+v", ex)
	}
	cfg, _, _ = Load("serve", nil, envMap(nil))
	if err := cfg.Validate(); err != nil || cfg.App(make([]byte, 32), nil, "test").Extractor.URL != "" {
		t.Fatalf("default: %v", err)
	}
}
