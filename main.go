// Command hearth is a self-hosted, Langbase-compatible LLM application
// server in one binary; server/app/cli runs its commands.
package main

import (
	"os"

	"github.com/hearth-dev/hearth/server/app/cli"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	cli.Version = version
	os.Exit(cli.Run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}
