package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/guard"
)

// scopeFlags are the flags of `keys create` that scope the new key
// (docs/accounts-and-keys.md#scoped-keys).
type scopeFlags struct {
	expires, models, pipes, memories, guard *string
	readOnly                                *bool
}

func defineScope(fs *flag.FlagSet) *scopeFlags {
	return &scopeFlags{
		expires:  fs.String("expires", "", "when the key stops working: an RFC 3339 time or a duration from now (720h)"),
		models:   fs.String("models", "", "comma-separated providers (openai) or provider:model ids the key may call"),
		pipes:    fs.String("pipes", "", "comma-separated pipe names the key may use"),
		memories: fs.String("memories", "", "comma-separated memory names the key may use"),
		readOnly: fs.Bool("read-only", false, "the key reads and runs but changes nothing"),
		guard:    fs.String("guard", "", "guardrail policy of the key as JSON (docs/guardrails.md)"),
	}
}

// scope builds the scope the flags describe (nil when none is set).
func (f *scopeFlags) scope(now time.Time) (*engine.Scope, error) {
	s := &engine.Scope{Models: commaList(*f.models), Pipes: commaList(*f.pipes), Memories: commaList(*f.memories), ReadOnly: *f.readOnly}
	if *f.expires != "" {
		t, err := time.Parse(time.RFC3339, *f.expires)
		if err != nil {
			d, derr := time.ParseDuration(*f.expires)
			if derr != nil || d <= 0 {
				return nil, fmt.Errorf("keys create: --expires %q is neither an RFC 3339 time nor a positive duration", *f.expires)
			}
			t = now.Add(d)
		}
		s.ExpiresAt = &t
	}
	if *f.guard != "" {
		var p guard.Policy
		dec := json.NewDecoder(strings.NewReader(*f.guard))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("keys create: --guard is not a guardrail policy: %v", err)
		}
		if err := p.Validate("guard"); err != nil {
			return nil, fmt.Errorf("keys create: --guard: %v", err)
		}
		s.Guard = &p
	}
	if s.Empty() {
		return nil, nil
	}
	return s, nil
}

func commaList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// scopeSummary is the SCOPE column of `keys list`.
func scopeSummary(s *engine.Scope) string {
	if s.Empty() {
		return "-"
	}
	var parts []string
	if s.ExpiresAt != nil {
		parts = append(parts, "expires="+s.ExpiresAt.UTC().Format(time.RFC3339))
	}
	for _, l := range []struct {
		name string
		v    []string
	}{{"models", s.Models}, {"pipes", s.Pipes}, {"memories", s.Memories}} {
		if len(l.v) > 0 {
			parts = append(parts, l.name+"="+strings.Join(l.v, ","))
		}
	}
	if s.ReadOnly {
		parts = append(parts, "read_only")
	}
	if !s.Guard.Empty() {
		parts = append(parts, "guard")
	}
	return strings.Join(parts, " ")
}
