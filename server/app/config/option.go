package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// configVar is one row of the option table (options.go): a setting's
// group, environment variable, flag (empty when the environment alone sets
// it), usage line for -h, the typed field it fills (str, num, flt, dur or
// bl; none for names read elsewhere), the rule its value must meet, its
// documentation for docs/configuration.md, and defDoc when the default is
// better described than by the field's value in Default.
type configVar struct {
	group, env, flag, usage string
	str                     *string
	num                     *int64
	flt                     *Float
	dur                     *Duration
	bl                      *bool
	rule                    *rule
	doc, defDoc             string
	secret                  bool // masked by -config-dump and in errors
}

// fills reports whether the row fills a field (the others document names
// read elsewhere, such as HEARTH_SECRET_KEY).
func (v configVar) fills() bool { return v.field() != nil }

// field returns the pointer to the field the row fills, or nil.
func (v configVar) field() any {
	switch {
	case v.str != nil:
		return v.str
	case v.num != nil:
		return v.num
	case v.flt != nil:
		return v.flt
	case v.dur != nil:
		return v.dur
	case v.bl != nil:
		return v.bl
	}
	return nil
}

// kind names the row's type, for docs/configuration.md and for values
// that do not parse.
func (v configVar) kind() string {
	switch {
	case v.num != nil:
		return "whole number"
	case v.flt != nil:
		return "number"
	case v.dur != nil:
		return "duration"
	case v.bl != nil:
		return "boolean"
	case v.rule != nil && v.rule.values != nil:
		return "enum"
	}
	return "text"
}

// value returns the field's value as text, as the flags, the environment
// and -config-dump spell it; ok is false for rows that fill no field.
func (v configVar) value() (string, bool) {
	switch {
	case v.str != nil:
		return *v.str, true
	case v.num != nil:
		return strconv.FormatInt(*v.num, 10), true
	case v.flt != nil:
		return strconv.FormatFloat(float64(*v.flt), 'g', -1, 64), true
	case v.dur != nil:
		return v.dur.String(), true
	case v.bl != nil:
		return strconv.FormatBool(*v.bl), true
	}
	return "", false
}

// must is the rule a value breaks: the row's rule, else its kind's.
func (v configVar) must() string {
	if v.rule != nil {
		return v.rule.text
	}
	switch v.kind() {
	case "boolean":
		return "true or false"
	case "text":
		return "text"
	}
	return "a " + v.kind()
}

// refusal is the one shape of a refused value: the setting as the user
// named it (environment variable, flag or file key), the rule, the value
// (masked for secrets).
func (v configVar) refusal(name, got string) error {
	got = mask(got, v.secret)
	return fmt.Errorf("%s: must be %s, got %q", name, v.must(), got)
}

// setVar parses val into the row's field; from names where val came from
// (HEARTH_X, -x or the file key). An empty value gives typed settings
// their default; an old boolean spelling works with a warning.
func (c *Config) setVar(v configVar, val, from string) error {
	text := strings.TrimSpace(val)
	if text == "" && (v.str == nil || v.kind() == "enum") {
		text = defaultText(v.env)
	}
	switch {
	case v.str != nil && v.kind() == "enum":
		*v.str = strings.ToLower(text)
	case v.str != nil:
		*v.str = val
	case v.num != nil:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return v.refusal(from, val)
		}
		*v.num = n
	case v.flt != nil:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return v.refusal(from, val)
		}
		*v.flt = Float(f)
	case v.dur != nil:
		d, err := parseDuration(text)
		if err != nil {
			return v.refusal(from, val)
		}
		*v.dur = Duration(d)
	case v.bl != nil:
		b, err := c.parseBool(v.env, text, val)
		if err != nil {
			return v.refusal(from, val)
		}
		*v.bl = b
	}
	if c.given == nil {
		c.given = map[string]givenValue{}
	}
	now, _ := v.value()
	c.given[v.env] = givenValue{name: from, text: val, parsed: now}
	return nil
}

// givenValue is how a setting was last given: under which name, as what
// text, and the value that text parsed to.
type givenValue struct{ name, text, parsed string }

// checkOptions checks every setting (or only those named) against its
// row's rule, naming each refused one as the user gave it.
func (c *Config) checkOptions(only ...string) error {
	var errs []error
	for _, v := range c.vars() {
		if v.rule == nil || !v.fills() || v.rule.ok(v) || len(only) > 0 && !slices.Contains(only, v.env) {
			continue
		}
		name, got := v.env, ""
		if s, ok := v.value(); ok {
			got = s
		}
		if g, ok := c.given[v.env]; ok && g.parsed == got {
			name, got = g.name, g.text
		}
		err := v.refusal(name, got)
		if v.rule.why != nil {
			err = fmt.Errorf("%w: %v", err, v.rule.why(*v.str))
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// defaultText is the setting's value in Default, as text.
func defaultText(env string) string {
	d := Default()
	for _, v := range d.vars() {
		if v.env == env {
			s, _ := v.value()
			return s
		}
	}
	return ""
}

// Float is a number setting. In the config file it is a JSON number, or a
// number in a string as earlier versions wrote it.
type Float float64

// UnmarshalJSON reads 0.5 or "0.5".
func (f *Float) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		*f = Float(v)
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Float(v)
	return nil
}

// Duration is a duration setting. In the config file it is a string such
// as "30s", "1h30m" or "7d" (parseDuration), written back in its
// readable form.
type Duration time.Duration

// String spells the duration readably: whole days as "7d", else Go's
// form without zero units ("1m", not "1m0s").
func (d Duration) String() string {
	td := time.Duration(d)
	if td >= 24*time.Hour && td%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(td/(24*time.Hour)), 10) + "d"
	}
	s := td.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// MarshalJSON writes the readable form as a JSON string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration string such as \"30s\" or \"7d\"")
	}
	v, err := parseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}
