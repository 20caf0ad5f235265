package config

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
)

// Load applies the config file, then the environment, then the flags, each
// overriding the one before. args are the subcommand's arguments.
func Load(name string, args []string, getenv func(string) string) (Config, *flag.FlagSet, error) {
	cfg := Default()
	cfg.sources, cfg.unfilled = map[string]string{}, map[string]string{}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	configPath := fs.String("config", getenv("HEARTH_CONFIG"), "JSON config file (env HEARTH_CONFIG)")
	flagVals := map[string]*string{}
	fs.SetOutput(io.Discard) // serve prints its own help and usage line
	for _, v := range cfg.vars() {
		if def, ok := v.value(); ok && v.flag != "" {
			// The default shows in -h; only flags given on the command line
			// (fs.Visit below) override the file and the environment.
			flagVals[v.flag] = fs.String(v.flag, def, v.usage+" (env "+v.env+")")
		}
	}
	for _, r := range renamed {
		flagVals[r.oldFlag] = fs.String(r.oldFlag, "", "deprecated: use -"+r.newFlag+" (env "+r.oldEnv+", deprecated: use "+r.newEnv+")")
	}
	if err := fs.Parse(args); err != nil {
		return cfg, fs, UsageError{err}
	}
	if *configPath != "" {
		if err := cfg.loadFile(*configPath); err != nil {
			return cfg, fs, err
		}
	}
	for _, v := range cfg.vars() {
		if val := getenv(v.env); val != "" && v.fills() {
			if err := v.set(val, v.env); err != nil {
				return cfg, fs, err
			}
			cfg.sources[v.env] = "env"
		}
	}
	if err := cfg.renameEnv(getenv); err != nil {
		return cfg, fs, err
	}
	cfg.Providers = providerEnv(getenv)
	for _, v := range cfg.vars() {
		if val := getenv(v.env); val != "" && !v.fills() {
			cfg.unfilled[v.env], cfg.sources[v.env] = val, "env"
		}
	}
	if *configPath != "" {
		cfg.unfilled["HEARTH_CONFIG"] = *configPath
	}
	var ferr error
	given := map[string]string{}
	fs.Visit(func(f *flag.Flag) {
		given[f.Name] = f.Value.String()
		for _, v := range cfg.vars() {
			if v.flag == f.Name && v.fills() && ferr == nil {
				ferr = v.set(*flagVals[f.Name], "-"+f.Name)
				cfg.sources[v.env] = "flag -" + f.Name
			}
		}
	})
	if ferr == nil {
		ferr = cfg.renameFlags(given)
	}
	return cfg, fs, ferr
}

// loadFile reads the JSON config file over the defaults; an unknown key is
// an error.
func (c *Config) loadFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	if b, err = c.renameFileKeys(path, b); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(b, &keys) == nil {
		byField := fileKeys(c)
		for _, v := range c.vars() {
			if k := byField[v.field()]; k != "" && keys[k] != nil {
				c.sources[v.env] = "file " + path
			}
		}
	}
	return nil
}

// fills reports whether the row fills a field (the others document names
// read elsewhere, such as HEARTH_SECRET_KEY).
func (v configVar) fills() bool { return v.str != nil || v.num != nil || v.flt != nil }

// field returns the pointer to the field the row fills, or nil.
func (v configVar) field() any {
	switch {
	case v.str != nil:
		return v.str
	case v.num != nil:
		return v.num
	case v.flt != nil:
		return v.flt
	}
	return nil
}

// value returns the field's value as text; ok is false for rows that fill
// no field.
func (v configVar) value() (string, bool) {
	switch {
	case v.str != nil:
		return *v.str, true
	case v.num != nil:
		return strconv.FormatInt(*v.num, 10), true
	case v.flt != nil:
		return strconv.FormatFloat(float64(*v.flt), 'g', -1, 64), true
	}
	return "", false
}

// set parses val into the row's field; from names where val came from.
func (v configVar) set(val, from string) error {
	if v.str != nil {
		*v.str = val
		return nil
	}
	if v.flt != nil {
		f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			return fmt.Errorf("%s: %q is not a number", from, val)
		}
		*v.flt = Float(f)
		return nil
	}
	n, err := strconv.ParseInt(val, 10, 64)
	if err != nil {
		return fmt.Errorf("%s: %q is not a whole number", from, val)
	}
	*v.num = n
	return nil
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

// fileKeys maps each field of c (through embedded settings structs) to its
// config file key, the field's JSON name.
func fileKeys(c *Config) map[any]string {
	out := map[any]string{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(v.Field(i))
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "" || name == "-" {
				continue
			}
			out[v.Field(i).Addr().Interface()] = name
		}
	}
	walk(reflect.ValueOf(c).Elem())
	return out
}
