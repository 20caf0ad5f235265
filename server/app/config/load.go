package config

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
)

// Load applies the config file, then the environment, then the flags, each
// overriding the one before, parsing each value by its row's type; a value
// that does not parse is refused naming the setting as given. Validate
// then checks the rules. args are the subcommand's arguments.
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
			if err := cfg.setVar(v, val, v.env); err != nil {
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
				ferr = cfg.setVar(v, *flagVals[f.Name], "-"+f.Name)
				cfg.sources[v.env] = "flag -" + f.Name
			}
		}
	})
	if ferr == nil {
		ferr = cfg.renameFlags(given)
	}
	return cfg, fs, ferr
}

// loadFile reads the JSON config file over the defaults: each setting of
// the table is parsed as its environment variable would be, naming its
// key when refused; the other keys decode strictly (an unknown key is an
// error).
func (c *Config) loadFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	if b, err = c.renameFileKeys(path, b); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	byField := fileKeys(c)
	for _, v := range c.vars() {
		k := byField[v.field()]
		raw, ok := keys[k]
		if k == "" || !ok {
			continue
		}
		delete(keys, k)
		if string(raw) == "null" {
			continue
		}
		text, err := fileText(v, k, raw)
		if err == nil {
			err = c.setVar(v, text, k)
		}
		if err != nil {
			return fmt.Errorf("config file %s: %w", path, err)
		}
		c.sources[v.env] = "file " + path
	}
	rest, _ := json.Marshal(keys)
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	return nil
}

// fileText is a file value as the environment would spell it: a JSON
// string's text, or for numbers and booleans the literal itself; key
// names the value when it is neither.
func fileText(v configVar, key string, raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var lit any
	if err := json.Unmarshal(raw, &lit); err == nil && v.str == nil {
		switch lit.(type) {
		case float64, bool:
			return string(raw), nil
		}
	}
	return "", v.refusal(key, string(raw))
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
