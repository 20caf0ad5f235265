package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/hearth-dev/hearth/server/app/config"
)

// cliIO is what a command reads and writes besides its arguments.
type cliIO struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// command is one row of the command table. A verb with flags defines
// them on its own FlagSet and returns the action, which gets the positional
// arguments; a flag the verb does not define is refused. A command with run
// instead parses its own arguments (serve, backup, restore, migrate,
// version, help) and usage prints its help.
type command struct {
	name    string // "users create"
	args    string // positional arguments, e.g. "<login>"
	summary string
	flags   func(fs *flag.FlagSet, c cliIO) func(pos []string) error
	run     func(args []string, c cliIO) error
	usage   func(c cliIO)
	aliases []string // other spellings of a one-word name ("-v", "--version")
}

// adminCommands are the account and key commands. They work on the data
// dir directly and refuse while a server holds it.
var adminCommands = []command{
	{name: "users create", args: "<login>", summary: "Create a user", flags: usersCreate},
	{name: "users list", args: "", summary: "List users and organizations", flags: usersList},
	{name: "orgs create", args: "<login> --owner <user>", summary: "Create an organization", flags: orgsCreate},
	{name: "orgs add-member", args: "<org> <user>", summary: "Add a user to an organization", flags: orgsAddMember},
	{name: "keys create", args: "--user <login> | --org <login> [--name <label>] [--expires <time|duration>] [--models <list>] [--pipes <list>] [--memories <list>] [--read-only]", summary: "Create an API key, optionally scoped", flags: keysCreate},
	{name: "keys list", args: "--user <login> | --org <login>", summary: "List API keys", flags: keysList},
	{name: "keys revoke", args: "<key-id>", summary: "Revoke an API key", flags: keysRevoke},
	{name: "keysets set", args: "--user <login> | --org <login> --provider <name> [--key <key>]", summary: "Store a provider key (read from standard input when --key is omitted)", flags: keysetsSet},
	{name: "keysets list", args: "--user <login> | --org <login>", summary: "List stored provider keys", flags: keysetsList},
	{name: "keysets remove", args: "--user <login> | --org <login> --provider <name>", summary: "Remove a stored provider key", flags: keysetsRemove},
}

// declarativeCommands are apply and export (docs/pipes-as-code.md).
// They build the application on the data dir without serving it, so
// every change goes through the engine services.
var declarativeCommands = []command{
	{name: "apply", args: "<dir> [--prune] [--dry-run]", summary: "Make the server's users, orgs, pipes, memories, keysets, model entries and deployments match the YAML/JSON files in <dir>", flags: applyCmd},
	{name: "export", args: "<dir>", summary: "Write the server's users, orgs, pipes, memories (with documents), keysets (without keys), model entries and deployments (without keys) to <dir>", flags: exportCmd},
}

// clientCommands talk to a running server over its public API.
var clientCommands = []command{
	{name: "eval", args: "--memory <name> --golden <qa.jsonl> [--setting label:key=value,...]...", summary: "Measure a memory's retrieval on a golden set (recall@k, MRR, nDCG@10) through a running server", flags: evalCmd},
	{name: "budgets list", args: "[--json]", summary: "List the owner's spending budgets with their use this period, from a running server", flags: budgetsList},
	{name: "budgets set", args: "--period day|month [--key-id <id>] [--usd <dollars>] [--tokens <n>]", summary: "Create or replace a spending budget on a running server", flags: budgetsSet},
	{name: "budgets delete", args: "<budget-id>", summary: "Delete a spending budget on a running server", flags: budgetsDelete},
	{name: "memory export", args: "<name> [--out <file>]", summary: "Export a memory as a pack (settings, documents, chunks, vectors) from a running server", flags: memoryExportCmd},
	{name: "memory import", args: "[--name <new>] [--replace] [--in <file>]", summary: "Import a memory pack into a running server, without embedding anything", flags: memoryImportCmd},
}

