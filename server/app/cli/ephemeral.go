package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/hearth-dev/hearth/server/app/config"
)

// takeFlag reports whether args set the boolean flag name of hearth serve
// (-name, --name, -name=true) and returns them without it; the other flags
// are the config's.
func takeFlag(args []string, name string) ([]string, bool) {
	var rest []string
	on := false
	for _, a := range args {
		f, dashed := strings.CutPrefix(a, "-")
		f = strings.TrimPrefix(f, "-")
		switch {
		case dashed && (f == name || f == name+"=true"):
			on = true
		case dashed && f == name+"=false":
			on = false
		default:
			rest = append(rest, a)
		}
	}
	return rest, on
}

// makeEphemeral prepares cfg for an ephemeral server: a fresh temporary
// data dir, removed by the returned cleanup; a free port on 127.0.0.1;
// the public URL at that port. The admin key is HEARTH_ADMIN_KEY's, or
// generated when the first user is created.
func makeEphemeral(cfg *config.Config) (cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "hearth-ephemeral-*")
	if err != nil {
		return func() {}, fmt.Errorf("ephemeral data dir: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cleanup()
		return func() {}, fmt.Errorf("ephemeral port: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cfg.Data = dir
	cfg.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cfg.PublicURL = "http://" + cfg.Addr
	return cleanup, nil
}

// ephemeralReady is the one JSON line hearth serve --ephemeral writes on
// stdout once it listens.
type ephemeralReady struct {
	URL      string `json:"url"`
	AdminKey string `json:"admin_key"`
	Data     string `json:"data"`
	PID      int    `json:"pid"`
}

// announce writes the ready line.
func announce(w io.Writer, url, key, data string) error {
	b, err := json.Marshal(ephemeralReady{URL: url, AdminKey: key, Data: data, PID: os.Getpid()})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
