package config

import (
	"strconv"
	"strings"
	"time"
)

// parseDuration reads every duration setting the one way: a Go duration
// ("90s", "2m", "1h30m") or a whole number of days ("7d"), the spelling
// of HEARTH_RUN_CONTENT_RETENTION; spaces around it are ignored.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 || days > 1<<20 {
			return 0, &time.ParseError{Layout: "duration", Value: s, Message: ": want a whole number of days such as 7d"}
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}