// allCommands is the command table: the server, its data commands, then
// the admin, declarative and client verbs. Usage and help come from it.
func allCommands() []command {
	out := []command{
		{name: "serve", args: "[flags]", summary: "Run the server (default :8080, data in ./hearth-data); -config-dump prints the effective settings",
			run: serveCmd, usage: func(c cliIO) { serveHelp(c.stdout, c.getenv) }},
		{name: "backup", args: "[-out file] [-url URL -key ADMIN_KEY]", summary: "Write a consistent zstd backup (online through the server if it runs)",
			run:   func(args []string, c cliIO) error { return backupCmd(args, c.getenv, c.stdout, c.stderr) },
			usage: func(c cliIO) { backupCmd([]string{"-h"}, c.getenv, c.stdout, c.stdout) }},
		{name: "restore", args: "-in file [-force]", summary: "Restore a backup into an empty, stopped data dir",
			run:   func(args []string, c cliIO) error { return restoreCmd(args, c.getenv, c.stderr) },
			usage: func(c cliIO) { restoreCmd([]string{"-h"}, c.getenv, c.stdout) }},
		{name: "migrate", args: "-to postgres://...", summary: "Copy a stopped data dir into an empty PostgreSQL database (cluster mode)",
			run:   func(args []string, c cliIO) error { return migrateCmd(args, c.getenv, c.stdout, c.stderr) },
			usage: func(c cliIO) { migrateCmd([]string{"-h"}, c.getenv, c.stdout, c.stdout) }},
	}
	out = append(out, adminCommands...)
	out = append(out, declarativeCommands...)
	out = append(out, clientCommands...)
	return append(out,
		command{name: "version", summary: "Print the version", aliases: []string{"-v", "--version"},
			run: versionCmd, usage: func(c cliIO) { fmt.Fprintln(c.stdout, "usage: hearth version") }},
		command{name: "help", args: "[command]", summary: "Print a command's flags, their defaults and env names", aliases: []string{"-h", "--help"},
			run: helpCmd, usage: func(c cliIO) { fmt.Fprintln(c.stdout, "usage: hearth help [command]") }},
	)
}

// lookupCommand returns the command named by the first one or two arguments.
func lookupCommand(args []string) (command, bool) {
	if len(args) == 0 {
		return command{}, false
	}
	for _, c := range allCommands() {
		if c.name == args[0] || (len(args) >= 2 && c.name == args[0]+" "+args[1]) || slices.Contains(c.aliases, args[0]) {
			return c, true
		}
	}
	return command{}, false
}

// words is the number of arguments the command's name takes.
func (cmd command) words() int { return len(strings.Fields(cmd.name)) }

// newFlagSet returns the verb's FlagSet with its flags defined; errors are
// reported by the caller, with the usage line.
func (cmd command) newFlagSet(c cliIO) (*flag.FlagSet, func([]string) error) {
	fs := flag.NewFlagSet("hearth "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs, cmd.flags(fs, c)
}

// usageLine is the one-line synopsis of the verb.
func (cmd command) usageLine() string {
	return strings.TrimSpace("usage: hearth " + cmd.name + " " + cmd.args)
}

// help prints the command's synopsis and its flags with their defaults.
func (cmd command) help(w io.Writer, c cliIO) {
	if cmd.flags == nil {
		cmd.usage(cliIO{getenv: c.getenv, stdin: c.stdin, stdout: w, stderr: c.stderr})
		return
	}
	fs, _ := cmd.newFlagSet(c)
	fmt.Fprintf(w, "%s\n\n%s.\n\nFlags:\n", cmd.usageLine(), cmd.summary)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// runAdmin parses the verb's flags (before or after its positional
// arguments) and runs it. A bad flag is a usage error (exit 2).
func runAdmin(cmd command, args []string, c cliIO) int {
	fs, action := cmd.newFlagSet(c)
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		cmd.help(c.stdout, c)
		return 0
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "hearth %s: %v\n%s (hearth help %s lists its flags)\n", cmd.name, err, cmd.usageLine(), cmd.name)
		return 2
	}
	if err := action(pos); err != nil {
		fmt.Fprintln(c.stderr, "hearth:", err)
		return 1
	}
	return 0
}

// dataFlag defines -data, defaulting to the configured data dir (config
// file and HEARTH_DATA).
func dataFlag(fs *flag.FlagSet, c cliIO) *string {
	def := config.Default().Data
	if cfg, _, err := config.Load("data", nil, c.getenv); err == nil {
		def = cfg.Data
	}
	return fs.String("data", def, "data directory (env HEARTH_DATA)")
}

// positional checks the number of positional arguments.
func positional(name string, pos []string, want ...string) error {
	if len(pos) < len(want) {
		return fmt.Errorf("%s: missing <%s>", name, want[len(pos)])
	}
	if len(pos) > len(want) {
		return fmt.Errorf("%s: unexpected argument %q", name, pos[len(want)])
	}
	return nil
}

// parseInterleaved parses flags that may come before or after positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// newTable returns a writer that aligns tab-separated columns.
func newTable(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0) }

// envOr returns the environment variable name, or def when it is unset.
func envOr(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}
