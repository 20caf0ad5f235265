package app

import (
	"fmt"
	"reflect"
	"slices"
)

// note records one fact about how the application was wired.
func (a *App) note(s string) { a.built = append(a.built, s) }

// optionalDeps are the Deps fields a configuration may leave nil: the
// feature is off (the response cache without HEARTH_CACHE). Describe says
// "off" for them, not "missing". Deployments are always wired: the API
// may store some at any time.
var optionalDeps = map[string]bool{"Cache": true}

// Describe lists what the application was built from, one line per
// service: each field of Deps with its concrete type (or "missing", or
// "off" for an optional one), then
// the wiring facts New recorded. Two applications built the same way have
// the same description; a test compares main.go's with servertest's.
func (a *App) Describe() []string {
	var out []string
	v := reflect.ValueOf(a.Deps)
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		if f.IsZero() {
			if optionalDeps[name] {
				out = append(out, name+": off")
			} else {
				out = append(out, name+": missing")
			}
			continue
		}
		t := f.Type()
		if f.Kind() == reflect.Interface {
			t = f.Elem().Type()
		}
		out = append(out, fmt.Sprintf("%s: %s", name, t))
	}
	out = append(out, a.built...)
	for name, p := range map[string]any{"Index": a.Index, "RunLog": a.RunLog, "Quotas": a.Quotas, "Metrics": a.Metrics} {
		if reflect.ValueOf(p).IsNil() {
			out = append(out, name+": missing")
		}
	}
	slices.Sort(out)
	return out
}
