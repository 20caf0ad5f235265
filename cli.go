package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/blob/postgres"
	"github.com/hearth-dev/hearth/engine"
)

// cliIO is what a command reads and writes besides its arguments.
type cliIO struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// command is one verb of the admin CLI. flags defines the verb's flags on
// its own FlagSet and returns the action, which gets the positional
// arguments; a flag the verb does not define is refused.
type command struct {
	name    string // "users create"
	args    string // positional arguments, e.g. "<login>"
	summary string
	flags   func(fs *flag.FlagSet, c cliIO) func(pos []string) error
}

// adminCommands are the account and key commands. They work on the data
// dir directly and refuse while a server holds it.
var adminCommands = []command{
	{"users create", "<login>", "Create a user", usersCreate},
	{"users list", "", "List users and organizations", usersList},
	{"orgs create", "<login> --owner <user>", "Create an organization", orgsCreate},
	{"orgs add-member", "<org> <user>", "Add a user to an organization", orgsAddMember},
	{"keys create", "--user <login> | --org <login> [--name <label>] [--expires <time|duration>] [--models <list>] [--pipes <list>] [--memories <list>] [--read-only]", "Create an API key, optionally scoped", keysCreate},
	{"keys list", "--user <login> | --org <login>", "List API keys", keysList},
	{"keys revoke", "<key-id>", "Revoke an API key", keysRevoke},
	{"keysets set", "--user <login> | --org <login> --provider <name> [--key <key>]", "Store a provider key (read from standard input when --key is omitted)", keysetsSet},
	{"keysets list", "--user <login> | --org <login>", "List stored provider keys", keysetsList},
	{"keysets remove", "--user <login> | --org <login> --provider <name>", "Remove a stored provider key", keysetsRemove},
}

// clientCommands talk to a running server over its public API.
var clientCommands = []command{
	{"eval", "--memory <name> --golden <qa.jsonl> [--setting label:key=value,...]...", "Measure a memory's retrieval on a golden set (recall@k, MRR, nDCG@10) through a running server", evalCmd},
	{"budgets list", "[--json]", "List the owner's spending budgets with their use this period, from a running server", budgetsList},
	{"budgets set", "--period day|month [--key-id <id>] [--usd <dollars>] [--tokens <n>]", "Create or replace a spending budget on a running server", budgetsSet},
	{"budgets delete", "<budget-id>", "Delete a spending budget on a running server", budgetsDelete},
	{"memory export", "<name> [--out <file>]", "Export a memory as a pack (settings, documents, chunks, vectors) from a running server", memoryExportCmd},
	{"memory import", "[--name <new>] [--replace] [--in <file>]", "Import a memory pack into a running server, without embedding anything", memoryImportCmd},
}

// allCommands is every command of the table: admin, declarative and client verbs.
func allCommands() []command {
	out := append([]command{}, adminCommands...)
	out = append(out, declarativeCommands...)
	return append(out, clientCommands...)
}

// findAdmin returns the command named by the first one or two arguments.
func findAdmin(args []string) (command, bool) {
	if len(args) == 0 {
		return command{}, false
	}
	for _, c := range allCommands() {
		if c.name == args[0] || (len(args) >= 2 && c.name == args[0]+" "+args[1]) {
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

// help prints the verb's synopsis and its flags with their defaults.
func (cmd command) help(w io.Writer, c cliIO) {
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
	def := defaultConfig().Data
	if cfg, _, err := loadConfig("data", nil, c.getenv); err == nil {
		def = cfg.Data
	}
	return fs.String("data", def, "data directory (env HEARTH_DATA)")
}

// withAccounts opens the store for the duration of fn: the data dir's, or
// in cluster mode (HEARTH_DATABASE_URL) the shared PostgreSQL database,
// which the running nodes keep serving meanwhile (every node reads keys and
// accounts from the database on each request, so a change shows at once).
func withAccounts(c cliIO, data string, fn func(ctx context.Context, store engine.Store, acc *engine.Accounts) error) error {
	ctx := context.Background()
	if u := c.getenv("HEARTH_DATABASE_URL"); u != "" {
		store := postgres.New(postgres.Options{URL: u})
		if err := store.Open(ctx); err != nil {
			return err
		}
		defer store.Close()
		return fn(ctx, store, engine.NewAccounts(store))
	}
	opts, err := storeOptions(data, c.getenv)
	if err != nil {
		return err
	}
	store := blob.New(opts)
	if err := store.Open(); err != nil {
		if errors.Is(err, blob.ErrLocked) {
			return fmt.Errorf("%w: stop the server first, or manage keys over HTTP (/v1/keys) while it runs", err)
		}
		return err
	}
	defer store.Close()
	return fn(ctx, store, engine.NewAccounts(store))
}

// adminSecret is the secret of the admin commands: the data dir's, or in
// cluster mode HEARTH_SECRET_KEY, which is then required (a key file made up
// on the spot would encrypt keysets no node can read).
func adminSecret(c cliIO, data string) ([]byte, error) {
	if c.getenv("HEARTH_DATABASE_URL") != "" && strings.TrimSpace(c.getenv("HEARTH_SECRET_KEY")) == "" {
		return nil, errors.New("HEARTH_SECRET_KEY is required with HEARTH_DATABASE_URL: use the key the cluster's nodes run with")
	}
	return loadSecret(data, c.getenv)
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

// ownerFlags are --user and --org: exactly one names the owner.
type ownerFlags struct{ user, org *string }

func defineOwner(fs *flag.FlagSet) ownerFlags {
	return ownerFlags{fs.String("user", "", "user login"), fs.String("org", "", "organization login")}
}

// login checks that exactly one of --user and --org is given and names an
// account of that kind.
func (o ownerFlags) login(ctx context.Context, name string, acc *engine.Accounts) (string, error) {
	if (*o.user == "") == (*o.org == "") {
		return "", fmt.Errorf("%s: give exactly one of --user <login> or --org <login>", name)
	}
	login, want := *o.user, engine.AccountUser
	if login == "" {
		login, want = *o.org, engine.AccountOrg
	}
	a, err := acc.Get(ctx, login)
	if err != nil {
		return "", err
	}
	if a.Kind != want {
		return "", fmt.Errorf("%s is a %s, not a %s", login, a.Kind, want)
	}
	return login, nil
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
