// Package cli runs hearth's commands from one table (command.go): serve,
// backup, restore, migrate, the account, key, declarative and client verbs,
// version and help. The usage text is generated from that table.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hearth-dev/hearth/engine/parse/sandbox"
)

// Version is the build's version; main sets it from -ldflags "-X main.version=...".
var Version = "dev"

// usage lists every command of the table with its summary.
func usage() string {
	var b strings.Builder
	b.WriteString("hearth: a self-hosted, Langbase-compatible LLM application server\n\nUsage:\n")
	for _, c := range allCommands() {
		fmt.Fprintf(&b, "  %s\n        %s\n", strings.TrimSpace("hearth "+c.name+" "+c.args), c.summary)
	}
	b.WriteString(`
Every command takes -data (env HEARTH_DATA). Account and key commands work
on the data dir directly and refuse while a server holds it; stop the server
first, or use the HTTP API (/v1/keys) while it runs. In cluster mode
(HEARTH_DATABASE_URL set) they work on the shared database while the nodes
run. Run 'hearth help <command>' for a command's flags, 'hearth serve -h'
for the server's settings.
`)
	return b.String()
}

// usageError is a command line the command cannot parse (exit status 2).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// Run runs the command args name and returns the process's exit status.
func Run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	c := cliIO{getenv: getenv, stdin: os.Stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	if args[0] == sandbox.Subcommand { // hidden: the PDF parser child of a running server
		return sandbox.Serve(os.Stdin, stdout)
	}
	cmd, ok := lookupCommand(args)
	if !ok {
		fmt.Fprintf(stderr, "hearth: unknown command %q\n\n%s", strings.Join(args[:min(2, len(args))], " "), usage())
		return 2
	}
	if cmd.flags != nil {
		return runAdmin(cmd, args[cmd.words():], c)
	}
	err := cmd.run(args[cmd.words():], c)
	var uerr usageError
	var code exitCode
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp): // -h of backup and restore printed their flags
		return 0
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, &uerr):
		fmt.Fprintln(stderr, "hearth:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "hearth:", err)
		return 1
	}
}

// exitCode is a command's exit status when it has already said why.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// versionCmd prints the build's version.
func versionCmd(_ []string, c cliIO) error {
	fmt.Fprintln(c.stdout, "hearth", Version)
	return nil
}

// helpCmd prints the help of one command, or the usage of all of them.
func helpCmd(args []string, c cliIO) error {
	if len(args) == 0 {
		fmt.Fprint(c.stdout, usage())
		return nil
	}
	if cmd, ok := lookupCommand(args); ok && len(args) == cmd.words() {
		cmd.help(c.stdout, c)
		return nil
	}
	fmt.Fprintf(c.stderr, "hearth help: unknown command %q\n\n%s", strings.Join(args, " "), usage())
	return exitCode(2)
}
