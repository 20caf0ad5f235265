// Package cli runs hearth's commands from one table (command.go): serve,
// backup, restore, migrate, the account, key, declarative and client verbs,
// version and help, each in a file named for it (users.go, keys.go, ...).
// The usage text is generated from that table.
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
