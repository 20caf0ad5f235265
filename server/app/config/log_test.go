package config

import (
	"context"
	"log/slog"
	"testing"

	"github.com/hearth-dev/hearth/server"
)

// TestLoggerIsHearthsHandler: the binary logs through server.LogHandler
// (whose access log lines skip slog's record), in the configured format
// and at the configured level.
func TestLoggerIsHearthsHandler(t *testing.T) {
	for _, c := range []struct {
		format, level string
		lowest        slog.Level
	}{{"text", "info", slog.LevelInfo}, {"JSON", "warn", slog.LevelWarn}, {"json", "debug", slog.LevelDebug}} {
		cfg := Config{LogFormat: c.format, LogLevel: c.level}
		h, ok := cfg.Logger().Handler().(*server.LogHandler)
		if !ok {
			t.Fatalf("%s: the logger's handler is %T, want *server.LogHandler", c.format, cfg.Logger().Handler())
		}
		if !h.Enabled(context.Background(), c.lowest) || h.Enabled(context.Background(), c.lowest-1) {
			t.Fatalf("%s/%s: lowest level enabled is not %v", c.format, c.level, c.lowest)
		}
		_, isJSON := h.Handler.(*slog.JSONHandler)
		if isJSON != (c.format != "text") {
			t.Fatalf("%s: slog handler %T", c.format, h.Handler)
		}
	}
}
