package config

import (
	"errors"
	"fmt"
	"strings"
)

// crossChecks are the checks that span several settings, run after the
// file, the environment and the flags are all read and every setting
// passed its own rule (checkOptions).
func (c *Config) crossChecks() []error {
	var errs []error
	if c.RetrieveVectorWeight+c.RetrieveKeywordWeight == 0 {
		errs = append(errs, errors.New("HEARTH_RETRIEVE_VECTOR_WEIGHT and HEARTH_RETRIEVE_KEYWORD_WEIGHT: must not both be 0"))
	}
	if l := c.RequestLimits; l.ThreadHistoryBytes < l.ThreadMaxMessageBytes {
		errs = append(errs, fmt.Errorf("HEARTH_THREAD_HISTORY_BYTES %d: must be at least HEARTH_THREAD_MAX_MESSAGE_BYTES (%d), or a run could not send the newest message as history",
			l.ThreadHistoryBytes, l.ThreadMaxMessageBytes))
	}
	if c.MetricsAddr != "" && c.MetricsAddr == c.Addr && !strings.HasSuffix(c.MetricsAddr, ":0") {
		errs = append(errs, fmt.Errorf("HEARTH_METRICS_ADDR %q: must differ from HEARTH_ADDR", c.MetricsAddr))
	}
	if strings.TrimSpace(c.OTelHeaders) != "" && strings.TrimSpace(c.OTelEndpoint) == "" {
		errs = append(errs, errors.New("HEARTH_OTEL_HEADERS is set but HEARTH_OTEL_ENDPOINT is not: set the collector URL"))
	}
	if strings.TrimSpace(c.Record) != "" && strings.TrimSpace(c.Replay) != "" {
		errs = append(errs, errors.New("HEARTH_RECORD and HEARTH_REPLAY: set one or the other"))
	}
	if c.Deterministic && strings.TrimSpace(c.DatabaseURL) != "" {
		errs = append(errs, errors.New("HEARTH_DETERMINISTIC and HEARTH_DATABASE_URL: deterministic ids are for a single node under test, not cluster mode; unset one of them"))
	}
	if em := strings.TrimSpace(c.CacheEmbeddingModel); em != "" || c.Cache == "semantic" {
		errs = append(errs, c.validateCacheEmbedder(em)...)
	}
	return errs
}
