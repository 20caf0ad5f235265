package main

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/providers/extract"
)

// ExtractorSettings select an external extractor for PDFs without a text
// layer (docs/memories-and-retrieval.md#external-extractor). Config embeds them, so their JSON
// keys sit at the top level of the config file.
type ExtractorSettings struct {
	// ExtractorURL is the base URL of an Apache Tika server or a
	// docling-serve; empty: none, such PDFs fail with the reason.
	ExtractorURL string `json:"extractor_url"`
	// ExtractorKind is tika, docling, or empty to ask the server.
	ExtractorKind string `json:"extractor_kind"`
	// ExtractorTimeout (a Go duration) bounds one extraction.
	ExtractorTimeout string `json:"extractor_timeout"`
}

func (c *Config) extractorVars() []configVar {
	e := &c.ExtractorSettings
	return []configVar{
		{env: "HEARTH_EXTRACTOR_URL", flag: "extractor-url", usage: "base URL of an Apache Tika server or docling-serve that reads PDFs without a text layer (scans); empty: such PDFs fail", str: &e.ExtractorURL},
		{env: "HEARTH_EXTRACTOR_KIND", flag: "extractor-kind", usage: "tika or docling; empty: ask the server at start of use", str: &e.ExtractorKind},
		{env: "HEARTH_EXTRACTOR_TIMEOUT", flag: "extractor-timeout", usage: "longest extraction of one document (a Go duration, 1s to 1h)", str: &e.ExtractorTimeout},
	}
}

// validateExtractor checks the extractor settings.
func (c *Config) validateExtractor() []error {
	var errs []error
	e := &c.ExtractorSettings
	e.ExtractorURL = strings.TrimSpace(e.ExtractorURL)
	e.ExtractorKind = strings.ToLower(strings.TrimSpace(e.ExtractorKind))
	if e.ExtractorURL != "" {
		if u, err := url.Parse(e.ExtractorURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("HEARTH_EXTRACTOR_URL %q: must be an absolute http(s) URL such as http://tika:9998", e.ExtractorURL))
		}
	}
	if e.ExtractorKind != "" && e.ExtractorKind != extract.KindTika && e.ExtractorKind != extract.KindDocling {
		errs = append(errs, fmt.Errorf("HEARTH_EXTRACTOR_KIND %q: use tika, docling, or leave it empty to detect", e.ExtractorKind))
	}
	if d, err := time.ParseDuration(strings.TrimSpace(e.ExtractorTimeout)); err != nil || d < time.Second || d > time.Hour {
		errs = append(errs, fmt.Errorf("HEARTH_EXTRACTOR_TIMEOUT %q: must be a duration from 1s to 1h, such as 5m", e.ExtractorTimeout))
	}
	return errs
}

// extractor returns the extractor's client settings (call after
// Validate); an empty URL means none.
func (c *Config) extractor() extract.Config {
	d, _ := time.ParseDuration(strings.TrimSpace(c.ExtractorTimeout))
	return extract.Config{URL: c.ExtractorURL, Kind: c.ExtractorKind, Timeout: d, MaxOutput: int(c.ParseMaxOutput)}
}

func defaultExtractorSettings() ExtractorSettings {
	return ExtractorSettings{ExtractorTimeout: extract.DefaultTimeout.String()}
}
