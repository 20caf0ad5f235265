package cli

import (
	"bytes"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/app/config"
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
		if cmd.flags == nil {
			continue // serve and the data commands parse their own flags (tested below)
		}
		fs, _ := cmd.newFlagSet(c)
		for _, n := range flagNames(fs) {
			if !slices.Contains(all, n) {
				all = append(all, n)
			}
		}
	}
	data := t.TempDir() + "/never-created"
	for _, cmd := range allCommands() {
		if cmd.flags == nil {
			continue // serve and the data commands parse their own flags (tested below)
		}
		fs, _ := cmd.newFlagSet(c)
		own := flagNames(fs)
		for _, f := range all {
			if slices.Contains(own, f) {
				continue
			}
			args := append(strings.Fields(cmd.name), "x", "--"+f, "v", "-data", data)
			var out, errOut bytes.Buffer
			code := Run(args, envMap(nil), &out, &errOut)
			if code != 2 || !strings.Contains(errOut.String(), "flag provided but not defined: -"+f) ||
				!strings.Contains(errOut.String(), "usage: hearth "+cmd.name) {
				t.Errorf("%v: exit %d, stderr %q", args, code, errOut.String())
			}
		}
	}
	for _, args := range [][]string{{"serve", "--provider", "x"}, {"backup", "--user", "x"}, {"restore", "--owner", "x"}} {
		var out, errOut bytes.Buffer
		if code := Run(args, envMap(nil), &out, &errOut); code == 0 || !strings.Contains(errOut.String(), "flag provided but not defined") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut.String())
		}
	}
}

// TestHelpShowsDefaultsAndEnv: hearth help <command> and hearth serve -h
// list every flag with its default and its environment variable.
func TestHelpShowsDefaultsAndEnv(t *testing.T) {
	for _, cmd := range allCommands() {
		if cmd.flags == nil {
			continue // serve and the data commands parse their own flags (tested below)
		}
		var out bytes.Buffer
		if code := Run(append([]string{"help"}, strings.Fields(cmd.name)...), envMap(nil), &out, io.Discard); code != 0 {
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
	if code := Run([]string{"serve", "-h"}, envMap(nil), &out, io.Discard); code != 0 {
		t.Fatalf("serve -h: exit %d", code)
	}
	help := out.String()
	for _, v := range config.Options() {
		if v.Flag == "" {
			if !strings.Contains(help, v.Env) {
				t.Errorf("serve -h does not name the env-only setting %s", v.Env)
			}
			continue
		}
		i := strings.Index(help, "  -"+v.Flag+" ")
		if i < 0 {
			t.Errorf("serve -h lacks -%s", v.Flag)
			continue
		}
		entry, _, _ := strings.Cut(help[i+3:], "\n  -")
		if !strings.Contains(entry, "(env "+v.Env+")") {
			t.Errorf("-%s: no env name in %q", v.Flag, entry)
		}
		if v.Default != "" && !strings.Contains(entry, "(default \""+v.Default+"\")") {
			t.Errorf("-%s: no default in %q", v.Flag, entry)
		}
	}
	var again bytes.Buffer
	Run([]string{"help", "serve"}, envMap(nil), &again, io.Discard)
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

// TestUsageComesFromTheTable: hearth with no command, and hearth help, list
// every command of the table with its summary, and help <command> answers
// for each of them.
func TestUsageComesFromTheTable(t *testing.T) {
	var none, helpOut bytes.Buffer
	if code := Run(nil, envMap(nil), io.Discard, &none); code != 2 {
		t.Fatalf("no command: exit %d, want 2", code)
	}
	if code := Run([]string{"help"}, envMap(nil), &helpOut, io.Discard); code != 0 || helpOut.String() != none.String() {
		t.Fatalf("help: exit %d, output differs from the bare usage", code)
	}
	for _, cmd := range allCommands() {
		line := strings.TrimSpace("hearth " + cmd.name + " " + cmd.args)
		if !strings.Contains(none.String(), "  "+line+"\n        "+cmd.summary+"\n") {
			t.Errorf("usage lacks %q with its summary", line)
		}
		var out bytes.Buffer
		if code := Run(append([]string{"help"}, strings.Fields(cmd.name)...), envMap(nil), &out, io.Discard); code != 0 || !strings.Contains(strings.ToLower(out.String()), "usage") {
			t.Errorf("help %s: exit %d, %q", cmd.name, code, out.String())
		}
	}
	for _, alias := range []string{"-v", "--version", "version"} {
		var out bytes.Buffer
		if code := Run([]string{alias}, envMap(nil), &out, io.Discard); code != 0 || out.String() != "hearth "+Version+"\n" {
			t.Errorf("%s: exit %d, %q", alias, code, out.String())
		}
	}
	var errOut bytes.Buffer
	if code := Run([]string{"help", "nope"}, envMap(nil), io.Discard, &errOut); code != 2 || !strings.Contains(errOut.String(), `unknown command "nope"`) {
		t.Errorf("help nope: exit %d, %q", code, errOut.String())
	}
}
