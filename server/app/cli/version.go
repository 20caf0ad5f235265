package cli

import "fmt"

// Version is the build's version; main sets it from -ldflags "-X main.version=...".
var Version = "dev"

// versionCmd prints the build's version.
func versionCmd(_ []string, c cliIO) error {
	fmt.Fprintln(c.stdout, "hearth", Version)
	return nil
}
