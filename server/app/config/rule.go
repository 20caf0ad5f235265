package config

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// rule is what one setting's value must be: text completes "must be"
// in errors and docs, values are an enum's allowed values, ok tests the
// row's field, why (for text parsed by a function) says what is wrong,
// and bad is a value the rule refuses (for the tests).
type rule struct {
	text   string
	values []string
	ok     func(v configVar) bool
	why    func(s string) error
	bad    string
}

// intRange allows whole numbers from lo to hi.
func intRange(lo, hi int64) *rule {
	return &rule{
		text: fmt.Sprintf("a whole number between %d and %d", lo, hi),
		ok:   func(v configVar) bool { return *v.num >= lo && *v.num <= hi },
		bad:  strconv.FormatInt(hi+1, 10),
	}
}

// intMin allows whole numbers from lo up.
func intMin(lo int64) *rule {
	return &rule{
		text: fmt.Sprintf("a whole number of at least %d", lo),
		ok:   func(v configVar) bool { return *v.num >= lo },
		bad:  strconv.FormatInt(lo-1, 10),
	}
}

// durRange allows durations from lo to hi.
func durRange(lo, hi time.Duration) *rule {
	return &rule{
		text: fmt.Sprintf("a duration between %s and %s", Duration(lo), Duration(hi)),
		ok:   func(v configVar) bool { d := time.Duration(*v.dur); return d >= lo && d <= hi },
		bad:  Duration(hi + time.Second).String(),
	}
}

// floatRange allows numbers from lo to hi; above excludes lo itself.
func floatRange(lo, hi float64, above bool) *rule {
	r := &rule{
		text: fmt.Sprintf("a number between %g and %g", lo, hi),
		ok: func(v configVar) bool {
			f := float64(*v.flt)
			return f <= hi && (f > lo || !above && f == lo)
		},
		bad: strconv.FormatFloat(hi+1, 'g', -1, 64),
	}
	if above {
		r.text = fmt.Sprintf("a number above %g and at most %g", lo, hi)
	}
	return r
}

// oneOf allows the listed values ("" for an unset one that has a meaning).
func oneOf(values ...string) *rule {
	shown := make([]string, len(values))
	for i, s := range values {
		shown[i] = s
		if s == "" {
			shown[i] = "empty"
		}
	}
	text := "one of " + strings.Join(shown, ", ")
	if len(values) == 2 {
		text = shown[0] + " or " + shown[1]
	}
	return &rule{
		text: text, values: values, bad: "bogus",
		ok: func(v configVar) bool { return slices.Contains(values, *v.str) },
	}
}

// textRule allows the strings ok accepts; bad is one it refuses.
func textRule(text, bad string, ok func(string) bool) *rule {
	return &rule{text: text, bad: bad, ok: func(v configVar) bool { return ok(*v.str) }}
}

// textCheck allows the strings check accepts; its error follows the
// refusal, saying which part is wrong.
func textCheck(text, bad string, check func(string) error) *rule {
	return &rule{text: text, bad: bad, why: check, ok: func(v configVar) bool { return check(*v.str) == nil }}
}

// httpURL allows an absolute http(s) URL, or nothing.
func httpURL(example string) *rule {
	return textRule("an absolute http(s) URL such as "+example, "ftp://x", func(s string) bool {
		if s = strings.TrimSpace(s); s == "" {
			return true
		}
		u, err := url.Parse(s)
		return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
	})
}

// hostPort allows host:port with a port from 0 to 65535 (or nothing,
// when optional).
func hostPort(example string, optional bool) *rule {
	return textRule("host:port such as "+example+", the port 0-65535", "localhost", func(s string) bool {
		if s == "" {
			return optional
		}
		_, port, err := net.SplitHostPort(s)
		p, perr := strconv.Atoi(port)
		return err == nil && perr == nil && p >= 0 && p <= 65535
	})
}

// minLen allows strings of at least n characters, or nothing.
func minLen(n int) *rule {
	return textRule(fmt.Sprintf("text of at least %d characters", n), "short", func(s string) bool { return s == "" || len(s) >= n })
}

// notEmpty allows any string but the empty one.
var notEmpty = textRule("non-empty text", "", func(s string) bool { return s != "" })

// parsedInto is r for a structured text setting: its check parses the
// value once and keeps the result in *into (the zero value when refused),
// so Config.App copies it instead of parsing it again. parse must accept
// exactly what r accepts.
func parsedInto[T any](r *rule, into *T, parse func(string) (T, error)) *rule {
	k := *r
	k.ok = func(v configVar) bool {
		t, err := parse(*v.str)
		if err != nil {
			var zero T
			t = zero
		}
		*into = t
		return err == nil
	}
	return &k
}
