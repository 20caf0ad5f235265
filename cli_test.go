package main

import (
	"bytes"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

// flagNames lists the flags a FlagSet defines.
func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// TestEveryCommandRefusesFlagsItDoesNotTake: each admin verb has its own
// FlagSet, so a flag of another verb (users create --provider) is refused
// with a usage line and exit status 2 before the data dir is touched.
func TestEveryCommandRefusesFlagsItDoesNotTake(t *testing.T) {
	c := cliIO{getenv: envMap(nil), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	all := []string{"not-a-flag"}
	for _, cmd := range allCommands() {
		fs, _ := cmd.newFlagSet(c)
		for _, n := range flagNames(fs) {
			if !slices.Contains(all, n) {
				all = append(all, n)
			}
		}
	}
	data := t.TempDir() + "/never-created"
	for _, cmd := range allCommands() {
		fs, _ := cmd.newFlagSet(c)
		own := flagNames(fs)
		for _, f := range all {
			if slices.Contains(own, f) {
				continue
			}
			args := append(strings.Fields(cmd.name), "x", "--"+f, "v", "-data", data)
			var out, errOut bytes.Buffer
			code := run(args, envMap(nil), &out, &errOut)
			if code != 2 || !strings.Contains(errOut.String(), "flag provided but not defined: -"+f) ||
				!strings.Contains(errOut.String(), "usage: hearth "+cmd.name) {
				t.Errorf("%v: exit %d, stderr %q", args, code, errOut.String())
			}
		}
	}
	for _, args := range [][]string{{"serve", "--provider", "x"}, {"backup", "--user", "x"}, {"restore", "--owner", "x"}} {
		var out, errOut bytes.Buffer
		if code := run(args, envMap(nil), &out, &errOut); code == 0 || !strings.Contains(errOut.String(), "flag provided but not defined") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut.String())
		}
	}
}

// TestHelpShowsDefaultsAndEnv: hearth help <command> and hearth serve -h
// list every flag with its default and its environment variable.
func TestHelpShowsDefaultsAndEnv(t *testing.T) {
	for _, cmd := range allCommands() {
		var out bytes.Buffer
		if code := run(append([]string{"help"}, strings.Fields(cmd.name)...), envMap(nil), &out, io.Discard); code != 0 {
			t.Fatalf("help %s: exit %d", cmd.name, code)
		}
		// Admin commands open the data dir; client commands reach a
		// running server by its URL.
		flagLine := "data directory (env HEARTH_DATA) (default \"./hearth-data\")"
		if isClientCommand(cmd) {
			flagLine = "(env HEARTH_PUBLIC_URL) (default \"http://127.0.0.1:8080\")"
		}
		if !strings.Contains(out.String(), "usage: hearth "+cmd.name) || !strings.Contains(out.String(), flagLine) {
			t.Errorf("help %s:\n%s", cmd.name, out.String())
		}
	}
	var out bytes.Buffer
	if code := run([]string{"serve", "-h"}, envMap(nil), &out, io.Discard); code != 0 {
		t.Fatalf("serve -h: exit %d", code)
	}
	help := out.String()
	cfg := defaultConfig()
	for _, v := range cfg.vars() {
		if v.flag == "" {
			if !strings.Contains(help, v.env) {
				t.Errorf("serve -h does not name the env-only setting %s", v.env)
			}
			continue
		}
		i := strings.Index(help, "  -"+v.flag+" ")
		if i < 0 {
			t.Errorf("serve -h lacks -%s", v.flag)
			continue
		}
		entry, _, _ := strings.Cut(help[i+3:], "\n  -")
		if !strings.Contains(entry, "(env "+v.env+")") {
			t.Errorf("-%s: no env name in %q", v.flag, entry)
		}
		if v.str != nil && *v.str != "" && !strings.Contains(entry, "(default \""+*v.str+"\")") {
			t.Errorf("-%s: no default in %q", v.flag, entry)
		}
	}
	var again bytes.Buffer
	run([]string{"help", "serve"}, envMap(nil), &again, io.Discard)
	if again.String() != help {
		t.Error("hearth help serve differs from hearth serve -h")
	}
}

func isClientCommand(cmd command) bool {
	for _, c := range clientCommands {
		if c.name == cmd.name {
			return true
		}
	}
	return false
}
