package cli

import (
	"fmt"
	"strings"
)

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
