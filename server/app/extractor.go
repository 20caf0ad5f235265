package app

import (
	"github.com/hearth-dev/hearth/engine/parse"
	"github.com/hearth-dev/hearth/engine/parse/sandbox"
	"github.com/hearth-dev/hearth/providers/extract"
)

// buildExtractor hands the parser the external extractor, when one is
// configured (docs/memories-and-retrieval.md#external-extractor): its calls go through the
// egress dialer under the feature "extractor", and its text is bounded by
// the parser's output limit. The client keeps nothing but the detected
// server kind, so every node of a cluster runs its own.
func (a *App) buildExtractor(cfg Config, pcfg *sandbox.Config) error {
	ec := cfg.Extractor
	if ec.URL == "" {
		return nil
	}
	ec.Transport, ec.Logger = a.Egress.Transport("extractor"), cfg.Logger
	if ec.MaxOutput <= 0 {
		ec.MaxOutput = pcfg.MaxOutput
	}
	if ec.MaxOutput <= 0 {
		ec.MaxOutput = parse.DefaultMaxOutput
	}
	ex, err := extract.New(ec)
	if err != nil {
		return err
	}
	pcfg.Extract = ex.Extract
	a.note("parser: external extractor " + ec.Kind)
	return nil
}
