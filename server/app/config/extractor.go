package config

import (
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
	// ExtractorTimeout bounds one extraction.
	ExtractorTimeout Duration `json:"extractor_timeout"`
}

// extractor returns the extractor's client settings (call after
// Validate); an empty URL means none.
func (c *Config) extractor() extract.Config {
	return extract.Config{URL: strings.TrimSpace(c.ExtractorURL), Kind: c.ExtractorKind, Timeout: time.Duration(c.ExtractorTimeout), MaxOutput: int(c.ParseMaxOutput)}
}

func defaultExtractorSettings() ExtractorSettings {
	return ExtractorSettings{ExtractorTimeout: Duration(extract.DefaultTimeout)}
}
